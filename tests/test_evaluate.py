"""The reference evaluator on small graphs whose answers are worked out by hand.

Edge (s, t) carries a message from s to t: a modality at t counts s.
"""

from __future__ import annotations

import numpy as np
import pytest

import gracr

# 0 red, 1 blue, 2 blue, 3 green, 4 no colour.  Edges into 0 from 1, 2, 3;
# into 1 from 0; a self-loop on 3; 4 isolated.
GRAPH = gracr.Graph.from_edges(
    5, [["red"], ["blue"], ["blue"], ["green"], []],
    [(1, 0), (2, 0), (3, 0), (0, 1), (3, 3)])


@pytest.mark.parametrize("text, expected", [
    ("red", [1, 0, 0, 0, 0]),
    ("true", [1, 1, 1, 1, 1]),
    ("false", [0, 0, 0, 0, 0]),
    ("<2> blue", [1, 0, 0, 0, 0]),
    ("<3> blue", [0, 0, 0, 0, 0]),
    ("<1> red", [0, 1, 0, 0, 0]),          # direction: 0 -> 1 counts at 1
    ("<1> green", [1, 0, 0, 1, 0]),        # the self-loop counts at 3
    ("<> true", [1, 1, 0, 1, 0]),
    ("atmost 1 true", [0, 1, 1, 1, 1]),
    ("exactly 1 true", [0, 1, 0, 1, 0]),
    ("exactly 0 true", [0, 0, 1, 0, 1]),
    ("between 1 2 blue", [1, 0, 0, 0, 0]),
    ("between 0 0 blue", [0, 1, 1, 1, 1]),
    ("[] blue", [0, 0, 1, 0, 1]),         # vacuously true without in-neighbours
    ("[] !red", [1, 0, 1, 1, 1]),
    ("more(blue, green)", [1, 0, 0, 0, 0]),
    ("more(green, blue)", [0, 0, 0, 1, 0]),
    ("same(blue, red)", [0, 0, 1, 1, 1]),
    ("red | green", [1, 0, 0, 1, 0]),
    ("blue -> <1> red", [1, 1, 0, 1, 1]),
    ("blue <-> <1> red", [1, 1, 0, 1, 1]),
    ("!<1> true & !red", [0, 0, 1, 0, 1]),
])
def test_node_formulas(text: str, expected: list[int]) -> None:
    program = gracr.parse(f"colors red, blue, green\nclassify {text}")
    np.testing.assert_array_equal(gracr.evaluate(program, GRAPH), np.array(expected, dtype=bool))


@pytest.mark.parametrize("text, expected", [
    ("exists blue", True),                 # two blue nodes
    ("exists[3, inf] blue", False),
    ("exists[2, 2] blue", True),
    ("exists[0, 1] blue", False),
    ("exists[0, 0] (red & blue)", True),   # no node is both
    ("exists red & !exists (red & blue)", True),
    ("exists[0, 0] !<1> true", False),     # edge cover: nodes 2 and 4 have no in-edge
    ("exists (<1> red) | exists[5, inf] true", True),
    ("exists[6, inf] true -> exists green", True),
    ("exists green <-> exists[0, 0] green", False),
])
def test_graph_sentences(text: str, expected: bool) -> None:
    program = gracr.parse(f"colors red, blue, green\nclassify {text}")
    assert gracr.evaluate(program, GRAPH) is expected


def test_multi_colour_nodes_satisfy_each_colour() -> None:
    graph = gracr.Graph.from_edges(2, [["red", "blue"], []], [(0, 1)])
    program = gracr.parse("colors red, blue\nclassify <1> (red & blue)")
    np.testing.assert_array_equal(gracr.evaluate(program, graph), [False, True])


def test_parallel_edges_count_twice() -> None:
    graph = gracr.Graph.from_edges(2, [["red"], []], [(0, 1), (0, 1)])
    program = gracr.parse("colors red\nclassify <2> red")
    np.testing.assert_array_equal(gracr.evaluate(program, graph), [False, True])


def test_colour_outside_the_palette_is_an_error() -> None:
    graph = gracr.Graph.from_edges(1, [["purple"]], [])
    program = gracr.parse("colors red\nclassify red")
    with pytest.raises(gracr.GraphError, match="purple"):
        gracr.evaluate(program, graph)
