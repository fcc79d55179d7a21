"""The typed surface syntax: declarations, `family=value`, bare values, relation filters."""

from __future__ import annotations

import pytest

import gracr
from gracr.data.schema import Family
from gracr.dsl import ir
from gracr.dsl.show import show_formula

DECLARATIONS = """colors red
attribute element = C, N, O, S, Cl, other
attribute charge = neg, zero, pos
relations single, double, triple, aromatic
"""

FILTERED = [
    ("<2>{double} O", ir.AtLeast(2, ir.Attribute("element", "O"), ("double",))),
    ("<>{aromatic, single} red", ir.AtLeast(1, ir.Color("red"), ("single", "aromatic"))),
    ("[]{single} C", ir.Box(ir.Attribute("element", "C"), ("single",))),
    ("box{single} C", ir.Box(ir.Attribute("element", "C"), ("single",))),
    ("atleast{double} 2 true", ir.AtLeast(2, ir.Top(), ("double",))),
    ("atmost{single} 1 N", ir.AtMost(1, ir.Attribute("element", "N"), ("single",))),
    ("exactly{aromatic} 2 S", ir.Exactly(2, ir.Attribute("element", "S"), ("aromatic",))),
    ("between{single} 1 3 Cl", ir.Between(1, 3, ir.Attribute("element", "Cl"), ("single",))),
    ("more{single}(red, neg)", ir.More(ir.Color("red"), ir.Attribute("charge", "neg"),
                                       ("single",))),
    ("same{double}(O, charge = zero)", ir.Same(ir.Attribute("element", "O"),
                                               ir.Attribute("charge", "zero"), ("double",))),
    ("<1> O", ir.AtLeast(1, ir.Attribute("element", "O"))),
]


@pytest.mark.parametrize("text,expected", FILTERED, ids=[t for t, _ in FILTERED])
def test_every_modality_takes_a_relation_filter_and_prints_back(text: str,
                                                                expected: ir.Formula) -> None:
    program = gracr.parse(DECLARATIONS + f"classify {text}")
    assert program.classifier == expected
    again = gracr.parse(DECLARATIONS + f"classify {show_formula(program.classifier)}")
    assert again.classifier == expected


def test_declarations_become_the_schema() -> None:
    program = gracr.parse(DECLARATIONS + "classify element=C & <1>{double} O")
    assert program.palette == ("red",)
    assert program.families == (Family("element", ("C", "N", "O", "S", "Cl", "other")),
                                Family("charge", ("neg", "zero", "pos")))
    assert program.relations == ("single", "double", "triple", "aromatic")
    assert program.schema.feature_names(presence=True)[:3] == ("red", "element=C", "element=N")
    assert program.schema.feature_names(presence=True)[-1] == "present"


def test_a_filter_does_not_change_an_unfiltered_modality() -> None:
    """`<1> f` counts every edge, also with relations declared."""
    program = gracr.parse(DECLARATIONS + "classify <1> O")
    assert program.classifier == ir.AtLeast(1, ir.Attribute("element", "O"), None)


@pytest.mark.parametrize("text,message", [
    ("attribute e = a, b, a\nclassify a", "value 'a' is listed twice in 'e'"),
    ("attribute e = a\nattribute e = b\nclassify a", "attribute family 'e' is declared twice"),
    ("relations r, s, r\nclassify <1>{r} true", "relation 'r' is listed twice"),
    ("relations r\nrelations s\nclassify true", "a second 'relations' line"),
    ("attribute e = a\nlet e = true\nclassify e", "'e' is an attribute family"),
    ("relations r\nlet r = true\nclassify r", "'r' is a relation"),
])
def test_repeated_or_clashing_declarations_are_errors(text: str, message: str) -> None:
    with pytest.raises(gracr.GmlError, match=message):
        gracr.parse(text)


@pytest.mark.parametrize("text,candidates", [
    ("colors O\nattribute element = C, O\nclassify O", "the colour O or element=O"),
    ("attribute element = C, O\nlet O = true\nclassify O", "the 'let' O or element=O"),
])
def test_a_bare_value_that_is_also_a_colour_or_a_let_is_ambiguous(text: str,
                                                                  candidates: str) -> None:
    """A bare value is accepted only when it names one declared value and nothing else."""
    with pytest.raises(gracr.GmlError, match=f"ambiguous name 'O': it could be {candidates}"):
        gracr.parse(text)
    assert gracr.parse(text.replace("classify O", "classify element=O")).classifier == \
        ir.Attribute("element", "O")
