"""FlowX (stage 1): flow counts and credits against brute-force enumeration of flows on
small layered graphs, the incrementally updated network against the PyG module, the
efficiency of the credits under both self-loop settings, and known answers on tiny
compiled models (worked out by hand in each test)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.explainers import EXPLAINERS, Subject, edge_scores
from gracr.explainers.flowx import (
    IncrementalNetwork,
    LayeredGraph,
    backward_counts,
    credit_permutation,
    flows_through,
    flowx_scores,
    forward_counts,
    masked_forward,
    readout_output,
    removal_outputs,
)
from gracr.explainers.metric import plausibility
from gracr.dsl.ir import Formula, Kind
from gracr.errors import GracrError
from strategies import graph_sentences, graphs, node_formulas, program_for
from tiny_models import (
    CARBONYL_NODE, MOLECULE, TYPED_PROGRAMS, graph_subject, node_subject, random_molecule,
    subject_of as _subject,
)

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
                       drops: np.ndarray, sharing: str = "killed"
                       ) -> tuple[np.ndarray, float]:
    """FlowX's rule on listed flows: each step's drop shared equally by the flows it kills
    (`sharing="killed"`) or by every flow through the removed layer-edge (`"through"`);
    a drop with no such flow is left out."""
    flows = all_flows(graph)
    alive = set(flows)
    flow_credit: dict[Flow, float] = {}
    orphan = 0.0
    for layer, index, drop in zip(layers, indices, drops):
        killed = [flow for flow in alive if flow[layer] == index]
        alive.difference_update(killed)
        sharers = killed if sharing == "killed" else [flow for flow in flows
                                                      if flow[layer] == index]
        if drop and not sharers:
            orphan += float(drop)
        for flow in sharers:
            flow_credit[flow] = flow_credit.get(flow, 0.0) + float(drop) / len(sharers)
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
@given(st.data(), st.sampled_from(["killed", "through"]))
def test_credits_equal_equal_sharing_among_enumerated_flows(data: st.DataObject,
                                                            sharing: str) -> None:
    graph = data.draw(layered_graphs())
    steps = graph.num_layers * graph.width
    order = np.array(data.draw(st.permutations(range(steps))), dtype=np.int64)
    layers, indices = order // graph.width, order % graph.width
    # Integer drops: many zeros (skipped steps), negative ones (the output rising).
    drops = np.array(data.draw(st.lists(st.integers(-2, 2), min_size=steps, max_size=steps)),
                     dtype=np.float64)
    result = credit_permutation(graph, layers, indices, drops, sharing)  # type: ignore[arg-type]
    expected, orphan = brute_force_credit(graph, layers, indices, drops, sharing)
    np.testing.assert_allclose(result.credit, expected, atol=1e-12)
    assert result.orphan_drop == pytest.approx(orphan)
    if sharing == "through":
        # Only a layer-edge on no flow at all leaves its drop uncredited.
        carrying = flows_through(graph, graph.all_alive()) > 0
        assert orphan == pytest.approx(float(drops[~carrying[layers, indices]].sum()))
    # Efficiency: every layer's credits add up to the credited drops.
    credited = drops.sum() - orphan
    np.testing.assert_allclose(result.credit.sum(axis=1), credited, atol=1e-12)


def test_the_original_shares_a_drop_among_every_flow_through_its_layer_edge() -> None:
    # Edges 1 -> 0 (layer-edge 0) and 2 -> 0 (1), self-loops of nodes 0, 1, 2 (2, 3, 4),
    # two layers, flows end at node 0. The five flows (layer 0, layer 1): (3, 0), (4, 1),
    # and (0, 2), (1, 2), (2, 2) through node 0's layer-1 self-loop.
    graph = LayeredGraph.build(np.array([[1, 2], [0, 0]]), 3, 2, 0)
    assert flows_through(graph, graph.all_alive()).sum(axis=1).tolist() == [5.0, 5.0]

    def credits(order: list[tuple[int, int]], drops: list[float], sharing: str
                ) -> tuple[np.ndarray, float]:
        layers, indices = (np.array(side) for side in zip(*order))
        result = credit_permutation(graph, layers, indices, np.array(drops),
                                    sharing)  # type: ignore[arg-type]
        return result.credit, result.orphan_drop

    # One dead flow: (1, self-loop 0) goes first, then (0, edge 1 -> 0) drops 1. Its only
    # flow, (0, 2), died with the self-loop: killed flows, none (the drop is left out);
    # flows through it, that one, whose two layer-edges take the whole drop.
    order = [(1, 2), (0, 0)]
    credit, orphan = credits(order, [0.0, 1.0], "killed")
    assert orphan == 1.0 and not credit.any()
    credit, orphan = credits(order, [0.0, 1.0], "through")
    expected = np.zeros((2, 5))
    expected[0, 0] = expected[1, 2] = 1.0
    np.testing.assert_array_equal(credit, expected)
    assert orphan == 0.0
    # (0, edge 1 -> 0) and (0, edge 2 -> 0) go, then (1, self-loop 0) drops 3. It kills
    # (2, 2) only (the other two flows through it are dead): "killed" gives that flow 3;
    # "through" gives 1 to each of (0, 2), (1, 2), (2, 2).
    order = [(0, 0), (0, 1), (1, 2)]
    credit, orphan = credits(order, [0.0, 0.0, 3.0], "killed")
    expected = np.zeros((2, 5))
    expected[0, 2] = expected[1, 2] = 3.0
    np.testing.assert_array_equal(credit, expected)
    credit, orphan = credits(order, [0.0, 0.0, 3.0], "through")
    expected = np.zeros((2, 5))
    expected[0, :3] = 1.0
    expected[1, 2] = 3.0
    np.testing.assert_array_equal(credit, expected)
    assert orphan == 0.0
    # "through" credits a flow at every dropping step on it, dead or alive: after
    # (1, edge 1 -> 0) drops 2, (0, self-loop 1) drops 1 more: flow (3, 0) takes both.
    credit, orphan = credits([(1, 0), (0, 3)], [2.0, 1.0], "through")
    expected = np.zeros((2, 5))
    expected[0, 3] = expected[1, 0] = 3.0
    np.testing.assert_array_equal(credit, expected)
    credit, orphan = credits([(1, 0), (0, 3)], [2.0, 1.0], "killed")
    expected[0, 3] = expected[1, 0] = 2.0
    np.testing.assert_array_equal(credit, expected)
    assert orphan == 1.0


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
    x, edge_index = model.features(graph), np.asarray(graph.edge_index)
    edge_type = model.edge_types(graph)
    target = 0 if model.kind is Kind.NODE else None
    layered = LayeredGraph.build(edge_index, graph.num_nodes, model.num_layers, target)
    relevant = backward_counts(layered, layered.all_alive()) > 0
    network = IncrementalNetwork(model, x, edge_index, target, relevant, edge_type)
    # The default: only the states of the executor's target cone are kept up to date.
    in_cone = IncrementalNetwork(model, x, edge_index, target, edge_type=edge_type)
    assert np.all(relevant | ~in_cone.relevant)
    edge_alive = np.ones((model.num_layers, graph.num_edges), dtype=np.bool_)
    self_alive = np.ones((model.num_layers, graph.num_nodes), dtype=np.bool_)
    for layer, index in zip(*_random_removals(layered, np.random.default_rng(seed))):
        output = network.remove(int(layer), int(index))
        assert in_cone.remove(int(layer), int(index)) == output
        if index < graph.num_edges:
            edge_alive[layer, index] = False
        else:
            self_alive[layer, index - graph.num_edges] = False
        levels = masked_forward(model, x, edge_index, edge_alive, self_alive, edge_type)
        # Every state that can still reach the output is up to date (the others are
        # never recomputed, by design).
        for level, (ours, reference) in enumerate(zip(network.levels, levels)):
            np.testing.assert_allclose(ours[relevant[level]], reference[relevant[level]],
                                       atol=1e-9)
            cone = in_cone.relevant[level]
            np.testing.assert_allclose(in_cone.levels[level][cone], reference[cone], atol=1e-9)
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


@pytest.mark.parametrize("seed", range(12))
def test_incremental_network_follows_removals_on_typed_models(seed: int) -> None:
    # Channels of one relation, of a set of relations and of every edge, on random
    # molecules: a removal reaches only the channels that admit the edge.
    program = gracr.parse(TYPED_PROGRAMS[seed % len(TYPED_PROGRAMS)])
    _check_network(program, random_molecule(seed), seed)


@pytest.mark.parametrize("seed", range(4))
def test_masked_forward_equals_the_module_on_a_typed_model(seed: int) -> None:
    # The executor's numpy forward with per-layer edge weights is the torch module's,
    # typed messages included; without edge_type the typed model cannot run.
    program = gracr.parse(TYPED_PROGRAMS[2])
    model = gracr.compile(program)
    graph = random_molecule(seed)
    x, edge_index, edge_type = model.features(graph), np.asarray(graph.edge_index), \
        model.edge_types(graph)
    assert edge_type is not None
    rng = np.random.default_rng(seed)
    edge_alive = rng.random((model.num_layers, edge_index.shape[1])) < 0.6
    self_alive = np.ones((model.num_layers, graph.num_nodes), dtype=np.bool_)
    ours = masked_forward(model, x, edge_index, edge_alive, self_alive,
                          edge_type)[-1][:, model.output_column]
    with torch.no_grad():
        theirs = model.to_pyg()(torch.as_tensor(x), torch.as_tensor(edge_index),
                                edge_type=torch.as_tensor(edge_type),
                                layer_edge_weights=[torch.as_tensor(w, dtype=torch.float32)
                                                    for w in edge_alive])
    np.testing.assert_allclose(ours, theirs[:, 0].numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="edge_type"):
        masked_forward(model, x, edge_index, edge_alive, self_alive)


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


@pytest.mark.parametrize("self_loops", ["inert", "self-term"])
def test_the_one_relevant_edge_gets_the_whole_drop(self_loops: str) -> None:
    # One layer: flows are the layer-edges into node 0. Removing 1 -> 0 always drops
    # the output from 1 to 0 and kills exactly its own flow; nothing else drops it
    # (`<> red` reads no self term, so even zeroing it changes nothing).
    scores = edge_scores("FlowX", node_subject(), {"self_loops": self_loops}, seed=3).numpy()
    np.testing.assert_allclose(scores, [1.0, 0.0, 0.0])


def test_graph_task_ranks_the_relevant_edge_first_when_self_terms_are_removed() -> None:
    # Two layers. The output needs the message 1 -> 0 (layer 1) and node 0's self
    # term in both layers; the first of the three to go takes the output down. By
    # hand, in expectation: 1 -> 0 scores 1/3 + 1/3 · (its share of the flows into
    # 0's self-loop) ≈ 0.44, 0 -> 2 ≈ 1/3 (it carries the flows out of node 0),
    # 2 -> 0 ≈ 1/9, and the pair 3 <-> 4 reaches no drop: 0.
    subject = graph_subject()
    scores = flowx_scores(subject, samples=300, seed=0, self_loops="self-term").edge
    assert scores[0] == scores.max() and scores[0] > scores[4] > scores[1] > 0, scores
    assert scores[2] == scores[3] == 0.0
    assert abs(scores[0] - 4 / 9) < 0.08 and abs(scores[1] - 1 / 9) < 0.05


@pytest.mark.parametrize("self_loops", ["inert", "self-term"])
def test_permutation_credits_are_efficient_on_a_compiled_model(self_loops: str) -> None:
    # Σ over flows of their credit (= Σ_j credit[ℓ, j], any ℓ) + the uncredited drops
    # = f(all layer-edges) - f(none) = the total drop of the permutation, where "none"
    # keeps every self term when self-loops are inert and zeroes them all otherwise.
    subject = _subject("colors red, blue, green\nclassify <> (red & <> blue) & !(<> green)",
                       gracr.Graph.from_edges(5, [["red"], ["red"], ["blue"], ["green"], ["blue"]],
                                              [(1, 0), (2, 1), (0, 1), (3, 4), (4, 0), (1, 2)]),
                       0)
    edge_index, x = subject.edge_index.numpy(), subject.x.numpy()
    model = subject.compiled
    graph = LayeredGraph.build(edge_index, 5, model.num_layers, 0)
    relevant = backward_counts(graph, graph.all_alive()) > 0
    network = IncrementalNetwork(model, x, edge_index, 0, relevant)
    assert network.output == 1.0
    # f(none): no real edge left, self terms as the setting says.
    no_edges = np.zeros((model.num_layers, graph.num_edges), dtype=np.bool_)
    self_terms = np.full((model.num_layers, 5), self_loops == "inert")
    nothing = masked_forward(model, x, edge_index, no_edges, self_terms)[-1][0, model.output_column]
    total_drops = set()
    for seed in range(10):
        layers, indices = _random_removals(graph, np.random.default_rng(seed))
        # Every layer-edge that reaches the target is a player, so the permutation
        # ends with all of them removed.
        assert len(layers) == int((flows_through(graph, graph.all_alive()) > 0).sum())
        outputs = removal_outputs(network, layers, indices, self_loops)  # type: ignore[arg-type]
        assert outputs[-1] == pytest.approx(nothing, abs=1e-9)
        if self_loops == "inert":
            # A self-loop's step never moves the output.
            steps_of_self_loops = np.flatnonzero(indices >= graph.num_edges)
            np.testing.assert_array_equal(outputs[steps_of_self_loops + 1],
                                          outputs[steps_of_self_loops])
        result = credit_permutation(graph, layers, indices, outputs[:-1] - outputs[1:])
        np.testing.assert_allclose(result.credit.sum(axis=1) + result.orphan_drop,
                                   outputs[0] - outputs[-1], atol=1e-12)
        total_drops.add(round(float(outputs[0] - outputs[-1]), 9))
    assert total_drops == {round(1.0 - float(nothing), 9)}


# ---------------------------------------------------------------- inert self-loops: known answers


def _redundancy_subject() -> Subject:
    """`exists (black & <1> red)` on a black node 0 with in-neighbours red 1, red 2 and
    grey 3, every edge in both directions (edges 0-2 into node 0, 3-5 out of it)."""
    graph = gracr.Graph.from_edges(4, [["black"], ["red"], ["red"], ["grey"]],
                                   [(1, 0), (2, 0), (3, 0), (0, 1), (0, 2), (0, 3)])
    return _subject("colors black, red, grey\nclassify exists (black & <1> red)", graph, None)


def test_inert_self_loops_credit_the_red_edges_on_a_redundancy_graph() -> None:
    # Two layers: layer 1 counts red in-neighbours (A ≠ 0) and carries `black` by C,
    # layer 2 forms black & <1>red by C alone (A = 0). With inert self-loops the output
    # falls by 1 only when the later of the two layer-1 red -> 0 layer-edges goes. The
    # four flows through it continue through node 0's four layer-2 out-layer-edges (its
    # self-loop, 0 -> 1, 0 -> 2, 0 -> 3), and, every layer crossed, the drop is shared by
    # all four, alive or not, as the original FlowX does. By hand: each red edge is the
    # later red with probability 1/2 and then takes the whole drop: 1/2 each; each
    # out-layer-edge takes 1/4 in every permutation (the self-loop's is dropped).
    # grey -> 0 never lies on a flow through a dropping step: exactly 0. (Sharing among
    # the killed flows only gave 1/3, 1/6, and left a third of the drop uncredited when
    # the out-layer-edges had all gone first.)
    subject = _redundancy_subject()
    layers = subject.compiled.layers
    assert subject.compiled.num_layers == 2 and not layers[1].aggregations[0].A.any()
    result = flowx_scores(subject, samples=600, seed=0)
    np.testing.assert_allclose(result.edge, [1 / 2, 1 / 2, 0, 1 / 4, 1 / 4, 1 / 4], atol=0.06)
    np.testing.assert_allclose(result.edge[3:], 1 / 4, atol=1e-12)
    assert result.edge[2] == 0.0
    assert min(result.edge[:2]) > max(result.edge[2:])
    assert result.orphan_drop == 0.0
    # Efficiency: each layer's credits = f(all) - f(none) = 1, nothing left over.
    np.testing.assert_allclose(result.layer_edge.sum(axis=1), 1.0)
    upi = np.array([True, True, False, False, False, False])
    assert plausibility(result.edge, upi).f1 == 1.0


def test_removing_self_terms_spreads_credit_to_the_grey_edge() -> None:
    # The contrast that motivates `inert`: when a self-loop zeroes node 0's self term,
    # its removal (usually before the last red edge) takes the output down and shares
    # the drop with every flow through it, grey -> 0 included.
    scores = flowx_scores(_redundancy_subject(), samples=300, seed=0,
                          self_loops="self-term").edge
    assert scores[2] > 0.03


def test_inert_self_loops_on_a_node_task() -> None:
    # `red & <> blue` at red node 0, blue in-neighbours 1 and 2, green 3, and a blue 4
    # two hops out (4 -> 3), plus 0 -> 1. Layer 1 counts blue (A ≠ 0) and carries
    # `red`; layer 2 combines them by C alone. Flows end at node 0, and the only
    # layer-2 layer-edge out of node 0 that ends there is its self-loop. The output
    # falls at the later of the layer-1 blue -> 0 layer-edges; the one flow it kills
    # (blue -> 0, then 0's layer-2 self-loop) is alive only if that self-loop comes
    # after it. Over the 3! orders of {1 -> 0, 2 -> 0, self-loop}: each blue edge is
    # the later one; dead or alive, it is the one flow through that layer-edge and takes
    # the whole drop, as in the original FlowX. So the later blue edge takes it every
    # time: 1/2 each, every other edge exactly 0. (Sharing among killed flows only gave
    # 1/6 each and left 2/3 of the drop uncredited.)
    graph = gracr.Graph.from_edges(5, [["red"], ["blue"], ["blue"], ["green"], ["blue"]],
                                   [(1, 0), (2, 0), (3, 0), (4, 3), (0, 1)])
    subject = _subject("colors red, blue, green\nclassify red & <> blue", graph, 0)
    result = flowx_scores(subject, samples=600, seed=1)
    np.testing.assert_allclose(result.edge, [1 / 2, 1 / 2, 0, 0, 0], atol=0.05)
    np.testing.assert_allclose(result.edge[:2].sum(), 1.0)
    assert np.all(result.edge[2:] == 0.0)
    assert result.orphan_drop == 0.0
    # Zeroing self terms instead credits the green edge too (through 0's layer-2
    # self-loop, whose removal drops the output).
    self_term = flowx_scores(subject, samples=300, seed=1, self_loops="self-term")
    assert self_term.edge[2] > 0.03 and self_term.orphan_drop == 0.0


# ---------------------------------------------------------------- flows through message layers only


def test_flows_through_message_layers_only_on_a_redundancy_graph() -> None:
    # Only layer 1 sends messages (layer 2 has A = 0), so a flow is one layer-1
    # layer-edge. The later of the two red -> 0 layer-edges drops the output by 1 and
    # kills exactly its own flow (alive until then: nothing else lies on it), so the two
    # red edges share the whole drop, 1/2 each in expectation and exactly 1 together;
    # every other edge scores exactly 0 and no drop is orphaned.
    result = flowx_scores(_redundancy_subject(), samples=600, seed=0, flow_layers="message")
    assert result.edge[0] + result.edge[1] == pytest.approx(1.0, abs=1e-12)
    assert abs(result.edge[0] - 0.5) < 0.07
    assert np.all(result.edge[2:] == 0.0) and result.orphan_drop == 0.0
    # One row per model layer; the message-free layer 2 has none of the credit.
    assert result.layer_edge.shape == (2, 6 + 4) and not result.layer_edge[1].any()


def test_flows_through_message_layers_only_on_a_node_task() -> None:
    # `red & <> blue` at node 0 (as in the inert node test): one flow layer, whose
    # layer-edges into node 0 are the flows. Again the later blue edge takes the whole
    # drop, so blue -> 0 share 1; green -> 0, 4 -> 3 (two hops) and 0 -> 1 score 0.
    # Zeroing self terms instead: node 0's layer-1 self-loop (it carries `red`) also
    # drops the output, crediting only its own flow (a self-loop: not an edge score);
    # it comes before the later blue edge in 2 of the 3 orders, so each blue edge
    # scores 1/2 · 1/3 = 1/6, and every other edge still 0.
    graph = gracr.Graph.from_edges(5, [["red"], ["blue"], ["blue"], ["green"], ["blue"]],
                                   [(1, 0), (2, 0), (3, 0), (4, 3), (0, 1)])
    subject = _subject("colors red, blue, green\nclassify red & <> blue", graph, 0)
    for self_loops in ("inert", "self-term"):
        scores = edge_scores("FlowX", subject, {"samples": 200, "self_loops": self_loops,
                                                "flow_layers": "message"}, seed=2).numpy()
        assert np.all(scores[2:] == 0.0), (self_loops, scores)
        if self_loops == "inert":
            assert scores[0] + scores[1] == pytest.approx(1.0, abs=1e-12)
            assert min(scores[:2]) > 0.35, scores
        else:
            np.testing.assert_allclose(scores[:2], [1 / 6, 1 / 6], atol=0.07)


# ---------------------------------------------------------------- typed edges


def test_flowx_credits_only_the_double_bond_on_a_typed_model() -> None:
    # `element=C & <1>{double} element=O` at C node 0 of MOLECULE: one message layer,
    # whose `double` channel alone sends messages. Flows are its layer-edges into node 0.
    # Only removing O1 -> C0 (double) drops the output, killing just its own flow: it
    # takes the whole drop in every permutation. O2 -> C0 is from an O but single, and
    # C3 -> C0 double but from a C: the `double` channel ignores the first and the second
    # changes nothing, so both score exactly 0, like the edges out of node 0 and the
    # two-hop O4 -> C3.
    subject = _subject(CARBONYL_NODE, MOLECULE, 0)
    assert subject.edge_type is not None and subject.prediction == 1.0
    result = flowx_scores(subject, samples=50, seed=0, flow_layers="message")
    np.testing.assert_array_equal(result.edge, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert result.orphan_drop == 0.0
    scores = edge_scores("FlowX", subject, {"samples": 10}, seed=1).numpy()
    np.testing.assert_array_equal(scores, result.edge)
    upi = np.array([True, False, False, False, False, False])
    assert plausibility(scores, upi).f1 == 1.0
    # Every layer: the one flow through the decisive layer-edge goes on through node 0's
    # layer-2 self-loop (`inert`); alive or not, it takes the whole drop (as in the
    # original, which shares a drop among all the flows through the removed layer-edge).
    every_layer = flowx_scores(subject, samples=200, seed=0, flow_layers="all")
    np.testing.assert_array_equal(every_layer.edge, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_flowx_is_registered_seeded_and_scores_every_edge() -> None:
    spec = EXPLAINERS["FlowX"]
    assert dict(spec.defaults) == {"samples": 30, "self_loops": "inert",
                                   "flow_layers": "message"} and not spec.space
    subject = graph_subject()
    first = edge_scores("FlowX", subject, {"samples": 5}, seed=7)
    assert first.shape == (subject.num_edges,)
    assert torch.equal(first, edge_scores("FlowX", subject, {"samples": 5}, seed=7))
    assert plausibility(first.numpy(), np.array([True, False, False, False, False])).f1 > 0
    with pytest.raises(GracrError):
        edge_scores("FlowX", subject, {"samples": 0})
    with pytest.raises(GracrError, match="self_loops"):
        edge_scores("FlowX", subject, {"self_loops": "gated"})
    with pytest.raises(GracrError, match="flow_layers"):
        edge_scores("FlowX", subject, {"flow_layers": "some"})
