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

from typing import TYPE_CHECKING, Any

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
        ctx.save_for_backward(z)
        return z.clamp(0.0, 1.0)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        (z,) = ctx.saved_tensors
        return grad_output * (z > 0).to(grad_output.dtype)


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
            result: Tensor = _SurrogateClamp.apply(z)
            return result
        return z.clamp(0.0, 1.0)

    def extra_repr(self) -> str:
        return "surrogate=Eq.9" if self.surrogate else "exact"


def _frozen(array: np.ndarray[Any, Any]) -> nn.Parameter:
    return nn.Parameter(torch.as_tensor(np.asarray(array, dtype=np.float32)),
                        requires_grad=False)


class CompiledLayer(MessagePassing):
    """h' = σ(h C + Σ_{(s,t) ∈ E} (h A)_s + b): one layer of Eq. 2."""

    def __init__(self, C: np.ndarray[Any, Any], A: np.ndarray[Any, Any],
                 b: np.ndarray[Any, Any], surrogate: bool) -> None:
        super().__init__(aggr="add", flow="source_to_target")
        self.C = _frozen(C)
        self.A = _frozen(A)
        self.b = _frozen(b)
        self.in_channels = int(C.shape[0])
        self.out_channels = int(C.shape[1])
        self.act = TruncatedReLU(surrogate)

    def forward(self, h: Tensor, edge_index: Tensor) -> Tensor:
        aggregated = self.propagate(edge_index, x=h @ self.A)
        return self.act(h @ self.C + aggregated + self.b)

    def message(self, x_j: Tensor) -> Tensor:
        return x_j


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

    def __init__(self, compiled: CompiledGNN, surrogate: bool = True) -> None:
        super().__init__()
        self.kind = compiled.kind
        self.palette = compiled.palette
        self.output_column = compiled.output_column
        self.surrogate = surrogate
        self.input_matrix = _frozen(compiled.input_matrix)
        self.input_bias = _frozen(compiled.input_bias)
        self.convs = nn.ModuleList(
            CompiledLayer(layer.C, layer.A, layer.b, surrogate) for layer in compiled.layers)
        self.readout = nn.ModuleList(
            ReadoutLayer(dense.W, dense.b, surrogate) for dense in compiled.readout)
        task_level = "node" if compiled.kind is Kind.NODE else "graph"
        self.model_config = {"mode": "binary_classification", "task_level": task_level,
                             "return_type": "raw"}

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None) -> Tensor:
        h = x @ self.input_matrix + self.input_bias
        for conv in self.convs:
            h = conv(h, edge_index)
        column = slice(self.output_column, self.output_column + 1)
        if self.kind is Kind.NODE:
            return h[:, column]
        r = global_add_pool(h, batch)
        for dense in self.readout:
            r = dense(r)
        return r[:, column]
