"""SubgraphX (ours, Yuan et al. 2021) on tiny compiled models whose answers are
worked out by hand."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from math import factorial

import networkx as nx
import numpy as np
import pytest
import torch

import gracr
from gracr.explainers import edge_scores
from gracr.explainers import subgraphx
from gracr.explainers.base import EXPLAINERS, Choice, IntRange, Subject
from gracr.explainers.metric import plausibility

MAJORITY_2HOP = ("colors red, blue, green\nlet redish = more(red, blue)\n"
                 "let blueish = more(blue, red)\nclassify more(redish, blueish)")
TYPED = "attribute element = C, O\nrelations single, double\n"
CARBONYL = TYPED + "classify element=C & <1>{double} element=O"


def _subject(source: str, graph: gracr.Graph, target: int | None,
             max_degree: int | None = None) -> Subject:
    program = gracr.parse(source)
    model = gracr.compile(program, max_degree=max_degree)
    return Subject(model, torch.as_tensor(graph.features(program.palette)),
                   torch.as_tensor(graph.edge_index), target,
                   gracr.receptive_field(program, graph, target))


def _undirected(colours: list[list[str]], pairs: list[tuple[int, int]]) -> gracr.Graph:
    edges = [(s, t) for u, v in pairs for s, t in ((u, v), (v, u))]
    return gracr.Graph.from_edges(len(colours), colours, edges)


def _random_graph(seed: int, num_nodes: int) -> tuple[gracr.Graph, int]:
    """A connected random graph (a random tree plus a few chords, both directions),
    coloured uniformly; returns it and its highest-degree node."""
    rng = np.random.default_rng(seed)
    pairs = {(int(rng.integers(0, v)), v) for v in range(1, num_nodes)}
    while len(pairs) < num_nodes + 5:
        u, v = sorted(int(n) for n in rng.choice(num_nodes, 2, replace=False))
        pairs.add((u, v))
    colours = [[str(rng.choice(["red", "blue", "green"]))] for _ in range(num_nodes)]
    degree = np.bincount(np.array(sorted(pairs)).ravel(), minlength=num_nodes)
    return _undirected(colours, sorted(pairs)), int(degree.argmax())


def test_registered_with_the_implementation_defaults_and_table16_space() -> None:
    spec = EXPLAINERS["SubgraphX"]
    assert dict(spec.defaults) == {
        "max_nodes": 14, "min_atoms": 3, "sample_num": 100, "rollout": 10,
        "expand_atoms": 14, "local_radius": 4, "c_puct": 10.0, "high2low": False,
        "computation_depth": "message_layers"}
    assert spec.space == {
        "max_nodes": IntRange(5, 20), "min_atoms": IntRange(3, "max_nodes"),
        "sample_num": Choice((10, 20, 50)), "rollout": Choice((3, 5, 10, 20)),
        "expand_atoms": IntRange(2, 10), "local_radius": Choice((1, 2, 3))}


# ---------------------------------------------------------------- the relevant edge


def test_node_task_keeps_the_red_neighbour_and_scores_its_edge_alone() -> None:
    # `<> red` at node 0; edges 1 -> 0 (red), 2 -> 0 (blue), 3 -> 2. The 1-hop
    # computation graph is {0, 1, 2}. With at most 2 nodes the children of the root
    # are {0, 2} and {0, 1} (the target is never removed). Their Shapley values
    # (players: the coalition and the remaining node): {0, 1} is 1 (node 1 present
    # makes the output 1 whatever else), {0, 2} is 0. So {0, 1} wins and only
    # 1 -> 0 lies inside it.
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                   [(1, 0), (2, 0), (3, 2)])
    subject = _subject("colors grey, red, blue\nclassify <> red", graph, 0)
    settings = {"max_nodes": 2, "min_atoms": 2}
    _, search, chosen = subgraphx.explain_subgraph(
        subject, {**subgraphx.DEFAULTS, **settings}, seed=0)
    assert chosen.coalition == frozenset({0, 1}) and chosen.score == 1.0
    assert search.states[frozenset({0, 2})].score == 0.0
    scores = edge_scores("SubgraphX", subject, settings, seed=0).numpy()
    assert scores.tolist() == [1.0, 0.0, 0.0]


def test_graph_task_with_defaults_finds_the_black_red_pair() -> None:
    # `exists (black & <> red)`: black hub 0, its red leaf 1, and a grey tail of 18
    # nodes (more than max_nodes = 14). Every coalition holding {0, 1} has Shapley
    # value exactly 1 (the black node is in it, so without the coalition nothing is
    # black); every other one scores less. The smallest such coalition visited wins,
    # with 1 -> 0 among its induced edges.
    num_nodes = 20
    colours = [["black"], ["red"]] + [["grey"]] * (num_nodes - 2)
    pairs = [(0, 1), (0, 2), (0, 3)] + [(v - 2, v) for v in range(4, num_nodes)]
    graph = _undirected(colours, pairs)
    subject = _subject("colors black, red, grey\nclassify exists (black & <> red)",
                       graph, None)
    _, search, chosen = subgraphx.explain_subgraph(subject, subgraphx.DEFAULTS, seed=0)
    assert {0, 1} <= chosen.coalition and chosen.score == 1.0
    best = [c for c, state in search.states.items() if state.score == 1.0]
    assert len(chosen.coalition) == min(len(c) for c in best)
    assert chosen.score == 1.0
    scores = edge_scores("SubgraphX", subject, seed=0).numpy()
    relevant = (graph.edge_index[0] == 1) & (graph.edge_index[1] == 0)
    assert scores[relevant].item() == scores.max() == 1.0
    assert plausibility(scores, relevant).recall == 1.0


# ---------------------------------------------------------------- Shapley values


def _exact_shapley(subject: Subject, coalition: set[int], players: list[int]) -> Fraction:
    """Σ_S |S|!(r − |S|)!/(r + 1)! [v(S ∪ C) − v(S)] over subsets S of the other
    players, v = the module's output with absent nodes zero-filled."""

    def value(present: set[int]) -> int:
        x = subject.x.clone()
        x[[v for v in range(x.shape[0]) if v not in present]] = 0
        with torch.no_grad():
            return int(subject.module()(x, subject.edge_index)[0, 0])

    others = len(players)
    total = Fraction(0)
    for size in range(others + 1):
        weight = Fraction(factorial(size) * factorial(others - size), factorial(others + 1))
        for chosen in combinations(players, size):
            total += weight * (value(set(chosen) | coalition) - value(set(chosen)))
    return total


@pytest.mark.parametrize("coalition, radius, players, expected", [
    # {1} among {0, 2, 3}: it matters iff the black 0 came before it and the other
    # red 2 after it: 1 of the 3! orders of (0, C, 2).
    ({1}, 3, [0, 2, 3], Fraction(1, 6)),
    # {0} among {1, 2, 3}: it matters iff a red came before it: 2/3.
    ({0}, 2, [1, 2, 3], Fraction(2, 3)),
])
def test_monte_carlo_shapley_matches_the_exact_value(
        coalition: set[int], radius: int, players: list[int], expected: Fraction) -> None:
    # Black 0 with neighbours red 1, red 2, grey 3; `exists (black & <> red)`.
    graph = _undirected([["black"], ["red"], ["red"], ["grey"]], [(0, 1), (0, 2), (0, 3)])
    subject = _subject("colors black, red, grey\nclassify exists (black & <> red)",
                       graph, None)
    computation = subgraphx.computation_graph(subject, depth=subject.num_layers)
    region = subgraphx.local_region(computation, frozenset(coalition), radius)
    assert sorted(region - coalition) == players
    assert _exact_shapley(subject, coalition, players) == expected
    value = subgraphx.CoalitionValue(computation, subject)
    (estimate,) = subgraphx.shapley_scores(computation, [frozenset(coalition)], value,
                                           radius, 4000, np.random.default_rng(0))
    # Each sample is a 0/1 marginal: standard error ≤ 0.5/sqrt(4000) ≈ 0.008.
    assert estimate == pytest.approx(float(expected), abs=0.03)


def test_nodes_outside_the_local_region_stay_present() -> None:
    # With local_radius 1 there are no other players: the estimate is exactly
    # v(everything) − v(everything but the coalition).
    graph = _undirected([["black"], ["red"], ["red"], ["grey"]], [(0, 1), (0, 2), (0, 3)])
    subject = _subject("colors black, red, grey\nclassify exists (black & <> red)",
                       graph, None)
    computation = subgraphx.computation_graph(subject, depth=subject.num_layers)
    value = subgraphx.CoalitionValue(computation, subject)
    scores = subgraphx.shapley_scores(computation, [frozenset({1}), frozenset({0})], value,
                                      1, 10, np.random.default_rng(0))
    assert scores == [0.0, 1.0]


# ---------------------------------------------------------------- the search


@pytest.mark.parametrize("seed", [0, 1])
def test_every_state_is_connected_and_holds_the_target(seed: int) -> None:
    graph, target = _random_graph(seed, 30)
    subject = _subject(MAJORITY_2HOP, graph, target, max_degree=12)
    settings = {**subgraphx.DEFAULTS, "sample_num": 10, "rollout": 5, "min_atoms": 3}
    computation, search, chosen = subgraphx.explain_subgraph(subject, settings, seed)
    # The root: the 2-hop in-neighbourhood (the model has 2 message-passing layers).
    reverse = nx.DiGraph(list(zip(*graph.edge_index.tolist())))
    hops = nx.single_source_shortest_path_length(reverse.reverse(), target, cutoff=2)
    assert computation.nodes.tolist() == sorted(hops)
    undirected = nx.Graph(computation.edge_index.T.tolist())
    local_target = computation.target
    assert local_target is not None and len(search.states) > 20
    for state in search.states.values():
        assert local_target in state.coalition
        assert nx.is_connected(undirected.subgraph(state.coalition))
        for child in state.children or []:
            assert child.coalition < state.coalition
    assert chosen.coalition in search.states and len(chosen.coalition) <= 14


def test_graph_task_states_are_connected_components() -> None:
    graph, _ = _random_graph(3, 24)
    subject = _subject("colors red, blue, green\nclassify exists (red & <> blue)", graph,
                       None)
    settings = {**subgraphx.DEFAULTS, "sample_num": 10, "rollout": 5}
    computation, search, _ = subgraphx.explain_subgraph(subject, settings, seed=0)
    undirected = nx.Graph(computation.edge_index.T.tolist())
    assert computation.num_nodes == 24 and len(search.states) > 20
    for state in search.states.values():
        assert nx.is_connected(undirected.subgraph(state.coalition))


def test_pruning_removes_low_degree_nodes_first_and_keeps_the_target_side() -> None:
    # A path 0 - 1 - 2 - 3 plus a leaf 4 on node 1, explained at node 0, with a
    # 3-hop computation graph (all five nodes). Degrees: 0:1, 1:3, 2:2, 3:1, 4:1.
    graph = _undirected([["red"]] * 5, [(0, 1), (1, 2), (2, 3), (1, 4)])
    subject = _subject(MAJORITY_2HOP, graph, 0, max_degree=4)
    computation = subgraphx.computation_graph(subject, depth=3)
    value = subgraphx.CoalitionValue(computation, subject)
    search_settings = subgraphx.SearchSettings(rollout=1, min_atoms=2, expand_atoms=2,
                                               c_puct=10.0, high2low=False, local_radius=4,
                                               sample_num=5)
    search = subgraphx.SubgraphSearch(computation, value, search_settings,
                                      np.random.default_rng(0))
    everything = frozenset(range(5))
    # Lowest degree first, the target excluded: 3 and 4 (degree 1).
    assert search.pruned(everything) == [frozenset({0, 1, 2, 4}), frozenset({0, 1, 2, 3})]
    # Removing 1 splits {0} from {2, 3, 4}: the target's side is kept, even if smaller.
    search.settings = replace(search_settings, high2low=True, expand_atoms=1)
    assert search.pruned(everything) == [frozenset({0})]


# ---------------------------------------------------------------- the mask (App. H.1)


def test_edges_outside_the_computation_graph_score_zero() -> None:
    # `<> red` at 0: one message-passing layer, computation graph {0, 1, 2} (the
    # nodes that send to 0). 0 -> 3 leaves it (3 never reaches 0), and so does 3 -> 2.
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                   [(1, 0), (2, 0), (3, 2), (0, 3)])
    subject = _subject("colors grey, red, blue\nclassify <> red", graph, 0)
    scores = edge_scores("SubgraphX", subject, seed=0).numpy()
    # Three nodes ≤ min_atoms: the root is the explanation; its edges score 1.
    assert scores.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_computation_depth_counts_message_passing_layers() -> None:
    # The 2-hop majority model has 8 layers, 2 of which pass messages. On a path
    # explained at one end, "message_layers" explores 3 nodes and "layers" all 9;
    # either way every edge outside the explored nodes scores 0.
    num_nodes = 9
    graph = _undirected([["red"]] * num_nodes, [(v, v + 1) for v in range(num_nodes - 1)])
    subject = _subject(MAJORITY_2HOP, graph, 0, max_degree=4)
    assert subject.num_layers == 8 and subgraphx.message_passing_layers(subject) == 2
    for depth, explored in [("message_layers", 3), ("layers", num_nodes)]:
        settings = {"computation_depth": depth, "max_nodes": 5, "min_atoms": 3,
                    "sample_num": 10, "rollout": 3}
        computation, _, chosen = subgraphx.explain_subgraph(
            subject, {**subgraphx.DEFAULTS, **settings}, seed=0)
        assert computation.num_nodes == explored
        kept = set(computation.nodes[sorted(chosen.coalition)].tolist())
        scores = edge_scores("SubgraphX", subject, settings, seed=0).numpy()
        inside = [s in kept and t in kept for s, t in graph.edge_index.T.tolist()]
        assert scores.tolist() == [float(flag) for flag in inside]


# ---------------------------------------------------------------- the batched value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_values_equal_the_module_on_each_masked_graph(seed: int) -> None:
    # Node task: the executor's TargetConeBatch (the cone's rows and live columns
    # only); graph task: the fused module on a disjoint batch. Both must equal
    # `subject.module()` run on each zero-filled graph alone. The weights are
    # integers and the inputs 0/1, so the float sums are exact and equality is exact.
    graph, target = _random_graph(seed, 25)
    max_degree = int(np.bincount(graph.edge_index[1]).max())
    rng = np.random.default_rng(seed)
    for subject in (_subject(MAJORITY_2HOP, graph, target, max_degree=max_degree),
                    _subject("colors red, blue, green\nclassify exists (red & <1> blue)",
                             graph, None)):
        for depth in (subgraphx.message_passing_layers(subject), subject.num_layers):
            computation = subgraphx.computation_graph(subject, depth)
            value = subgraphx.CoalitionValue(computation, subject)
            present = rng.random((40, computation.num_nodes)) < rng.random((40, 1))
            expected = []
            for row in present:
                x = subject.x.clone()
                x[torch.as_tensor(computation.nodes[~row])] = 0
                with torch.no_grad():
                    output = subject.module()(x, subject.edge_index)
                expected.append(float(output[target if subject.target is not None else 0, 0]))
            assert value(present).tolist() == expected
            assert value(present).tolist() == expected  # now from the memo


@pytest.mark.parametrize("narrow", [True, False])
def test_the_rows_hook_computes_a_prefix_of_the_layer(narrow: bool) -> None:
    # `CompiledLayer(..., rows=k)`, which TargetConeBatch runs on: with every edge
    # pointing into the first k nodes, the first k rows of the whole layer, exactly.
    from gracr.executor.plan import layer_plans
    from gracr.executor.torch_backend import CompiledLayer

    graph, _ = _random_graph(4, 20)
    program = gracr.parse(MAJORITY_2HOP)
    model = gracr.compile(program, max_degree=int(np.bincount(graph.edge_index[1]).max()))
    h = torch.as_tensor(graph.features(program.palette)) @ torch.as_tensor(model.input_matrix)
    edge_index = torch.as_tensor(graph.edge_index)
    edge_index = edge_index[:, edge_index[1] < 7]
    for plan in layer_plans(model):
        layer = CompiledLayer(plan, surrogate=False, narrow=narrow)
        whole = layer(h, edge_index)
        assert torch.equal(layer(h, edge_index, rows=7), whole[:7])
        h = whole


# ---------------------------------------------------------------- typed edges


def _random_molecule(seed: int, num_nodes: int = 12, num_edges: int = 30) -> gracr.Graph:
    rng = np.random.default_rng(seed)
    edges = [(int(s), int(t)) for s, t in rng.integers(0, num_nodes, size=(num_edges, 2))]
    return gracr.Graph.from_edges(
        num_nodes, None, edges,
        attributes={"element": [["C", "O"][int(e)] for e in rng.integers(0, 2, num_nodes)]},
        relations=[["single", "double"][int(r)] for r in rng.integers(0, 2, num_edges)])


def test_typed_node_task_keeps_the_double_bonded_oxygen() -> None:
    # `<1>{double} element=O` at C0. In-edges: O1 -> C0 double, O2 -> C0 single,
    # C3 -> C0 double; O4 -> C3 and C0 -> O2 leave the 1-hop computation graph
    # {0, 1, 2, 3} (the hops follow every relation). With at most 2 nodes the search
    # ends in {0, 1}, {0, 2} or {0, 3}: only the double-bonded O makes the output 1, so
    # {0, 1} has Shapley value 1 and the other two 0 (were the relations ignored,
    # O2's single bond would count too and {0, 2} would score 1/2).
    program = gracr.parse(TYPED + "classify <1>{double} element=O")
    graph = gracr.Graph.from_edges(
        5, None, [(1, 0), (2, 0), (3, 0), (4, 3), (0, 2)],
        attributes={"element": ["C", "O", "O", "C", "O"]},
        relations=["double", "single", "double", "single", "double"])
    subject = Subject.of(gracr.compile(program), program, graph, 0)
    settings = {"max_nodes": 2, "min_atoms": 2}
    computation, search, chosen = subgraphx.explain_subgraph(
        subject, {**subgraphx.DEFAULTS, **settings}, seed=0)
    assert computation.nodes.tolist() == [0, 1, 2, 3]
    assert chosen.coalition == frozenset({0, 1}) and chosen.score == 1.0
    assert search.states[frozenset({0, 2})].score == 0.0
    assert search.states[frozenset({0, 3})].score == 0.0
    scores = edge_scores("SubgraphX", subject, settings, seed=0).numpy()
    assert scores.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_typed_batched_values_equal_the_module_on_each_masked_graph(seed: int) -> None:
    # As the untyped test above, on molecules: every batched value (the cone on node
    # tasks, the fused disjoint batch on graph tasks, both given the edge types) is
    # the shared module's output on that zero-filled graph, exactly.
    graph = _random_molecule(seed)
    rng = np.random.default_rng(seed)
    for source, target in [(CARBONYL, int(np.argmax(np.bincount(graph.targets)))),
                           (TYPED + "classify <>{single} (element=C & <1>{double} element=O)"
                                    " | atleast 2 (<> element=O)", 0),
                           (TYPED + "classify exists (element=O & <>{single} "
                                    "(<>{double} element=C))", None)]:
        program = gracr.parse(source)
        subject = Subject.of(gracr.compile(program), program, graph, target)
        assert subject.edge_type is not None
        for depth in (subgraphx.message_passing_layers(subject), subject.num_layers):
            computation = subgraphx.computation_graph(subject, depth)
            value = subgraphx.CoalitionValue(computation, subject)
            present = rng.random((40, computation.num_nodes)) < rng.random((40, 1))
            expected = []
            for row in present:
                x = subject.x.clone()
                x[torch.as_tensor(computation.nodes[~row])] = 0
                with torch.no_grad():
                    output = subject.module()(x, subject.edge_index, edge_type=subject.edge_type)
                expected.append(float(output[0 if target is None else target, 0]))
            assert value(present).tolist() == expected
