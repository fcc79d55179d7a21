"""The `.gml` front end: every construct, precedence, palettes and names."""

from __future__ import annotations

from pathlib import Path

import pytest

import gracr
from gracr.dsl import ir
from gracr.dsl.ir import Kind

red, blue, green = ir.Color("red"), ir.Color("blue"), ir.Color("green")


def formula(text: str) -> ir.Formula:
    return gracr.parse(f"colors red, blue, green\nclassify {text}").classifier


@pytest.mark.parametrize("text, expected", [
    ("true", ir.Top()),
    ("false", ir.Bottom()),
    ("Col(red)", red),
    ("red", red),
    ("!red", ir.Not(red)),
    ("not red", ir.Not(red)),
    ("red & blue", ir.And(red, blue)),
    ("red | blue", ir.Or(red, blue)),
    ("red -> blue", ir.Implies(red, blue)),
    ("red <-> blue", ir.Iff(red, blue)),
    ("<2> red", ir.AtLeast(2, red)),
    ("< 2 > red", ir.AtLeast(2, red)),
    ("<> red", ir.AtLeast(1, red)),
    ("atleast 3 red", ir.AtLeast(3, red)),
    ("atmost 1 red", ir.AtMost(1, red)),
    ("exactly 2 red", ir.Exactly(2, red)),
    ("between 1 4 red", ir.Between(1, 4, red)),
    ("[] red", ir.Box(red)),
    ("box red", ir.Box(red)),
    ("more(red, blue)", ir.More(red, blue)),
    ("same(red, blue)", ir.Same(red, blue)),
    ("exists red", ir.Exists(1, None, red)),
    ("exists[0, 2] red", ir.Exists(0, 2, red)),
    ("exists[3, inf] red", ir.Exists(3, None, red)),
    ("exists red & !exists blue", ir.And(ir.Exists(1, None, red),
                                         ir.Not(ir.Exists(1, None, blue)))),
])
def test_every_construct(text: str, expected: ir.Formula) -> None:
    assert formula(text) == expected


@pytest.mark.parametrize("text, expected", [
    # prefix operators bind tightest
    ("<2> red & blue", ir.And(ir.AtLeast(2, red), blue)),
    ("!red & blue", ir.And(ir.Not(red), blue)),
    # & over |, | over ->, -> over <->
    ("red | blue & green", ir.Or(red, ir.And(blue, green))),
    ("red -> blue | green", ir.Implies(red, ir.Or(blue, green))),
    ("red <-> blue -> green", ir.Iff(red, ir.Implies(blue, green))),
    # -> is right-associative; & and | are left-nested
    ("red -> blue -> green", ir.Implies(red, ir.Implies(blue, green))),
    ("red | blue | green", ir.Or(ir.Or(red, blue), green)),
    ("red & blue & green", ir.And(ir.And(red, blue), green)),
    ("(red | blue) & green", ir.And(ir.Or(red, blue), green)),
    ("<1> <2> red", ir.AtLeast(1, ir.AtLeast(2, red))),
])
def test_precedence(text: str, expected: ir.Formula) -> None:
    assert formula(text) == expected


def test_bare_formula_as_in_app_c1() -> None:
    program = gracr.parse("Col(red) & <2> Col(blue)")
    assert program.palette == ("red", "blue")
    assert program.classifier == ir.And(red, ir.AtLeast(2, blue))
    assert program.kind is Kind.NODE


def test_palette_from_col_uses_in_order_without_colors_line() -> None:
    program = gracr.parse("classify Col(green) & <1> Col(red) & green")
    assert program.palette == ("green", "red")


def test_colors_line_fixes_feature_order_and_may_list_unused_colours() -> None:
    program = gracr.parse("colors silver, red, grey\nclassify exists red")
    assert program.palette == ("silver", "red", "grey")
    assert program.kind is Kind.GRAPH


def test_let_names_are_inlined_and_remembered() -> None:
    program = gracr.parse("""
        colors red, blue          # palette
        let leaf = blue & exactly 1 true
        let core = red & exactly 2 leaf   # uses an earlier name
        classify core & <1> core
    """)
    leaf = ir.And(blue, ir.Exactly(1, ir.Top()))
    core = ir.And(red, ir.Exactly(2, leaf))
    assert program.classifier == ir.And(core, ir.AtLeast(1, core))
    assert program.name_of(leaf) == "leaf" and program.name_of(core) == "core"
    assert program.modal_depth == 3


def test_spans_point_into_the_source() -> None:
    program = gracr.parse("colors red\nclassify  <2> red", filename="f.gml")
    span = program.classifier.span
    assert (span.file, span.line, span.column) == ("f.gml", 2, 11)


def test_comments_and_newlines_inside_formulas() -> None:
    program = gracr.parse("colors red # the only colour\nclassify red &\n  # a comment\n  <1> red\n")
    assert program.classifier == ir.And(red, ir.AtLeast(1, red))


def test_every_formula_file_parses() -> None:
    import glob

    paths = sorted(glob.glob("gracr/formulas/*.gml"))
    assert len(paths) >= 7
    kinds = {path: gracr.parse(Path(path)).kind for path in paths}
    assert kinds["gracr/formulas/Majority2Hop.gml"] is Kind.NODE
    assert kinds["gracr/formulas/RedBlueLeaf.gml"] is Kind.GRAPH


def test_names_may_start_with_a_keyword() -> None:
    program = gracr.parse("colors red\nlet notable = red\nlet boxer = <1> red\n"
                          "classify notable & boxer")
    assert program.classifier == ir.And(red, ir.AtLeast(1, red))
