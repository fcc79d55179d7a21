"""Tables for the terminal and for files (Markdown, CSV)."""

from __future__ import annotations

import csv
import os
from typing import Sequence

from gracr.errors import GracrError


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
        with open(path, "w", newline="", encoding="utf-8") as handle:
            if path.endswith(".csv"):
                writer = csv.writer(handle)
                writer.writerow(headers)
                writer.writerows(rows)
            else:
                handle.write(render_table(headers, rows) + "\n")
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None
