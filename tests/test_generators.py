"""The random graph families, colouring and motif kernels (`gracr.data.generators`,
`gracr.data.motifs`) and the node/edge counts of every GracrBench generator."""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gracr.bench.datasets import _rng
from gracr.bench.tasks import PAPER_TASKS, TASKS
from gracr.data.generators import (GRAPH_FAMILIES, barabasi_albert_edges, erdos_renyi_edges,
                                      random_tree_edges, uniform_colours, watts_strogatz_edges)
from gracr.data.graph import IntArray
from gracr.data.motifs import distinct_nodes, plant_chains, plant_hub

seeds = st.integers(0, 2**32 - 1)


def undirected(edges: IntArray, num_nodes: int) -> set[tuple[int, int]]:
    """Check the edge-index contract and return the undirected edges."""
    assert edges.dtype == np.int64 and edges.ndim == 2 and edges.shape[0] == 2
    assert edges.flags.c_contiguous
    if edges.shape[1]:
        assert 0 <= edges.min() and edges.max() < num_nodes
    half = edges.shape[1] // 2
    assert edges.shape[1] == 2 * half
    # Both directions: the second half mirrors the first.
    np.testing.assert_array_equal(edges[:, half:], edges[::-1, :half])
    assert not (edges[0] == edges[1]).any(), "self-loop"
    pairs = {(min(s, t), max(s, t)) for s, t in edges[:, :half].T.tolist()}
    assert len(pairs) == half, "repeated edge"
    return pairs


def connected(num_nodes: int, pairs: set[tuple[int, int]]) -> bool:
    parent = list(range(num_nodes))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in pairs:
        parent[root(a)] = root(b)
    return len({root(v) for v in range(num_nodes)}) <= 1


# ---------------------------------------------------------------- every family


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GRAPH_FAMILIES)), st.integers(0, 80), seeds)
def test_family_edge_index_contract_and_determinism(family: str, num_nodes: int,
                                                    seed: int) -> None:
    draw = GRAPH_FAMILIES[family]
    edges = draw(num_nodes, seed)
    undirected(edges, num_nodes)
    np.testing.assert_array_equal(edges, draw(num_nodes, seed))


@pytest.mark.parametrize("family", sorted(GRAPH_FAMILIES))
def test_family_seeds_give_different_graphs(family: str) -> None:
    draw = GRAPH_FAMILIES[family]
    graphs = {draw(60, seed).tobytes() for seed in range(10)}
    assert len(graphs) == 10


def test_registry_names() -> None:
    assert set(GRAPH_FAMILIES) == {"barabasi-albert", "erdos-renyi", "tree", "watts-strogatz"}
    # The defaults: BA attachment 2, WS 4 neighbours, a tree n − 1 edges.
    assert GRAPH_FAMILIES["barabasi-albert"](50, 0).shape == (2, 2 * 2 * 48)
    assert GRAPH_FAMILIES["watts-strogatz"](50, 0).shape == (2, 2 * 50 * 2)
    assert GRAPH_FAMILIES["tree"](50, 0).shape == (2, 2 * 49)


# ---------------------------------------------------------------- Barabási–Albert


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5).flatmap(lambda m: st.tuples(st.just(m), st.integers(m + 1, m + 80))),
       seeds)
def test_barabasi_albert_edge_count(sizes: tuple[int, int], seed: int) -> None:
    m, n = sizes
    edges = barabasi_albert_edges(n, m, seed)
    assert len(undirected(edges, n)) == m * (n - m)
    # Every node after the seed star joins m earlier nodes.
    assert (np.bincount(edges[1], minlength=n)[m + 1:] >= m).all()


def test_barabasi_albert_rejects_too_few_nodes() -> None:
    with pytest.raises(ValueError):
        barabasi_albert_edges(2, 2)
    with pytest.raises(ValueError):
        barabasi_albert_edges(10, 2, seed=-1)


# ---------------------------------------------------------------- Erdős–Rényi


@pytest.mark.parametrize("p", [0.002, 0.01, 0.3])
def test_erdos_renyi_density_is_close_to_p(p: float) -> None:
    n = 1500
    pairs = undirected(erdos_renyi_edges(n, p, seed=7), n)
    possible = n * (n - 1) / 2
    sd = (possible * p * (1 - p)) ** 0.5
    assert abs(len(pairs) - possible * p) < 6 * sd  # about 0.6 % of p·C(n, 2) at p = 0.3


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 40), seeds)
def test_erdos_renyi_extremes(n: int, seed: int) -> None:
    assert erdos_renyi_edges(n, 0.0, seed).shape == (2, 0)
    assert len(undirected(erdos_renyi_edges(n, 1.0, seed), n)) == n * (n - 1) // 2


def test_erdos_renyi_rejects_bad_probability() -> None:
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError):
            erdos_renyi_edges(10, p)


# ---------------------------------------------------------------- trees


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), seeds)
def test_tree_has_n_minus_one_edges_and_is_connected(n: int, seed: int) -> None:
    pairs = undirected(random_tree_edges(n, seed), n)
    assert len(pairs) == n - 1
    assert connected(n, pairs)


def test_tree_is_uniform_over_labelled_trees() -> None:
    # Cayley: 4^2 = 16 labelled trees on 4 nodes, each with probability 1/16 (a random
    # recursive tree would give some of them probability 0).
    draws = 4800
    counts = Counter(frozenset(undirected(random_tree_edges(4, seed), 4))
                     for seed in range(draws))
    assert len(counts) == 16
    expected = draws / 16
    assert all(abs(c - expected) < 5 * (expected * 15 / 16) ** 0.5 for c in counts.values())


# ---------------------------------------------------------------- Watts–Strogatz


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5).flatmap(lambda h: st.tuples(st.just(2 * h), st.integers(2 * h + 1, 90))),
       st.floats(0.0, 1.0), seeds)
def test_watts_strogatz_edge_count(sizes: tuple[int, int], p: float, seed: int) -> None:
    k, n = sizes
    edges = watts_strogatz_edges(n, k, p, seed)
    assert len(undirected(edges, n)) == n * k // 2


def test_watts_strogatz_without_rewiring_is_the_ring_lattice() -> None:
    n, k = 12, 4
    pairs = undirected(watts_strogatz_edges(n, k, 0.0, seed=3), n)
    ring = {(min(u, (u + j) % n), max(u, (u + j) % n)) for u in range(n) for j in (1, 2)}
    assert pairs == ring
    rewired = undirected(watts_strogatz_edges(n, k, 0.5, seed=3), n)
    assert rewired != ring


def test_watts_strogatz_rejects_bad_parameters() -> None:
    for n, k, p in [(10, 3, 0.1), (4, 4, 0.1), (10, -2, 0.1), (10, 4, 1.1)]:
        with pytest.raises(ValueError):
            watts_strogatz_edges(n, k, p)


# ---------------------------------------------------------------- colours


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 200), st.integers(1, 8), seeds)
def test_uniform_colours_range_and_determinism(n: int, c: int, seed: int) -> None:
    colours = uniform_colours(n, c, seed)
    assert colours.dtype == np.int64 and colours.shape == (n,)
    assert ((0 <= colours) & (colours < c)).all()
    np.testing.assert_array_equal(colours, uniform_colours(n, c, seed))


@pytest.mark.parametrize("c", [2, 3, 6])
def test_uniform_colours_cover_all_colours_evenly(c: int) -> None:
    n = 60_000
    counts = np.bincount(uniform_colours(n, c, seed=11), minlength=c)
    assert len(counts) == c and counts.min() > 0
    assert np.abs(counts - n / c).max() < 0.05 * n / c
    assert not np.array_equal(uniform_colours(100, c, 1), uniform_colours(100, c, 2))


# ---------------------------------------------------------------- motifs


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))), seeds)
def test_distinct_nodes(sizes: tuple[int, int], seed: int) -> None:
    n, count = sizes
    nodes = distinct_nodes(n, count, seed)
    assert len(set(nodes.tolist())) == count and ((0 <= nodes) & (nodes < n)).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 6), st.integers(1, 5), st.integers(0, 30), seeds)
def test_plant_chains(units: int, cores: int, extra: int, seed: int) -> None:
    background = 2 * units + extra
    before = uniform_colours(background, 3, seed)
    colours, pairs = plant_chains(before, units, cores, seed, core=0, leaf=1, anchor=2)
    assert len(colours) == background + 3 * cores * units
    assert pairs.shape == (units * (3 * cores + 1), 2)
    edges = np.concatenate([pairs.T, pairs.T[::-1]], axis=1)
    undirected(np.ascontiguousarray(edges), len(colours))
    degree = np.bincount(edges[1], minlength=len(colours))
    planted = np.arange(background, len(colours))
    anchors = {int(t) for s, t in pairs if t < background}
    assert len(anchors) == 2 * units
    assert all(colours[a] == 2 for a in anchors)
    untouched = [v for v in range(background) if v not in anchors]
    np.testing.assert_array_equal(colours[untouched], before[untouched])
    for v in planted:
        if colours[v] == 1:
            assert degree[v] == 1  # a leaf
        else:
            leaves = [u for s, u in edges.T if s == v and colours[u] == 1 and u >= background]
            assert colours[v] == 0 and len(leaves) == 2


def test_plant_hub() -> None:
    before = np.zeros(30, dtype=np.int64)
    colours, pairs = plant_hub(before, 7, [(3, 1), (4, 2), (5, 0)], 5, seed=9)
    assert colours.tolist() == [0] * 30 + [7, 3, 4, 4]
    assert (pairs[:, 0] == 30).all()
    assert pairs[:3, 1].tolist() == [31, 32, 33]
    links = pairs[3:, 1]
    assert len(set(links.tolist())) == 5 and (links < 30).all()


# ---------------------------------------------------------------- the tasks (Table 15)

# (nodes, directed edges) of a positive and a negative candidate.
GRAPH_SIZES = {"RedBlueLeaf": ((32, 98), (20, 72)), "Redundancy": ((37, 134), (31, 122)),
               "CompetingRedundancy": ((37, 134), (34, 128))}
NODE_SIZES = {"RedBlueLeaf-NC": (750, 2192), "Majority1Hop": (500, 1992),
              "Majority2Hop": (500, 1992)}


def test_the_size_tables_cover_every_paper_task() -> None:
    # The paper's six: a test that reads a task file registers it in TASKS too, and which
    # of those ran first in this worker depends on how pytest-xdist shared the tests out.
    assert set(GRAPH_SIZES) | set(NODE_SIZES) == set(PAPER_TASKS)


@pytest.mark.parametrize("task_name", sorted(GRAPH_SIZES))
def test_graph_task_sizes(task_name: str) -> None:
    task = TASKS[task_name]
    rng = _rng(task, 0)
    for _ in range(10):
        for positive, size in zip((True, False), GRAPH_SIZES[task_name]):
            candidate = task.draw(rng, positive)
            graph = candidate.graph
            assert (graph.num_nodes, graph.num_edges) == size
            assert candidate.label == int(positive)
            # Edges sorted by (target, source), so no repeats; each in both directions.
            keys = graph.targets * graph.num_nodes + graph.sources
            assert (np.diff(keys) > 0).all()
            assert not (graph.sources == graph.targets).any()
            assert set(zip(graph.sources, graph.targets)) == set(zip(graph.targets, graph.sources))


@pytest.mark.parametrize("task_name", sorted(NODE_SIZES))
def test_node_task_sizes(task_name: str) -> None:
    task = TASKS[task_name]
    rng = _rng(task, 0)
    for _ in range(3):
        graph = task.draw(rng, True).graph
        assert (graph.num_nodes, graph.num_edges) == NODE_SIZES[task_name]


def test_red_blue_leaf_motif_layout() -> None:
    task = TASKS["RedBlueLeaf"]
    candidate = task.draw(_rng(task, 1), True)
    graph = candidate.graph
    names = [next(iter(c)) for c in graph.colors]
    assert names[20:] == ["red", "blue", "blue"] * 4
    assert candidate.annotated == frozenset({23, 26})
    anchors = {int(s) for s, t in zip(graph.sources, graph.targets) if t in (20, 29) and s < 20}
    assert len(anchors) == 2 and all(names[a] == "green" for a in anchors)


@pytest.mark.parametrize("task_name", sorted(TASKS))
def test_task_graphs_are_a_function_of_task_and_seed(task_name: str) -> None:
    task = TASKS[task_name]

    def draws(seed: int) -> list[bytes]:
        rng = _rng(task, seed)
        out = []
        for i in range(4):
            graph = task.draw(rng, i % 2 == 0).graph
            out.append(graph.edge_index.tobytes() + repr(graph.colors).encode())
        return out

    assert draws(3) == draws(3)
    assert draws(3) != draws(4)


def test_same_seed_same_output_for_every_kernel() -> None:
    calls: list[Callable[[int], IntArray]] = [
        lambda s: erdos_renyi_edges(40, 0.2, s), lambda s: random_tree_edges(40, s),
        lambda s: watts_strogatz_edges(40, 4, 0.3, s), lambda s: uniform_colours(40, 3, s),
        lambda s: barabasi_albert_edges(40, 2, s), lambda s: distinct_nodes(40, 10, s)]
    for call in calls:
        np.testing.assert_array_equal(call(5), call(5))
        assert not np.array_equal(call(5), call(6))


_LAZY_KERNELS = """
import sys
from gracr.data import motifs
import gracr.bench.datasets, gracr.executor.numba_backend
assert "numba" not in sys.modules, "importing the kernels' modules loaded numba"
first = motifs.plant_chains(__import__("numpy").zeros(30, dtype="int64"), 2, 2, 7,
                            core=1, leaf=2, anchor=3)   # a kernel that calls a kernel
assert "numba" in sys.modules
import numba
assert isinstance(motifs._distinct, numba.core.registry.CPUDispatcher)
direct = numba.njit(motifs._chains_kernel.py_func)   # compiled as before, uncached
expected = direct(__import__("numpy").zeros(30, dtype="int64"), 2, 2, 7, 1, 2, 3)
assert all((a == b).all() for a, b in zip(first, expected)), (first, expected)
"""


def test_kernels_load_numba_on_first_call_and_compute_what_njit_computes() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", _LAZY_KERNELS], cwd=root, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
