"""The executor protocol: `run(network, batch) -> outputs`, one interface over every backend.

Each executor is a thin adapter over the module that implements the layer equation
(`numpy_backend`, `torch_backend`, `numba_backend`); none holds a copy of it. What
differs between them is declared in `Capabilities`, read from the code:

* gradients: only the PyG modules are differentiable, with the surrogate derivative
  of Eq. 9 or the exact one (`TruncatedReLU`);
* PyG's edge mask reaches the messages of the modules that aggregate through
  `propagate` (the whole-graph and target-cone modules), not the fused one;
* per-layer edge weights (`numpy_backend.trace`'s `edge_weights`, the modules'
  `layer_edge_weights`, `RowLayer.sums`' `edge_weight`): every executor but the fused
  module and the numba kernel;
* the target cone computes the output at one node only (NaN elsewhere), of a node
  classifier only;
* the fused module and the numba kernel run only the columns each layer settles, so
  they need the compiled layout (`plan.keeps_compiled_layout`; not a randomisation
  control);
* the torch modules compute in float32, the others in float64 (all read the float32
  features of `CompiledGNN.features`): on numeric features far beyond their
  differences they may decide a threshold atom differently
  (`gracr.dsl.evaluate.margin_nodes` flags such nodes);
* full-width messages (`narrow=False`), the layout PyG's GraphMaskExplainer needs.

Typed relations and numeric features are not capabilities: every executor runs them.

`EXECUTORS` lists one executor of each kind, for tests and callers to iterate over;
`tests/test_executors_conform.py` runs every one of them against the reference
evaluator on the same draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, Sequence

import numpy as np
import numpy.typing as npt

from gracr.compiler.network import Network
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor import numpy_backend
from gracr.executor.model import CompiledGNN
from gracr.executor.plan import keeps_compiled_layout, layer_plans

if TYPE_CHECKING:
    import torch

Derivative = Literal["surrogate", "exact"]
Outputs = npt.NDArray[np.float64]
"""The classifier's output, 1-D float64: one value per node (node classifier; NaN at the
nodes a target-cone executor does not compute) or one per graph (graph classifier)."""


@dataclass(frozen=True, eq=False)
class Batch:
    """The encoded inputs of one or more graphs, laid side by side (node ids offset).

    `x` (`[N, F]`, float32) is `CompiledGNN.features`, `edge_type` (`[E]` or None)
    `CompiledGNN.edge_types`, `graph_of_node` (`[N]`) the batch vector. `target` is the
    node whose output is asked for (None: every node; a target-cone executor needs
    one). `edge_weight` (`[E]` or None) scales each edge's message at every layer
    through the executor's per-layer weights; `edge_mask` (`[E]` or None) does the same
    through PyG's explain edge mask (`set_masks`, no sigmoid), as PyG's explainers do:
    either way a weight of 0 removes the edge from every layer, 1 keeps it.
    """

    x: npt.NDArray[np.float32]
    edge_index: npt.NDArray[np.int64]
    edge_type: npt.NDArray[np.int64] | None
    graph_of_node: npt.NDArray[np.int64]
    num_graphs: int
    target: int | None = None
    edge_weight: npt.NDArray[np.float64] | None = None
    edge_mask: npt.NDArray[np.float64] | None = None

    @classmethod
    def of(cls, network: Network, graphs: Sequence[Graph], *,
           x: npt.ArrayLike | None = None, target: int | None = None,
           edge_weight: npt.ArrayLike | None = None,
           edge_mask: npt.ArrayLike | None = None) -> Batch:
        """The batch of `graphs` for `network`; `x` replaces the features (`[N, F]` over
        all the graphs' nodes, e.g. with some rows zeroed)."""
        if not graphs:
            raise GracrError("a batch holds one graph or more; got none")
        model = CompiledGNN.of(network)
        offsets = np.cumsum([0] + [graph.num_nodes for graph in graphs])
        edge_index = np.concatenate(
            [graph.edge_index + offset for graph, offset in zip(graphs, offsets)], axis=1
        ).astype(np.int64).reshape(2, -1)
        types = [model.edge_types(graph) for graph in graphs]
        edge_type = None if not network.relations else np.concatenate(
            [t for t in types if t is not None]).astype(np.int64)
        features = (np.concatenate([model.features(graph) for graph in graphs])
                    if x is None else np.asarray(x, dtype=np.float32))
        if features.shape[0] != offsets[-1]:
            raise GracrError(f"x has {features.shape[0]} rows; the batch's graphs have "
                             f"{offsets[-1]} nodes")
        graph_of_node = np.repeat(np.arange(len(graphs), dtype=np.int64),
                                  [graph.num_nodes for graph in graphs])
        weight = None if edge_weight is None else np.asarray(edge_weight, dtype=np.float64)
        mask = None if edge_mask is None else np.asarray(edge_mask, dtype=np.float64)
        return cls(features, edge_index, edge_type, graph_of_node, len(graphs), target, weight,
                   mask)


@dataclass(frozen=True)
class Capabilities:
    """What an executor offers beyond `run` (the module docstring says where each comes
    from)."""

    derivative: Derivative | None  # None: inference only
    edge_mask: bool                # PyG's explain edge mask reaches every message
    edge_weights: bool             # per-layer weights on the messages (`Batch.edge_weight`)
    every_node: bool               # False: the output at `Batch.target` only
    graph_classifiers: bool        # has the graph readout
    any_layout: bool               # False: needs `keeps_compiled_layout`
    float64: bool                  # False: float32 states
    full_width_messages: bool      # PyG messages `width` wide (PyG's GraphMaskExplainer)


class Executor(Protocol):
    """Runs a compiled network on a batch: the classifier's output (`Outputs`)."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    def run(self, network: Network, batch: Batch) -> Outputs: ...


def check_runs(executor: Executor, network: Network, batch: Batch) -> None:
    """Refuse (`GracrError`) a network or batch that needs a capability `executor` lacks."""
    can = executor.capabilities
    if network.kind is Kind.GRAPH and not can.graph_classifiers:
        raise GracrError(f"executor {executor.name}: runs node classifiers only")
    if not can.every_node and batch.target is None:
        raise GracrError(f"executor {executor.name}: computes one target's output; the "
                         f"batch names no target")
    if batch.edge_weight is not None and not can.edge_weights:
        raise GracrError(f"executor {executor.name}: takes no edge weights")
    if batch.edge_mask is not None and not can.edge_mask:
        raise GracrError(f"executor {executor.name}: PyG's edge mask does not reach it")
    if batch.edge_mask is not None and batch.edge_weight is not None:
        raise GracrError(f"executor {executor.name}: an edge mask or edge weights, not both "
                         f"(no explainer combines them)")
    if not can.any_layout and not keeps_compiled_layout(network):
        raise GracrError(f"executor {executor.name}: runs only networks laid out as "
                         f"compiled (keeps_compiled_layout), and this one is not")


def _layer_weights(network: Network, batch: Batch) -> list[npt.NDArray[np.float64]] | None:
    """`Batch.edge_weight` at every layer, or None."""
    if batch.edge_weight is None:
        return None
    return [batch.edge_weight] * network.num_layers


@dataclass(frozen=True)
class NumpyExecutor:
    """`numpy_backend.trace` (float64): the reference forward pass."""

    name: str = "numpy"
    capabilities: Capabilities = Capabilities(
        derivative=None, edge_mask=False, edge_weights=True, every_node=True,
        graph_classifiers=True, any_layout=True, float64=True, full_width_messages=False)

    def run(self, network: Network, batch: Batch) -> Outputs:
        check_runs(self, network, batch)
        output = numpy_backend.trace(network, batch.x, batch.edge_index, batch.edge_type,
                                     batch.graph_of_node, keep=False,
                                     edge_weights=_layer_weights(network, batch)).output
        result: Outputs = output[:, 0]
        return result


@dataclass(frozen=True)
class RowExecutor:
    """Each layer through `numpy_backend.RowLayer` (the aggregated-input form FlowX's
    incremental network updates), on every row at once."""

    name: str = "rows"
    capabilities: Capabilities = Capabilities(
        derivative=None, edge_mask=False, edge_weights=True, every_node=True,
        graph_classifiers=True, any_layout=True, float64=True, full_width_messages=False)

    def run(self, network: Network, batch: Batch) -> Outputs:
        check_runs(self, network, batch)
        sources, targets = batch.edge_index[0], batch.edge_index[1]
        h = numpy_backend.input_states(network, batch.x)
        for plan in layer_plans(network):
            layer = numpy_backend.RowLayer(plan)
            sums = layer.sums(h, sources, targets, batch.edge_type, batch.edge_weight)
            h = layer.forward(h, sums)
        return numpy_backend.classifier_output(network, h, batch.graph_of_node)


def _tensors(batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    import torch

    return (torch.as_tensor(batch.x, dtype=torch.float32),
            torch.as_tensor(batch.edge_index, dtype=torch.long),
            None if batch.edge_type is None else torch.as_tensor(batch.edge_type))


def _outputs(output: torch.Tensor) -> Outputs:
    """A module's `[N, 1]` or `[B, 1]` output as `Outputs`."""
    result: Outputs = output[:, 0].numpy().astype(np.float64)
    return result


def _masked(module: torch.nn.Module, batch: Batch) -> torch.nn.Module:
    """`module` with `Batch.edge_mask` as PyG's explain edge mask on every layer (no
    sigmoid: the mask is the weight itself)."""
    import torch
    from torch_geometric.explain.algorithm.utils import set_masks

    if batch.edge_mask is not None:
        set_masks(module, torch.as_tensor(batch.edge_mask, dtype=torch.float32),
                  torch.as_tensor(batch.edge_index, dtype=torch.long), apply_sigmoid=False)
    return module


def _torch_weights(network: Network, batch: Batch) -> list[torch.Tensor | None] | None:
    import torch

    weights = _layer_weights(network, batch)
    return None if weights is None else [torch.as_tensor(w, dtype=torch.float32)
                                         for w in weights]


@dataclass(frozen=True)
class TorchExecutor:
    """`torch_backend.CompiledModule` (float32), with the surrogate or exact derivative,
    narrow or full-width messages."""

    derivative: Derivative = "surrogate"
    narrow: bool = True

    @property
    def name(self) -> str:
        return f"torch-{self.derivative}" + ("" if self.narrow else "-wide")

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            derivative=self.derivative, edge_mask=True, edge_weights=True, every_node=True,
            graph_classifiers=True, any_layout=True, float64=False,
            full_width_messages=not self.narrow)

    def run(self, network: Network, batch: Batch) -> Outputs:
        import torch

        from gracr.executor.torch_backend import CompiledModule

        check_runs(self, network, batch)
        module = _masked(CompiledModule(network, surrogate=self.derivative == "surrogate",
                                        narrow=self.narrow), batch)
        x, edge_index, edge_type = _tensors(batch)
        with torch.no_grad():
            output = module(x, edge_index, torch.as_tensor(batch.graph_of_node),
                            edge_type=edge_type,
                            layer_edge_weights=_torch_weights(network, batch))
        return _outputs(output)


@dataclass(frozen=True)
class FusedExecutor:
    """`torch_backend.FusedCompiledModule` (float32, inference only)."""

    name: str = "fused"
    capabilities: Capabilities = Capabilities(
        derivative=None, edge_mask=False, edge_weights=False, every_node=True,
        graph_classifiers=True, any_layout=False, float64=False, full_width_messages=False)

    def run(self, network: Network, batch: Batch) -> Outputs:
        import torch

        from gracr.executor.torch_backend import FusedCompiledModule

        check_runs(self, network, batch)
        x, edge_index, edge_type = _tensors(batch)
        output = FusedCompiledModule(network)(x, edge_index,
                                              torch.as_tensor(batch.graph_of_node),
                                              edge_type=edge_type)
        return _outputs(output)


@dataclass(frozen=True)
class ConeExecutor:
    """`torch_backend.TargetConeModule` (float32): the output at `Batch.target` only."""

    derivative: Derivative = "surrogate"

    @property
    def name(self) -> str:
        return f"cone-{self.derivative}"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            derivative=self.derivative, edge_mask=True, edge_weights=True, every_node=False,
            graph_classifiers=False, any_layout=True, float64=False,
            full_width_messages=False)

    def run(self, network: Network, batch: Batch) -> Outputs:
        import torch

        from gracr.executor.torch_backend import TargetConeModule

        check_runs(self, network, batch)
        assert batch.target is not None
        module = _masked(TargetConeModule(network, batch.edge_index, batch.x.shape[0],
                                          batch.target, surrogate=self.derivative == "surrogate",
                                          edge_type=batch.edge_type), batch)
        x, edge_index, edge_type = _tensors(batch)
        with torch.no_grad():
            output = module(x, edge_index, edge_type=edge_type,
                            layer_edge_weights=_torch_weights(network, batch))
        return _outputs(output)


@dataclass(frozen=True)
class NumbaExecutor:
    """`numba_backend.evaluate_columns` (float64, node by node over in-neighbour lists),
    then the numpy readout for a graph classifier."""

    name: str = "numba"
    capabilities: Capabilities = Capabilities(
        derivative=None, edge_mask=False, edge_weights=False, every_node=True,
        graph_classifiers=True, any_layout=False, float64=True, full_width_messages=False)

    def run(self, network: Network, batch: Batch) -> Outputs:
        from gracr.executor.numba_backend import (
            evaluate_columns, in_neighbour_csr, sparse_program,
        )

        check_runs(self, network, batch)
        indptr, sources, types = in_neighbour_csr(batch.edge_index, batch.x.shape[0],
                                                  batch.edge_type)
        program = sparse_program(network)
        fused = evaluate_columns(program, batch.x.astype(np.float64), indptr, sources, types)
        h = fused[:, program.columns[0]]
        return numpy_backend.classifier_output(network, h, batch.graph_of_node)


EXECUTORS: tuple[Executor, ...] = (
    NumpyExecutor(), RowExecutor(), TorchExecutor("surrogate"), TorchExecutor("exact"),
    TorchExecutor("surrogate", narrow=False), FusedExecutor(), ConeExecutor("surrogate"),
    ConeExecutor("exact"), NumbaExecutor(),
)
"""One executor of each kind (`Executor.name` tells them apart)."""
