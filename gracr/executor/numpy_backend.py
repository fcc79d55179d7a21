"""Eq. 2 in plain numpy (float64): the executors' reference forward pass.

It runs without torch, so every stage before the PyG modules can be tested alone,
and it keeps every layer's pre-activation for explainers that propagate relevance
back through the layers (LRP). Explainers that remove layer-edges run it with
per-layer weights on the messages (`edge_weights`, the torch module's
`layer_edge_weights`) and on the self terms (`self_weights`: the self term `h C` is
not a message, so no edge weight reaches it; FlowX's `self_loops="self-term"`), and
`RowLayer` is the same layer on a few rows at a time, for evaluators that keep the
aggregated inputs up to date under removals (FlowX's incremental network).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from gracr.compiler.desugar import Readout
from gracr.compiler.network import Network
from gracr.dsl.ir import Kind
from gracr.executor.plan import BoolArray, IntArray, LayerPlan, layer_plans

Array = npt.NDArray[np.float64]


def aggregate(plan: LayerPlan, h: Array, sources: IntArray, targets: IntArray,
              edge_type: IntArray | None, edge_weight: Array | None = None) -> Array:
    """`Σ_c Agg_c(h) A_c`, each edge's message scaled by `edge_weight[e]` if given."""
    out = np.zeros((h.shape[0], plan.C.shape[1]))
    for channel in plan.channels:
        if not channel.A.any():
            continue
        keep = channel.admits(edge_type, sources.shape[0])
        messages = (h @ channel.A.astype(np.float64))[sources[keep]]
        if edge_weight is not None:
            messages = messages * edge_weight[keep][:, None]
        np.add.at(out, targets[keep], messages)
    return out


def pre_activation(plan: LayerPlan, h: Array, sources: IntArray, targets: IntArray,
                   edge_type: IntArray | None, edge_weight: Array | None = None, *,
                   self_weight: Array | None = None) -> Array:
    """`z = s ⊙ (h C) + Σ_c Agg_c(h) A_c + b`, before the truncated ReLU.

    `edge_weight` (`[E]`) scales each edge's message (`aggregate`); `self_weight`
    (`[N]`, default all 1) scales each node's self term `h_v C`, which is not a
    message: FlowX removes a self-loop layer-edge this way under `self_loops="self-term"`.
    """
    own = h @ plan.C.astype(np.float64)
    if self_weight is not None:
        own = own * np.asarray(self_weight, dtype=np.float64)[:, None]
    z = own + plan.b
    return z + aggregate(plan, h, sources, targets, edge_type, edge_weight)


@dataclass(frozen=True)
class Trace:
    """Every state of one forward pass: `states[0]` is h⁽⁰⁾, `states[ℓ]` the output of
    layer ℓ, `pre[ℓ-1]` its pre-activation; `readout_states` likewise for the readout
    (`readout_states[0]` the pooled vector)."""

    states: tuple[Array, ...]
    pre: tuple[Array, ...]
    readout_states: tuple[Array, ...]
    readout_pre: tuple[Array, ...]
    output: Array


def _per_layer(weights: Sequence[npt.ArrayLike | None] | None, count: int
               ) -> list[Array | None]:
    if weights is None:
        return [None] * count
    if len(weights) != count:
        raise ValueError(f"one weight vector per layer: {count} expected, got {len(weights)}")
    return [None if w is None else np.asarray(w, dtype=np.float64) for w in weights]


def trace(network: Network, x: npt.ArrayLike, edge_index: npt.ArrayLike,
          edge_type: npt.ArrayLike | None = None, batch: npt.ArrayLike | None = None, *,
          edge_weights: Sequence[npt.ArrayLike | None] | None = None,
          self_weights: Sequence[npt.ArrayLike | None] | None = None,
          keep: bool = True) -> Trace:
    """The forward pass keeping every state (see `Trace`).

    `edge_weights[ℓ]` (`[E]` or None) scales the messages of layer ℓ only, as the torch
    module's `layer_edge_weights`; `self_weights[ℓ]` (`[N]` or None) scales the self
    terms of layer ℓ (`pre_activation`). With `keep=False` only the last hidden state is
    kept (`forward`: a deep, wide model on a large graph would hold every layer twice).
    """
    edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
    sources, targets = edges[0], edges[1]
    h = input_states(network, x)
    states, pre = [h], []
    plans = layer_plans(network)
    for plan, edge_weight, self_weight in zip(plans, _per_layer(edge_weights, len(plans)),
                                              _per_layer(self_weights, len(plans))):
        z = pre_activation(plan, h, sources, targets, types, edge_weight,
                           self_weight=self_weight)
        h = np.clip(z, 0.0, 1.0)
        if keep:
            pre.append(z)
            states.append(h)
    if not keep:
        states = [h]
    column = slice(network.output_column, network.output_column + 1)
    if network.kind is Kind.NODE:
        return Trace(tuple(states), tuple(pre), (), (), h[:, column])
    readout_states, readout_pre = readout(network, pooled(network, h, batch))
    return Trace(tuple(states), tuple(pre), readout_states, readout_pre,
                 readout_states[-1][:, column])


def input_states(network: Network, x: npt.ArrayLike) -> Array:
    """h⁽⁰⁾ = σ(x P + p): the identity on Boolean features, a threshold unit on numeric ones."""
    features = np.asarray(x, dtype=np.float64)
    h: Array = np.clip(features @ network.input_matrix.astype(np.float64) + network.input_bias,
                       0.0, 1.0)
    return h


def pooled(network: Network, h: Array, batch: npt.ArrayLike | None = None) -> Array:
    """The graph vectors `[B, w]` of the last hidden states `h`, pooled per graph of
    `batch` (the graph of each node; None: one graph) by the network's readout (`pool`)."""
    graph_of_node = (np.zeros(h.shape[0], dtype=np.int64) if batch is None
                     else np.asarray(batch, dtype=np.int64))
    return pool(network.options.readout, h, graph_of_node, _graph_count(h, batch))


def _graph_count(h: Array, batch: npt.ArrayLike | None) -> int:
    graph_of_node = np.asarray(batch if batch is not None else [], dtype=np.int64)
    return int(graph_of_node.max()) + 1 if graph_of_node.size else 1


def classifier_output(network: Network, h: Array, batch: npt.ArrayLike | None = None) -> Array:
    """The classifier's output from the last hidden states `h` (`[N, width]`): the output
    column per node (node classifier), or per graph of `batch` through the readout."""
    return output_of_read(network, h[:, read_columns(network)], batch)


def read_columns(network: Network) -> IntArray:
    """The hidden columns the classifier's output reads: the output column of a node
    classifier; the columns a graph classifier's readout weighs (not 0). The others meet
    zero weights, and a network's width is mostly columns its readout never reads."""
    if network.kind is Kind.NODE:
        return np.array([network.output_column], dtype=np.int64)
    return np.flatnonzero(np.any(network.readout[0].W != 0, axis=1))


def output_of_read(network: Network, read: Array, batch: npt.ArrayLike | None = None) -> Array:
    """`classifier_output` from the hidden states of the columns `read_columns` only."""
    if network.kind is Kind.NODE:
        node_output: Array = read[:, 0]
        return node_output
    vectors = np.zeros((_graph_count(read, batch), network.width))
    vectors[:, read_columns(network)] = pooled(network, read, batch)
    states, _ = readout(network, vectors)
    graph_output: Array = states[-1][:, network.output_column]
    return graph_output


def pool(kind: Readout, h: Array, graph_of_node: IntArray, num_graphs: int) -> Array:
    """The graph vector `[B, w]` of the last hidden states `h` (`[N, w]`, in [0, 1]),
    per column, by the compile option `readout`:

    * `"threshold"` (ours): r_g = Σ_{v ∈ g} h_v, the count the readout thresholds;
    * `"max"` (WOMBAT's r1, Eq. 3): r_g = max_{v ∈ g} h_v (0 for a graph of no node);
    * `"soft-or"` (WOMBAT's r2, Eq. 4): r_g = 1 − Π_{v ∈ g} (1 − h_v), the continuous De
      Morgan OR (Eq. 4's ReLUs are the identity on [0, 1]).

    Our hidden column of f is already the conjunction Eq. 3 and 4 take as the product
    over a node's d features, so the product runs over one column. On Boolean states
    all three agree on "some node satisfies f" (r_g ≥ 1 iff r_g > 0 iff max = 1)."""
    if kind == "threshold":
        return _reduced(np.add, h, graph_of_node, num_graphs, 0.0)
    if kind == "max":
        return _reduced(np.maximum, h, graph_of_node, num_graphs, 0.0)
    soft_or: Array = 1.0 - _reduced(np.multiply, 1.0 - h, graph_of_node, num_graphs, 1.0)
    return soft_or


def _reduced(operation: np.ufunc, values: Array, graph_of_node: IntArray, num_graphs: int,
             identity: float) -> Array:
    """`operation` over the rows of each graph (`identity` for a graph of no node). The
    nodes of a batch are usually in graph order (a disjoint union): each graph's rows
    are then one run, reduced with `reduceat` (`ufunc.at` is an order of magnitude
    slower); in any other order, with `ufunc.at`."""
    result = np.full((num_graphs, values.shape[1]), identity)
    if graph_of_node.size == 0:
        return result
    if np.all(graph_of_node[1:] >= graph_of_node[:-1]):
        present = np.flatnonzero(np.bincount(graph_of_node, minlength=num_graphs))
        starts = np.searchsorted(graph_of_node, present)
        result[present] = operation.reduceat(values, starts, axis=0)
    else:
        operation.at(result, graph_of_node, values)
    return result


def readout(network: Network, pooled: Array) -> tuple[tuple[Array, ...], tuple[Array, ...]]:
    """The graph readout `r' = σ(r W + b)` from the pooled states `pooled` (`pool`; `[B, w]`,
    or one `[w]` vector): every state (`pooled` first) and every pre-activation."""
    r = pooled
    states, pre = [r], []
    for dense in network.readout:
        z = r @ dense.W.astype(np.float64) + dense.b
        r = np.clip(z, 0.0, 1.0)
        pre.append(z)
        states.append(r)
    return tuple(states), tuple(pre)


def forward(network: Network, x: npt.ArrayLike, edge_index: npt.ArrayLike,
            edge_type: npt.ArrayLike | None = None, batch: npt.ArrayLike | None = None) -> Array:
    """The numpy forward pass: `[N, 1]` (node classifier) or `[B, 1]` (graph)."""
    return trace(network, x, edge_index, edge_type, batch, keep=False).output


# Up to this many entries a weight matrix is multiplied densely: below it, BLAS on a
# few rows beats the fixed cost of the sparse product.
DENSE_ENTRIES = 128 * 128


def _summed_at(index: IntArray, weights: Array, size: int) -> Array:
    """`out[k] = Σ_{index[i] = k} weights[i]`, length `size`."""
    result: Array = np.bincount(index, weights=weights, minlength=size).astype(np.float64)
    return result


class _Product:
    """`h @ W` in float64 for the few rows `h` that one update touches.

    Compiled matrices are mostly zero (Majority2Hop: 675 x 675 with ≤ 741 non-zeros),
    so a large one is multiplied in sparse form, with numpy only.
    """

    def __init__(self, matrix: npt.NDArray[Any]) -> None:
        self.dense = np.asarray(matrix, dtype=np.float64)
        self.rows, self.columns = np.nonzero(matrix)
        self.values = self.dense[self.rows, self.columns]
        self.width = int(matrix.shape[1])
        self.sparse = self.dense.size > DENSE_ENTRIES

    def left_multiply(self, h: Array) -> Array:
        if not self.sparse:
            dense_product: Array = h @ self.dense
            return dense_product
        count = h.shape[0]
        slots = (np.arange(count)[:, None] * self.width + self.columns).ravel()
        product = _summed_at(slots, (h[:, self.rows] * self.values).ravel(), count * self.width)
        return product.reshape(count, self.width)


class RowLayer:
    """The layer of `plan` in aggregated-input form, on any rows:

        z = s ⊙ (h C) + Σ_c S_c A_c[rows_c] + b,   S_c[v] = Σ_{(u,v) ∈ E_c} w_e h_u[rows_c],

    the same function as `pre_activation` (Σ_u w_e h_u A = (Σ_u w_e h_u) A), with
    `rows_c` the input columns channel c reads (`Channel.rows`; channels whose `A_c` is
    zero are left out). An evaluator that keeps each channel's `S_c` up to date under
    edge removals — a removal subtracts one source row, a change adds one — recomputes a
    node from its own `S_c` rows at the cost of those rows only (FlowX's
    `IncrementalNetwork`), without re-aggregating its in-edges. As an executor on every
    row at once (`gracr.executor.protocol.RowExecutor`) it is checked against the
    reference evaluator with the others (`tests/test_executors_conform.py`).
    """

    def __init__(self, plan: LayerPlan) -> None:
        self.plan = plan
        self.channels = tuple(channel for channel in plan.channels if channel.A.any())
        self.rows = tuple(channel.rows for channel in self.channels)
        self.C = _Product(plan.C)
        self.A = tuple(_Product(channel.A[rows])
                       for channel, rows in zip(self.channels, self.rows))
        self.b = np.asarray(plan.b, dtype=np.float64)

    def admitted(self, edge_type: IntArray | None, num_edges: int) -> tuple[BoolArray, ...]:
        """Per channel, which edges it sums over (`Channel.admits`)."""
        return tuple(channel.admits(edge_type, num_edges) for channel in self.channels)

    def sums(self, h: Array, sources: IntArray, targets: IntArray, edge_type: IntArray | None,
             edge_weight: Array | None = None) -> list[Array]:
        """Per channel, `S_c` on every node: `[N, len(rows_c)]`."""
        result = []
        for rows, keep in zip(self.rows, self.admitted(edge_type, sources.shape[0])):
            inputs = h[sources[keep]][:, rows]
            if edge_weight is not None:
                inputs = inputs * edge_weight[keep][:, None]
            summed = np.zeros((h.shape[0], len(rows)))
            np.add.at(summed, targets[keep], inputs)
            result.append(summed)
        return result

    def pre_activation(self, h: Array, sums: Sequence[Array], *,
                       self_weight: Array | None = None) -> Array:
        """`z` on the rows of `h`, given those rows of each channel's `S_c`."""
        z = self.C.left_multiply(h)
        if self_weight is not None:
            z = z * self_weight[:, None]
        for product, summed in zip(self.A, sums):
            z = z + product.left_multiply(summed)
        result: Array = z + self.b
        return result

    def forward(self, h: Array, sums: Sequence[Array], *,
                self_weight: Array | None = None) -> Array:
        """`σ(z)` on the rows of `h` (the truncated ReLU)."""
        z = self.pre_activation(h, sums, self_weight=self_weight)
        # np.minimum/maximum: np.clip's dispatch overhead dominates on a few rows.
        result: Array = np.minimum(np.maximum(z, 0.0), 1.0)
        return result
