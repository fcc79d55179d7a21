"""Formulas back to `.gml` text, with only the parentheses the precedence needs.

`parse(show_formula(f))` gives back `f` (a property test checks it).
"""

from __future__ import annotations

from gracr.dsl import ir
from gracr.dsl.ir import Formula

# Binding strength, loosest first, as in the grammar.
_IFF, _IMPLIES, _OR, _AND, _PREFIX = 1, 2, 3, 4, 5


def _level(formula: Formula) -> int:
    match formula:
        case ir.Iff():
            return _IFF
        case ir.Implies():
            return _IMPLIES
        case ir.Or():
            return _OR
        case ir.And():
            return _AND
    return _PREFIX


def _wrap(formula: Formula, at_least: int) -> str:
    text = show_formula(formula)
    return f"({text})" if _level(formula) < at_least else text


def _filter(relations: ir.Relations) -> str:
    return "" if relations is None else "{" + ", ".join(relations) + "}"


def show_formula(formula: Formula) -> str:
    """The `.gml` text of a surface formula."""
    match formula:
        case ir.Top():
            return "true"
        case ir.Bottom():
            return "false"
        case ir.Color(name):
            return name
        case ir.Attribute(family, value):
            return f"{family}={value}"
        case ir.Not(arg):
            return "!" + _wrap(arg, _PREFIX)
        case ir.And(a, b):
            return f"{_wrap(a, _AND)} & {_wrap(b, _PREFIX)}"
        case ir.Or(a, b):
            return f"{_wrap(a, _OR)} | {_wrap(b, _AND)}"
        case ir.Implies(a, b):
            return f"{_wrap(a, _OR)} -> {_wrap(b, _IMPLIES)}"
        case ir.Iff(a, b):
            return f"{_wrap(a, _IFF)} <-> {_wrap(b, _IMPLIES)}"
        case ir.AtLeast(k, arg, relations):
            return f"<{k}>{_filter(relations)} {_wrap(arg, _PREFIX)}"
        case ir.AtMost(k, arg, relations):
            return f"atmost{_filter(relations)} {k} {_wrap(arg, _PREFIX)}"
        case ir.Exactly(k, arg, relations):
            return f"exactly{_filter(relations)} {k} {_wrap(arg, _PREFIX)}"
        case ir.Between(low, high, arg, relations):
            return f"between{_filter(relations)} {low} {high} {_wrap(arg, _PREFIX)}"
        case ir.Box(arg, relations):
            return f"[]{_filter(relations)} {_wrap(arg, _PREFIX)}"
        case ir.More(a, b, relations):
            return f"more{_filter(relations)}({show_formula(a)}, {show_formula(b)})"
        case ir.Same(a, b, relations):
            return f"same{_filter(relations)}({show_formula(a)}, {show_formula(b)})"
        case ir.Exists(low, high, arg):
            bound = "inf" if high is None else str(high)
            prefix = "exists" if (low, high) == (1, None) else f"exists[{low}, {bound}]"
            return f"{prefix} {_wrap(arg, _PREFIX)}"
    raise TypeError(f"not a formula: {formula!r}")
