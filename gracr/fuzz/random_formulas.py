"""Seeded random node formulas and instance graphs for `gracrc fuzz` without a file.

Not Hypothesis: the fuzzer's draws must be a pure function of `--seed`, so that a
reported failure can be reproduced by rerunning the command.

Formulas are node formulas over the palette (red, blue, green), at most 3
operators deep and with at most 6 leaves, mixing `&`, `|`, `!`, `<N>`, `atmost`,
`exactly`, `between`, `[]` and `more`. Graphs come from the dataset generators
(`GRAPH_FAMILIES`, `uniform_colours`), 8–16 nodes.
"""

from __future__ import annotations

import random

import numpy as np


from gracr.dsl.evaluate import evaluate_program
from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.dsl.show import show_formula
from gracr.data.generators import GRAPH_FAMILIES, SEED_LIMIT, uniform_colours
from gracr.data.graph import Graph

PALETTE = ("red", "blue", "green")
MAX_DEPTH = 3
MAX_LEAVES = 6
MIN_NODES, MAX_NODES = 8, 16

_OPERATORS = ("and", "or", "not", "atleast", "atmost", "exactly", "between", "box", "more")


def _leaf(rng: random.Random) -> Formula:
    # Mostly colours: `true` leaves are allowed but make constant formulas likely.
    if rng.random() < 0.1:
        return ir.Top()
    return ir.Color(rng.choice(PALETTE))


def _formula(rng: random.Random, depth: int, leaves: int) -> tuple[Formula, int]:
    """A formula of at most `depth` operators and `leaves` leaves; returns it and the
    number of leaves it used."""
    if depth == 0 or leaves <= 1 or rng.random() < 0.25:
        return _leaf(rng), 1
    operator = rng.choice(_OPERATORS)
    binary = operator in ("and", "or", "more")
    if binary:
        left, used = _formula(rng, depth - 1, leaves - 1)
        right, more_used = _formula(rng, depth - 1, leaves - used)
        used += more_used
        if operator == "and":
            return ir.And(left, right), used
        if operator == "or":
            return ir.Or(left, right), used
        return ir.More(left, right), used
    arg, used = _formula(rng, depth - 1, leaves)
    count = rng.choice((1, 1, 2, 3))
    match operator:
        case "not":
            return ir.Not(arg), used
        case "atleast":
            return ir.AtLeast(count, arg), used
        case "atmost":
            return ir.AtMost(count - 1, arg), used
        case "exactly":
            return ir.Exactly(count - 1, arg), used
        case "between":
            low = rng.choice((0, 1, 1, 2))
            return ir.Between(low, low + rng.choice((0, 1, 2)), arg), used
    return ir.Box(arg), used


def random_formula(rng: random.Random) -> Formula:
    """One node formula (depth ≤ 3 operators, ≤ 6 leaves) drawn with `rng`."""
    return _formula(rng, MAX_DEPTH, MAX_LEAVES)[0]


def program_of(formula: Formula) -> Program:
    """A checked program around `formula` over the fixed palette, through the parser."""
    return parse(f"colors {', '.join(PALETTE)}\nclassify {show_formula(formula)}")


def random_graph(rng: random.Random, palette: tuple[str, ...]) -> Graph:
    """A small graph of a random family (8–16 nodes), one uniform colour per node."""
    family = rng.choice(sorted(GRAPH_FAMILIES))
    num_nodes = rng.randint(MIN_NODES, MAX_NODES)
    edges = GRAPH_FAMILIES[family](num_nodes, rng.randrange(SEED_LIMIT))
    if palette:
        indices = uniform_colours(num_nodes, len(palette), rng.randrange(SEED_LIMIT))
        colors: list[frozenset[str]] = [frozenset({palette[int(i)]}) for i in indices]
    else:
        colors = [frozenset() for _ in range(num_nodes)]
    return Graph(num_nodes, tuple(colors), np.ascontiguousarray(edges[0]),
                 np.ascontiguousarray(edges[1]))


def is_constant(program: Program, graphs: list[Graph]) -> bool:
    """Whether `program` takes one value on every node of `graphs` (a constant formula,
    or one these graphs cannot tell apart: either way useless to fuzz)."""
    values: set[bool] = set()
    for graph in graphs:
        result = evaluate_program(program, graph)
        values.update(bool(v) for v in np.atleast_1d(result))
        if len(values) == 2:
            return False
    return True
