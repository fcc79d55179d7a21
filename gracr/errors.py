"""The errors gracr raises for bad input. The CLI prints them and exits with status 2."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A region of source text: 1-based line and column, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def quoted(text: str) -> str:
    """`text` in quotes for a message: cut when long, invisible characters by code point
    (a name in a hostile file can be a megabyte long, or hold a right-to-left override)."""
    shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text[:40])
    return f"'{shown}…'" if len(text) > 40 else f"'{shown}'"


class GracrError(Exception):
    """Bad input to gracr: a message for the user, never a traceback."""


@dataclass(frozen=True)
class Problem:
    """One problem found in a `.gml` source, at its span."""

    span: Span
    message: str


def render_problem(problem: Problem, source: str) -> str:
    """`file:line:col: message`, the source line, and a caret underline."""
    span = problem.span
    header = f"{span}: {problem.message}"
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return header
    text = lines[span.line - 1].expandtabs(1)
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    else:
        width = max(1, len(text) - span.column + 1)
    start = span.column - 1
    if len(text) > _SHOWN_LINE:
        # A long line (generated text, a whole file on one line) is shown around the
        # place only, so that one message stays a few lines whatever the input.
        first = max(0, start - _SHOWN_LINE // 3)
        last = first + _SHOWN_LINE
        shown = ("…" if first else "") + text[first:last] + ("…" if last < len(text) else "")
        start = start - first + (1 if first else 0)
        width = min(width, len(shown) - start)
        text = shown
    caret = " " * start + "^" * max(1, width)
    return f"{header}\n    {text}\n    {caret}"


# The most characters of a source line an error message shows.
_SHOWN_LINE = 100


class GmlError(GracrError):
    """Every problem found in a `.gml` source, each with its place, raised at once."""

    def __init__(self, problems: list[Problem], source: str) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__("\n".join(render_problem(p, source) for p in self.problems))


class GraphError(GracrError):
    """A graph that cannot be read or does not fit the program (e.g. an unknown colour)."""


class ModelFileError(GracrError):
    """A compiled-model file that cannot be read."""


def os_error_message(error: OSError, path: str) -> str:
    """What went wrong reading or writing `path`, naming the part at fault: the folder
    that does not exist rather than the file."""
    if isinstance(error, FileNotFoundError):
        folder = os.path.dirname(path)
        if folder and not os.path.isdir(folder):
            return f"{path}: no such folder {folder}"
        return f"{path}: no such file"
    if isinstance(error, IsADirectoryError):
        return f"{path}: is a folder, not a file"
    if isinstance(error, NotADirectoryError):
        return f"{path}: a part of this path is a file, not a folder"
    return f"{path}: {error.strerror or error}"
