"""FlowX, stage 1 (Gui et al. 2022, "FlowX: Towards Explainable Graph Neural Networks
via Message Flows"): Shapley values of message flows by permutation sampling over
layer-edges — the baseline the GracrBench paper runs (App. H.1). Clean-room, from the
FlowX paper.

Players and flows (FlowX). A *layer-edge* is one directed edge of the graph, or one
self-loop per node, in one message-passing layer: `L · (E + N)` of them. A *flow* is a
length-`L` walk through layer-edges, one per layer, each starting where the previous
ended; for a node task it ends at the target, for a graph task anywhere (sum pooling
reads every node). Flow `φ` is *alive* while all its layer-edges are.

Stage 1 (FlowX's initial assessment by Shapley sampling). For each of `samples` random
permutations of the layer-edges, remove them one by one; removing a layer-edge kills
every alive flow through it, and the drop of the explained output at that step is
shared equally by the flows killed there. A flow's score is its credit averaged over
permutations; an edge's score is the sum, over its `L` layer-edges, of the scores of the
flows through them (self-loop scores are dropped, App. H.1).

What removing a layer-edge means on a compiled layer
`h' = σ(h C + Σ_c Σ_{(s,t) ∈ E_c} h_s A_c + b)` (Eq. 2 with typed edges, one channel `c`
per relation a layer sums over; an untyped model has the one channel of every edge).
The network is always the executor's (`gracr.executor.numpy_backend`): removals are
its per-layer edge and self-term weights, never a copy of the layer here.

* a real edge `e` in layer `ℓ`: its message is scaled by 0 in layer `ℓ` only — the
  module's `layer_edge_weights[ℓ][e] = 0`, the executor's `edge_weights[ℓ][e] = 0`
  — in both settings below;
* the self-loop of node `v` in layer `ℓ`, setting `self_loops`:

  - `"inert"` (the default): removing it changes nothing in the network. It is still a
    player — it sits in the permutations and kills the flows through it when removed —
    but its step never drops the output, so it earns no credit for anything; the flows
    it kills earn nothing from later drops either (they are dead). Why we take it for
    the paper's: App. H.1 runs the ORIGINAL FlowX implementation, which masks
    layer-edges through PyG's explain mechanism. That mechanism can only scale
    *messages* (`MessagePassing.explain_message` multiplies each message by its mask
    entry, and its `_loop_mask` bookkeeping only lines up a mask with self-loop
    messages a layer itself adds). Our compiled layer sends no self-loop message: its
    self term `h C` is computed outside `propagate`, so no mask entry of a self-loop
    layer-edge can ever reach it. In the paper's runs a self-loop layer-edge can
    only have been inert, as here. (We have not read the original code, clean-room;
    note that with the PyG installed here, `explain_message` asserts when handed a mask
    longer than the layer's messages, so how the original lined up its `E + N` mask
    with our `E` messages is not something we can check — only its effect, no change
    to `h C`, follows from the mechanism.) Measured on 5 instances per task, inert
    self-loops raise F1 over `"self-term"` on every main task but do not reach the
    paper's ≥ 0.92 alone: see `flow_layers` below.
  - `"self-term"`: our layers have no self-loop edge, but the self term `h_v C` plays
    its part (it is what a GIN-style self-loop message carries: the node's own state),
    so node `v`'s row of `h C` is zeroed in layer `ℓ` (the executor's
    `self_weights[ℓ][v] = 0`). Then `h'_v = σ(Σ messages + b)`:
    the node forgets everything it computed itself. On a compiled model this is a
    strong player: the output drops at the first removal among a chain of the
    explaining node's self-loops and the last of its deciding in-edges, and the
    self-loops usually come first, so the drop is shared among every flow through
    that self-loop — irrelevant in-edges and the node's out-edges included (F1 ≈ 0.5
    on Redundancy).

Which layers flows cross, setting `flow_layers` (default `"message"`): `"all"` makes every
layer of the model a level of the layered graph. `"message"` keeps only the layers that
send messages (some `A_c ≠ 0`, the executor's `message_layers`; a compiled model has
many that only combine a node's own subformulas by `C`): a message-free layer is taken
as a node-wise map, which holds no layer-edge and no player, and a flow stays on its
node through it. This is a
hypothesis about the paper's runs, not a documented fact: FlowX learns the depth and
the layer-edges from the message passing it observes, so if the paper's compiled model
ran its message-free layers without a message-passing step, FlowX saw only the message
layers. We cannot check the paper's code (clean-room). Measured on 5 instances per task
(seed 0, 30 permutations, inert self-loops), `"message"` gives F1 1.00 on Redundancy,
CompetingRedundancy, RedBlueLeaf-NC and Majority1Hop, 0.91 on RedBlueLeaf and 0.80 on
Majority2Hop (paper: 1.00, 0.98, 0.99, 1.00, 0.94, 0.92; with 300 permutations the last
two reach ≈ 0.96 and ≈ 0.95, so what remains at 30 is Monte-Carlo noise), while `"all"`
gives 0.60 on RedBlueLeaf, 0.94 on Redundancy, 0.55 on CompetingRedundancy, 0.87 on
RedBlueLeaf-NC, 1.00 on Majority1Hop and 0.66 on Majority2Hop (the first 10 instances
of seed 0, 30 permutations, sharing drops as the original does; `"message"`: 0.93,
1.00, 0.94, 0.99, 1.00, 0.80): the flows through a decisive removal go on through every
later layer, so its drop is shared with the deciding node's out-edges and round trips
(graph tasks: every walk out of that node; node tasks: every walk back to the target).
`"message"` is the default for two reasons: it is the reading that reproduces the
paper's FlowX numbers, and it is the one our SubgraphX already takes (its computation
graph's depth counts the layers that pass messages, App. H.1), so both explainers see
the same message-passing depth of a compiled model.

Never enumerating flows. A RedBlueLeaf graph (32 nodes) has ~10¹³ flows under the
16-layer model and ~10¹⁷ under the 21-layer φ∨ one, so every flow quantity is computed
by dynamic programming on the layered graph (see `forward_counts`, `backward_counts`,
`destroyed_shares`, and the proof in `credit_permutation`). Counts are float64: they
overflow int64 (and exceed 2⁵³, so they are not exact integers any more), while float64
holds (d + 1)^L up to 10³⁰⁸; only ratios of counts are used, and no difference of two
large counts is ever taken, so rounding stays relative (~10⁻¹⁶).

Speed. The forward passes of one permutation are not re-run from scratch: the network
state is updated incrementally (`IncrementalNetwork`): a removal recomputes only the
node it feeds, and a change travels on to later layers only while some unit actually
changes value. Compiled units saturate, so most removals stop after one node. A
layer-edge whose message the layer ignores (`A = 0` in that layer, or, on a typed model,
an edge of a relation no channel of the layer sums over) changes nothing and costs
nothing, and layer-edges that carry no flow at all (those that cannot reach the
target) are dummy players, left out of the permutations (this changes no credit:
they kill no flow and, reaching no output, change nothing; the relative order of the
others is still uniform). The flow bookkeeping runs only at the steps whose drop is not
zero, which on a Boolean-valued compiled model are a handful per permutation.

Choices where the paper is silent, documented here:

* The explained output is the probability of the predicted class: the module's output
  `p` when `p ≥ 0.5` (every instance GracrBench explains), `1 − p` otherwise.
* Who shares a step's drop (`credit_permutation`'s `sharing`). Under the default
  `flow_layers="message"`: the flows the step kills (`"killed"`), FlowX's Shapley
  sampling as its paper states it, each flow credited once per permutation, when its
  first layer-edge goes. A step whose drop is not zero but kills no flow (a node whose
  every in-flow is already removed still holds its bias-driven constant state, and
  removing its out-edge changes the output) then has no flow to credit; its drop is
  left uncredited (`PermutationCredit.orphan_drop` reports it, so efficiency reads
  Σ flow credits + orphan drop = f(all) − f(none)). It is rare there (none on five of
  the six tasks' first 10 instances; 4 of 10 on RedBlueLeaf-NC, 0.02 of a drop of 1
  per permutation). Under `flow_layers="all"` (FlowX's own layered graph): all the
  flows through the removed layer-edge, alive or dead (`"through"`), as the original
  implementation does — it never tracks which walks are alive and splits each
  removal's drop among the walks through the removed layer-edges (DIG's
  `flow_shap`). With `"killed"` there, the drop of a removal whose flows had all died
  through later layers was lost (a third of it on Redundancy) and the flows left to
  credit went on through the deciding node's out-edges, which outscored the UPI edges:
  F1 0.74 on Redundancy's first 10 positives at 30 permutations, against 0.94 with
  `"through"` (the original's own figure there: 0.94). The default reading keeps
  `"killed"`, the reading the published scores were made with. (The original divides a
  walk's summed credit by the number of times it was credited, about L per
  permutation, rather than by the permutations; and on node tasks it removes
  layer-edges in up to 100 batches per permutation, not one at a time.)

Its size (600–700 lines) is one explainer: the layer-edge players, the permutation
sampler and the incremental network belong to one algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, cast, get_args

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor
from torch_geometric.explain import Explanation

from gracr.explainers.base import ExplainerSpec, Subject, register
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor import numpy_backend
from gracr.executor.model import CompiledGNN
from gracr.executor.plan import cone_subgraph, layer_plans, message_layers, target_cone

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

SelfLoops = Literal["inert", "self-term"]
"""What removing a self-loop layer-edge does to the network (module docstring)."""
SELF_LOOP_SETTINGS: tuple[str, ...] = get_args(SelfLoops)
FlowLayers = Literal["all", "message"]
"""Which layers flows run through (module docstring)."""
FLOW_LAYER_SETTINGS: tuple[str, ...] = get_args(FlowLayers)


# ---------------------------------------------------------------- the layered graph


def _summed_at(index: IntArray, weights: FloatArray, size: int) -> FloatArray:
    """`out[k] = Σ_{index[i] = k} weights[i]`, length `size`."""
    result: FloatArray = np.bincount(index, weights=weights, minlength=size).astype(np.float64)
    return result


@dataclass(frozen=True)
class LayeredGraph:
    """The layer-edges of an `L`-layer model on a graph of `N` nodes and `E` edges.

    Layer-edge `(ℓ, j)`, `ℓ < L`, `j < E + N`, goes from node `sources[j]` at level `ℓ`
    to node `targets[j]` at level `ℓ + 1`; `j < E` is edge `j` of `edge_index`,
    `j = E + v` the self-loop of node `v`. Level `k` is the state after `k` layers.
    `ends[v]` is 1 where a flow may end (the target, or every node for a graph task).
    """

    num_nodes: int
    num_edges: int
    num_layers: int
    sources: IntArray
    targets: IntArray
    ends: FloatArray

    @staticmethod
    def build(edge_index: npt.ArrayLike, num_nodes: int, num_layers: int,
              target: int | None) -> LayeredGraph:
        edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
        loops = np.arange(num_nodes, dtype=np.int64)
        ends = np.zeros(num_nodes) if target is not None else np.ones(num_nodes)
        if target is not None:
            ends[target] = 1.0
        return LayeredGraph(num_nodes, int(edges.shape[1]), num_layers,
                            np.concatenate([edges[0], loops]),
                            np.concatenate([edges[1], loops]), ends)

    @property
    def width(self) -> int:
        """Layer-edges per layer: `E + N`."""
        return self.num_edges + self.num_nodes

    def all_alive(self) -> BoolArray:
        return np.ones((self.num_layers, self.width), dtype=np.bool_)


def forward_counts(graph: LayeredGraph, alive: BoolArray) -> FloatArray:
    """`F[k, v]`: alive walks of `k` layer-edges from any node at level 0 to `v` at level `k`.

    `F[0] = 1`; `F[k + 1, v] = Σ_{alive (k, j), targets[j] = v} F[k, sources[j]]`.
    """
    counts = np.zeros((graph.num_layers + 1, graph.num_nodes))
    counts[0] = 1.0
    for layer in range(graph.num_layers):
        counts[layer + 1] = _summed_at(graph.targets, alive[layer] * counts[layer][graph.sources],
                                       graph.num_nodes)
    return counts


def backward_counts(graph: LayeredGraph, alive: BoolArray) -> FloatArray:
    """`B[k, u]`: alive walks from `u` at level `k` to a flow end at level `L`.

    `B[L] = ends`; `B[k, u] = Σ_{alive (k, j), sources[j] = u} B[k + 1, targets[j]]`.
    """
    counts = np.zeros((graph.num_layers + 1, graph.num_nodes))
    counts[graph.num_layers] = graph.ends
    for layer in reversed(range(graph.num_layers)):
        counts[layer] = _summed_at(graph.sources, alive[layer] * counts[layer + 1][graph.targets],
                                   graph.num_nodes)
    return counts


def flows_through(graph: LayeredGraph, alive: BoolArray) -> FloatArray:
    """`[L, E + N]`: the alive flows through each layer-edge.

    A flow through alive `(ℓ, u→v)` is an alive walk to `u` at level `ℓ` followed by
    the layer-edge and an alive walk from `v` at level `ℓ + 1` to an end; the two halves
    are chosen independently, so the count is `F[ℓ, u] · B[ℓ + 1, v]`.
    """
    forward, backward = forward_counts(graph, alive), backward_counts(graph, alive)
    result: FloatArray = (alive * forward[:-1][:, graph.sources]
                          * backward[1:][:, graph.targets])
    return result


def destroyed_shares(graph: LayeredGraph, alive: BoolArray, layer: int, index: int,
                     forward: FloatArray, backward: FloatArray) -> FloatArray:
    """`[L, E + N]`: the fraction of the flows killed by removing `(layer, index)`
    that pass through each layer-edge.

    `alive` is the set before the removal, `forward`/`backward` its counts. The killed
    flows are the alive flows through `(layer, u*→v*)`: `D = F[layer, u*] · B[layer+1, v*]`
    (`flows_through`), assumed > 0. Those of them through `(ℓ, a→b)`:

    * `ℓ > layer`: `F[layer, u*] · G[ℓ, a] · B[ℓ + 1, b]`, with `G[k, a]` the alive walks
      from `v*` at level `layer + 1` to `a` at level `k`; divided by `D`:
      `G[ℓ, a] · B[ℓ + 1, b] / B[layer + 1, v*]`;
    * `ℓ < layer`: symmetrically `F[ℓ, a] · H[ℓ + 1, b] / F[layer, u*]`, with `H[k, b]` the
      alive walks from `b` at level `k` to `u*` at level `layer`;
    * `ℓ = layer`: 1 for the removed layer-edge, 0 for the others.

    Every killed flow crosses each layer exactly once, so each row sums to 1. No
    difference of large counts is taken, so the shares are exact to float rounding
    even when the counts are ~10¹⁵.
    """
    source, target = graph.sources[index], graph.targets[index]
    shares = np.zeros((graph.num_layers, graph.width))
    shares[layer, index] = 1.0
    from_target = np.zeros(graph.num_nodes)
    from_target[target] = 1.0
    for later in range(layer + 1, graph.num_layers):
        carried = alive[later] * from_target[graph.sources]
        shares[later] = carried * backward[later + 1][graph.targets] / backward[layer + 1, target]
        from_target = _summed_at(graph.targets, carried, graph.num_nodes)
    to_source = np.zeros(graph.num_nodes)
    to_source[source] = 1.0
    for earlier in reversed(range(layer)):
        carried = alive[earlier] * to_source[graph.targets]
        shares[earlier] = forward[earlier][graph.sources] * carried / forward[layer, source]
        to_source = _summed_at(graph.sources, carried, graph.num_nodes)
    return shares


Sharing = Literal["killed", "through"]
"""Which flows share a step's drop: those it kills, or all through its layer-edge."""


@dataclass(frozen=True)
class PermutationCredit:
    """One permutation's result: `credit[ℓ, j]` = Σ over flows through layer-edge
    `(ℓ, j)` of their credit; `orphan_drop` = the drops left uncredited (steps with no
    flow to share them)."""

    credit: FloatArray
    orphan_drop: float


def credit_permutation(graph: LayeredGraph, layers: IntArray, indices: IntArray,
                       drops: FloatArray, sharing: Sharing = "killed") -> PermutationCredit:
    """FlowX's equal sharing of each step's drop among the flows it kills, per layer-edge.

    Step `t` removes layer-edge `(layers[t], indices[t])`, after which the output has
    dropped by `drops[t]`. Layer-edges not in the order stay alive throughout (they are
    dummies: they carry no flow, see the module docstring).

    Claim: `credit[ℓ, j] = Σ_{φ ∋ (ℓ, j)} c(φ)`, where `c(φ) = drops[t] / |D_t|` for the
    step `t` that kills `φ` (`D_t` = the flows killed at step `t`). Hence, with
    `score(φ)` the mean of `c(φ)` over permutations, the mean of `credit` is
    `Σ_{φ ∋ (ℓ, j)} score(φ)`, and summing it over the layers of an edge gives FlowX's
    edge score.

    Proof. Flows are killed once each: a flow is alive until the first of its
    layer-edges is removed. So `Σ_{φ ∋ (ℓ, j)} c(φ) = Σ_t (drops[t] / |D_t|) ·
    |{φ ∈ D_t : (ℓ, j) ∈ φ}| = Σ_t drops[t] · s_t(ℓ, j)`, where
    `s_t(ℓ, j) = |{φ ∈ D_t : (ℓ, j) ∈ φ}| / |D_t|` is exactly `destroyed_shares` at
    step `t` (computed on the alive set before the step). Steps with `drops[t] = 0`
    add nothing and are skipped; steps with `|D_t| = 0` have no flow to credit (their
    drop goes to `orphan_drop`). Efficiency follows: each row of `s_t` sums to 1, so
    `Σ_j credit[ℓ, j] = Σ_t drops[t] [|D_t| > 0] = Σ_φ c(φ)` for every layer `ℓ`. ∎

    With `sharing="through"` step `t`'s drop is shared by `Φ_t`, all the flows through
    its layer-edge with every layer-edge alive (the original's allocation, module
    docstring): the same argument with `Φ_t` for `D_t` and `destroyed_shares` on the
    complete layered graph, except that a flow is now credited at every dropping step
    on it, so `c(φ)` is the sum of those credits; every drop is credited but those of
    layer-edges on no flow at all (`Φ_t` empty: no player of `flowx_scores` is one).
    """
    position = np.full((graph.num_layers, graph.width), len(drops), dtype=np.int64)
    position[layers, indices] = np.arange(len(drops))
    credit = np.zeros((graph.num_layers, graph.width))
    orphan = 0.0
    everything = graph.all_alive()
    complete = ((forward_counts(graph, everything), backward_counts(graph, everything))
                if sharing == "through" else None)
    for step in np.flatnonzero(drops):
        alive = everything if complete is not None else position >= step
        forward, backward = complete or (forward_counts(graph, alive),
                                         backward_counts(graph, alive))
        layer, index = int(layers[step]), int(indices[step])
        sharers = (forward[layer, graph.sources[index]]
                   * backward[layer + 1, graph.targets[index]])
        if sharers <= 0.0:
            orphan += float(drops[step])
            continue
        credit += drops[step] * destroyed_shares(graph, alive, layer, index,
                                                 forward, backward)
    return PermutationCredit(credit, orphan)


# ---------------------------------------------------------------- the masked network


def masked_forward(compiled: CompiledGNN, x: npt.ArrayLike, edge_index: npt.ArrayLike,
                   edge_alive: BoolArray, self_alive: BoolArray,
                   edge_type: npt.ArrayLike | None = None) -> list[FloatArray]:
    """Every level `h⁽⁰⁾ … h⁽ᴸ⁾` of the compiled network with layer-edges removed (float64).

    The executor's forward pass (`numpy_backend.trace`), layer ℓ being
    `h' = σ(s_ℓ ⊙ (h C) + Σ_c Σ_{(u,v) ∈ E_c} w_ℓ[e] h_u A_c + b)`, with
    `w_ℓ = edge_alive[ℓ]` (the module's `layer_edge_weights[ℓ]`) and `s_ℓ = self_alive[ℓ]`
    zeroing a node's self term (a self-loop layer-edge removed under `"self-term"`;
    under `"inert"` every self term stays, module docstring).
    """
    weights = [np.asarray(alive, dtype=np.float64) for alive in edge_alive]
    selves = [np.asarray(alive, dtype=np.float64) for alive in self_alive]
    return list(numpy_backend.trace(compiled, x, edge_index, edge_type, edge_weights=weights,
                                    self_weights=selves).states)


def readout_output(compiled: CompiledGNN, pooled: FloatArray) -> float:
    """The graph classifier's output from the sum-pooled last level (the executor's
    `numpy_backend.readout`)."""
    states, _ = numpy_backend.readout(compiled, pooled)
    return float(states[-1][compiled.output_column])


def relevant_states(compiled: CompiledGNN, edge_index: npt.ArrayLike, num_nodes: int,
                    target: int | None, edge_type: npt.ArrayLike | None = None) -> BoolArray:
    """`[L + 1, N]`: whether node `v`'s state after `k` layers can reach the explained
    output. Graph task: every node (sum pooling reads them all). Node task: the rows of
    the executor's receptive-field walk, `target_cone`, which follows only the edges
    that a non-zero channel of each layer sums over (so on a typed model, only the
    relations each layer reads)."""
    if target is None:
        return np.ones((compiled.num_layers + 1, num_nodes), dtype=np.bool_)
    rows, _ = target_cone(compiled, edge_index, target, edge_type)
    relevant = np.zeros((compiled.num_layers + 1, num_nodes), dtype=np.bool_)
    for level, nodes in enumerate(rows):
        relevant[level, nodes] = True
    return relevant


class IncrementalNetwork:
    """The compiled network's state under cumulative layer-edge removals.

    Keeps every level `h⁽ᵏ⁾` and, per layer and channel `c`,
    `S_ℓc[v] = Σ_{alive (u→v) ∈ E_c} h⁽ℓ⁾_u` restricted to the rows `A_c` reads, and
    computes a layer through the executor's `numpy_backend.RowLayer` (the layer of
    `pre_activation` from those sums, since `Σ_u w_u h_u A = (Σ_u w_u h_u) A`).
    `remove` updates `S` or the self mask, recomputes the node it feeds, and carries a
    change on to the next layer only for the nodes whose state changed — through their
    alive self-loop and alive out-edges. Only nodes that can still reach the output
    (`relevant[k]`, by default `relevant_states`) are recomputed; the others never
    influence it.
    """

    def __init__(self, compiled: CompiledGNN, x: npt.ArrayLike, edge_index: npt.ArrayLike,
                 target: int | None, relevant: BoolArray | None = None,
                 edge_type: npt.ArrayLike | None = None) -> None:
        if compiled.kind is Kind.GRAPH and compiled.options.readout != "threshold":
            raise GracrError(f"FlowX's incremental network keeps the sum-pooled readout; this "
                             f"model pools by the '{compiled.options.readout}' readout")
        self.compiled = compiled
        edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
        self.sources, self.targets = edges[0], edges[1]
        self.edge_type = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
        self.num_nodes = int(np.asarray(x).shape[0])
        self.num_edges = int(edges.shape[1])
        self.num_layers = compiled.num_layers
        self.target = target
        self.relevant = (relevant if relevant is not None else
                         relevant_states(compiled, edges, self.num_nodes, target, self.edge_type))
        self.layers = [numpy_backend.RowLayer(plan) for plan in layer_plans(compiled)]
        # Per layer and channel: which edges the channel sums over.
        self.admitted = [layer.admitted(self.edge_type, self.num_edges) for layer in self.layers]
        # Out-edges of each node, for carrying a change forward.
        self.out_order = np.argsort(self.sources, kind="stable")
        self.out_start = np.concatenate(
            [[0], np.cumsum(np.bincount(self.sources, minlength=self.num_nodes))])
        all_edges = np.ones((self.num_layers, self.num_edges), dtype=np.bool_)
        all_nodes = np.ones((self.num_layers, self.num_nodes), dtype=np.bool_)
        self.initial_levels = masked_forward(compiled, x, edges, all_edges, all_nodes,
                                             self.edge_type)
        self.initial_sums = [layer.sums(level, self.sources, self.targets, self.edge_type)
                             for layer, level in zip(self.layers, self.initial_levels)]
        self.reset()

    def reset(self) -> None:
        """Every layer-edge alive again."""
        self.levels = [level.copy() for level in self.initial_levels]
        self.sums = [[summed.copy() for summed in sums] for sums in self.initial_sums]
        self.edge_alive = np.ones((self.num_layers, self.num_edges), dtype=np.bool_)
        self.self_alive = np.ones((self.num_layers, self.num_nodes))
        self.pooled = self.levels[-1].sum(axis=0)
        self.output = self._read_output()

    def _read_output(self) -> float:
        """The module's output: the target's value, or the readout of the pooled nodes."""
        if self.compiled.kind is Kind.NODE:
            assert self.target is not None
            return float(self.levels[-1][self.target, self.compiled.output_column])
        return readout_output(self.compiled, self.pooled)

    def remove(self, layer: int, index: int) -> float:
        """Remove layer-edge `(layer, index)` (`index ≥ E`: a self-loop); the new output."""
        if index >= self.num_edges:
            node = index - self.num_edges
            self.self_alive[layer, node] = 0.0
        else:
            self.edge_alive[layer, index] = False
            source, node = int(self.sources[index]), int(self.targets[index])
            carried = False
            for rows, admitted, summed in zip(self.layers[layer].rows, self.admitted[layer],
                                              self.sums[layer]):
                if not admitted[index]:
                    continue
                message = self.levels[layer][source, rows]
                if message.any():
                    summed[node] -= message
                    carried = True
            if not carried:
                return self.output
        self._settle(layer, np.array([node], dtype=np.int64))
        return self.output

    def _settle(self, layer: int, dirty: IntArray) -> None:
        """Recompute `dirty` nodes in `layer`, then whatever their changes reach."""
        for current in range(layer, self.num_layers):
            dirty = dirty[self.relevant[current + 1][dirty]]
            if not dirty.size:
                return
            state = self.layers[current].forward(
                self.levels[current][dirty], [summed[dirty] for summed in self.sums[current]],
                self_weight=self.self_alive[current][dirty])
            change = state - self.levels[current + 1][dirty]
            changed = change.any(axis=1)
            if not changed.any():
                return
            dirty, change = dirty[changed], change[changed]
            self.levels[current + 1][dirty] += change
            if current + 1 == self.num_layers:
                self.pooled += change.sum(axis=0)
                self.output = self._read_output()
                return
            dirty = self._carry(current + 1, dirty, change)

    def _carry(self, layer: int, changed: IntArray, change: FloatArray) -> IntArray:
        """Add the changes of `changed` (level `layer`) to the sums of `layer`'s alive
        out-edges that each channel sums over; the nodes to recompute in `layer`."""
        keeps_self: IntArray = changed[self.self_alive[layer][changed] > 0]
        reached = [keeps_self]
        for rows, admitted, summed in zip(self.layers[layer].rows, self.admitted[layer],
                                          self.sums[layer]):
            read = change[:, rows]
            sending = np.flatnonzero(read.any(axis=1))
            if not sending.size:
                continue
            starts = self.out_start[changed[sending]]
            counts = self.out_start[changed[sending] + 1] - starts
            owner = np.repeat(sending, counts)
            offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
            out_edges = self.out_order[np.repeat(starts, counts) + offsets]
            alive = self.edge_alive[layer][out_edges] & admitted[out_edges]
            out_edges, owner = out_edges[alive], owner[alive]
            receivers = self.targets[out_edges]
            np.add.at(summed, receivers, read[owner])
            reached.append(receivers)
        if len(reached) == 1:
            return keeps_self
        result: IntArray = np.unique(np.concatenate(reached)).astype(np.int64)
        return result


# ---------------------------------------------------------------- the explainer


def removal_outputs(network: IncrementalNetwork, layers: IntArray, indices: IntArray,
                    self_loops: SelfLoops) -> FloatArray:
    """The outputs along one permutation: `[f(all), f(after step 0), …]`, from a reset
    network, removing layer-edge `(layers[t], indices[t])` at step `t` (in the network's
    numbering; a negative index is a layer-edge outside it, whose removal changes nothing).

    Under `"inert"` a self-loop's step leaves the network as it is, so it reads the
    output unchanged: a drop of exactly 0, which `credit_permutation` skips, while the
    flows through the self-loop die all the same (they are dead for later steps).
    Efficiency holds under both settings: Σ credits + orphan drop = f(all) − f(none),
    where `f(none)` keeps every self term under `"inert"` and none under `"self-term"`.
    """
    network.reset()
    removes_self_terms = self_loops == "self-term"
    outputs = [network.output]
    for layer, index in zip(layers.tolist(), indices.tolist()):
        if index >= 0 and (index < network.num_edges or removes_self_terms):
            network.remove(layer, index)
        outputs.append(network.output)
    return np.array(outputs, dtype=np.float64)


@dataclass(frozen=True)
class FlowScores:
    """FlowX's result: `layer_edge[ℓ, j]` = Σ of the scores of the flows through
    layer-edge `(ℓ, j)`; `edge` = their sum over layers for the `E` real edges;
    `orphan_drop` = the mean uncredited drop per permutation."""

    layer_edge: FloatArray
    edge: FloatArray
    orphan_drop: float


def flowx_scores(subject: Subject, samples: int, seed: int, self_loops: SelfLoops = "inert",
                 flow_layers: FlowLayers = "all", cone: bool = True) -> FlowScores:
    """FlowX stage 1 on `subject`: `samples` permutations of the layer-edges that carry flows.

    `self_loops` says what removing a self-loop layer-edge does (module docstring):
    `"inert"` leaves the network as it is (the step kills flows, drops nothing),
    `"self-term"` zeroes the node's self term `h_v C` in that layer. `flow_layers`
    says which layers flows cross: `"all"`, or only the `"message"` layers (some
    `A_c ≠ 0`, the executor's `message_layers`), a message-free layer being a node-wise
    map that holds no layer-edge at all. On a typed model (`subject.edge_type`) the
    layer-edges are still every edge in every crossed layer (as PyG's
    message passing shows them: every edge sends one message row per layer), but an
    edge of a relation that no channel of the layer sums over sends it zero, so it is a
    player whose removal never drops the output.
    `layer_edge` has one row per layer of the model either way (zero rows for the
    layers flows do not cross). Under `"all"` each drop is shared by all the flows
    through the removed layer-edge, as the original does; under `"message"` by the
    flows it kills (`credit_permutation`'s `sharing`, module docstring).
    `cone=False` keeps the whole graph in the incremental network on a node task too
    (the same scores, more work: what the tests compare the cone with).
    """
    if samples < 1:
        raise GracrError(f"FlowX needs at least one permutation (samples ≥ 1), got {samples}")
    if self_loops not in SELF_LOOP_SETTINGS:
        raise GracrError(f"FlowX's self_loops is one of {', '.join(SELF_LOOP_SETTINGS)}, "
                         f"got {self_loops!r}")
    if flow_layers not in FLOW_LAYER_SETTINGS:
        raise GracrError(f"FlowX's flow_layers is one of {', '.join(FLOW_LAYER_SETTINGS)}, "
                         f"got {flow_layers!r}")
    compiled = subject.compiled
    num_nodes = int(subject.x.shape[0])
    edge_index = subject.edge_index.numpy()
    edge_type = None if subject.edge_type is None else subject.edge_type.numpy()
    # `crossed[k]`: the model layer of flow layer `k`. A flow crossing only the
    # message layers stays on its node through the others, so the walks and their
    # counts are those of the layered graph of the message layers alone.
    crossed = (message_layers(compiled) if flow_layers == "message"
               else np.arange(compiled.num_layers, dtype=np.int64))
    graph = LayeredGraph.build(edge_index, num_nodes, len(crossed), subject.target)
    carrying = flows_through(graph, graph.all_alive()) > 0
    # Which states can reach the output is a property of the model, whatever flows
    # cross (`relevant_states`, the default of `IncrementalNetwork`). On a node task the
    # network holds only the subgraph of the target's cone: every state the output reads
    # is the same there, and a layer-edge outside it cannot change the output (its
    # removal is skipped, index -1).
    network_index = np.arange(graph.width)
    if subject.target is None or not cone:
        network = IncrementalNetwork(compiled, subject.x.numpy(), edge_index, subject.target,
                                     edge_type=edge_type)
    else:
        subgraph = cone_subgraph(compiled, edge_index, subject.target, edge_type)
        network = IncrementalNetwork(compiled, subject.x.numpy()[subgraph.nodes],
                                     subgraph.edge_index, subgraph.target,
                                     edge_type=None if edge_type is None
                                     else edge_type[subgraph.edges])
        inside = len(subgraph.edges)
        network_index = np.full(graph.width, -1)
        network_index[subgraph.edges] = np.arange(inside)
        network_index[graph.num_edges + subgraph.nodes] = inside + np.arange(len(subgraph.nodes))
    # Explain the predicted class: a drop of its probability is a drop of p or of 1 - p.
    sign = 1.0 if network.output >= 0.5 else -1.0
    player_layers, player_indices = np.nonzero(carrying)
    rng = np.random.default_rng(seed)
    total = np.zeros((graph.num_layers, graph.width))
    orphan = 0.0
    for _ in range(samples):
        order = rng.permutation(len(player_layers))
        layers, indices = player_layers[order], player_indices[order]
        outputs = removal_outputs(network, crossed[layers], network_index[indices], self_loops)
        drops = sign * (outputs[:-1] - outputs[1:])
        result = credit_permutation(graph, layers, indices, drops,
                                    "through" if flow_layers == "all" else "killed")
        total += result.credit
        orphan += result.orphan_drop
    layer_edge = np.zeros((compiled.num_layers, graph.width))
    layer_edge[crossed] = total / samples
    return FlowScores(layer_edge, layer_edge[:, :graph.num_edges].sum(axis=0),
                      orphan / samples)


def _flowx(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    # `flowx_scores` rejects any other value of `self_loops` or `flow_layers`.
    return Explanation(edge_mask=torch.as_tensor(
        flowx_scores(subject, int(settings["samples"]), seed,
                     cast(SelfLoops, settings["self_loops"]),
                     cast(FlowLayers, settings["flow_layers"])).edge))


register(ExplainerSpec(
    "FlowX", _flowx, {"samples": 30, "self_loops": "inert", "flow_layers": "message"},
    source="ours, clean-room: FlowX stage 1 (Gui et al. 2022), flows counted by dynamic "
           "programming, never enumerated",
    models=frozenset({"compiled"})))
