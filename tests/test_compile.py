"""The compiler against the paper's own numbers: App. C.1 Example 1 and the shapes
reported in App. C.5 and Table 8's caption."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.compiler.core import CAnd, CAtLeast, CColor, CNot, COr, CTop
from gracr.compiler.desugar import CompileOptions, desugar
from gracr.dsl.ir import Kind


def test_example_1_compiles_to_the_matrices_of_app_c1() -> None:
    model = gracr.compile(gracr.parse("Col(red) & <2> Col(blue)"))
    assert (model.width, model.num_layers) == (4, 2)
    assert [c.meaning for c in model.columns] == ["red", "blue", "<2> blue", "red & <2> blue"]
    # Paper indices are 1-based: coordinates 1..4 are our columns 0..3.
    C1 = np.zeros((4, 4)); C1[0, 0] = C1[1, 1] = 1
    A1 = np.zeros((4, 4)); A1[1, 2] = 1
    b1 = np.array([0, 0, -1, 0])
    C2 = np.zeros((4, 4)); C2[0, 0] = C2[1, 1] = C2[2, 2] = 1; C2[0, 3] = C2[2, 3] = 1
    A2 = np.zeros((4, 4))
    b2 = np.array([0, 0, 0, -1])
    first, second = model.layers
    for got, want in [(first.C, C1), (first.aggregations[0].A, A1), (first.b, b1),
                      (second.C, C2), (second.aggregations[0].A, A2), (second.b, b2)]:
        np.testing.assert_array_equal(got, want)
    # Initialisation copies the two colours into coordinates 1 and 2.
    np.testing.assert_array_equal(model.input_matrix, [[1, 0, 0, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(model.input_bias, [0, 0, 0, 0])


def _shape(path: str, **options: object) -> tuple[int, int]:
    model = gracr.compile(gracr.parse(Path(path)), **options)  # type: ignore[arg-type]
    return model.num_layers, model.width


@pytest.mark.parametrize("path, options, shape", [
    ("gracr/formulas/CompetingRedundancy.gml", {"disjunction": "demorgan"}, (8, 16)),   # App. C.5
    ("gracr/formulas/CompetingRedundancy.gml", {"disjunction": "flat"}, (3, 9)),        # App. C.5
    ("gracr/formulas/Majority1Hop.gml", {"comparison": "direct"}, (1, 3)),              # Table 8
    ("gracr/formulas/Majority1Hop.gml", {"comparison": "expanded", "max_degree": 50}, (4, 203)),
    ("gracr/formulas/Majority2Hop.gml", {"comparison": "direct"}, (2, 5)),
    ("gracr/formulas/Majority2Hop.gml", {"comparison": "expanded", "max_degree": 50}, (8, 505)),
])
def test_shapes_reported_by_the_paper(path: str, options: dict[str, object],
                                      shape: tuple[int, int]) -> None:
    assert _shape(path, **options) == shape


def test_expanded_comparison_costs_four_layers_whatever_the_bound() -> None:
    program = gracr.parse("colors red, blue\nclassify more(red, blue)")
    for bound in (1, 5, 50, 200):
        model = gracr.compile(program, max_degree=bound)
        assert model.num_layers == 4
        assert model.width == 2 + 4 * bound + 1


def test_expanded_comparison_needs_a_bound() -> None:
    program = gracr.parse("colors red, blue\nclassify more(red, blue)")
    with pytest.raises(gracr.GracrError, match="max_degree"):
        gracr.compile(program)


def test_demorgan_keeps_double_negations_and_nests_left() -> None:
    program = gracr.parse("colors a, b, c\nclassify a | b | c")
    core = desugar(program.classifier, Kind.NODE, CompileOptions("demorgan"))
    a, b, c = CColor("a"), CColor("b"), CColor("c")
    inner = CNot(CAnd((CNot(a), CNot(b))))
    assert core == CNot(CAnd((CNot(inner), CNot(c))))


def test_flat_splices_nested_gates() -> None:
    program = gracr.parse("colors a, b, c\nclassify (a | b) | c & (a & b)")
    core = desugar(program.classifier, Kind.NODE, CompileOptions("flat"))
    a, b, c = CColor("a"), CColor("b"), CColor("c")
    assert core == COr((a, b, CAnd((c, a, b))))


def test_counting_modalities_follow_app_c2() -> None:
    options = CompileOptions("demorgan")
    red = CColor("red")

    def core(text: str) -> object:
        return desugar(gracr.parse(f"colors red\nclassify {text}").classifier, Kind.NODE, options)

    assert core("atmost 2 red") == CNot(CAtLeast(3, red))
    assert core("exactly 0 red") == CNot(CAtLeast(1, red))
    assert core("exactly 2 red") == CAnd((CAtLeast(2, red), CNot(CAtLeast(3, red))))
    assert core("between 1 3 red") == CAnd((CAtLeast(1, red), CNot(CAtLeast(4, red))))
    assert core("between 0 3 red") == CNot(CAtLeast(4, red))
    assert core("<0> red") == CTop()
    assert core("[] red") == CNot(CAtLeast(1, CNot(red)))


def test_shared_subformulas_get_one_column() -> None:
    model = gracr.compile(gracr.parse("colors red, blue\nclassify <1> red & <1> red & !<1> red"))
    meanings = [c.meaning for c in model.columns]
    assert meanings.count("<1> red") == 1
    assert "blue" not in meanings  # a declared but unused colour gets no column


def test_true_gets_a_column_only_when_used() -> None:
    without = gracr.compile(gracr.parse("colors red\nclassify <1> red"))
    with_true = gracr.compile(gracr.parse("colors red\nclassify <1> true"))
    assert "true" not in [c.meaning for c in without.columns]
    assert [c.meaning for c in with_true.columns] == ["true", "<1> true"]


def test_carry_forward_only_for_settled_columns() -> None:
    model = gracr.compile(gracr.parse(Path("gracr/formulas/CompetingRedundancy.gml")))
    for level, layer in enumerate(model.layers, start=1):
        for i, column in enumerate(model.columns):
            settled = column.depth < level
            assert (layer.C[i, i] == 1) == settled or column.depth == level


def test_graph_readout_thresholds_the_count() -> None:
    model = gracr.compile(gracr.parse("colors red\nclassify exists[2, 3] red"))
    assert model.num_layers == 0 and model.width == 1
    counts = [0, 1, 2, 3, 4, 5]
    for n in counts:
        graph = gracr.Graph.from_edges(n + 1, [["red"]] * n + [[]], [])
        assert model.predict(graph) == (2 <= n <= 3)


def test_columns_are_ordered_by_depth_then_first_appearance() -> None:
    model = gracr.compile(gracr.parse("colors a, b\nclassify <1> b & (b & a)"))
    assert [c.meaning for c in model.columns] == ["b", "a", "<1> b", "b & a", "<1> b & (b & a)"]
