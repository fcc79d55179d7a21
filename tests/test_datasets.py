"""GracrBench datasets: labels agree with every compiled variant, stored UPI is exact,
generation is deterministic, and the store is reused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.bdd.upi import upi
from gracr.bench.datasets import load_or_build, size_stats
from gracr.bench.tasks import TASKS
from gracr.data.generators import barabasi_albert_edges

VARIANTS = [(d, c) for d in ("demorgan", "flat") for c in ("expanded", "direct")]
SMALL = {"RedBlueLeaf": 12, "Redundancy": 8, "CompetingRedundancy": 8,
         "RedBlueLeaf-NC": 20, "Majority1Hop": 20}


@pytest.mark.parametrize("task_name", list(SMALL))
def test_stored_labels_agree_with_evaluator_and_every_compiled_variant(
        task_name: str, store: Path) -> None:
    dataset = load_or_build(task_name, 0, SMALL[task_name], str(store), progress=False)
    task = TASKS[task_name]
    for variant in range(len(task.formula_files)):
        program = task.program(variant)
        for instance in dataset.instances:
            graph = instance.graph
            expected = gracr.evaluate(program, graph)
            bound = int(graph.in_degrees().max())
            for disjunction, comparison in VARIANTS:
                model = gracr.compile(program, disjunction=disjunction,  # type: ignore[arg-type]
                                      comparison=comparison, max_degree=bound)  # type: ignore[arg-type]
                np.testing.assert_array_equal(model.predict(graph), expected)
            if instance.label is not None:
                assert expected == bool(instance.label)
            else:
                np.testing.assert_array_equal(expected, instance.node_labels)
                assert instance.targets == tuple(np.flatnonzero(expected))


@pytest.mark.parametrize("task_name", list(SMALL))
def test_stored_upi_equals_a_fresh_computation(task_name: str, store: Path) -> None:
    dataset = load_or_build(task_name, 0, SMALL[task_name], str(store), progress=False)
    task = TASKS[task_name]
    rng = np.random.default_rng(0)
    for variant in range(len(task.formula_files)):  # the alternative formula too (App. C.5)
        program = task.program(variant)
        for instance in rng.choice(np.array(dataset.instances, dtype=object), size=3):
            if instance.label is not None:
                label, mask = upi(program, instance.graph, backend="autoref")
                assert label == instance.label
                np.testing.assert_array_equal(mask, instance.upi[0])
            else:
                for target, stored in list(zip(instance.targets, instance.upi))[:5]:
                    label, mask = upi(program, instance.graph, target, backend="autoref")
                    assert label == 1
                    np.testing.assert_array_equal(mask, stored)


def test_graph_tasks_are_balanced_and_annotated_as_app_f(store: Path) -> None:
    dataset = load_or_build("CompetingRedundancy", 0, SMALL["CompetingRedundancy"], str(store),
                            progress=False)
    labels = [instance.label for instance in dataset.instances]
    assert labels.count(1) == labels.count(0) == 4
    for instance in dataset.instances:
        graph = instance.graph
        if instance.label == 1:
            # 37 nodes, 134 directed edges; the UPI is the 6 edges into the black hub
            # from its red, blue and green neighbours (Table 15).
            assert (graph.num_nodes, graph.num_edges) == (37, 134)
            hub = graph.colors.index(frozenset({"black"}))
            chosen = np.flatnonzero(instance.upi[0])
            assert len(chosen) == 6
            assert set(graph.targets[chosen]) == {hub}
            sources = [next(iter(graph.colors[s])) for s in graph.sources[chosen]]
            assert sorted(sources) == ["blue", "blue", "green", "green", "green", "red"]
        else:
            # The formula is monotone in the edges: no subgraph of a negative graph is
            # positive, so the empty subgraph already explains it (Corollary 1).
            assert not instance.upi[0].any()


def test_the_store_is_reused_and_keyed_by_seed(store: Path) -> None:
    first = load_or_build("Redundancy", 3, 4, str(store), progress=False)
    again = load_or_build("Redundancy", 3, 4, str(store), progress=False)
    other = load_or_build("Redundancy", 4, 4, str(store), progress=False)
    assert first.meta == again.meta
    assert [i.to_json() for i in first.instances] == [i.to_json() for i in again.instances]
    assert [i.to_json() for i in first.instances] != [i.to_json() for i in other.instances]


def test_generation_is_deterministic(tmp_path: Path) -> None:
    one = load_or_build("RedBlueLeaf", 5, 4, str(tmp_path / "a"), progress=False)
    two = load_or_build("RedBlueLeaf", 5, 4, str(tmp_path / "b"), progress=False)
    assert [i.to_json() for i in one.instances] == [i.to_json() for i in two.instances]


def test_pyg_data_fields(store: Path) -> None:
    graph_data = load_or_build("Redundancy", 0, SMALL["Redundancy"], str(store),
                               progress=False).to_pyg()[0]
    assert graph_data.x.shape[1] == 4 and graph_data.upi.shape == (graph_data.num_edges,)
    node_data = load_or_build("Majority1Hop", 0, SMALL["Majority1Hop"], str(store),
                              progress=False).to_pyg()[0]
    t = len(node_data.targets)
    upi_masks, fields = node_data.upi_masks(), node_data.receptive_field_masks()
    assert upi_masks.shape == fields.shape == (t, node_data.num_edges)
    # The UPI lies inside the receptive field.
    assert not (upi_masks & ~fields).any()


def test_table_15_figures_on_a_small_seed(store: Path) -> None:
    stats = size_stats(load_or_build("RedBlueLeaf", 0, SMALL["RedBlueLeaf"], str(store),
                                     progress=False))
    assert (stats.nodes, stats.edges, stats.upi_edges) == (32, 98, 22)


def test_barabasi_albert_sizes_and_seeds() -> None:
    edges = barabasi_albert_edges(500, 2, seed=1)
    assert edges.shape == (2, 1992)  # Table 15: 1992 directed edges on 500 nodes
    pairs = set(map(tuple, edges.T))
    assert all((t, s) in pairs for s, t in pairs)  # undirected: both directions
    assert not any(s == t for s, t in pairs)
    degrees = np.bincount(edges[1], minlength=500)
    assert degrees.min() >= 2
    assert np.array_equal(edges, barabasi_albert_edges(500, 2, seed=1))
    assert not np.array_equal(edges, barabasi_albert_edges(500, 2, seed=2))

