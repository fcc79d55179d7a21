"""The syntax of numeric features: `features` lines, threshold atoms, linear count sentences.

Each refused program is checked by the exact message and the `line:col` of every
problem the checker reports; each accepted comparison by the literal IR it normalises
to (`_Checker.comparison` moves everything to the left side: `Σ c_k term_k op bound`,
bound = right constant − left constant, terms in declaration order for features and in
order of first appearance for counts, zero coefficients dropped).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import gracr
from gracr.dsl import ir
from gracr.dsl.show import show_formula
from gracr.errors import GmlError

F = Fraction

EQUALITY = ("a threshold atom compares with '>', '>=', '<' or '<=' (equality of real-valued "
            "features is not robust)")
NUMBER_NOT_FORMULA = ("is a number, not a formula: compare it (e.g. 'ck - cd8 > 0.5', "
                      "'count(f) > 0.3 * count(g)')")


def problems(text: str) -> list[tuple[int, int, str]]:
    """Every problem `gracr.parse` reports on `text`: (line, column, message)."""
    with pytest.raises(GmlError) as caught:
        gracr.parse(text)
    return [(p.span.line, p.span.column, p.message) for p in caught.value.problems]


REFUSED = [
    ("features a, b\nfeatures c\nclassify a > 0",
     [(2, 1, "a second 'features' line: the numeric features are declared once")]),
    ("features a, a\nclassify a > 0",
     [(1, 13, "feature 'a' is listed twice")]),
    ("colors red\nfeatures red, b\nclassify b > 0",
     [(2, 10, "'red' is a colour and cannot also be a numeric feature")]),
    ("attribute charge = neg, pos\nfeatures charge\nclassify neg",
     [(2, 10, "'charge' is an attribute family and cannot also be a numeric feature")]),
    ("attribute charge = neg, pos\nfeatures pos, b\nclassify b > 0",
     [(2, 10, "'pos' is a value of 'charge' and cannot also be a numeric feature")]),
    ("features ck, cd8\nclassify ck - cd4 > 0.5",
     [(2, 15, "unknown numeric feature 'cd4' (the 'features' line declares: ck, cd8); "
              "did you mean 'cd8'?")]),
    ("colors red\nclassify ck > 0.5",
     [(2, 10, "unknown numeric feature 'ck' (the 'features' line declares: none)")]),
    # Equality is refused for features, whatever follows the `=`.
    ("features cd8\nclassify cd8 = 1", [(2, 10, EQUALITY)]),
    ("features a\nclassify 0.5 = a", [(2, 10, EQUALITY)]),
    ("features a, b\nclassify (a - b) = 0.5", [(2, 10, EQUALITY)]),
    ("features a\nclassify a >= 0.5 & a = 2", [(2, 21, EQUALITY)]),
    ("features a, b\nclassify a * b > 1",
     [(2, 10, "'a * b' multiplies two variables: a comparison is linear, so one factor "
              "must be a number")]),
    ("colors x, y\nclassify count(x) * count(y) > 1",
     [(2, 10, "'count(x) * count(y)' multiplies two variables: a comparison is linear, so "
              "one factor must be a number")]),
    ("features a\ncolors red\nclassify count(red) > a",
     [(3, 10, "'count(red) > a' mixes numeric features (values at a node) with counts "
              "(values of the whole graph)")]),
    ("features a\nclassify 1 > 2",
     [(2, 10, "'1 > 2' compares constants: a comparison needs a numeric feature or a "
              "count(...)")]),
    ("features a\nclassify a - a > 1",
     [(2, 10, "'a - a > 1' compares constants: a comparison needs a numeric feature or a "
              "count(...)")]),
    ("colors red\nclassify 0 * count(red) > 1",
     [(2, 10, "'0 * count(red) > 1' compares constants: a comparison needs a numeric "
              "feature or a count(...)")]),
    ("features cd8\nclassify cd8",
     [(2, 10, "'cd8' is a numeric feature, not a formula: compare it (e.g. 'cd8 > 0.5')")]),
    ("features cd8\ncolors red\nclassify red & <1> cd8",
     [(3, 20, "'cd8' is a numeric feature, not a formula: compare it (e.g. 'cd8 > 0.5')")]),
    ("features cd8\nclassify 0.5", [(2, 10, f"'0.5' {NUMBER_NOT_FORMULA}")]),
    ("colors red\nclassify red & 2", [(2, 16, f"'2' {NUMBER_NOT_FORMULA}")]),
    ("colors red\nclassify count(red)", [(2, 10, f"'count(red)' {NUMBER_NOT_FORMULA}")]),
    ("colors red\nclassify count(exists red) > 1",
     [(2, 16, "a graph sentence cannot appear under 'count'; it needs a node formula")]),
    ("colors red\nclassify atleast 1.5 red",
     [(2, 18, "a count must be a whole number (got 1.5)")]),
    ("colors red\nfeatures a\nclassify red + a > 0",
     [(3, 10, "'red' is a node formula, not a number: count(red) is the number of nodes "
              "that satisfy it")]),
    ("colors red\nfeatures a\nclassify count(red) > 1 & a > 0",
     [(3, 10, "a node formula and a graph sentence cannot be combined: 'a > 0' is "
              "evaluated at a node, 'count(red) > 1' on the whole graph")]),
    ("features a\nclassify a > 1 -> count(true) > 1",
     [(2, 10, "a node formula and a graph sentence cannot be combined: 'a > 1' is "
              "evaluated at a node, 'count(true) > 1' on the whole graph")]),
    ("features a\nclassify count(a > 1) > 1 & <1> (a > 0)",
     [(2, 10, "a node formula and a graph sentence cannot be combined: '<1> (a > 0)' is "
              "evaluated at a node, 'count(a > 1) > 1' on the whole graph")]),
    ("features a\nclassify a > 1 > 2",
     [(2, 16, "unexpected '>'; expected an operator such as '&', a statement ('colors', "
              "'attribute', 'relations', 'features', 'let' or 'classify'), the end of the "
              "input, ',' or ')'")]),
]


@pytest.mark.parametrize("text,expected", REFUSED, ids=[t.split("\n")[-1] for t, _ in REFUSED])
def test_refused_with_its_message_and_place(text: str,
                                            expected: list[tuple[int, int, str]]) -> None:
    assert problems(text) == expected


def test_equality_of_a_feature_with_a_decimal_is_refused_by_its_message() -> None:
    assert problems("features cd8\nclassify cd8 = 0.5") == [(2, 10, EQUALITY)]
    assert problems("features cd8, ck\nclassify cd8 - ck = 0.5") == [(2, 10, EQUALITY)]


def test_equality_of_a_sum_of_features_is_refused_by_its_message() -> None:
    assert problems("features a, b\nclassify a + b = 1") == [(2, 10, EQUALITY)]


def test_several_problems_are_reported_at_once() -> None:
    text = "features a, b\nclassify (a * b > 1) & (c > 0) & (1 < 2)"
    assert problems(text) == [
        (2, 11, "'a * b' multiplies two variables: a comparison is linear, so one factor "
                "must be a number"),
        (2, 25, "unknown numeric feature 'c' (the 'features' line declares: a, b)"),
        (2, 35, "'1 < 2' compares constants: a comparison needs a numeric feature or a "
                "count(...)"),
    ]


def _threshold(features: tuple[str, ...], columns: tuple[int, ...],
               coefficients: tuple[Fraction, ...], op: str, bound: Fraction) -> ir.Threshold:
    return ir.Threshold(features, columns, coefficients, op, bound)


RED_BLUE = ir.Color("x"), ir.Color("y")

NORMALISED: list[tuple[str, ir.Formula]] = [
    ("features a, b\nclassify a - b > 0.5",
     _threshold(("a", "b"), (0, 1), (F(1), F(-1)), ">", F(1, 2))),
    ("features a, b\nclassify 2*a + 0.5*b <= -1",
     _threshold(("a", "b"), (0, 1), (F(2), F(1, 2)), "<=", F(-1))),
    ("features a, b\nclassify (a - b) > 0",
     _threshold(("a", "b"), (0, 1), (F(1), F(-1)), ">", F(0))),
    # `2 < a` is `0 - a < 0 - 2`: the feature moves left with its sign, the op stays.
    ("features a\nclassify 2 < a", _threshold(("a",), (0,), (F(-1),), "<", F(-2))),
    ("features a, b\nclassify b > a", _threshold(("a", "b"), (0, 1), (F(-1), F(1)), ">", F(0))),
    # Terms in the order of the `features` line, whatever the order written.
    ("features a, b, c\nclassify c + 0.25 * a >= 1",
     _threshold(("a", "c"), (0, 2), (F(1, 4), F(1)), ">=", F(1))),
    ("features a, b\nclassify -(a - 2*b) >= 0.5 * a + 1",
     _threshold(("a", "b"), (0, 1), (F(-3, 2), F(2)), ">=", F(1))),
    ("features a, b\nclassify a - a + b > 0", _threshold(("b",), (1,), (F(1),), ">", F(0))),
    ("features a\nclassify a * 3 + 1 < 0.1 * 2",
     _threshold(("a",), (0,), (F(3),), "<", F(-4, 5))),
    ("colors x, y\nclassify count(x) > 0.3 * count(y)",
     ir.CountCompare((F(1), F(-3, 10)), RED_BLUE, ">", F(0))),
    ("colors x, y\nclassify count(x) + 2 = count(y)",
     ir.CountCompare((F(1), F(-1)), RED_BLUE, "=", F(-2))),
    ("colors x\nclassify 3 > count(x) - 1", ir.CountCompare((F(-1),), (RED_BLUE[0],), ">", F(-4))),
    # Counts in order of first appearance; equal counted formulas merge.
    ("colors x, y\nclassify count(y) + count(x) - 0.5 * count(y) <= 1.5",
     ir.CountCompare((F(1, 2), F(1)), (RED_BLUE[1], RED_BLUE[0]), "<=", F(3, 2))),
    ("colors x\nclassify count(x) = 0.5", ir.CountCompare((F(1),), (RED_BLUE[0],), "=", F(1, 2))),
    ("features ck, cd8\nclassify ck - cd8 > 0.5 & true",
     ir.And(_threshold(("ck", "cd8"), (0, 1), (F(1), F(-1)), ">", F(1, 2)), ir.Top())),
    ("features a\nclassify exists (a > 1) & count(a > 1) >= 2",
     ir.And(ir.Exists(1, None, _threshold(("a",), (0,), (F(1),), ">", F(1))),
            ir.CountCompare((F(1),), (_threshold(("a",), (0,), (F(1),), ">", F(1)),), ">=",
                            F(2)))),
    ("features a\nclassify !(count(<1> (a < 0)) < 2) <-> exists[0, 2] (a >= 1)",
     ir.Iff(ir.Not(ir.CountCompare((F(1),), (ir.AtLeast(1, _threshold(
         ("a",), (0,), (F(1),), "<", F(0))),), "<", F(2))),
         ir.Exists(0, 2, _threshold(("a",), (0,), (F(1),), ">=", F(1))))),
]


@pytest.mark.parametrize("text,expected", NORMALISED,
                         ids=[t.split("\n")[-1] for t, _ in NORMALISED])
def test_comparisons_normalise_to_one_side(text: str, expected: ir.Formula) -> None:
    program = gracr.parse(text)
    assert program.classifier == expected
    kind = ir.Kind.GRAPH if any(isinstance(s, (ir.CountCompare, ir.Exists))
                                for s in ir.subformulas(expected)) else ir.Kind.NODE
    assert program.kind is kind
    header = text.rsplit("\n", 1)[0]
    again = gracr.parse(f"{header}\nclassify {show_formula(program.classifier)}")
    assert again.classifier == expected


@pytest.mark.parametrize("formula,text", [
    (_threshold(("a", "b"), (0, 1), (F(1), F(-1)), ">", F(1, 2)), "a - b > 0.5"),
    (_threshold(("a",), (0,), (F(-1),), "<", F(-2)), "-a < -2"),
    (_threshold(("a", "b"), (0, 1), (F(-3, 2), F(2)), ">=", F(1)), "-1.5 * a + 2 * b >= 1"),
    (ir.CountCompare((F(1), F(-3, 10)), RED_BLUE, ">", F(0)), "count(x) - 0.3 * count(y) > 0"),
    (ir.Not(_threshold(("a",), (0,), (F(1, 4),), "<=", F(1, 16))), "!(0.25 * a <= 0.0625)"),
    (ir.AtLeast(2, _threshold(("a",), (0,), (F(1),), ">", F(0))), "<2> (a > 0)"),
    (ir.Or(ir.Color("x"), _threshold(("a",), (0,), (F(1),), ">", F(0))), "x | a > 0"),
])
def test_show_prints_comparisons(formula: ir.Formula, text: str) -> None:
    assert show_formula(formula) == text
