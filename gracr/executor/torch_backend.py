"""The torch backend of the executor: the compiled weights as PyG modules explainers run on.

Each layer is its own `MessagePassing` (sum aggregation, no added self-loops) that
aggregates only through one `propagate` over the whole `edge_index` it is given —
every channel's message of an edge travels in that edge's one message row — so PyG's
edge masks and Captum reach every message, typed or not. The self term `hC` and the
bias stay outside `propagate`: they are not edges. The activation subclasses
`nn.ReLU` so that Captum's GuidedBackprop and Deconvolution recognise it (they only
rewrite the backward of `nn.ReLU` modules); one instance per layer, whose input
feeds nothing else.

Explainers that need more than the output call hooks of these same layers rather
than copies of them: per-layer edge weights and a baseline message
(`CompiledLayer.forward`, `CompiledModule.forward`), the messages themselves
(`CompiledLayer.messages`), every layer's input (`CompiledModule.hidden_states`), a
message-free layer without its zero messages (`CompiledLayer.node_wise`), the output at
one target only (`TargetConeModule`), and many masked feature matrices at one target at
once (`TargetConeBatch`).

Its size (900–1000 lines) is the torch backend whole: the whole-graph, target-cone, batched
and fused modules share `CompiledLayer` and its hooks, which keeps one torch copy of the
layer equation (the fused module's blocks are its inference-only form, of one network or
of several at once).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing, global_add_pool

from gracr.compiler.desugar import Readout
from gracr.compiler.network import Network
from gracr.dsl.ir import Kind
from gracr.executor.plan import (
    Channel, LayerPlan, EdgeTypes, SettledBlock, fused_plan, layer_plans, target_cone,
)


class _SurrogateClamp(torch.autograd.Function):
    """Forward σ(z) = min(max(0, z), 1); backward g · 1{z > 0} (Eq. 9)."""

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        # Save only the sign test the backward needs: a bool mask is a quarter of z's
        # memory, and the backward then neither recomputes nor casts it (Majority2Hop
        # explainers run thousands of backward passes over 500 x 715 states).
        ctx.save_for_backward(z > 0)
        clamped: Tensor = z.clamp(0.0, 1.0)
        return clamped

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        (positive,) = ctx.saved_tensors
        grad: Tensor = grad_output * positive
        return grad


class TruncatedReLU(nn.ReLU):
    """σ(z) = min(max(0, z), 1), with the surrogate derivative of Eq. 9 or the exact one.

    The exact derivative is autograd's for `clamp`: 1 on [0, 1] (torch passes the
    gradient at the bounds), 0 outside. Subclassing `nn.ReLU` is deliberate: Captum's
    GuidedBackprop and Deconvolution only modify `nn.ReLU` modules.
    """

    def __init__(self, surrogate: bool) -> None:
        super().__init__()
        self.surrogate = surrogate

    def forward(self, z: Tensor) -> Tensor:
        if self.surrogate:
            result: Tensor = _SurrogateClamp.apply(z)  # type: ignore[no-untyped-call]
            return result
        return z.clamp(0.0, 1.0)

    def extra_repr(self) -> str:
        return "surrogate=Eq.9" if self.surrogate else "exact"


def _frozen(array: np.ndarray[Any, Any]) -> nn.Parameter:
    return nn.Parameter(torch.as_tensor(np.asarray(array, dtype=np.float32)),
                        requires_grad=False)


# Below this share of non-zero entries a weight matrix is multiplied in sparse form.
# Compiled matrices are mostly zero (Majority2Hop: 8 layers of 505 x 505 with at most
# ~550 non-zeros each), and the dense products dominated explainer run time.
SPARSE_DENSITY = 0.05


def _weight(array: np.ndarray[Any, Any]) -> nn.Parameter:
    """A frozen weight for `_times`: `W` dense, or, when it is mostly zero, `W^T` as a
    coalesced sparse COO tensor.

    `h @ W` is the same function either way, with the same gradient for `h`, so
    explainers see no difference; only the cost changes. The sparse product is
    `(W^T h^T)^T`; transposing and coalescing once here spares every call the work.
    """
    dense = torch.as_tensor(np.asarray(array, dtype=np.float32))
    if dense.numel() and np.count_nonzero(array) <= SPARSE_DENSITY * dense.numel():
        dense = dense.t().to_sparse_coo().coalesce()  # type: ignore[no-untyped-call]
    return nn.Parameter(dense, requires_grad=False)


def _times(h: Tensor, weight: Tensor) -> Tensor:
    """`h @ W` for a weight made by `_weight` (sparse weights are stored transposed)."""
    if weight.is_sparse:
        # Both transposes are made contiguous: the sparse product reads `h^T` row by
        # row, and the sums that follow it add row-major tensors; on strided views
        # each of those ran 2-4x slower (the same numbers either way).
        product: Tensor = torch.sparse.mm(weight, h.t().contiguous()).t().contiguous()
        return product
    return h @ weight


def _admission(channels: Sequence[Channel], edge_type: Tensor | None) -> list[Tensor | None]:
    """Per channel, a float `[E]` mask of the edges it sums over (`None`: every edge)."""
    masks: list[Tensor | None] = []
    for channel in channels:
        if channel.relation is None:
            masks.append(None)
        elif edge_type is None:
            raise ValueError("this model declares relations: forward needs edge_type")
        else:
            masks.append((edge_type == channel.relation).to(torch.float32))
    return masks


def _check_edge_type(relations: tuple[str, ...], edge_type: Tensor | None,
                     edge_index: Tensor) -> None:
    """A model that declares relations needs one relation index per edge."""
    if not relations:
        return
    if edge_type is None:
        raise ValueError(f"this model declares the relations {', '.join(relations)}: pass "
                         "edge_type=[E] (relation index per edge; CompiledGNN.encode gives it)")
    if edge_type.shape != (edge_index.shape[1],):
        raise ValueError(f"edge_type has shape {tuple(edge_type.shape)}; expected "
                         f"({edge_index.shape[1]},), one relation index per edge")


class CompiledLayer(MessagePassing):  # type: ignore[misc]  # PyG ships no type stubs
    """h' = σ(h C + Σ_c Agg_c(h) A_c + b): one layer of Eq. 2 (`gracr.executor.plan`).

    Each channel c either aggregates its input columns first and multiplies by the
    non-zero rows of `A_c` afterwards (Σ_s m_e h_s A = (Σ_s m_e h_s) A for any edge mask
    m), or multiplies first and aggregates only the non-zero output columns of `h A_c`,
    whichever is narrower (`narrow=True`, the default). The channels' parts of an edge's
    message are concatenated into one row, each part zero on an edge its relation does
    not admit, and pass through one `propagate`. Same function, same gradients for the
    input and for every edge mask, a fraction of the cost. With `narrow=False` each
    message is the full row `Σ_c 1{e ∈ E_c} (h A_c)_s`, `out_channels` wide: PyG's
    GraphMaskExplainer sizes its gates from `in_channels`/`out_channels` and needs that.
    """

    def __init__(self, plan: LayerPlan, surrogate: bool, narrow: bool = True) -> None:
        super().__init__(aggr="add", flow="source_to_target")
        self.C = _weight(plan.C)
        self.b = _frozen(plan.b)
        self.in_channels = int(plan.C.shape[0])
        self.out_channels = int(plan.C.shape[1])
        self.act = TruncatedReLU(surrogate)
        self.narrow = narrow
        # Channels whose weights are all zero add nothing: they are skipped (a typed model
        # has one channel per relation in every layer, most of them zero there). A layer
        # with no non-zero channel keeps its first, so that it still passes every edge's
        # message through `propagate`, where PyG's explainers hook in.
        channels = [c for c in plan.channels if c.A.any()] or list(plan.channels[:1])
        self.channels = tuple(channels)
        # Terms that are zero throughout are left out of the sum (adding 0 changes no
        # value): a zero self term (`C = 0`, the first layer's in a cone) or an all-zero
        # kept channel (a message-free layer) — most of a restricted layer's work, on the
        # batched cone's many copies.
        self.self_term = bool(np.any(plan.C))
        self.silent = [not channel.A.any() for channel in channels]
        self.passes_messages = not all(self.silent)
        self.A = nn.ParameterList()
        self.aggregate_first: list[bool] = []
        for number, channel in enumerate(channels):
            rows, columns = channel.rows, channel.columns
            first = narrow and len(rows) <= len(columns)
            self.aggregate_first.append(first)
            if not narrow:
                kept = np.arange(channel.A.shape[1])
                self.A.append(_weight(channel.A))
            elif first:
                kept = rows
                self.A.append(_weight(channel.A[rows]))
            else:
                kept = columns
                self.A.append(_weight(channel.A[:, columns]))
            self.register_buffer(f"kept{number}", torch.as_tensor(kept, dtype=torch.long))
        # The output columns each channel writes, for `baseline` (plain tensors, not
        # buffers: the state dict stays that of the weights).
        self.written = [torch.as_tensor(np.isin(np.arange(self.out_channels), channel.columns),
                                        dtype=torch.float32) for channel in channels]

    def node_wise(self, h: Tensor, rows: int | None = None) -> Tensor:
        """The layer of a plan that passes no message (`passes_messages` false) on the
        first `rows` nodes (all by default): σ(h C + b), what `forward` computes for it
        without the all-zero messages. For modules whose other layers give PyG's edge
        masks their messages (a mask must reach some layer), and for inference."""
        # No slice when every row is kept: a slice node in the autograd graph changes the
        # order in which the gradients of `h`'s several uses are summed (GraphMask-clean's
        # gates read `h` too), and so their last bits.
        own = h if rows is None or rows >= h.shape[0] else h[:rows]
        z = _times(own, self.C) if self.self_term else own.new_zeros(own.shape[0],
                                                                      self.out_channels)
        result: Tensor = self.act(z + self.b)
        return result

    def kept(self, number: int) -> Tensor:
        buffer: Tensor = getattr(self, f"kept{number}")
        return buffer

    def full_part(self, h: Tensor, number: int) -> Tensor:
        """`h A_c` for channel `number`, `[N, out_channels]`: every node's share of the
        message it would send over an edge channel c admits."""
        if not self.narrow:
            return _times(h, self.A[number])
        if self.aggregate_first[number]:
            return _times(h[:, self.kept(number)], self.A[number])
        narrow = _times(h, self.A[number])
        return h.new_zeros(h.shape[0], self.out_channels).index_copy(1, self.kept(number), narrow)

    def messages(self, h: Tensor, edge_index: Tensor, edge_type: Tensor | None = None) -> Tensor:
        """`[E, out_channels]`: the message m_e = Σ_c 1{e ∈ E_c} (h_s A_c) each edge
        (s, t) sends, which `forward` sums into t (scaled by `edge_weight`). An
        explainer hook: GraphMask's gate networks read the messages they gate
        (Schlichtkrull et al. 2021, §3), and this is the one place that knows them."""
        sources = edge_index[0]
        total = h.new_zeros(sources.shape[0], self.out_channels)
        for number, mask in enumerate(_admission(self.channels, edge_type)):
            part = self.full_part(h, number).index_select(0, sources)
            total = total + (part if mask is None else part * mask.unsqueeze(-1))
        return total

    def _baseline_term(self, h: Tensor, edge_index: Tensor, edge_weight: Tensor,
                       admission: list[Tensor | None], baseline: Tensor) -> Tensor:
        """Σ_{(s,t) ∈ E_c} (1 − w_e) β|c, summed over the channels c: what `baseline`
        adds to the pre-activation of each target t."""
        targets = edge_index[1]
        term = h.new_zeros(h.shape[0], self.out_channels)
        for mask, written in zip(admission, self.written):
            if not written.any():
                continue
            closed = 1.0 - edge_weight if mask is None else (1.0 - edge_weight) * mask
            count = h.new_zeros(h.shape[0]).index_add(0, targets, closed)
            term = term + count.unsqueeze(-1) * (baseline * written)
        return term

    def forward(self, h: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None,
                edge_type: Tensor | None = None, baseline: Tensor | None = None,
                rows: int | None = None) -> Tensor:
        """`edge_weight` (`[E]`, optional) scales each edge's message in this layer
        only: the per-layer masks that FlowX and GraphMask-clean need (PyG's own
        edge mask is shared by all layers). `edge_type` (`[E]`) is required when a
        channel sums over one relation.

        Two explainer hooks, both off by default (then the layer is exactly Eq. 2):

        * `baseline` (`[out_channels]`, with `edge_weight` w): each edge's message
          becomes w_e m_e + (1 − w_e) β_e, β_e being β on the columns that the
          channels admitting e write (one column is one modality with one relation
          filter, so those channels write disjoint columns) and 0 elsewhere.
          GraphMask's closed gate sends a learned baseline instead of deleting the
          message (Schlichtkrull et al. 2021, §3).
        * `rows` (k): only the first k nodes' new states are computed, `[k,
          out_channels]`; every edge must point into them. A batched cone
          (`TargetConeBatch`) orders each layer's output rows first and so never
          computes a state nothing later reads.
        """
        admission = _admission(self.channels, edge_type)
        # The nodes whose new state is computed: all of them, or the first `rows`.
        own = h if rows is None or rows >= h.shape[0] else h[:rows]
        size = None if rows is None else (int(h.shape[0]), rows)
        if not self.narrow:
            parts = [_times(h, A) for A in self.A]
        else:
            # `index_select`, not `h[:, kept]`: the same gather, without torch's generic
            # advanced-indexing kernel (a fifth of a batched cone's first layer).
            parts = [h.index_select(1, self.kept(n)) if first else _times(h, self.A[n])
                     for n, first in enumerate(self.aggregate_first)]
        widths = [int(part.shape[1]) for part in parts]
        x = parts[0] if len(parts) == 1 else torch.cat(parts, dim=1)
        summed = self.propagate(edge_index, x=x, edge_weight=edge_weight, admission=admission,
                                widths=widths, size=size)
        if not self.narrow:  # the message already summed the channels
            if baseline is not None and edge_weight is not None:
                summed = summed + self._baseline_term(own, edge_index, edge_weight, admission,
                                                      baseline)
            result: Tensor = self.act(_times(own, self.C) + summed + self.b)
            return result
        blocks = [summed] if len(parts) == 1 else list(torch.split(summed, widths, dim=1))
        aggregated: Tensor | None = None
        for n, block in enumerate(blocks):
            if self.silent[n]:
                continue
            if self.aggregate_first[n]:
                part = _times(block, self.A[n])
            else:
                part = own.new_zeros(own.shape[0], self.out_channels).index_copy(
                    1, self.kept(n), block)
            aggregated = part if aggregated is None else aggregated + part
        if baseline is not None and edge_weight is not None:
            term = self._baseline_term(own, edge_index, edge_weight, admission, baseline)
            aggregated = term if aggregated is None else aggregated + term
        if aggregated is None:
            z = _times(own, self.C) if self.self_term else own.new_zeros(own.shape[0],
                                                                          self.out_channels)
        else:
            z = _times(own, self.C) + aggregated if self.self_term else aggregated
        result = self.act(z + self.b)
        return result

    # The positions, in the whole graph's edge list, of the edges passed to this call,
    # when they are a subset of it: PyG's edge mask has one entry per edge of the graph,
    # and `explain_message` then scales each message by its own edge's entry.
    # `TargetConeModule` sets it around a call; `None` (all edges, in order) otherwise.
    explained_edges: Tensor | None = None

    def explain_message(self, inputs: Tensor, dim_size: int | None) -> Tensor:
        """PyG's `MessagePassing.explain_message` for a call on some of the graph's edges
        (`explained_edges`): the mask (through its sigmoid, as PyG's) taken at those
        edges; the same product, entry for entry, as on the whole edge list."""
        if self.explained_edges is None:
            result: Tensor = super().explain_message(inputs, dim_size)
            return result
        edge_mask: Tensor = self._edge_mask
        if self._apply_sigmoid:
            edge_mask = edge_mask.sigmoid()
        chosen = edge_mask.index_select(0, self.explained_edges)
        return inputs * chosen.view(-1, *([1] * (inputs.dim() - 1)))

    def message(self, x_j: Tensor, edge_weight: Tensor | None,
                admission: list[Tensor | None], widths: list[int]) -> Tensor:
        if any(mask is not None for mask in admission):
            if self.narrow:
                parts = torch.split(x_j, widths, dim=1)
                x_j = torch.cat([part if mask is None else part * mask.unsqueeze(-1)
                                 for part, mask in zip(parts, admission)], dim=1)
            else:
                x_j = sum((part if mask is None else part * mask.unsqueeze(-1)
                           for part, mask in zip(torch.split(x_j, widths, dim=1), admission)),
                          start=x_j.new_zeros(x_j.shape[0], self.out_channels))
        elif not self.narrow and len(widths) > 1:
            x_j = sum(torch.split(x_j, widths, dim=1),
                      start=x_j.new_zeros(x_j.shape[0], self.out_channels))
        if edge_weight is None:
            return x_j
        return x_j * edge_weight.unsqueeze(-1)


def pool(kind: Readout, h: Tensor, batch: Tensor | None, size: int | None = None) -> Tensor:
    """The graph vector `[B, w]` of the last hidden states `h` `[N, w]` by the compile
    option `readout` — `numpy_backend.pool` states the math: the sum (`threshold`), the
    maximum (`max`, WOMBAT's Eq. 3) or 1 − Π_v (1 − h_v) (`soft-or`, Eq. 4) per graph.

    Gradients are autograd's: under `max` the maximal nodes of a graph share the
    gradient equally (`scatter_reduce`'s `amax`), under `soft-or` node v gets
    Π_{u ≠ v} (1 − h_u), which is 0 for every node once two nodes hold 1.

    `size` is the number of graphs when `batch` may leave the last ones empty (a graph
    with no node pools to the empty sum, max or soft-or: 0)."""
    if kind == "threshold":
        summed: Tensor = global_add_pool(h, batch, size)
        return summed
    index = h.new_zeros(h.shape[0], dtype=torch.long) if batch is None else batch
    graphs = size if size is not None else int(index.max()) + 1 if index.numel() else 1
    spread = index.unsqueeze(-1).expand_as(h)
    if kind == "max":
        largest: Tensor = h.new_zeros(graphs, h.shape[1]).scatter_reduce(
            0, spread, h, reduce="amax", include_self=False)
        return largest
    product = h.new_ones(graphs, h.shape[1]).scatter_reduce(
        0, spread, 1.0 - h, reduce="prod", include_self=False)
    return 1.0 - product


class GraphReadout(nn.Module):
    """A graph classifier's readout: `pool` the last hidden states by the model's
    `readout` option, then its dense layers (`ReadoutLayer`), the output column last."""

    def __init__(self, compiled: Network, surrogate: bool) -> None:
        super().__init__()
        self.kind: Readout = compiled.options.readout
        self.output_column = compiled.output_column
        self.layers = nn.ModuleList(
            ReadoutLayer(dense.W, dense.b, surrogate) for dense in compiled.readout)

    def forward(self, h: Tensor, batch: Tensor | None) -> Tensor:
        r = pool(self.kind, h, batch)
        for dense in self.layers:
            r = dense(r)
        return r[:, self.output_column:self.output_column + 1]

    def pre_activation(self, h: Tensor, batch: Tensor | None, size: int | None = None
                       ) -> Tensor:
        """`[B, 1]`: the output unit's `z = r W + b` before its truncated ReLU, the
        compiled counterpart of a trained model's logit (deletion and insertion curves
        read it: past the threshold the output itself is flat); `size` as in `pool`."""
        r = pool(self.kind, h, batch, size)
        for dense in self.layers[:-1]:
            r = dense(r)
        last = self.layers[-1]
        assert isinstance(last, ReadoutLayer)
        z: Tensor = r @ last.W + last.b
        return z[:, self.output_column:self.output_column + 1]


class ReadoutLayer(nn.Module):
    """r' = σ(r W + b) on the pooled graph vector (graph classifiers)."""

    def __init__(self, W: np.ndarray[Any, Any], b: np.ndarray[Any, Any], surrogate: bool) -> None:
        super().__init__()
        self.W = _frozen(W)
        self.b = _frozen(b)
        self.act = TruncatedReLU(surrogate)

    def forward(self, r: Tensor) -> Tensor:
        result: Tensor = self.act(r @ self.W + self.b)
        return result


class CompiledModule(nn.Module):
    """`forward(x, edge_index, batch=None, *, edge_type=None)` -> `[N, 1]` (node) or `[B, 1]`.

    `x` is the float feature matrix of `gracr.data.schema` (colours, attribute
    one-hots, presence). `edge_type` (`[E]`, relation index per edge) is required when
    the model declares relations. The output is the classifier column, 0/1 on Boolean
    inputs. `model_config` is what PyG's `Explainer` should be given.
    """

    def __init__(self, compiled: Network, surrogate: bool = True,
                 narrow: bool = True) -> None:
        super().__init__()
        self.kind = compiled.kind
        self.palette = compiled.palette
        self.relations = compiled.relations
        self.output_column = compiled.output_column
        self.surrogate = surrogate
        self.input_matrix = _frozen(compiled.input_matrix)
        self.input_bias = _frozen(compiled.input_bias)
        self.convs = nn.ModuleList(CompiledLayer(plan, surrogate, narrow)
                                   for plan in layer_plans(compiled))
        self.readout = GraphReadout(compiled, surrogate)
        task_level = "node" if compiled.kind is Kind.NODE else "graph"
        self.model_config = {"mode": "binary_classification", "task_level": task_level,
                             "return_type": "raw"}

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None, *,
                edge_type: Tensor | None = None,
                layer_edge_weights: Sequence[Tensor | None] | None = None,
                layer_baselines: Sequence[Tensor | None] | None = None) -> Tensor:
        """`layer_edge_weights[ℓ]` (optional, `[E]`) scales the messages of layer ℓ;
        `layer_baselines[ℓ]` (optional, `[width]`) is what a message weighted w sends
        (1 − w) of instead (`CompiledLayer.forward`'s `baseline`: GraphMask's)."""
        h = self.hidden_states(x, edge_index, edge_type=edge_type,
                               layer_edge_weights=layer_edge_weights,
                               layer_baselines=layer_baselines)[-1]
        if self.kind is Kind.NODE:
            return h[:, self.output_column:self.output_column + 1]
        result: Tensor = self.readout(h, batch)
        return result

    def pre_activation(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None, *,
                       edge_type: Tensor | None = None, num_graphs: int | None = None
                       ) -> Tensor:
        """A graph classifier's output unit before its truncated ReLU (`[B, 1]`,
        `GraphReadout.pre_activation`; `num_graphs` = B when the last graphs of `batch`
        may be empty); a node classifier's is not exposed (an error)."""
        if self.kind is Kind.NODE:
            raise ValueError("pre_activation: a node classifier's output unit is a hidden "
                             "column; only a graph classifier's readout is exposed")
        h = self.hidden_states(x, edge_index, edge_type=edge_type)[-1]
        return self.readout.pre_activation(h, batch, num_graphs)

    def hidden_states(self, x: Tensor, edge_index: Tensor, *, edge_type: Tensor | None = None,
                      layer_edge_weights: Sequence[Tensor | None] | None = None,
                      layer_baselines: Sequence[Tensor | None] | None = None) -> list[Tensor]:
        """`[h⁽⁰⁾, …, h⁽ᴸ⁾]`: the input of every layer and the last one's output (what
        `forward` reads its answer from). Explainers that look inside the model (the
        gate networks of GraphMask-clean read the states at each layer's input) take
        them from here rather than re-running the layers."""
        _check_edge_type(self.relations, edge_type, edge_index)
        # h⁽⁰⁾ = σ(x P + p) with the exact clamp (its gradient is 1 on all of [0, 1]): the
        # identity on Boolean features, a threshold unit on numeric ones.
        h = (x @ self.input_matrix + self.input_bias).clamp(0.0, 1.0)
        states = [h]
        weights = layer_edge_weights or [None] * len(self.convs)
        baselines = layer_baselines or [None] * len(self.convs)
        for conv, weight, baseline in zip(self.convs, weights, baselines, strict=True):
            h = conv(h, edge_index, weight, edge_type, baseline)
            states.append(h)
        return states


class TargetConeModule(nn.Module):
    """`CompiledModule` at one target node of one graph, computing only what the
    target's output reads (node classifiers; an explainer's speed-up, e.g.
    GNNExplainer on Majority2Hop: 500 x 715 states per layer otherwise).

    Rows: layer ℓ computes the new states of `rows[ℓ + 1]` of
    `gracr.executor.plan.target_cone` only (after Majority2Hop's second message
    layer, the target's alone). The nodes are ordered by the last layer boundary
    whose cone holds them, the target first, so that those rows are a prefix of the
    layer's input (`CompiledLayer`'s `rows` hook), as in `TargetConeBatch`. Columns:
    at each layer, those that a later layer or the output reads. Edges: each layer
    passes the edges it hears, those into its output rows that one of its channels
    sums over; every other edge only adds zeros to the cone or feeds a state nothing
    reads. Each layer is a `CompiledLayer` on those rows, columns and edges, so the
    surrogate or exact derivative works as in `CompiledModule`, and so does PyG's edge
    mask, which keeps one entry per edge of the graph: a layer's heard edges take
    their own entries (`CompiledLayer.explained_edges`), and the edges the target
    cannot hear get a zero gradient, as they do there. The target's value, and its
    gradient with respect to `x` and to every edge mask, are those of
    `CompiledModule`.

    `forward(x, edge_index, *, edge_type=None, layer_edge_weights=None,
    layer_baselines=None)` takes the graph it was built for and returns `[N, 1]` with
    the target's output in the target's row and NaN elsewhere: it does not compute
    the other nodes. PyG's edge mask and `layer_edge_weights` in one layer are not
    supported (no explainer combines them).
    """

    rows: Tensor

    def __init__(self, compiled: Network, edge_index: np.ndarray[Any, Any], num_nodes: int,
                 target: int, surrogate: bool = True,
                 edge_type: np.ndarray[Any, Any] | None = None) -> None:
        super().__init__()
        if compiled.kind is not Kind.NODE:
            raise ValueError("TargetConeModule explains a node classifier")
        reach, live = target_cone(compiled, edge_index, target, edge_type)
        # Cones are nested (each boundary's rows hold the next one's): a node's last
        # boundary orders it, the target first.
        last = {int(node): depth for depth, nodes in enumerate(reach) for node in nodes}
        order = sorted(last, key=lambda node: (-last[node], node))
        position = np.full(num_nodes, -1, dtype=np.int64)
        position[order] = np.arange(len(order))
        self.register_buffer("rows", torch.as_tensor(np.asarray(order, dtype=np.int64)))
        self.sizes = [len(nodes) for nodes in reach]
        self.target = target
        self.num_nodes, self.num_edges = num_nodes, int(np.asarray(edge_index).shape[1])
        self.input_matrix = _frozen(compiled.input_matrix[:, live[0]])
        self.input_bias = _frozen(compiled.input_bias[live[0]])
        restricted = [plan.restricted(live[depth], live[depth + 1])
                      for depth, plan in enumerate(layer_plans(compiled))]
        self.convs = nn.ModuleList(CompiledLayer(plan, surrogate) for plan in restricted)
        self.passes_messages = any(conv.passes_messages for conv in self.convs)
        # The columns kept at each layer boundary, the edges each layer hears (positions
        # in the graph's edge list) and those edges in local rows (plain tensors: the
        # state dict stays that of the weights).
        self.live = [torch.as_tensor(columns) for columns in live]
        sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
        types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
        heard = [np.flatnonzero(plan.admitted(types, self.num_edges)
                                & np.isin(targets, reach[depth + 1]))
                 for depth, plan in enumerate(restricted)]
        self.heard = [torch.as_tensor(edges) for edges in heard]
        self.local_edges = [torch.as_tensor(np.stack([position[sources[edges]],
                                                      position[targets[edges]]]))
                            for edges in heard]
        self.model_config = {"mode": "binary_classification", "task_level": "node",
                             "return_type": "raw"}

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None, *,
                edge_type: Tensor | None = None,
                layer_edge_weights: Sequence[Tensor | None] | None = None,
                layer_baselines: Sequence[Tensor | None] | None = None) -> Tensor:
        """`layer_edge_weights` and `layer_baselines` are `CompiledModule.forward`'s
        (a baseline has the whole layer's width; the cone takes the columns it keeps)."""
        if x.shape[0] != self.num_nodes or edge_index.shape[1] != self.num_edges:
            raise ValueError("TargetConeModule runs on the graph it was built for")
        h = (x.index_select(0, self.rows) @ self.input_matrix + self.input_bias).clamp(0.0, 1.0)
        weights = layer_edge_weights or [None] * len(self.convs)
        baselines = layer_baselines or [None] * len(self.convs)
        for depth, (conv, weight, baseline, columns) in enumerate(zip(
                self.convs, weights, baselines, self.live[1:], strict=True)):
            assert isinstance(conv, CompiledLayer)
            rows = self.sizes[depth + 1]
            kept = None if baseline is None else baseline.index_select(0, columns)
            if not conv.passes_messages and kept is None and self.passes_messages:
                # Its messages are all zero: no mask's gradient comes from them, and the
                # layers that do pass messages still use PyG's mask.
                h = conv.node_wise(h, rows)
                continue
            heard = self.heard[depth]
            if conv.explain and weight is not None:
                raise ValueError("TargetConeModule: PyG's edge mask and layer_edge_weights "
                                 "in one layer")
            conv.explained_edges = heard if conv.explain else None
            try:
                h = conv(h, self.local_edges[depth],
                         None if weight is None else weight.index_select(0, heard),
                         None if edge_type is None else edge_type.index_select(0, heard),
                         kept, rows)
            finally:
                conv.explained_edges = None
        value = h[:1, :1]
        unknown = value.new_full((self.num_nodes, 1), float("nan"))
        return unknown.index_put((torch.tensor([self.target]),), value)


class TargetConeBatch(nn.Module):
    """Inference: the output at one target node for many feature matrices of one graph
    at once (node classifiers). What perturbation explainers need: SubgraphX values
    thousands of zero-filled copies of one computation graph per expansion (Yuan et
    al. 2021, §4.3).

    `forward(x)` takes `[B, n, F]`: B variants of the features of `input_nodes`, the
    nodes the target's output reads (`rows[0]` of `gracr.executor.plan.target_cone`,
    ascending), and returns the target's output in each, `[B]`: the value
    `CompiledModule` gives at the target on the graph with those features (every
    other node's features do not matter).

    Each layer ℓ is a `CompiledLayer` on its plan restricted to the columns the
    target reads (`LayerPlan.restricted`), run once on the disjoint union of the B
    copies over the edges into the cone's rows that one of its channels admits. The
    nodes are ordered by the last layer boundary whose cone holds them (the target
    first) and laid out node-major across the copies, so the rows layer ℓ must
    output, `rows[ℓ + 1]`, are a prefix of its input; `CompiledLayer`'s `rows` hook
    computes only those. `widest` (the largest cone times the widest column set) is
    the size of one copy's largest state, for choosing B.

    `remember=True` keeps, across calls, the output reached from each state at the
    first layer boundary where the cone narrows (`narrowing`): there many inputs meet
    in few states (SubgraphX on Majority2Hop: 73 input rows, 5 rows after the first
    layer, about one copy in ten reaching a state not seen before), and the layers
    after it, a function of that state alone, run once per state. The state is the
    key byte for byte, so a remembered output is the one the layers compute from it.
    """

    input_nodes: Tensor
    order: Tensor
    input_matrix: Tensor
    input_bias: Tensor

    def __init__(self, compiled: Network, edge_index: np.ndarray[Any, Any], target: int,
                 edge_type: np.ndarray[Any, Any] | None = None, remember: bool = False) -> None:
        super().__init__()
        if compiled.kind is not Kind.NODE:
            raise ValueError("TargetConeBatch explains a node classifier")
        sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
        types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
        reach, live = target_cone(compiled, edge_index, target, edge_type)
        last = {int(node): depth for depth, nodes in enumerate(reach) for node in nodes}
        order = sorted(last, key=lambda node: (-last[node], node))
        position = np.full(int(max(order)) + 1, -1, dtype=np.int64)
        position[order] = np.arange(len(order))
        self.register_buffer("input_nodes", torch.as_tensor(reach[0]))
        self.register_buffer("order", torch.as_tensor(np.searchsorted(reach[0], order)))
        self.register_buffer("input_matrix", torch.as_tensor(
            np.asarray(compiled.input_matrix, dtype=np.float32)[:, live[0]]))
        self.register_buffer("input_bias", torch.as_tensor(
            np.asarray(compiled.input_bias, dtype=np.float32)[live[0]]))
        self.sizes = [len(nodes) for nodes in reach]
        self.widest = max(self.sizes) * max(len(columns) for columns in live)
        self.convs = nn.ModuleList()
        self.edges: list[tuple[Tensor, Tensor, Tensor | None]] = []
        for depth, plan in enumerate(layer_plans(compiled)):
            restricted = plan.restricted(live[depth], live[depth + 1])
            heard = (restricted.admitted(types, sources.shape[0])
                     & np.isin(targets, reach[depth + 1]))
            self.convs.append(CompiledLayer(restricted, surrogate=False))
            self.edges.append((torch.as_tensor(position[sources[heard]]),
                               torch.as_tensor(position[targets[heard]]),
                               None if types is None else torch.as_tensor(types[heard])))
        self.narrowing = next((level for level in range(1, len(self.sizes))
                               if self.sizes[level] < self.sizes[level - 1]), len(self.sizes) - 1)
        self.remembered: dict[bytes, float] | None = {} if remember else None

    def _layers(self, h: Tensor, copies: int, start: int, stop: int) -> Tensor:
        """Layers `start … stop − 1` on the node-major state `h` of `copies` copies at
        boundary `start`: the state at boundary `stop`."""
        offsets = torch.arange(copies)
        depth = start
        while depth < stop:
            layer = self.convs[depth]
            assert isinstance(layer, CompiledLayer)
            if not layer.passes_messages:
                # A run of layers that pass no message is a function of each row alone
                # (their rows are those of their input): it runs once per distinct row
                # state, which compiled states on Boolean inputs repeat across copies
                # (Majority2Hop: 16 rows x ~10^6 copies in some 10^3 states).
                end = depth
                while end < stop and not self.convs[end].passes_messages:
                    end += 1
                first, row_of = _distinct_rows(h)
                distinct = h.index_select(0, first)
                for number in range(depth, end):
                    node_wise = self.convs[number]
                    assert isinstance(node_wise, CompiledLayer)
                    distinct = node_wise.node_wise(distinct)
                h = distinct.index_select(0, row_of)
                depth = end
                continue
            sources, targets, types = self.edges[depth]
            edge_index = torch.stack([(sources[:, None] * copies + offsets).reshape(-1),
                                      (targets[:, None] * copies + offsets).reshape(-1)])
            edge_type = None if types is None else types.repeat_interleave(copies)
            h = layer(h, edge_index, None, edge_type, None, self.sizes[depth + 1] * copies)
            depth += 1
        return h

    @torch.no_grad()
    def forward(self, x: Tensor) -> Tensor:
        copies = int(x.shape[0])
        # The input map is node-wise: applied before the reordering, which then moves the
        # (narrower) live columns only.
        mapped = (x @ self.input_matrix).index_select(1, self.order)
        h = (mapped.transpose(0, 1).reshape(-1, mapped.shape[2]) + self.input_bias).clamp(0.0, 1.0)
        if self.remembered is None:
            output: Tensor = self._layers(h, copies, 0, len(self.convs))[:, 0]
            return output
        level, rows = self.narrowing, self.sizes[self.narrowing]
        h = self._layers(h, copies, 0, level)
        width = int(h.shape[1])
        states = h.reshape(rows, copies, width)
        keys = _state_keys(states.transpose(0, 1).reshape(copies, -1).numpy())
        first: dict[bytes, int] = {}
        for copy, key in enumerate(keys):
            if key not in self.remembered and key not in first:
                first[key] = copy
        if first:
            new = list(first)
            chosen = torch.as_tensor(list(first.values()))
            reached = self._layers(states.index_select(1, chosen).reshape(-1, width),
                                   len(new), level, len(self.convs))[:, 0]
            self.remembered.update(zip(new, reached.tolist()))
        return torch.tensor([self.remembered[key] for key in keys], dtype=h.dtype)


def _key_array(states: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """One key per row of `states` `[B, k]` (k > 0), a numpy void scalar, equal for two
    rows exactly when their values are: the bits of rows whose every value is 0 or 1
    (compiled states on Boolean inputs; 32x shorter keys), else their bytes. A bit key
    is 32x shorter than the byte key of the same row, so the two kinds never meet."""
    boolean = (states == 0) | (states == 1)
    rows = (np.packbits(states != 0, axis=1) if boolean.all()
            else np.ascontiguousarray(states))
    keys: np.ndarray[Any, Any] = rows.view(f"V{rows.shape[1] * rows.itemsize}").ravel()
    return keys


def _state_keys(states: np.ndarray[Any, Any]) -> list[bytes]:
    """`_key_array` as bytes, for dictionaries (`b""` for rows of no columns)."""
    if states.shape[1] == 0:
        return [b""] * states.shape[0]
    keys: list[bytes] = _key_array(states).tolist()
    return keys


def _distinct_rows(states: Tensor) -> tuple[Tensor, Tensor]:
    """The first row of each distinct value among the rows of `states` `[M, k]`, and
    for every row the position of its value among those."""
    if states.shape[1] == 0:
        return torch.zeros(1, dtype=torch.long), torch.zeros(states.shape[0], dtype=torch.long)
    _, first, inverse = np.unique(_key_array(states.numpy()), return_index=True,
                                  return_inverse=True)
    return torch.as_tensor(first), torch.as_tensor(inverse.reshape(-1))


class _FusedLayer(nn.Module):
    """One `SettledBlock` of a `FusedPlan`: the fused columns `[start, end)`.

    The settled columns `[0, start)` are carried unchanged (they are already in [0, 1])
    and the later ones are still 0 and never read. Each channel aggregates on whichever
    side of its `A` is narrower, since Σ_s (h_s A) = (Σ_s h_s) A, over the edges it admits.

    The state is held transposed, `[width, N]` (one row per column of the plan): a block
    reads a handful of columns and writes a handful, so in that layout each read and
    write is a few contiguous rows, where in `[N, width]` every one touched a cache line
    per node. On WOMBAT's 79-layer pattern over 2 000 molecule copies the pass took a
    quarter of the time; the products are the same dot products, so the values are the
    same (`tests/test_fused_several.py` against the float64 reference executor).
    """

    c_rows: Tensor
    C_t: Tensor
    b_column: Tensor

    def __init__(self, block: SettledBlock) -> None:
        super().__init__()
        self.start, self.end = block.start, block.end
        self.register_buffer("c_rows", torch.as_tensor(block.c_rows, dtype=torch.long))
        self.register_buffer("C_t", torch.as_tensor(block.C, dtype=torch.float32).t().contiguous())
        self.register_buffer("b_column",
                             torch.as_tensor(block.b, dtype=torch.float32).reshape(-1, 1))
        self.relations: list[EdgeTypes] = []
        self.aggregate_first: list[bool] = []
        self.num_channels = len(block.channels)
        for number, (relation, a_rows, A) in enumerate(block.channels):
            self.relations.append(relation)
            self.aggregate_first.append(len(a_rows) <= block.end - block.start)
            self.register_buffer(f"a_rows{number}", torch.as_tensor(a_rows, dtype=torch.long))
            self.register_buffer(f"A_t{number}",
                                 torch.as_tensor(A, dtype=torch.float32).t().contiguous())

    def forward(self, state: Tensor, edges: dict[EdgeTypes, tuple[Tensor, Tensor]]) -> None:
        """Write the block's rows of `state` (`[width, N]`, transposed)."""
        z = self.b_column.expand(-1, state.shape[1])
        if len(self.c_rows):
            z = z + self.C_t @ state.index_select(0, self.c_rows)
        for number in range(self.num_channels):
            sources, targets = edges[self.relations[number]]
            a_rows: Tensor = getattr(self, f"a_rows{number}")
            A_t: Tensor = getattr(self, f"A_t{number}")
            inputs = state.index_select(0, a_rows)
            if self.aggregate_first[number]:
                summed = torch.zeros_like(inputs).index_add_(
                    1, targets, inputs.index_select(1, sources))
                z = z + A_t @ summed
            else:
                messages = A_t @ inputs
                z = z + torch.zeros_like(messages).index_add_(
                    1, targets, messages.index_select(1, sources))
        state[self.start:self.end] = z.clamp(0.0, 1.0)


class _FusedReadout(nn.Module):
    """A graph classifier's readout on the fused state: `pool` of the fused columns its
    first dense layer reads (the others have zero weights), then its dense layers; the
    output column, `[B, 1]`."""

    read: Tensor

    def __init__(self, compiled: Network, columns: np.ndarray[Any, Any]) -> None:
        super().__init__()
        self.kind: Readout = compiled.options.readout
        first = compiled.readout[0]
        rows = np.flatnonzero(np.any(first.W != 0, axis=1))
        self.register_buffer("read", torch.as_tensor(columns[rows], dtype=torch.long))
        self.weights = [torch.as_tensor(first.W[rows], dtype=torch.float32)]
        self.weights += [torch.as_tensor(dense.W, dtype=torch.float32)
                         for dense in compiled.readout[1:]]
        self.biases = [torch.as_tensor(dense.b, dtype=torch.float32)
                       for dense in compiled.readout]
        self.output_column = compiled.output_column

    def forward(self, state: Tensor, batch: Tensor | None) -> Tensor:
        """`state`: the fused state, transposed (`[width, N]`, `_FusedLayer`)."""
        r = pool(self.kind, state.index_select(0, self.read).t().contiguous(), batch)
        for W, b in zip(self.weights, self.biases):
            r = (r @ W + b).clamp(0.0, 1.0)
        return r[:, self.output_column:self.output_column + 1]


class FusedCompiledModule(nn.Module):
    """Inference only: the function of `CompiledModule`, of one network or of several at
    once, skipping the zero blocks.

    `compiled` is one network (the output `[N, 1]` or `[B, 1]`) or a sequence of networks
    of one kind over one input layout (the same `x` and `edge_type`): the output is then
    `[N, K]` or `[B, K]`, column k network k's output, computed in one pass whose every
    layer aggregates once per relation for all of them, each column they share computed
    once (`gracr.executor.plan.fused_plan`, which says why that is exact). A molecule
    screen runs all its patterns so (`gracr.domains.chem.stream`).

    It aggregates with `index_add_` rather than `propagate`, so PyG edge masks do
    not reach it: explainers must use `CompiledModule`. It runs only the columns each
    layer settles, so it refuses a network without the compiled layout
    (`gracr.executor.plan.keeps_compiled_layout`; `CompiledGNN.to_pyg(fused=True)` gives
    such a network the full module instead).
    """

    input_features: Tensor
    input_matrix: Tensor
    input_bias: Tensor
    outputs: Tensor

    def __init__(self, compiled: Network | Sequence[Network]) -> None:
        super().__init__()
        networks = [compiled] if isinstance(compiled, Network) else list(compiled)
        kinds = {network.kind for network in networks}
        if len(kinds) > 1:
            raise ValueError("networks run as one must be of one kind (node or graph "
                             "classifiers)")
        plan = fused_plan(networks)
        self.kind = networks[0].kind
        # The input product computes only the columns settled at the input (the layers
        # write the others), from only the features they read: a one-hot schema
        # (molecules: 119 features, a pattern reads a dozen) made it the pass's largest
        # cost. The features left out contribute exact zeros.
        self.settled_at_input = len(plan.input_bias)
        self.register_buffer("input_features", torch.as_tensor(plan.input_features))
        self.register_buffer("input_matrix", torch.as_tensor(plan.input_matrix))
        self.register_buffer("input_bias", torch.as_tensor(plan.input_bias))
        fused = [_FusedLayer(block) for block in plan.layers]
        self.layers = nn.ModuleList(fused)
        self.width = plan.width
        # A node classifier's output is a hidden column; a graph classifier's its readout's.
        self.register_buffer("outputs", torch.as_tensor(
            [columns[network.output_column] for network, columns in zip(networks, plan.columns)
             if network.kind is Kind.NODE], dtype=torch.long))
        self.readouts = nn.ModuleList(
            _FusedReadout(network, columns) for network, columns in zip(networks, plan.columns)
            if network.kind is Kind.GRAPH)
        self.declared_relations = networks[0].relations
        self.relations = {r for layer in fused for r in layer.relations}

    @torch.no_grad()
    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None, *,
                edge_type: Tensor | None = None) -> Tensor:
        _check_edge_type(self.declared_relations, edge_type, edge_index)
        h0: Tensor = (x.index_select(1, self.input_features) @ self.input_matrix
                      + self.input_bias).clamp(0.0, 1.0)
        if len(self.layers) == 0:
            state = h0.t()
        else:
            # Transposed, one row per column of the plan (`_FusedLayer` says why).
            state = torch.zeros(self.width, x.shape[0], dtype=h0.dtype)
            state[:self.settled_at_input] = h0.t()
            edges: dict[EdgeTypes, tuple[Tensor, Tensor]] = {None: (edge_index[0], edge_index[1])}
            for relations in self.relations - {None}:
                if edge_type is None:
                    raise ValueError("this model declares relations: forward needs edge_type")
                assert relations is not None
                chosen = edge_index[:, torch.isin(edge_type, torch.as_tensor(relations))]
                edges[relations] = (chosen[0], chosen[1])
            for layer in self.layers:
                layer(state, edges)
        if self.kind is Kind.NODE:
            return state.index_select(0, self.outputs).t().contiguous()
        return torch.cat([readout(state, batch) for readout in self.readouts], dim=1)
