"""Hypothesis strategies shared by the test suite: random formulas and graphs."""

from __future__ import annotations

from hypothesis import strategies as st

import gracr
from gracr.dsl import ir
from gracr.dsl.show import show_formula
from gracr.dsl.ir import Formula
from gracr.data.graph import Graph

PALETTE = ("red", "blue", "green")

counts = st.integers(min_value=0, max_value=3)
# Counts that most often split the nodes of a small graph (0 makes `<0> f` constant).
thresholds = st.sampled_from([1, 1, 1, 2, 2, 3, 0])

# Colours are the most common leaves: constant leaves make constant formulas.
leaves: st.SearchStrategy[Formula] = st.sampled_from(
    [ir.Color(c) for c in PALETTE] * 4 + [ir.Top(), ir.Bottom()])


def _between(child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    return st.builds(lambda lo, extra, f: ir.Between(lo, lo + extra, f), counts, counts, child)


def _binary(build: type, child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    """`build(a, b)` with two different arguments (`same(f, f)` is constant)."""
    pairs = st.tuples(child, child).filter(lambda pair: pair[0] != pair[1])
    return pairs.map(lambda pair: build(*pair))


def _extend(child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    return st.one_of(
        st.builds(ir.Not, child),
        _binary(ir.And, child),
        _binary(ir.Or, child),
        _binary(ir.Implies, child),
        _binary(ir.Iff, child),
        st.builds(ir.AtLeast, thresholds, child),
        st.builds(ir.AtMost, thresholds, child),
        st.builds(ir.Exactly, thresholds, child),
        _between(child),
        st.builds(ir.Box, child),
        _binary(ir.More, child),
        _binary(ir.Same, child),
    )


node_formulas: st.SearchStrategy[Formula] = st.recursive(leaves, _extend, max_leaves=6)


def _exists(f: Formula, low: int, extra: int | None) -> Formula:
    return ir.Exists(low, None if extra is None else low + extra, f)


exists_sentences = st.builds(_exists, node_formulas, counts, st.one_of(st.none(), counts))

graph_sentences: st.SearchStrategy[Formula] = st.recursive(
    exists_sentences,
    lambda child: st.one_of(
        st.builds(ir.Not, child),
        st.builds(ir.And, child, child),
        st.builds(ir.Or, child, child),
        st.builds(ir.Implies, child, child),
        st.builds(ir.Iff, child, child),
    ),
    max_leaves=3,
)


@st.composite
def graphs(draw: st.DrawFn, max_nodes: int = 7, max_edges: int = 16,
           undirected: bool | None = None) -> Graph:
    """Small coloured graphs: directed or undirected, self-loops, multi-colour,
    colourless and isolated nodes all occur."""
    n = draw(st.integers(min_value=min(3, max_nodes), max_value=max_nodes))
    # Mostly one colour per node; colourless and two-colour nodes occur too.
    one_color = st.sampled_from(PALETTE).map(lambda c: frozenset({c}))
    colors = draw(st.lists(st.one_of(one_color, one_color, one_color,
                                     st.frozensets(st.sampled_from(PALETTE), max_size=2)),
                           min_size=n, max_size=n))
    node = st.integers(min_value=0, max_value=n - 1)
    is_undirected = draw(st.booleans()) if undirected is None else undirected
    limit = max_edges // 2 if is_undirected else max_edges
    pairs = draw(st.lists(st.tuples(node, node), min_size=min(2 * n, limit), max_size=limit))
    edges: list[tuple[int, int]] = []
    for s, t in pairs:
        edges.append((s, t))
        if is_undirected and s != t:
            edges.append((t, s))
    return Graph.from_edges(n, colors, edges)


def program_for(formula: Formula) -> gracr.Program:
    """A checked program around a generated formula, through the real parser."""
    return gracr.parse(f"colors {', '.join(PALETTE)}\nclassify {show_formula(formula)}")

