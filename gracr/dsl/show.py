"""Formulas back to `.gml` text, with only the parentheses the precedence needs.

`parse(show_formula(f))` gives back `f` (a property test checks it).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Sequence, Union

from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.dsl.operators import COMPARE, CONNECTIVES, PREFIX, Operators


def _level(formula: Formula, operators: Operators) -> int:
    connective = operators.get(type(formula))
    if connective is not None:
        return connective.level
    return COMPARE if isinstance(formula, ir.Threshold | ir.CountCompare) else PREFIX


def decimal(value: Fraction) -> str:
    """The exact decimal text of a rational with a finite decimal expansion (every number
    a comparison can hold: decimals, their sums and products), else `p/q`."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    for _ in range(64):
        if not rest:
            break
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits += str(digit)
    if rest:
        return f"{sign}{value.numerator}/{value.denominator}"
    return f"{sign}{whole}" + (f".{digits}" if digits else "")


def _linear(coefficients: Sequence[Fraction], terms: Sequence[list[_Piece]]) -> list[_Piece]:
    """`2 * a - b + 0.5 * count(f)`: each term with its coefficient, signs folded."""
    pieces: list[_Piece] = []
    for index, (c, term) in enumerate(zip(coefficients, terms)):
        if index:
            pieces.append(" - " if c < 0 else " + ")
        elif c < 0:
            pieces.append("-")
        magnitude = abs(c)
        if magnitude != 1:
            pieces.append(f"{decimal(magnitude)} * ")
        pieces.extend(term)
    return pieces


def _filter(relations: ir.Relations) -> str:
    return "" if relations is None else "{" + ", ".join(relations) + "}"


# One piece of text: a literal, or a subformula to print in parentheses when it binds
# more loosely than the level given (`None`: never).
_Piece = Union[str, tuple[Formula, Optional[int]]]


def _pieces(formula: Formula, operators: Operators) -> list[_Piece]:
    """The text of `formula` one level down: literals and the subformulas in between."""
    connective = operators.get(type(formula))
    if connective is not None:
        arguments = [(arg, side) for arg, side in zip(ir.children(formula), connective.sides)]
        if connective.arity == 1:
            return [connective.symbol, arguments[0]]
        return [arguments[0], connective.symbol, arguments[1]]
    match formula:
        case ir.Top():
            return ["true"]
        case ir.Bottom():
            return ["false"]
        case ir.Color(name):
            return [name]
        case ir.Attribute(family, value):
            return [f"{family}={value}"]
        case ir.Threshold(features, _, coefficients, op, bound):
            return [*_linear(coefficients, [[name] for name in features]),
                    f" {op} {decimal(bound)}"]
        case ir.CountCompare(coefficients, args, op, bound):
            counted: list[list[_Piece]] = [["count(", (arg, None), ")"] for arg in args]
            return [*_linear(coefficients, counted), f" {op} {decimal(bound)}"]
        case ir.AtLeast(k, arg, relations):
            return [f"<{k}>{_filter(relations)} ", (arg, PREFIX)]
        case ir.AtMost(k, arg, relations):
            return [f"atmost{_filter(relations)} {k} ", (arg, PREFIX)]
        case ir.Exactly(k, arg, relations):
            return [f"exactly{_filter(relations)} {k} ", (arg, PREFIX)]
        case ir.Between(low, high, arg, relations):
            return [f"between{_filter(relations)} {low} {high} ", (arg, PREFIX)]
        case ir.Box(arg, relations):
            return [f"[]{_filter(relations)} ", (arg, PREFIX)]
        case ir.More(a, b, relations):
            return [f"more{_filter(relations)}(", (a, None), ", ", (b, None), ")"]
        case ir.Same(a, b, relations):
            return [f"same{_filter(relations)}(", (a, None), ", ", (b, None), ")"]
        case ir.Exists(low, high, arg):
            upper = "inf" if high is None else str(high)
            prefix = "exists" if (low, high) == (1, None) else f"exists[{low}, {upper}]"
            return [f"{prefix} ", (arg, PREFIX)]
    raise TypeError(f"not a formula: {formula!r}")


def show_formula(formula: Formula, max_chars: int | None = None,
                 operators: Operators = CONNECTIVES) -> str:
    """The `.gml` text of a surface formula.

    Printed with an explicit stack, so any depth prints. A formula that shares
    subformulas (through `let`) can have a text exponentially longer than itself:
    with `max_chars`, the text stops there and ends in `…`.
    """
    out: list[str] = []
    length = 0
    stack: list[_Piece] = [(formula, None)]
    while stack:
        piece = stack.pop()
        if isinstance(piece, str):
            out.append(piece)
            length += len(piece)
            if max_chars is not None and length > max_chars:
                return "".join(out)[:max_chars] + "…"
            continue
        sub, at_least = piece
        parts = _pieces(sub, operators)
        if at_least is not None and _level(sub, operators) < at_least:
            parts = ["(", *parts, ")"]
        stack.extend(reversed(parts))
    return "".join(out)
