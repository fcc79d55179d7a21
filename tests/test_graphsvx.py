"""GraphSVX (ours) on tiny compiled models whose Shapley values are known."""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import numpy as np
import pytest

import gracr
from gracr.explainers import EXPLAINERS, Subject, edge_scores
from gracr.explainers import graphsvx
from gracr.explainers.graphsvx import graphsvx_shapley, sample_coalitions
from gracr.explainers.metric import plausibility
from gracr.errors import GracrError
from tiny_models import subject_of as _subject

DEFAULTS = dict(EXPLAINERS["GraphSVX"].defaults)


# Tiny tensors: extra threads only contend with whatever else the machine runs.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _value_without(subject: Subject, absent: set[int]) -> float:
    """v(coalition), independently of the explainer: the numpy forward of the
    compiled model on the graph without the edges of the absent nodes."""
    edge_index = subject.edge_index.numpy()
    kept = [e for e in range(edge_index.shape[1])
            if edge_index[0, e] not in absent and edge_index[1, e] not in absent]
    output = subject.compiled.forward(subject.x.numpy(), edge_index[:, kept])
    return float(output[subject.target if subject.target is not None else 0, 0])


def _exact_shapley(subject: Subject, players: list[int]) -> np.ndarray:
    """φ_i = Σ_{S ⊆ N∖i} |S|! (M − |S| − 1)! / M! · (v(S ∪ i) − v(S)) (Shapley 1953)."""
    M = len(players)
    value: Callable[[frozenset[int]], float] = lambda present: _value_without(
        subject, set(players) - present)
    phi = np.zeros(M)
    for i, player in enumerate(players):
        others = [p for p in players if p != player]
        for size in range(M):
            share = math.factorial(size) * math.factorial(M - size - 1) / math.factorial(M)
            for coalition in itertools.combinations(others, size):
                present = frozenset(coalition)
                phi[i] += share * (value(present | {player}) - value(present))
    return phi


# Node 0 reads three red neighbours and a grey one (4) that has a blue neighbour (5):
# `<2> (red | <> blue)` counts 1, 2, 3 and, through 5, node 4. Five players, 32
# coalitions; the value is not additive (at least two of four must be present).
NODE_CASE = ("colors grey, red, blue\nclassify <2> (red | <> blue)",
             gracr.Graph.from_edges(6, [["grey"], ["red"], ["red"], ["red"], ["grey"], ["blue"]],
                                    [(1, 0), (2, 0), (3, 0), (4, 0), (5, 4)]), 0)
# Graph task: all five nodes are players; a black node with a red neighbour exists
# through 1 -> 0 or 3 -> 4.
GRAPH_CASE = ("colors black, red, grey\nclassify exists (black & <> red)",
              gracr.Graph.from_edges(5, [["black"], ["red"], ["grey"], ["red"], ["black"]],
                                     [(1, 0), (2, 0), (3, 4), (4, 3), (0, 2)]), None)


@pytest.mark.parametrize("case", [NODE_CASE, GRAPH_CASE], ids=["node", "graph"])
@pytest.mark.parametrize("fit", ["WLS", "WLR_sklearn"])
def test_exhaustive_coalitions_recover_the_exact_shapley_values(case: Any, fit: str) -> None:
    """ACCEPTANCE. With every one of the 2^M coalitions sampled once and kernel
    weights, KernelSHAP's weighted least squares under the constraints
    φ_0 = v(∅), φ_0 + Σφ = v(N) gives the Shapley values exactly (Lundberg & Lee
    2017, Thm. 2). GraphSVX makes the constraints soft (weight 1000): their residuals
    are then of order (kernel mass of the other coalitions, 2(M−1)H_{M−1}/M ≈ 3.3
    for M = 5) × (their residuals, ≤ 1) / 1000, and the fitted φ moves by as much.
    Measured: ≈ 6e-5 here (6e-3 with weight 10, 4e-2 with weight 1: it scales as
    1/weight); the tolerance 1e-3 leaves room but fails on any real error (a wrong
    kernel weight or value function is off by > 1e-2)."""
    subject = _subject(*case)
    settings = DEFAULTS | {"num_samples": 100, "args_g": fit}
    result = graphsvx_shapley(subject, settings, seed=0)
    players = result.players.tolist()
    expected_players = ([1, 2, 3, 4, 5] if subject.target is not None else [0, 1, 2, 3, 4])
    assert players == expected_players
    exact = _exact_shapley(subject, players)
    assert np.abs(exact).max() > 0.05                     # a non-trivial game
    assert np.allclose(result.shapley_values, exact, atol=1e-3), (result.shapley_values, exact)
    assert abs(result.base_value - _value_without(subject, set(players))) < 1e-3


def test_node_case_shapley_values_by_hand() -> None:
    # v(S) = 1 iff two of {1, 2, 3, 4 ∧ 5} are present: by symmetry φ_1 = φ_2 = φ_3;
    # 5 only matters with 4, so φ_4 = φ_5; and φ_1 = 4/15 (worked out over the 120
    # orders), hence φ_4 = φ_5 = (1 − 3 · 4/15) / 2 = 1/10.
    result = graphsvx_shapley(_subject(*NODE_CASE), DEFAULTS, seed=0)
    assert np.allclose(result.shapley_values, [4 / 15] * 3 + [1 / 10] * 2, atol=1e-3)


def test_the_explained_node_takes_the_max_of_its_neighbourhood() -> None:
    # `<> red & <> blue` at node 0 over neighbours 1 (red), 2 (red), 3 (blue), edges
    # both ways. v(S) = [3 ∈ S] ∧ [1 ∈ S ∨ 2 ∈ S]: 3 is pivotal in 4 of the 6 orders,
    # so φ_3 = 2/3 and φ_1 = φ_2 = 1/6. Node 0 is not a player and scores
    # max = 2/3, so an edge between 0 and a player scores as the player.
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["red"], ["blue"]],
                                   [(1, 0), (0, 1), (2, 0), (0, 2), (3, 0), (0, 3)])
    subject = _subject("colors grey, red, blue\nclassify <> red & <> blue", graph, 0)
    result = graphsvx_shapley(subject, DEFAULTS, seed=0)
    assert result.players.tolist() == [1, 2, 3]
    assert np.allclose(result.shapley_values, [1 / 6, 1 / 6, 2 / 3], atol=1e-3)
    assert result.node_scores[0] == result.node_scores[[1, 2, 3]].max()
    scores = edge_scores("GraphSVX", subject, seed=0).numpy()
    assert np.allclose(scores, [1 / 6, 1 / 6, 1 / 6, 1 / 6, 2 / 3, 2 / 3], atol=1e-3)


def test_signed_scores_with_use_abs_false() -> None:
    # `<> red & (!<> blue | <> green)` over 1 (red), 2 (blue), 3 (green):
    # v(S) = [1 ∈ S] ∧ ([2 ∉ S] ∨ [3 ∈ S]). Over the 6 orders: φ_1 = 5/6,
    # φ_2 = −1/6 (it breaks {1} when it comes second after 1, before 3),
    # φ_3 = 1/3. Edge 2 -> 0 scores min(φ_2, max φ) = −1/6 signed, 1/6 with abs.
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["green"]],
                                   [(1, 0), (2, 0), (3, 0)])
    subject = _subject("colors grey, red, blue, green\nclassify <> red & (!<> blue | <> green)",
                       graph, 0)
    signed = edge_scores("GraphSVX", subject, {"use_abs": False}, seed=0).numpy()
    absolute = edge_scores("GraphSVX", subject, {"use_abs": True}, seed=0).numpy()
    assert np.allclose(signed, [5 / 6, -1 / 6, 1 / 3], atol=1e-3)
    assert np.allclose(absolute, [5 / 6, 1 / 6, 1 / 3], atol=1e-3)


def test_finds_the_one_relevant_edge_and_zeroes_non_players() -> None:
    # `<> red` at node 0 with 1 -> 0 (red), 2 -> 0 (blue), 3 -> 2 (two hops out, and
    # the model has one layer): φ_1 = 1, φ_2 = 0; node 3 is no player, so 3 -> 2 is 0.
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                   [(1, 0), (2, 0), (3, 2)])
    subject = _subject("colors grey, red, blue\nclassify <> red", graph, 0)
    assert subject.num_layers == 1
    scores = edge_scores("GraphSVX", subject, seed=0).numpy()
    assert np.allclose(scores, [1.0, 0.0, 0.0], atol=1e-3)
    assert scores[2] == 0.0
    assert plausibility(scores, np.array([True, False, False])).f1 == 1.0


def test_hops_choose_the_players() -> None:
    subject = _subject(*NODE_CASE)              # modal depth 2, more layers than that
    assert subject.num_layers > 2
    one_hop = graphsvx_shapley(subject, DEFAULTS | {"hops": 1}, seed=0)
    assert one_hop.players.tolist() == [1, 2, 3, 4]
    field = graphsvx_shapley(subject, DEFAULTS | {"hops": "receptive_field"}, seed=0)
    assert field.players.tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(GracrError, match="hops must be"):
        graphsvx_shapley(subject, DEFAULTS | {"hops": "two"}, seed=0)


def _sizes(members: np.ndarray) -> list[int]:
    return sorted(members.sum(axis=1).tolist())


def test_smarter_sampler_takes_full_empty_then_levels_then_random() -> None:
    rng = np.random.default_rng(0)
    coalitions = sample_coalitions(10, 30, "Smarter", 1, rng)
    sizes = _sizes(coalitions.members)
    # full + empty, the 10 singletons and 10 leave-one-out, 8 random of sizes 2..8
    # (distinct or merged, never of sizes 0, 1, 9, 10 again).
    assert sizes.count(0) == 1 and sizes.count(10) == 1
    assert sizes.count(1) == 10 and sizes.count(9) == 10
    assert all(2 <= s <= 8 for s in sizes if s not in (0, 1, 9, 10))
    weights = dict(zip(coalitions.members.sum(axis=1).tolist(), coalitions.weights.tolist()))
    assert weights[0] == weights[10] == graphsvx.FULL_EMPTY_WEIGHT
    assert weights[1] == pytest.approx(9 / (10 * 1 * 9))          # (M-1)/(C(M,1)·1·(M-1))
    assert coalitions.weights.sum() == pytest.approx(2000 + 20 * 0.1 + sum(
        graphsvx.shapley_kernel_weight(10, s) for s in sizes if 2 <= s <= 8), rel=1e-9)


def test_partial_level_smarter_fills_it_smart_skips_it() -> None:
    rng = np.random.default_rng(0)
    smarter = _sizes(sample_coalitions(10, 21, "Smarter", 2, rng).members)
    assert smarter.count(1) + smarter.count(9) == 19 and len(smarter) == 21
    assert abs(smarter.count(1) - smarter.count(9)) <= 1
    smart = sample_coalitions(10, 21, "Smart", 2, rng)
    assert smart.members.shape[0] <= 21      # full, empty and 19 random draws (merged)
    random = _sizes(sample_coalitions(10, 50, "Random", 3, rng).members)
    assert random.count(0) == 1 and random.count(10) == 1


def test_s_enumerates_larger_levels_when_the_budget_allows() -> None:
    coalitions = sample_coalitions(6, 2 + 12 + 30, "Smarter", 2, np.random.default_rng(0))
    sizes = _sizes(coalitions.members)
    assert sizes.count(1) == 6 and sizes.count(5) == 6
    assert sizes.count(2) == 15 and sizes.count(4) == 15 and len(sizes) == 44


def test_unknown_sampler_and_fit_are_errors() -> None:
    with pytest.raises(GracrError, match="no coalition sampler 'Smartest'"):
        sample_coalitions(4, 10, "Smartest", 1, np.random.default_rng(0))
    with pytest.raises(GracrError, match="no surrogate fit 'OLS'"):
        graphsvx_shapley(_subject(*NODE_CASE), DEFAULTS | {"args_g": "OLS"}, seed=0)


def test_batched_values_match_one_at_a_time() -> None:
    # The disjoint-union batching must give each coalition its own value.
    subject = _subject(*NODE_CASE)
    game = graphsvx.coalition_game(subject, None)
    members = np.array(list(itertools.product([False, True], repeat=5)))
    batched = game.values(members)
    players = game.nodes[game.players].tolist()
    one_by_one = [_value_without(subject, {p for p, on in zip(players, row) if not on})
                  for row in members]
    assert np.allclose(batched, one_by_one)
