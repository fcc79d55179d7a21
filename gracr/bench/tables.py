"""Tables for the terminal and for files (Markdown, CSV)."""

from __future__ import annotations

import csv
import os
from typing import Any, Iterator, Sequence

from gracr.data.json_text import JsonError, parse_json
from gracr.errors import GracrError
from gracr.files import atomic_writer


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, aligned so that it also reads well in a terminal."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join(lines)


def write_table(path: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Write `.csv` as CSV, anything else as Markdown."""
    try:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        with atomic_writer(path) as handle:
            if path.endswith(".csv"):
                writer = csv.writer(handle)
                writer.writerow(headers)
                writer.writerows(rows)
            else:
                handle.write(render_table(headers, rows) + "\n")
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                markdown: str | None = None) -> None:
    """Print `title` and the table in the terminal; also write it to `markdown` if given
    (the benchmark scripts' `--markdown FILE`)."""
    print(f"\n{title}\n")
    print(render_table(headers, rows))
    if markdown:
        write_table(markdown, headers, rows)


def read_json_lines(path: str | os.PathLike[str], end: int | None = None
                    ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON Lines file (results, figure logs), with their line numbers;
    blank lines are skipped, anything else that is not a JSON object is a clear error. With
    `end`, only the lines before that byte offset are read."""
    try:
        with open(path, "rb") as handle:
            offset = 0
            for number, raw in enumerate(handle, start=1):
                if end is not None and offset >= end:
                    return
                offset += len(raw)
                place = f"{os.fspath(path)}:{number}"
                try:
                    line = raw.decode("utf-8").strip()
                except UnicodeDecodeError:
                    raise GracrError(f"{place}: not UTF-8 text") from None
                if not line:
                    continue
                try:
                    obj = parse_json(line)
                except JsonError as error:
                    raise GracrError(f"{place}: not a JSON line ({error.message}"
                                     + (f" at column {error.column})" if error.line else ")")
                                     ) from None
                if not isinstance(obj, dict):
                    raise GracrError(f"{place}: not a JSON object")
                yield number, obj
    except OSError as error:
        raise GracrError(f"{os.fspath(path)}: cannot read ({error.strerror})") from None
