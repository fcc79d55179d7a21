"""GraphSVX (Duval & Malliaros 2021), clean-room, with the adaptations of App. H.1.

GraphSVX explains one prediction by the Shapley values of "players" estimated the
KernelSHAP way: sample coalitions z ∈ {0, 1}^M, evaluate the model on the graph
where the absent players are removed, and fit a linear surrogate
g(z) = φ_0 + Σ_i φ_i z_i by least squares weighted with the Shapley kernel
π(z) = (M − 1) / (C(M, |z|) · |z| · (M − |z|)). With every coalition sampled and the
empty and full coalitions constrained, the weighted least-squares solution is the
Shapley value (Lundberg & Lee 2017, Theorem 2); GraphSVX keeps those two
constraints soft, weighting them `FULL_EMPTY_WEIGHT`.

Our choices, following the paper and App. H.1 of the Gracr paper:

* Players are the nodes of the target's k-hop in-neighbourhood (the nodes with a
  directed path of length ≤ k to it), the target excepted; graph tasks: every
  node. Feature players are disabled (App. H.1), so the whole budget goes to
  nodes. `hops` sets k: "receptive_field" (default) = the nodes of the receptive
  field (k = the modal depth: the hops the compiled model really reads; its extra
  layers only combine values node-locally), None = the number of message-passing
  layers (GraphSVX's own rule for trained models), or an int. With k = L the
  500-750-node node-task graphs are nearly all players, more than the budget can
  sample once each, and node-task F1 fell to 0.12-0.44 (5 instances, seed 0);
  with the receptive field it is close to the paper's Table 3.
* An absent node loses every incident edge, in and out; its features stay.
* The value of a coalition is the model's probability of the predicted class
  (`p`, or `1 − p` for a negative prediction).
* Coalition samplers ("Smarter", "Smart", "Random") are described in
  `sample_coalitions`; `S` is the largest size k for which the coalitions of
  size k and M − k are sampled in priority (the original's "max size of
  coalitions sampled in priority and treated specifically").
* Defaults are those of the original code's configuration file:
  `num_samples=400`, `S=1`, `args_g="WLR_sklearn"`. The sampler is "Smarter":
  the original's default, "SmarterSeparate", samples node and feature players
  separately (as its name says), which has no object with feature players off.
* Edge score (App. H.1): min(|φ_u|, |φ_v|) (`use_abs`; else min(φ_u, φ_v)); the
  explained node scores the maximum over all players; an edge with an endpoint
  outside the players (and not the target) scores 0. At node level (ours) each
  player's score is its |φ| (`use_abs`; else the signed φ), every other node 0 (a node
  task's target: the maximum, as above).
* φ is rounded to `SHAPLEY_DECIMALS` decimals (ours). Players that play the same
  role (symmetric in the sampled game) have equal φ in exact arithmetic, but the
  least-squares solve leaves them 1e-17 to 1e-13 apart, in an order that depends on
  the BLAS kernels of the machine (AVX-512 or AVX2, MKL or OpenBLAS): the metric
  takes every distinct score as a threshold, so those splits moved one instance's F1
  from 0.77 to 0.71 between two CPUs. Rounded, equal players tie on every machine;
  the rounding (5e-10) is far below any difference the game's values (probabilities)
  can make.
* A trained model (`Subject.of_trained`) is evaluated through its own module with the
  kept edges' attributes; the value is the sigmoid of its logit.

The value evaluations are batched: a chunk of coalitions becomes one disjoint
union of copies of the graph, each copy keeping only the edges between present
nodes, evaluated in one forward of the fused (inference-only) compiled module,
which computes the same function as `subject.module()`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor
from torch_geometric.explain import Explanation

from gracr.explainers.base import Choice, ExplainerSpec, IntRange, Subject, register
from gracr.errors import GracrError

FloatArray = npt.NDArray[np.float64]
# The width a trained model's batch is sized by (its hidden units, about): a compiled
# model's own width sizes its batches.
TRAINED_WIDTH = 64
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

SAMPLERS: tuple[str, ...] = ("Smarter", "Smart", "Random")
FITS: tuple[str, ...] = ("WLS", "WLR_sklearn")

# The weight of the empty and the full coalition: a soft version of KernelSHAP's
# constraints φ_0 = v(∅) and φ_0 + Σ φ_i = v(N) ("a large weight", as the original).
FULL_EMPTY_WEIGHT = 1000.0

# Hidden-state entries (copies × nodes × width) per batched forward: bounds memory.
BATCH_ELEMENTS = 1 << 22


# ---------------------------------------------------------------- Shapley kernel


def log_binomial(n: int, k: int) -> float:
    """log C(n, k), exact enough for any n (C(750, 375) overflows no float here)."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def shapley_kernel_weight(num_players: int, size: int) -> float:
    """π(z) = (M − 1) / (C(M, |z|) · |z| · (M − |z|)) (KernelSHAP's Shapley kernel);
    the empty and full coalitions, where π is infinite, get `FULL_EMPTY_WEIGHT`."""
    if size == 0 or size == num_players:
        return FULL_EMPTY_WEIGHT
    log_weight = (math.log(num_players - 1) - log_binomial(num_players, size)
                  - math.log(size) - math.log(num_players - size))
    return math.exp(log_weight)


# ---------------------------------------------------------------- coalition samplers


@dataclass(frozen=True)
class Coalitions:
    """Distinct coalitions (`members[c, i]`: player i is present in coalition c) and
    their regression weights (a coalition drawn twice counts twice)."""

    members: BoolArray
    weights: FloatArray


def _all_of_size(num_players: int, size: int) -> BoolArray:
    rows = np.zeros((math.comb(num_players, size), num_players), dtype=np.bool_)
    for row, chosen in enumerate(itertools.combinations(range(num_players), size)):
        rows[row, list(chosen)] = True
    return rows


def _random_of_size(num_players: int, size: int, count: int,
                    rng: np.random.Generator) -> BoolArray:
    """`count` coalitions of `size` players, uniform among them (with repetition)."""
    order = np.argsort(rng.random((count, num_players)), axis=1)
    rows = np.zeros((count, num_players), dtype=np.bool_)
    np.put_along_axis(rows, order[:, :size], True, axis=1)
    return rows


def _distinct_random_of_sizes(num_players: int, sizes: list[int], count: int,
                              rng: np.random.Generator) -> BoolArray:
    """`count` distinct coalitions, split as evenly as possible over `sizes` (whose
    levels together hold more than `count` coalitions)."""
    chosen: list[BoolArray] = []
    for position, size in enumerate(sizes):
        wanted = count // len(sizes) + (1 if position < count % len(sizes) else 0)
        wanted = min(wanted, math.comb(num_players, size))
        seen: set[bytes] = set()
        rows: list[BoolArray] = []
        while len(rows) < wanted:
            for row in _random_of_size(num_players, size, 2 * (wanted - len(rows)), rng):
                key = np.packbits(row).tobytes()
                if key not in seen and len(rows) < wanted:
                    seen.add(key)
                    rows.append(row)
        chosen.extend(rows)
    return np.array(chosen, dtype=np.bool_).reshape(-1, num_players)


def _random_over_sizes(num_players: int, sizes: list[int], count: int,
                       rng: np.random.Generator) -> BoolArray:
    """`count` coalitions uniform over all coalitions whose size is in `sizes`: the
    size is drawn with probability ∝ C(M, size), then the members uniformly."""
    log_counts = np.array([log_binomial(num_players, size) for size in sizes])
    probabilities = np.exp(log_counts - log_counts.max())
    probabilities /= probabilities.sum()
    drawn_sizes = rng.choice(np.array(sizes), size=count, p=probabilities)
    rows = np.zeros((count, num_players), dtype=np.bool_)
    for size in np.unique(drawn_sizes):
        where = np.flatnonzero(drawn_sizes == size)
        rows[where] = _random_of_size(num_players, int(size), len(where), rng)
    return rows


def sample_coalitions(num_players: int, num_samples: int, strategy: str,
                      priority_size: int, rng: np.random.Generator) -> Coalitions:
    """The coalitions GraphSVX evaluates, `num_samples` draws in all, and their weights.

    The Shapley kernel is largest on the smallest and largest coalitions, so those
    are sampled first (GraphSVX's "smart space sampling"):

    * every strategy starts with the full and the empty coalition;
    * if the budget covers all 2^M coalitions, every coalition is taken once;
    * "Smarter": then, for k = 1, …, S, the levels of size k and M − k (the
      singletons and the leave-one-out coalitions for k = 1) are enumerated while
      the budget holds the whole of both; the first level pair that does not fit
      gets the rest of the budget as distinct random coalitions split evenly
      between size k and M − k. Any budget left after level S is spent on random
      coalitions drawn uniformly among those of the sizes not enumerated;
    * "Smart": the same enumeration of whole level pairs, but it stops at the
      first pair that does not fit (no partial level), and the rest is random
      among every size 0 < |z| < M, so a priority coalition can be drawn again
      (and then counts twice);
    * "Random": the rest random among every size 0 < |z| < M.

    Every draw keeps its Shapley kernel weight; repeated draws are merged into one
    row whose weight is the sum, which leaves the least-squares fit unchanged.
    """
    if strategy not in SAMPLERS:
        raise GracrError(f"GraphSVX has no coalition sampler '{strategy}'; the samplers "
                         f"are {', '.join(SAMPLERS)}")
    budget = max(num_samples, 2)
    full_and_empty = np.array([[True] * num_players, [False] * num_players], dtype=np.bool_)
    if num_players < 62 and 2 ** num_players <= budget:
        exhaustive = ((np.arange(2 ** num_players)[:, None] >> np.arange(num_players)) & 1)
        blocks = [exhaustive.astype(np.bool_)]
    else:
        blocks = [full_and_empty]
        used = 2
        unsampled_sizes = set(range(1, num_players))
        if strategy in ("Smarter", "Smart"):
            for small in range(1, priority_size + 1):
                sizes = sorted({small, num_players - small} & unsampled_sizes)
                if not sizes:
                    break
                level_count = sum(math.comb(num_players, size) for size in sizes)
                if used + level_count <= budget:
                    blocks.extend(_all_of_size(num_players, size) for size in sizes)
                    used += level_count
                    unsampled_sizes -= set(sizes)
                elif strategy == "Smarter":
                    blocks.append(_distinct_random_of_sizes(num_players, sizes,
                                                            budget - used, rng))
                    used = budget
                    break
        random_sizes = sorted(unsampled_sizes if strategy == "Smarter"
                              else set(range(1, num_players)))
        if used < budget and random_sizes:
            blocks.append(_random_over_sizes(num_players, random_sizes, budget - used, rng))
    drawn = np.concatenate(blocks, axis=0)
    members, counts = np.unique(drawn, axis=0, return_counts=True)
    sizes_of_rows = members.sum(axis=1)
    kernel = np.array([shapley_kernel_weight(num_players, int(size)) for size in sizes_of_rows])
    return Coalitions(members.astype(np.bool_), kernel * counts)


# ---------------------------------------------------------------- the surrogate fit


# φ is rounded to this many decimals: equal players tie on every machine (module docstring).
SHAPLEY_DECIMALS = 9


def fit_shapley_values(coalitions: Coalitions, values: FloatArray,
                       method: str) -> tuple[FloatArray, float]:
    """Weighted linear regression with intercept of `values` on the coalitions:
    returns (φ_1..φ_M, φ_0). "WLS": the closed form (Zᵀ W Z)⁺ Zᵀ W v with numpy
    (pseudo-inverse: with fewer informative coalitions than players the system is
    underdetermined, and the minimum-norm solution leaves unseen players at 0);
    "WLR_sklearn": scikit-learn's `LinearRegression` with `sample_weight`."""
    members = coalitions.members.astype(np.float64)
    weights = coalitions.weights
    if method == "WLS":
        design = np.hstack([np.ones((members.shape[0], 1)), members])
        gram = design.T @ (weights[:, None] * design)
        moment = design.T @ (weights * values)
        solution = np.linalg.pinv(gram, rcond=1e-12, hermitian=True) @ moment
        return solution[1:], float(solution[0])
    if method == "WLR_sklearn":
        from sklearn.linear_model import LinearRegression

        regression = LinearRegression(fit_intercept=True)
        regression.fit(members, values, sample_weight=weights)
        return (np.asarray(regression.coef_, dtype=np.float64).reshape(-1),
                float(regression.intercept_))
    raise GracrError(f"GraphSVX has no surrogate fit '{method}'; the fits are {', '.join(FITS)}")


# ---------------------------------------------------------------- the coalition game


@dataclass(frozen=True)
class CoalitionGame:
    """v(z): the model's probability of its predicted class on the graph in which
    the players absent from z have lost all their edges.

    Node tasks run on the k-hop in-neighbourhood of the target (`nodes`: its global
    ids, `edges`: the global ids of the edges among them), which leaves the
    target's output unchanged when k ≥ the number of layers; graph tasks on the
    whole graph. `players` are local node indices.
    """

    subject: Subject
    nodes: IntArray
    edges: IntArray
    players: IntArray
    local_target: int | None
    module: torch.nn.Module
    positive: bool

    @property
    def num_players(self) -> int:
        return len(self.players)

    def values(self, members: BoolArray) -> FloatArray:
        """v(z) for each row of `members` (`[C, M]`), batched into disjoint unions."""
        x = self.subject.x[torch.as_tensor(self.nodes)]
        local_edges = self.local_edge_index()
        num_nodes = len(self.nodes)
        width = (TRAINED_WIDTH if self.subject.trained
                 else max(self.subject.compiled.width, 1))
        chunk = max(1, BATCH_ELEMENTS // max(num_nodes * width, 1))
        results: list[FloatArray] = []
        for start in range(0, len(members), chunk):
            results.append(self._evaluate(members[start:start + chunk], x, local_edges))
        return np.concatenate(results) if results else np.zeros(0)

    def local_edge_index(self) -> IntArray:
        position = np.full(self.subject.x.shape[0], -1, dtype=np.int64)
        position[self.nodes] = np.arange(len(self.nodes))
        edge_index = self.subject.edge_index.numpy()[:, self.edges]
        local: IntArray = position[edge_index]
        return local

    def _evaluate(self, members: BoolArray, x: Tensor, local_edges: IntArray) -> FloatArray:
        copies, num_nodes = len(members), len(self.nodes)
        present = np.ones((copies, num_nodes), dtype=np.bool_)
        present[:, self.players] = members
        sources, targets = local_edges
        kept = present[:, sources] & present[:, targets]
        copy_of_edge, edge = np.nonzero(kept)
        offset = copy_of_edge * num_nodes
        edge_index = torch.as_tensor(np.stack([sources[edge] + offset, targets[edge] + offset]))
        batch = torch.arange(copies).repeat_interleave(num_nodes)
        # The kept edges' share of what the model reads per edge (a trained model's
        # lengths, a typed compiled model's relations).
        kept_edges = torch.as_tensor(self.edges[edge])
        kwargs = {name: value[kept_edges] for name, value in self.subject.model_kwargs.items()}
        with torch.no_grad():
            output = self.module(x.repeat(copies, 1), edge_index, batch, **kwargs)
        if self.local_target is not None:
            output = output[torch.arange(copies) * num_nodes + self.local_target]
        if self.subject.trained:
            output = torch.sigmoid(output)  # a trained model's logit, as a probability
        p = output.reshape(-1).to(torch.float64).numpy()
        chosen: FloatArray = p if self.positive else 1.0 - p
        return chosen


def _receptive_nodes(subject: Subject) -> BoolArray:
    """The target and every endpoint of a receptive-field edge: the k-hop
    in-neighbourhood for k = the formula's modal depth."""
    inside = np.zeros(int(subject.x.shape[0]), dtype=np.bool_)
    inside[subject.edge_index.numpy()[:, subject.receptive_field].reshape(-1)] = True
    if subject.target is not None:
        inside[subject.target] = True
    return inside


def player_neighbourhood(subject: Subject, hops: int | str | None) -> BoolArray:
    """The target's in-neighbourhood whose nodes (but the target) are the players:
    `hops=None`: the k-hop one for k = the number of layers (the nodes with a
    directed path of length ≤ k to the target); an int: that k; "receptive_field":
    the nodes of the receptive field (k = the modal depth, ≤ the number of layers)."""
    assert subject.target is not None
    if hops == "receptive_field":
        return _receptive_nodes(subject)
    if not (hops is None or (isinstance(hops, int) and hops >= 0)):
        raise GracrError(f"GraphSVX's hops must be None, a non-negative int or "
                         f"'receptive_field', got {hops!r}")
    from torch_geometric.utils import k_hop_subgraph

    depth = subject.num_layers if hops is None else hops
    subset, _, _, _ = k_hop_subgraph(subject.target, depth, subject.edge_index,
                                     num_nodes=int(subject.x.shape[0]),
                                     flow="source_to_target")
    inside = np.zeros(int(subject.x.shape[0]), dtype=np.bool_)
    inside[subset.numpy()] = True
    return inside


def coalition_game(subject: Subject, hops: int | str | None) -> CoalitionGame:
    """The players and the game of `subject` (see `CoalitionGame`).

    Node tasks evaluate the subgraph induced by the players, the target and the
    receptive field's nodes. That changes no value: the compiled model computes its
    formula exactly on every graph, and the formula at the target reads only the
    receptive field's edges and the features of their endpoints.
    """
    num_nodes = int(subject.x.shape[0])
    module = subject.fresh_module() if subject.trained else subject.compiled.to_pyg(fused=True)
    if subject.target is None:
        nodes = np.arange(num_nodes)
        edges = np.arange(subject.num_edges)
        players = np.arange(num_nodes)
        local_target = None
    else:
        is_player = player_neighbourhood(subject, hops)
        is_player[subject.target] = False
        evaluated = is_player | _receptive_nodes(subject)
        sources, targets = subject.edge_index.numpy()
        nodes = np.flatnonzero(evaluated)
        edges = np.flatnonzero(evaluated[sources] & evaluated[targets])
        local_target = int(np.searchsorted(nodes, subject.target))
        players = np.flatnonzero(is_player[nodes])
    return CoalitionGame(subject, nodes.astype(np.int64), edges.astype(np.int64),
                         players.astype(np.int64), local_target, module,
                         subject.prediction >= 0.5)


# ---------------------------------------------------------------- the explainer


@dataclass(frozen=True)
class GraphSVXResult:
    """φ per player (`players`: global node ids), the intercept φ_0, and the node
    score of App. H.1 for every node of the graph (0 for non-players)."""

    players: IntArray
    shapley_values: FloatArray
    base_value: float
    node_scores: FloatArray
    scored_nodes: BoolArray


def graphsvx_shapley(subject: Subject, settings: Mapping[str, Any], seed: int) -> GraphSVXResult:
    """Estimate φ for the players of `subject` and derive the App. H.1 node scores."""
    game = coalition_game(subject, settings["hops"])
    num_nodes = int(subject.x.shape[0])
    players = game.nodes[game.players]
    node_scores = np.zeros(num_nodes)
    scored = np.zeros(num_nodes, dtype=np.bool_)
    if game.num_players == 0:
        return GraphSVXResult(players, np.zeros(0), 0.0, node_scores, scored)
    rng = np.random.default_rng(seed)
    coalitions = sample_coalitions(game.num_players, int(settings["num_samples"]),
                                   str(settings["args_coal"]), int(settings["S"]), rng)
    values = game.values(coalitions.members)
    phi, base = fit_shapley_values(coalitions, values, str(settings["args_g"]))
    phi = np.round(phi, SHAPLEY_DECIMALS)
    player_scores = np.abs(phi) if settings["use_abs"] else phi
    node_scores[players] = player_scores
    scored[players] = True
    if subject.target is not None:
        # App. H.1: the explained node is no player; it takes the best score of its
        # neighbourhood, so an edge into it scores as its other endpoint.
        node_scores[subject.target] = player_scores.max()
        scored[subject.target] = True
    return GraphSVXResult(players, phi, base, node_scores, scored)


def edge_scores_from_nodes(result: GraphSVXResult, edge_index: Tensor) -> FloatArray:
    """App. H.1: edge (u, v) scores min(s_u, s_v); 0 if an endpoint is not scored."""
    sources, targets = edge_index.numpy()
    both = result.scored_nodes[sources] & result.scored_nodes[targets]
    scores = np.minimum(result.node_scores[sources], result.node_scores[targets])
    return np.where(both, scores, 0.0)


def _graphsvx(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    result = graphsvx_shapley(subject, settings, seed)
    if subject.level == "node":
        return Explanation(node_mask=torch.as_tensor(result.node_scores))
    return Explanation(edge_mask=torch.as_tensor(
        edge_scores_from_nodes(result, subject.edge_index)))


register(ExplainerSpec(
    "GraphSVX", _graphsvx,
    {"num_samples": 400, "S": 1, "args_coal": "Smarter", "args_g": "WLR_sklearn",
     "use_abs": True, "hops": "receptive_field"},
    space={"num_samples": Choice((100, 200, 400, 800)), "S": IntRange(1, 4),
           "args_coal": Choice(("Smarter", "Smart", "Random")),
           "args_g": Choice(("WLS", "WLR_sklearn")), "use_abs": Choice((True, False))},
    source="ours, clean-room from Duval & Malliaros 2021; node players only, edge "
           "score min(|φ_u|, |φ_v|) (App. H.1)",
    levels=frozenset({"edge", "node"})))
