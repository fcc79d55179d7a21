"""FlowX (stage 1): flow counts and credits against brute-force enumeration of flows on
small layered graphs, the incrementally updated network against the PyG module, the
efficiency of the credits, and known answers on tiny compiled models."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.bench.explainers import EXPLAINERS, edge_scores
from gracr.bench.explainers.flowx import (
    IncrementalNetwork,
    LayeredGraph,
    backward_counts,
    credit_permutation,
    flows_through,
    flowx_scores,
    forward_counts,
    masked_forward,
    readout_output,
)
from gracr.bench.metric import plausibility
from gracr.dsl.ir import Formula, Kind
from gracr.errors import GracrError
from strategies import graph_sentences, graphs, node_formulas, program_for
from tiny_models import subject_of as _subject, graph_subject, node_subject

Flow = tuple[int, ...]


# ---------------------------------------------------------------- brute force


def all_flows(graph: LayeredGraph) -> list[Flow]:
    """Every flow, listed: a tuple of one layer-edge index per layer."""
    flows: list[Flow] = [(j,) for j in range(graph.width)]
    for _ in range(graph.num_layers - 1):
        flows = [flow + (j,) for flow in flows for j in range(graph.width)
                 if graph.sources[j] == graph.targets[flow[-1]]]
    return [flow for flow in flows if graph.ends[graph.targets[flow[-1]]] > 0]


def brute_force_credit(graph: LayeredGraph, layers: np.ndarray, indices: np.ndarray,
                       drops: np.ndarray) -> tuple[np.ndarray, float]:
    """FlowX's rule on listed flows: each step's drop shared equally by the flows it kills."""
    alive = set(all_flows(graph))
    flow_credit: dict[Flow, float] = {}
    orphan = 0.0
    for layer, index, drop in zip(layers, indices, drops):
        killed = [flow for flow in alive if flow[layer] == index]
        alive.difference_update(killed)
        if drop and not killed:
            orphan += float(drop)
        for flow in killed:
            flow_credit[flow] = float(drop) / len(killed)
    credit = np.zeros((graph.num_layers, graph.width))
    for flow, value in flow_credit.items():
        for layer, index in enumerate(flow):
            credit[layer, index] += value
    return credit, orphan


@st.composite
def layered_graphs(draw: st.DrawFn) -> LayeredGraph:
    nodes = draw(st.integers(1, 4))
    node = st.integers(0, nodes - 1)
    edges = draw(st.lists(st.tuples(node, node), max_size=6))
    edge_index = np.array(edges, dtype=np.int64).reshape(-1, 2).T
    target = draw(st.one_of(st.none(), node))
    return LayeredGraph.build(edge_index, nodes, draw(st.integers(1, 3)), target)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_flow_counts_equal_enumeration_under_removals(data: st.DataObject) -> None:
    graph = data.draw(layered_graphs())
    alive = np.array(data.draw(st.lists(st.booleans(), min_size=graph.num_layers * graph.width,
                                        max_size=graph.num_layers * graph.width)),
                     dtype=np.bool_).reshape(graph.num_layers, graph.width)
    expected = np.zeros((graph.num_layers, graph.width))
    for flow in all_flows(graph):
        if all(alive[layer, index] for layer, index in enumerate(flow)):
            for layer, index in enumerate(flow):
                expected[layer, index] += 1
    np.testing.assert_array_equal(flows_through(graph, alive), expected)
    total = (forward_counts(graph, alive)[-1] * graph.ends).sum()
    assert total == backward_counts(graph, alive)[0].sum() == expected[0].sum()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_credits_equal_equal_sharing_among_enumerated_flows(data: st.DataObject) -> None:
    graph = data.draw(layered_graphs())
    steps = graph.num_layers * graph.width
    order = np.array(data.draw(st.permutations(range(steps))), dtype=np.int64)
    layers, indices = order // graph.width, order % graph.width
    # Integer drops: many zeros (skipped steps), negative ones (the output rising).
    drops = np.array(data.draw(st.lists(st.integers(-2, 2), min_size=steps, max_size=steps)),
                     dtype=np.float64)
    result = credit_permutation(graph, layers, indices, drops)
    expected, orphan = brute_force_credit(graph, layers, indices, drops)
    np.testing.assert_allclose(result.credit, expected, atol=1e-12)
    assert result.orphan_drop == pytest.approx(orphan)
    # Efficiency: every layer's credits add up to the credited drops.
    credited = drops.sum() - orphan
    np.testing.assert_allclose(result.credit.sum(axis=1), credited, atol=1e-12)


def test_deep_flows_are_counted_without_enumeration() -> None:
    # Complete digraph on 6 nodes plus the self-loops: 6 layer-edges into and out of
    # every node, so F[ℓ] = 6^ℓ, B[ℓ+1] = 6^(L-ℓ-1): 6^15 flows through each of the
    # 16 x 36 layer-edges, 6^17 ≈ 1.7e13 flows in all (far beyond enumeration).
    pairs = [(s, t) for s in range(6) for t in range(6) if s != t]
    graph = LayeredGraph.build(np.array(pairs).T, 6, 16, None)
    counts = flows_through(graph, graph.all_alive())
    assert np.all(counts == 6.0 ** 15)
    assert forward_counts(graph, graph.all_alive())[-1].sum() == 6.0 ** 17


# ---------------------------------------------------------------- the network under removals


def _random_removals(graph: LayeredGraph, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    carrying = flows_through(graph, graph.all_alive()) > 0
    layers, indices = np.nonzero(carrying)
    order = rng.permutation(len(layers))
    return layers[order], indices[order]


def _check_network(program: gracr.Program, graph: gracr.Graph, seed: int) -> None:
    model = gracr.compile(program, max_degree=8)
    if model.num_layers == 0 or graph.num_edges == 0:
        return
    x, edge_index = graph.features(program.palette), np.asarray(graph.edge_index)
    target = 0 if model.kind is Kind.NODE else None
    layered = LayeredGraph.build(edge_index, graph.num_nodes, model.num_layers, target)
    relevant = backward_counts(layered, layered.all_alive()) > 0
    network = IncrementalNetwork(model, x, edge_index, target, relevant)
    edge_alive = np.ones((model.num_layers, graph.num_edges), dtype=np.bool_)
    self_alive = np.ones((model.num_layers, graph.num_nodes), dtype=np.bool_)
    for layer, index in zip(*_random_removals(layered, np.random.default_rng(seed))):
        output = network.remove(int(layer), int(index))
        if index < graph.num_edges:
            edge_alive[layer, index] = False
        else:
            self_alive[layer, index - graph.num_edges] = False
        levels = masked_forward(model, x, edge_index, edge_alive, self_alive)
        # Every state that can still reach the output is up to date (the others are
        # never recomputed, by design).
        for level, (ours, reference) in enumerate(zip(network.levels, levels)):
            np.testing.assert_allclose(ours[relevant[level]], reference[relevant[level]],
                                       atol=1e-9)
        expected = (levels[-1][0, model.output_column] if target is not None
                    else readout_output(model, levels[-1].sum(axis=0)))
        assert output == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_formulas, graphs(max_nodes=6, max_edges=10), st.integers(0, 3))
def test_incremental_network_follows_removals_for_node_classifiers(
        formula: Formula, graph: gracr.Graph, seed: int) -> None:
    _check_network(program_for(formula), graph, seed)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_sentences, graphs(max_nodes=6, max_edges=10), st.integers(0, 3))
def test_incremental_network_follows_removals_for_graph_classifiers(
        formula: Formula, graph: gracr.Graph, seed: int) -> None:
    _check_network(program_for(formula), graph, seed)


DEEP_PROGRAM = gracr.parse("colors red, blue, green\n"
                           "classify <> (red & <2> blue) & !(<> green) | atleast 2 (<> red)")


def _random_graph(seed: int, num_nodes: int = 9, num_edges: int = 24) -> gracr.Graph:
    rng = np.random.default_rng(seed)
    edges = rng.integers(0, num_nodes, size=(num_edges, 2))
    colours = [[["red"], ["blue"], ["green"]][int(c)] for c in rng.integers(0, 3, num_nodes)]
    return gracr.Graph.from_edges(num_nodes, colours, [(int(s), int(t)) for s, t in edges])


@pytest.mark.parametrize("seed", range(6))
def test_incremental_network_follows_removals_on_a_deep_model(seed: int) -> None:
    # Several message-passing layers, so a dead edge's source can still change later.
    _check_network(DEEP_PROGRAM, _random_graph(seed), seed)


@pytest.mark.parametrize("seed", range(4))
def test_masked_forward_equals_the_module_with_layer_edge_weights(seed: int) -> None:
    # Real-edge removals are the module's `layer_edge_weights`; with every self term
    # kept, both networks must agree on every node.
    program, model = DEEP_PROGRAM, gracr.compile(DEEP_PROGRAM)
    rng = np.random.default_rng(seed)
    graph = _random_graph(seed)
    num_nodes, edge_index = graph.num_nodes, np.asarray(graph.edge_index)
    x = graph.features(program.palette)
    edge_alive = rng.random((model.num_layers, edge_index.shape[1])) < 0.6
    self_alive = np.ones((model.num_layers, num_nodes), dtype=np.bool_)
    ours = masked_forward(model, x, edge_index, edge_alive, self_alive)[-1][:, model.output_column]
    with torch.no_grad():
        theirs = model.to_pyg()(torch.as_tensor(x), torch.as_tensor(edge_index),
                                layer_edge_weights=[torch.as_tensor(w, dtype=torch.float32)
                                                    for w in edge_alive])
    np.testing.assert_allclose(ours, theirs[:, 0].numpy(), atol=1e-6)


# ---------------------------------------------------------------- the explainer


def test_the_one_relevant_edge_gets_the_whole_drop() -> None:
    # One layer: flows are the layer-edges into node 0. Removing 1 -> 0 always drops
    # the output from 1 to 0 and kills exactly its own flow; nothing else drops it.
    scores = edge_scores("FlowX", node_subject(), seed=3).numpy()
    np.testing.assert_allclose(scores, [1.0, 0.0, 0.0])


def test_graph_task_ranks_the_relevant_edge_first() -> None:
    # Two layers. The output needs the message 1 -> 0 (layer 1) and node 0's self
    # term in both layers; the first of the three to go takes the output down. By
    # hand, in expectation: 1 -> 0 scores 1/3 + 1/3 · (its share of the flows into
    # 0's self-loop) ≈ 0.44, 0 -> 2 ≈ 1/3 (it carries the flows out of node 0),
    # 2 -> 0 ≈ 1/9, and the pair 3 <-> 4 reaches no drop: 0.
    subject = graph_subject()
    scores = flowx_scores(subject, samples=300, seed=0).edge
    assert scores[0] == scores.max() and scores[0] > scores[4] > scores[1] > 0, scores
    assert scores[2] == scores[3] == 0.0
    assert abs(scores[0] - 4 / 9) < 0.08 and abs(scores[1] - 1 / 9) < 0.05


def test_permutation_credits_are_efficient_on_a_compiled_model() -> None:
    # Σ over flows of their credit (= Σ_j credit[ℓ, j], any ℓ) + the uncredited drops
    # = f(all layer-edges) - f(none) = the total drop of the permutation.
    subject = _subject("colors red, blue, green\nclassify <> (red & <> blue) & !(<> green)",
                       gracr.Graph.from_edges(5, [["red"], ["red"], ["blue"], ["green"], ["blue"]],
                                              [(1, 0), (2, 1), (0, 1), (3, 4), (4, 0), (1, 2)]),
                       0)
    edge_index = subject.edge_index.numpy()
    model = subject.compiled
    graph = LayeredGraph.build(edge_index, 5, model.num_layers, 0)
    relevant = backward_counts(graph, graph.all_alive()) > 0
    network = IncrementalNetwork(model, subject.x.numpy(), edge_index, 0, relevant)
    assert network.output == 1.0
    for seed in range(10):
        layers, indices = _random_removals(graph, np.random.default_rng(seed))
        network.reset()
        outputs = np.array([network.output] + [network.remove(int(layer), int(index))
                                               for layer, index in zip(layers, indices)])
        result = credit_permutation(graph, layers, indices, outputs[:-1] - outputs[1:])
        np.testing.assert_allclose(result.credit.sum(axis=1) + result.orphan_drop,
                                   outputs[0] - outputs[-1], atol=1e-12)


def test_flowx_is_registered_seeded_and_scores_every_edge() -> None:
    spec = EXPLAINERS["FlowX"]
    assert dict(spec.defaults) == {"samples": 30} and not spec.space
    subject = graph_subject()
    first = edge_scores("FlowX", subject, {"samples": 5}, seed=7)
    assert first.shape == (subject.num_edges,)
    assert torch.equal(first, edge_scores("FlowX", subject, {"samples": 5}, seed=7))
    assert plausibility(first.numpy(), np.array([True, False, False, False, False])).f1 > 0
    with pytest.raises(GracrError):
        edge_scores("FlowX", subject, {"samples": 0})
