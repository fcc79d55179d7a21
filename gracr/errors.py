"""The errors gracr raises for bad input. The CLI prints them and exits with status 2."""

from __future__ import annotations

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
    caret = " " * (span.column - 1) + "^" * max(1, width)
    return f"{header}\n    {text}\n    {caret}"


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
