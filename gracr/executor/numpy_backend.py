"""Eq. 2 in plain numpy (float64): the executors' reference forward pass.

It runs without torch, so every stage before the PyG modules can be tested alone,
and it keeps every layer's pre-activation for explainers that propagate relevance
back through the layers (LRP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.compiler.network import Network
from gracr.dsl.ir import Kind
from gracr.executor.plan import IntArray, LayerPlan, layer_plans

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
                   edge_type: IntArray | None, edge_weight: Array | None = None) -> Array:
    """`z = h C + Σ_c Agg_c(h) A_c + b`, before the truncated ReLU."""
    z = h @ plan.C.astype(np.float64) + plan.b
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


def trace(network: Network, x: npt.ArrayLike, edge_index: npt.ArrayLike,
          edge_type: npt.ArrayLike | None = None, batch: npt.ArrayLike | None = None) -> Trace:
    """The forward pass keeping every state (see `Trace`)."""
    features = np.asarray(x, dtype=np.float64)
    edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
    sources, targets = edges[0], edges[1]
    h = features @ network.input_matrix.astype(np.float64) + network.input_bias
    states, pre = [h], []
    for plan in layer_plans(network):
        z = pre_activation(plan, h, sources, targets, types)
        h = np.clip(z, 0.0, 1.0)
        pre.append(z)
        states.append(h)
    column = slice(network.output_column, network.output_column + 1)
    if network.kind is Kind.NODE:
        return Trace(tuple(states), tuple(pre), (), (), h[:, column])
    graph_of_node = (np.zeros(h.shape[0], dtype=np.int64) if batch is None
                     else np.asarray(batch, dtype=np.int64))
    num_graphs = int(graph_of_node.max()) + 1 if graph_of_node.size else 1
    r = np.zeros((num_graphs, h.shape[1]))
    np.add.at(r, graph_of_node, h)
    readout_states, readout_pre = [r], []
    for dense in network.readout:
        z = r @ dense.W.astype(np.float64) + dense.b
        r = np.clip(z, 0.0, 1.0)
        readout_pre.append(z)
        readout_states.append(r)
    return Trace(tuple(states), tuple(pre), tuple(readout_states), tuple(readout_pre),
                 r[:, column])


def forward(network: Network, x: npt.ArrayLike, edge_index: npt.ArrayLike,
            edge_type: npt.ArrayLike | None = None, batch: npt.ArrayLike | None = None) -> Array:
    """The numpy forward pass: `[N, 1]` (node classifier) or `[B, 1]` (graph)."""
    return trace(network, x, edge_index, edge_type, batch).output
