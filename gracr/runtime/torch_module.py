"""The compiled weights as a PyG model that explainers can run on.

Each layer is its own `MessagePassing` (sum aggregation, no added self-loops) that
aggregates only through `propagate` on the `edge_index` it is given, so PyG's edge
masks and Captum reach every message. The self term `hC` and the bias stay outside
`propagate`: they are not edges. The activation subclasses `nn.ReLU` so that
Captum's GuidedBackprop and Deconvolution recognise it (they only rewrite the
backward of `nn.ReLU` modules); one instance per layer, whose input feeds nothing
else. See `shared/notes/explainers.md`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch_geometric.nn import MessagePassing, global_add_pool

from gracr.dsl.ir import Kind

if TYPE_CHECKING:
    from gracr.compiler.model import CompiledGNN


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
        product: Tensor = torch.sparse.mm(weight, h.t()).t()
        return product
    return h @ weight


class CompiledLayer(MessagePassing):  # type: ignore[misc]  # PyG ships no type stubs
    """h' = σ(h C + Σ_{(s,t) ∈ E} (h A)_s + b): one layer of Eq. 2.

    `narrow=True` (default) passes along the edges only what `A` can use: either the
    input columns where `A` has a non-zero row (and multiplies by those rows after
    aggregating, since Σ_s m_e h_s A = (Σ_s m_e h_s) A for any edge mask m), or the
    non-zero output columns of `h A`, whichever is narrower. Same function, same
    gradients for the input and for every edge mask, a fraction of the cost. With
    `narrow=False` each message is the full row `(h A)_s`, `out_channels` wide:
    PyG's GraphMaskExplainer sizes its gates from `in_channels`/`out_channels` and
    needs that.
    """

    def __init__(self, C: np.ndarray[Any, Any], A: np.ndarray[Any, Any],
                 b: np.ndarray[Any, Any], surrogate: bool, narrow: bool = True) -> None:
        super().__init__(aggr="add", flow="source_to_target")
        self.C = _weight(C)
        self.b = _frozen(b)
        self.in_channels = int(C.shape[0])
        self.out_channels = int(C.shape[1])
        self.act = TruncatedReLU(surrogate)
        self.narrow = narrow
        rows = np.flatnonzero(np.abs(A).sum(axis=1))
        columns = np.flatnonzero(np.abs(A).sum(axis=0))
        self.aggregate_first = narrow and len(rows) <= len(columns)
        if not narrow:
            kept = np.arange(A.shape[1])
            self.A = _weight(A)
        elif self.aggregate_first:
            kept = rows
            self.A = _weight(A[rows])
        else:
            kept = columns
            self.A = _weight(A[:, columns])
        self.register_buffer("kept", torch.as_tensor(kept, dtype=torch.long))

    def forward(self, h: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        """`edge_weight` (`[E]`, optional) scales each edge's message in this layer
        only: the per-layer masks that FlowX and GraphMask-clean need (PyG's own
        edge mask is shared by all layers)."""
        aggregated: Tensor
        if not self.narrow:
            aggregated = self.propagate(edge_index, x=_times(h, self.A), edge_weight=edge_weight)
        elif self.aggregate_first:
            summed = self.propagate(edge_index, x=h[:, self.kept], edge_weight=edge_weight)
            aggregated = _times(summed, self.A)
        else:
            summed = self.propagate(edge_index, x=_times(h, self.A), edge_weight=edge_weight)
            aggregated = h.new_zeros(h.shape[0], self.out_channels)
            aggregated = aggregated.index_copy(1, self.kept, summed)
        result: Tensor = self.act(_times(h, self.C) + aggregated + self.b)
        return result

    def message(self, x_j: Tensor, edge_weight: Tensor | None) -> Tensor:
        if edge_weight is None:
            return x_j
        return x_j * edge_weight.unsqueeze(-1)


class ReadoutLayer(nn.Module):
    """r' = σ(r W + b) on the sum-pooled graph vector (graph classifiers)."""

    def __init__(self, W: np.ndarray[Any, Any], b: np.ndarray[Any, Any], surrogate: bool) -> None:
        super().__init__()
        self.W = _frozen(W)
        self.b = _frozen(b)
        self.act = TruncatedReLU(surrogate)

    def forward(self, r: Tensor) -> Tensor:
        result: Tensor = self.act(r @ self.W + self.b)
        return result


class CompiledModule(nn.Module):
    """`forward(x, edge_index, batch=None)` -> `[N, 1]` (node) or `[B, 1]` (graph).

    `x` is the float multi-hot palette feature matrix `[N, |palette|]`. The output is
    the classifier column, 0/1 on Boolean inputs. `model_config` is what PyG's
    `Explainer` should be given.
    """

    def __init__(self, compiled: CompiledGNN, surrogate: bool = True,
                 narrow: bool = True) -> None:
        super().__init__()
        self.kind = compiled.kind
        self.palette = compiled.palette
        self.output_column = compiled.output_column
        self.surrogate = surrogate
        self.input_matrix = _frozen(compiled.input_matrix)
        self.input_bias = _frozen(compiled.input_bias)
        self.convs = nn.ModuleList(
            CompiledLayer(layer.C, layer.A, layer.b, surrogate, narrow)
            for layer in compiled.layers)
        self.readout = nn.ModuleList(
            ReadoutLayer(dense.W, dense.b, surrogate) for dense in compiled.readout)
        task_level = "node" if compiled.kind is Kind.NODE else "graph"
        self.model_config = {"mode": "binary_classification", "task_level": task_level,
                             "return_type": "raw"}

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None,
                layer_edge_weights: Sequence[Tensor | None] | None = None) -> Tensor:
        """`layer_edge_weights[ℓ]` (optional, `[E]`) scales the messages of layer ℓ."""
        h = x @ self.input_matrix + self.input_bias
        weights = layer_edge_weights or [None] * len(self.convs)
        for conv, weight in zip(self.convs, weights, strict=True):
            h = conv(h, edge_index, weight)
        column = slice(self.output_column, self.output_column + 1)
        if self.kind is Kind.NODE:
            return h[:, column]
        r: Tensor = global_add_pool(h, batch)
        for dense in self.readout:
            r = dense(r)
        return r[:, column]


def target_cone(compiled: CompiledGNN, edge_index: np.ndarray[Any, Any], target: int
                ) -> tuple[list[np.ndarray[Any, Any]], list[np.ndarray[Any, Any]]]:
    """What the output at node `target` reads, at every layer boundary ℓ = 0 … L:
    `rows[ℓ]`, the nodes (ascending) whose layer-ℓ state it depends on, and
    `columns[ℓ]`, the columns of that state it reads. `rows[L]` is the target and
    `columns[L]` the output column; going down, a layer that passes messages (A ≠ 0)
    adds the in-neighbours of its rows, and every layer needs the input columns its
    needed output columns read through C or A (a carried column reads itself)."""
    sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    rows = [np.array([target], dtype=np.int64)]
    columns = [np.array([compiled.output_column], dtype=np.int64)]
    for layer in reversed(compiled.layers):
        heard = rows[0]
        if np.any(layer.A):
            heard = np.union1d(heard, sources[np.isin(targets, heard)])
        rows.insert(0, heard)
        wanted = columns[0]
        columns.insert(0, np.flatnonzero(np.any(layer.C[:, wanted] != 0, axis=1)
                                         | np.any(layer.A[:, wanted] != 0, axis=1)))
    return rows, columns


class TargetConeModule(nn.Module):
    """`CompiledModule` at one target node of one graph, computing only what the
    target's output reads (node classifiers; an explainer's speed-up, e.g.
    GNNExplainer on Majority2Hop: 500 x 715 states per layer otherwise).

    Rows: the nodes within as many in-hops of the target as there are layers that
    pass messages, plus one "outside" row standing for every other node. Columns:
    at each layer, those that a later layer or the output reads. Each layer is a
    `CompiledLayer` on those rows and columns, so the surrogate or exact derivative
    and PyG's edge masks work as in `CompiledModule`: every edge of the graph still
    carries a message (edges from or to nodes outside the cone use the outside row),
    so a mask has one entry per edge, and the edges the target cannot hear get a
    zero gradient, as they do there. The target's value, and its gradient with
    respect to `x` and to every edge mask, are those of `CompiledModule`.

    `forward(x, edge_index)` takes the graph it was built for and returns `[N, 1]`
    with the target's output in the target's row and NaN elsewhere: it does not
    compute the other nodes.
    """

    rows: Tensor
    row_of: Tensor

    def __init__(self, compiled: CompiledGNN, edge_index: np.ndarray[Any, Any], num_nodes: int,
                 target: int, surrogate: bool = True) -> None:
        super().__init__()
        if compiled.kind is not Kind.NODE:
            raise ValueError("TargetConeModule explains a node classifier")
        reach, live = target_cone(compiled, edge_index, target)
        rows = reach[0]
        row_of = np.full(num_nodes, len(rows), dtype=np.int64)  # len(rows): outside
        row_of[rows] = np.arange(len(rows))
        self.register_buffer("rows", torch.as_tensor(rows))
        self.register_buffer("row_of", torch.as_tensor(row_of))
        self.target = target
        self.target_row = int(row_of[target])
        self.num_nodes, self.num_edges = num_nodes, int(np.asarray(edge_index).shape[1])
        self.input_matrix = _frozen(compiled.input_matrix[:, live[0]])
        self.input_bias = _frozen(compiled.input_bias[live[0]])
        self.convs = nn.ModuleList(
            CompiledLayer(layer.C[np.ix_(live[depth], live[depth + 1])],
                          layer.A[np.ix_(live[depth], live[depth + 1])],
                          layer.b[live[depth + 1]], surrogate)
            for depth, layer in enumerate(compiled.layers))
        self.model_config = {"mode": "binary_classification", "task_level": "node",
                             "return_type": "raw"}

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None) -> Tensor:
        if x.shape[0] != self.num_nodes or edge_index.shape[1] != self.num_edges:
            raise ValueError("TargetConeModule runs on the graph it was built for")
        outside = x.new_zeros(1, x.shape[1])
        h = torch.cat([x.index_select(0, self.rows), outside]) @ self.input_matrix
        h = h + self.input_bias
        local_edges = self.row_of[edge_index]
        for conv in self.convs:
            h = conv(h, local_edges)
        value = h[self.target_row:self.target_row + 1, :1]
        unknown = value.new_full((self.num_nodes, 1), float("nan"))
        return unknown.index_put((torch.tensor([self.target]),), value)


class _FusedLayer(nn.Module):
    """Layer ℓ restricted to the blocks that are not zero.

    Columns are ordered by depth, so layer ℓ writes exactly the columns
    `[start, end)` of depth ℓ, reading only earlier ones; the settled columns
    `[0, start)` are carried unchanged (they are already in [0, 1]) and the later
    ones are still 0 and never read. Aggregation runs on whichever side of `A`
    is narrower, since Σ_s (h_s A) = (Σ_s h_s) A.
    """

    c_rows: Tensor
    a_rows: Tensor
    C_block: Tensor
    A_block: Tensor
    b_block: Tensor

    def __init__(self, C: np.ndarray[Any, Any], A: np.ndarray[Any, Any],
                 b: np.ndarray[Any, Any], start: int, end: int) -> None:
        super().__init__()
        self.start, self.end = start, end
        c_rows = np.flatnonzero(np.abs(C[:, start:end]).sum(axis=1))
        a_rows = np.flatnonzero(np.abs(A[:, start:end]).sum(axis=1))
        self.register_buffer("c_rows", torch.as_tensor(c_rows, dtype=torch.long))
        self.register_buffer("a_rows", torch.as_tensor(a_rows, dtype=torch.long))
        self.register_buffer("C_block", torch.as_tensor(C[c_rows, start:end],
                                                        dtype=torch.float32))
        self.register_buffer("A_block", torch.as_tensor(A[a_rows, start:end],
                                                        dtype=torch.float32))
        self.register_buffer("b_block", torch.as_tensor(b[start:end], dtype=torch.float32))
        self.aggregate_first = len(a_rows) <= end - start

    def forward(self, H: Tensor, sources: Tensor, targets: Tensor) -> None:
        # `index_select` rather than `H[:, rows]`: the same gather, but torch's generic
        # advanced-indexing kernel made up ~40% of SubgraphX's time on batched graphs.
        z = self.b_block.expand(H.shape[0], -1)
        if len(self.c_rows):
            z = z + H.index_select(1, self.c_rows) @ self.C_block
        if len(self.a_rows):
            inputs = H.index_select(1, self.a_rows)
            if self.aggregate_first:
                summed = torch.zeros_like(inputs).index_add_(
                    0, targets, inputs.index_select(0, sources))
                z = z + summed @ self.A_block
            else:
                messages = inputs @ self.A_block
                z = z + torch.zeros_like(messages).index_add_(
                    0, targets, messages.index_select(0, sources))
        H[:, self.start:self.end] = z.clamp(0.0, 1.0)


class FusedCompiledModule(nn.Module):
    """Inference only: the same function as `CompiledModule`, skipping the zero blocks.

    It aggregates with `index_add_` rather than `propagate`, so PyG edge masks do
    not reach it: explainers must use `CompiledModule`.
    """

    input_matrix: Tensor
    input_bias: Tensor

    def __init__(self, compiled: CompiledGNN) -> None:
        super().__init__()
        self.kind = compiled.kind
        self.output_column = compiled.output_column
        depths = [column.depth for column in compiled.columns]
        self.settled_at_input = sum(1 for d in depths if d == 0)
        self.register_buffer("input_matrix", torch.as_tensor(compiled.input_matrix))
        self.register_buffer("input_bias", torch.as_tensor(compiled.input_bias))
        # A layer that settles no column (an identity layer of `gracr.fuzz.pad_layers`)
        # only carries the settled columns on, which the fused state does by itself.
        self.layers = nn.ModuleList(
            _FusedLayer(layer.C, layer.A, layer.b, depths.index(level),
                        len(depths) - depths[::-1].index(level))
            for level, layer in enumerate(compiled.layers, start=1) if level in depths)
        self.readout = nn.ModuleList(
            ReadoutLayer(dense.W, dense.b, surrogate=False) for dense in compiled.readout)
        self.width = compiled.width

    @torch.no_grad()
    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None) -> Tensor:
        h0: Tensor = x @ self.input_matrix + self.input_bias
        if len(self.layers) == 0:
            H = h0
        else:
            H = torch.zeros(x.shape[0], self.width, dtype=h0.dtype)
            settled = self.settled_at_input
            H[:, :settled] = h0[:, :settled].clamp(0.0, 1.0)
            sources, targets = edge_index[0], edge_index[1]
            for layer in self.layers:
                layer(H, sources, targets)
        column = slice(self.output_column, self.output_column + 1)
        if self.kind is Kind.NODE:
            return H[:, column]
        r: Tensor = global_add_pool(H, batch)
        for dense in self.readout:
            r = dense(r)
        return r[:, column]
