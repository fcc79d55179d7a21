"""Explainers at node level (WOMBAT's protocol): InputXGradient, ShapleySampling (a
node is one player), GNNExplainer's node mask, the shipped PGExplainer, SubgraphX's
coalition, node scores of edge-only explainers from their edge scores, and the reduction
of 2-D node masks.

The models are compiled with the presence bit, so zeroing a node's features deletes it,
and the graphs are small enough that each expected value is worked out by hand below.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch
from torch_geometric.explain import Explanation

import gracr
from gracr.explainers import (
    EXPLAINERS,
    ExplainerSpec,
    Subject,
    check_level,
    derives_node_scores,
    edge_scores,
    node_scores_from_edges,
    register,
    scores,
    trained,
)
from gracr.errors import GracrError

COLOURS = "colors red, blue, grey\n"
# `exists red` on a red node 0 and two grey ones: the output is 1 exactly when node 0 is
# present, so node 0's Shapley value is 1 under every order of the players, the others 0.
ALONE = (COLOURS + "classify exists red",
         gracr.Graph.from_edges(3, [["red"], ["grey"], ["grey"]], [(1, 0), (2, 1)]))
# `exists (red & <> blue)` on red 0, blue 1, grey 2, edges 1 -> 0, 2 -> 0, 2 -> 1: the
# output is 1 exactly when nodes 0 and 1 are both present (and edge 1 -> 0 is): over
# nodes a two-player AND beside a null player, Shapley (1/2, 1/2, 0); over edges edge 0
# alone decides, Shapley (1, 0, 0).
PAIR = (COLOURS + "classify exists (red & <> blue)",
        gracr.Graph.from_edges(3, [["red"], ["blue"], ["grey"]], [(1, 0), (2, 0), (2, 1)]))
# A node task, `<> red` at grey node 0 with a red (1) and a blue (2) in-neighbour, and a
# red 3 -> 2 two hops out: the target is never deleted (no player), and its output needs
# node 1 alone, Shapley (0, 1, 0, 0) under every order.
NODE_TASK = (COLOURS + "classify <> red",
             gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                    [(1, 0), (2, 0), (3, 2)]))

# Cheap settings for the every-explainer check: each still runs its whole path.
CHEAP: dict[str, dict[str, Any]] = {
    "GraphMask": {"epochs": 2}, "GraphMask-clean": {"epochs": 2},
    "GNNExplainer": {"epochs": 10}, "GNNExplainer-hard": {"epochs": 10},
    "ShapleySampling": {"n_samples": 10}, "PGMExplainer": {"num_samples": 30},
    "GraphSVX": {"num_samples": 40}, "FlowX": {"samples": 3},
    "SubgraphX": {"rollout": 2, "sample_num": 5},
    "PGExplainer": {"epochs": 2, "training_instances": 1},
}
# A domain's own explainers (the tissue baselines need cell positions, attention rollout a
# trained GATv2) are tested with their domain.
SHIPPED = sorted(name for name, spec in EXPLAINERS.items()
                 if spec.run.__module__.startswith("gracr.") and spec.domain is None)


def subject(case: tuple[str, gracr.Graph], level: str = "node") -> Subject:
    source, graph = case
    program = gracr.parse(source)
    target = 0 if "exists" not in source else None
    return Subject.of(gracr.compile(program, presence=True), program, graph, target,
                      level=level)  # type: ignore[arg-type]


@pytest.fixture
def forget() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        EXPLAINERS.pop(name, None)


def test_the_hand_made_models_predict_positive() -> None:
    for case in (ALONE, PAIR, NODE_TASK):
        assert subject(case).prediction == 1.0


# ---------------------------------------------------------------- 1. InputXGradient


def test_input_x_gradient_at_node_level_is_the_features_times_their_gradient() -> None:
    s = subject(PAIR)
    x = s.x.clone().requires_grad_(True)
    output = s.compiled.to_pyg(surrogate=True)(x, s.edge_index)
    (gradient,) = torch.autograd.grad(output[0, 0], x)
    expected = (x * gradient).abs().sum(dim=1).detach()
    got = scores("InputXGradient", s)
    assert got.tolist() == pytest.approx(expected.tolist())
    assert got[2] == 0.0 and got[0] > 0 and got[1] > 0     # the grey node plays no part
    assert EXPLAINERS["InputXGradient"].levels == {"edge", "node"}
    assert edge_scores("InputXGradient", subject(PAIR, "edge")).shape == (3,)


# ---------------------------------------------------------------- 2. ShapleySampling


def test_shapley_sampling_gives_a_node_needed_alone_its_whole_value() -> None:
    # Exact whatever permutations are drawn: node 0's marginal is 1 in every one.
    for perturbations in (1, 3):
        got = scores("ShapleySampling", subject(ALONE),
                     {"n_samples": 5, "perturbations_per_eval": perturbations})
        assert got.tolist() == [1.0, 0.0, 0.0]


def test_shapley_sampling_splits_a_two_node_and_and_gives_null_nodes_zero() -> None:
    got = scores("ShapleySampling", subject(PAIR), {"n_samples": 400}).numpy()
    assert got[2] == 0.0
    assert got[:2] == pytest.approx([0.5, 0.5], abs=0.1)    # 400 orders: sd 0.025
    assert got[:2].sum() == pytest.approx(1.0)              # efficiency: v(all) − v(none)
    node = scores("ShapleySampling", subject(NODE_TASK), {"n_samples": 3}).numpy()
    assert node.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_shapley_sampling_over_edges_makes_each_edge_a_player() -> None:
    got = edge_scores("ShapleySampling", subject(PAIR, "edge"), {"n_samples": 5})
    assert got.tolist() == [1.0, 0.0, 0.0]
    assert EXPLAINERS["ShapleySampling"].defaults == {"n_samples": 100,
                                                      "perturbations_per_eval": 64}
    # How many perturbations one call evaluates changes nothing (edge level: one a call).
    assert edge_scores("ShapleySampling", subject(PAIR, "edge"),
                       {"n_samples": 5, "perturbations_per_eval": 1}).tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(GracrError, match="at least 1"):
        edge_scores("ShapleySampling", subject(PAIR, "edge"), {"perturbations_per_eval": 0})


def test_shapley_sampling_batches_perturbations_without_changing_a_bit() -> None:
    # A graph task evaluates a batch of perturbations as one disjoint union: the values
    # must be those of one call each, exactly, and not all trivially 0 or 1.
    one = scores("ShapleySampling", subject(PAIR), {"n_samples": 30,
                                                    "perturbations_per_eval": 1}, seed=4)
    many = scores("ShapleySampling", subject(PAIR), {"n_samples": 30,
                                                     "perturbations_per_eval": 7}, seed=4)
    assert torch.equal(one, many)
    assert 0.0 < float(one[0]) < 1.0


def test_shapley_sampling_is_the_same_for_the_same_seed() -> None:
    s = subject(PAIR)
    first = scores("ShapleySampling", s, {"n_samples": 7}, seed=3)
    assert torch.equal(first, scores("ShapleySampling", s, {"n_samples": 7}, seed=3))


# ---------------------------------------------------------------- 3. GNNExplainer


def test_gnn_explainer_learns_one_node_mask_entry_per_node_starting_near_one() -> None:
    # Without a step the mask is σ(PyG's draw + init_bias): near 1, not PyG's 0.5.
    start = scores("GNNExplainer", subject(PAIR), {"epochs": 0}).numpy()
    assert start.shape == (3,) and (start > 0.95).all() and (start < 1.0).all()
    for name in ("GNNExplainer", "GNNExplainer-hard"):
        assert EXPLAINERS[name].levels == {"edge", "node"}
        got = scores(name, subject(PAIR)).numpy()
        assert got.shape == (3,) and np.isfinite(got).all() and (got >= 0).all()
    # The size penalty pulls every entry down, the prediction holds up those it needs:
    # PAIR's nodes 0 and 1, NODE_TASK's node 1 (of the non-targets). The hard mask drops
    # the nodes without a first gradient (the rest) to exactly 0.
    for case, needed in ((ALONE, [0]), (PAIR, [0, 1]), (NODE_TASK, [1])):
        for name in ("GNNExplainer", "GNNExplainer-hard"):
            got = scores(name, subject(case)).numpy()
            rest = [v for v in range(len(got)) if v not in needed and v != subject(case).target]
            assert got[needed].min() > got[rest].max(), (name, got)
            if name == "GNNExplainer-hard":
                assert (got[rest] == 0).all()


def test_gnn_explainer_at_node_level_learns_no_edge_mask(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from gracr.explainers import library

    seen: dict[str, Any] = {}
    run_pyg = library._run_pyg

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return run_pyg(*args, **kwargs)

    monkeypatch.setattr(library, "_run_pyg", spy)
    scores("GNNExplainer", subject(PAIR), {"epochs": 1})
    assert seen["node_mask_type"] == "object" and seen["edge_mask_type"] is None


# ---------------------------------------------------------------- 4. PGExplainer


def test_pgexplainer_ships_with_pyg_s_documented_defaults_and_trains_at_node_level() -> None:
    spec = EXPLAINERS["PGExplainer"]
    assert dict(spec.defaults) == {"epochs": 30, "lr": 0.003, "training_instances": 20}
    assert spec.levels == {"edge"} and spec.train is not None and derives_node_scores(spec)
    check_level(spec, "node")
    nodes = subject(PAIR)
    ready = trained(spec, [nodes], {"epochs": 2}, seed=0)
    got = scores(ready, nodes).numpy()
    edges = edge_scores(ready, replace(nodes, level="edge")).numpy()
    # Nodes from edges (section 6): node 0 has edges 0, 1; node 1 edges 0, 2; node 2 1, 2.
    assert got.tolist() == pytest.approx([max(edges[0], edges[1]), max(edges[0], edges[2]),
                                          max(edges[1], edges[2])])


# ---------------------------------------------------------------- 5. SubgraphX


def test_subgraphx_at_node_level_scores_its_coalition_one() -> None:
    settings = {"rollout": 3, "sample_num": 10, "min_atoms": 2}
    nodes = scores("SubgraphX", subject(PAIR), settings, seed=1).numpy()
    edges = scores("SubgraphX", subject(PAIR, "edge"), settings, seed=1).numpy()
    assert set(nodes.tolist()) <= {0.0, 1.0} and nodes.any()
    # The same search (same seed): an edge scores 1 exactly when both ends are chosen.
    sources, targets = subject(PAIR).edge_index.numpy()
    assert edges.tolist() == [float(nodes[s] and nodes[t]) for s, t in zip(sources, targets)]
    assert EXPLAINERS["SubgraphX"].levels == {"edge", "node"}


# ---------------------------------------------------------------- 6. nodes from edges


def test_node_scores_from_edges_take_the_maximum_over_incident_edges() -> None:
    edge_index = torch.tensor([[0, 1, 2, 2], [1, 0, 2, 0]])
    values = torch.tensor([0.2, 0.7, 0.9, 0.1])
    # node 0: 0.2, 0.7, 0.1; node 1: 0.2, 0.7; node 2: its self-loop 0.9 and 0.1; node 3
    # has no edge: the graph's minimum, 0.1.
    assert node_scores_from_edges(edge_index, values, 4).tolist() == \
        pytest.approx([0.7, 0.7, 0.9, 0.1])
    negative = node_scores_from_edges(torch.tensor([[0], [1]]), torch.tensor([-0.5]), 3)
    assert negative.tolist() == [-0.5, -0.5, -0.5]
    assert node_scores_from_edges(torch.zeros((2, 0), dtype=torch.int64), torch.zeros(0),
                                  2).tolist() == [0.0, 0.0]
    with pytest.raises(GracrError, match="3 edge scores for an edge_index of shape"):
        node_scores_from_edges(edge_index, torch.zeros(3), 4)


def test_an_edge_only_explainer_is_scored_at_node_level_from_its_edges(forget: list[str]
                                                                       ) -> None:
    register(ExplainerSpec("EdgeCounts", lambda s, c, seed: Explanation(
                               edge_mask=torch.tensor([3.0, -1.0, 2.0])),
                           {}))
    forget.append("EdgeCounts")
    spec = EXPLAINERS["EdgeCounts"]
    assert derives_node_scores(spec) and not derives_node_scores(EXPLAINERS["Saliency"])
    check_level(spec, "node")
    # PAIR's edges 1 -> 0 (3), 2 -> 0 (−1), 2 -> 1 (2): node 0 max(3, −1), node 1
    # max(3, 2), node 2 max(−1, 2).
    assert scores("EdgeCounts", subject(PAIR)).tolist() == [3.0, 3.0, 2.0]
    lrp_edges = edge_scores("LRP", subject(PAIR, "edge")).numpy()
    assert scores("LRP", subject(PAIR)).tolist() == pytest.approx(
        [max(lrp_edges[0], lrp_edges[1]), max(lrp_edges[0], lrp_edges[2]),
         max(lrp_edges[1], lrp_edges[2])])


# ---------------------------------------------------------------- 7. reduction


def test_a_two_dimensional_node_mask_reduces_by_the_sum_of_absolute_values(forget: list[str]
                                                                           ) -> None:
    mask = torch.tensor([[1.0, -2.0], [-0.5, 0.5], [0.0, 0.0]])
    register(ExplainerSpec("Signed", lambda s, c, seed: Explanation(node_mask=mask), {},
                           levels=frozenset({"node"})))
    forget.append("Signed")
    assert scores("Signed", subject(PAIR)).tolist() == [3.0, 1.0, 0.0]


# ---------------------------------------------------------------- every explainer


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_explainer_gives_one_finite_score_per_node(name: str) -> None:
    for case in (PAIR, NODE_TASK):
        s = subject(case)
        spec = trained(name, [s], CHEAP.get(name), seed=0)
        got = scores(spec, s, CHEAP.get(name), seed=0)
        assert got.shape == (s.num_nodes,) and torch.isfinite(got).all(), got
