"""`CompiledGNN`: a compiled network with its forward passes, and the compile driver.

The compiler (`gracr.compiler`) produces a `Network` — weights and meanings, no
execution. This module adds what running it needs: `encode` (a graph to PyG's
`Data`), the numpy `forward`, `predict`, and `to_pyg` (the PyG modules).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gracr.compiler.compile import compile_network
from gracr.compiler.desugar import DEFAULT_DELTA, Comparison, Disjunction, Readout
from gracr.compiler.network import Network, load_network
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.executor import numpy_backend
from gracr.errors import GraphError
from gracr.limits import DEFAULT_MAX_BYTES, FLOAT32_MAX

if TYPE_CHECKING:
    import torch


@dataclasses.dataclass(frozen=True)
class CompiledGNN(Network):
    """A compiled classifier that runs: see `Network` for its parts."""

    @classmethod
    def of(cls, network: Network) -> CompiledGNN:
        if isinstance(network, CompiledGNN):
            return network
        return cls(**{f.name: getattr(network, f.name) for f in dataclasses.fields(network)})

    def forward(self, x: npt.ArrayLike, edge_index: npt.ArrayLike,
                batch: npt.ArrayLike | None = None, *,
                edge_type: npt.ArrayLike | None = None) -> numpy_backend.Array:
        """The numpy forward pass: `[N, 1]` (node classifier) or `[B, 1]` (graph)."""
        return numpy_backend.forward(self, x, edge_index, edge_type, batch)

    def features(self, graph: Graph, where: str = "graph",
                 max_bytes: int = DEFAULT_MAX_BYTES) -> npt.NDArray[np.float32]:
        """`x` for `graph`: colours, attribute one-hots, numeric features, presence
        (`gracr.data.schema`). A graph whose numeric features would carry a threshold
        unit's pre-activation beyond float32 (`FLOAT32_MAX`) is refused (`GraphError`)."""
        x = graph.features(self.schema, self.presence, where, max_bytes)
        if self.schema.features:
            self._check_pre_activations(x, where)
        return x

    def _check_pre_activations(self, x: npt.NDArray[np.float32], where: str) -> None:
        """Refuse `x` if some node's Σ_i |x_i P_ij| + |p_j| exceeds float32 at a column j
        that reads numeric features: the torch executors compute h⁽⁰⁾ in float32, where
        the unit would be inf or NaN (a feature and a weight each within float32 can
        still multiply past it)."""
        first = self.schema.feature_column(self.schema.features[0])
        rows = slice(first, first + len(self.schema.features))
        magnitudes = np.abs(x[:, rows].astype(np.float64))
        weights = np.abs(self.input_matrix[rows].astype(np.float64))
        for column in np.flatnonzero(weights.any(axis=0)):
            reach = magnitudes @ weights[:, column] + abs(float(self.input_bias[column]))
            beyond = np.flatnonzero(reach > FLOAT32_MAX)
            if beyond.size:
                raise GraphError(
                    f"{where}: node {int(beyond[0])}'s numeric features times the weights of "
                    f"'{self.columns[column].meaning}' reach {reach[beyond[0]]:.3g}, beyond "
                    f"float32 (largest {FLOAT32_MAX:.3g}), which the network computes in: "
                    f"scale the features down or compile with a larger --delta")

    def edge_types(self, graph: Graph, where: str = "graph") -> npt.NDArray[np.int64] | None:
        """`edge_type` for `graph` (relation index per edge), or None without relations."""
        return graph.edge_types(self.schema, where) if self.relations else None

    def encode(self, graph: Graph) -> Any:
        """A PyG `Data` with `x`, `edge_index`, `edge_type` when relations are declared, and
        `edge_attr` (float32) when the graph carries it (what trained models read), and `pos`
        when it carries positions."""
        import torch
        from torch_geometric.data import Data

        data = Data(x=torch.as_tensor(self.features(graph)),
                    edge_index=torch.as_tensor(graph.edge_index, dtype=torch.long))
        edge_type = self.edge_types(graph)
        if edge_type is not None:
            data.edge_type = torch.as_tensor(edge_type, dtype=torch.long)
        if graph.edge_attr is not None:
            data.edge_attr = torch.as_tensor(graph.edge_attr, dtype=torch.float32)
        if graph.pos is not None:
            data.pos = torch.as_tensor(graph.pos, dtype=torch.float32)
        return data

    def predict(self, graph: Graph, max_bytes: int = DEFAULT_MAX_BYTES
                ) -> npt.NDArray[np.bool_] | bool:
        """The network's answer on `graph`: a bool per node, or one bool. A graph whose
        features or hidden states would exceed `max_bytes` is refused (`GraphError`)."""
        # The numpy pass holds h, its product with C, the aggregate and the
        # pre-activation per node, and one message per edge, each `width` float64 wide.
        graph.require_budget("the forward pass", 4 * 8 * self.width, 8 * self.width, max_bytes)
        output = self.forward(self.features(graph, max_bytes=max_bytes), graph.edge_index,
                              edge_type=self.edge_types(graph))
        if self.kind is Kind.NODE:
            return output[:, 0] > 0.5
        return bool(output[0, 0] > 0.5)

    def to_pyg(self, surrogate: bool = True, fused: bool = False,
               narrow: bool = True) -> "torch.nn.Module":
        """A `torch.nn.Module` with `forward(x, edge_index, batch=None, *, edge_type=None)`.

        `surrogate=True` uses the backward of Eq. 9 (every explainer but IG);
        `False` keeps the exact derivative of the truncated ReLU (IG).
        `fused=True` gives a faster inference-only module (no gradients, no PyG
        edge masks) computing the same function; on a network without the compiled
        layout it needs (`gracr.executor.plan.keeps_compiled_layout`: e.g. a
        randomisation control) it gives the full module, which computes that network.
        `narrow=False` sends full-width messages (`out_channels` wide), which PyG's
        GraphMaskExplainer requires.
        """
        from gracr.executor.plan import keeps_compiled_layout
        from gracr.executor.torch_backend import CompiledModule, FusedCompiledModule

        if fused and keeps_compiled_layout(self):
            return FusedCompiledModule(self)
        return CompiledModule(self, surrogate=surrogate, narrow=narrow)


def compile_program(program: Program, *, disjunction: Disjunction = "demorgan",
                    comparison: Comparison = "expanded", max_degree: int | None = None,
                    presence: bool = False,
                    max_weights_bytes: int = DEFAULT_MAX_BYTES,
                    readout: Readout = "threshold", delta: float = DEFAULT_DELTA) -> CompiledGNN:
    """Compile a checked program into a GNN that agrees with it on every graph
    (`gracr.compile`; `gracr.compiler.compile.compile_network`, ready to run); a model
    whose weights would exceed `max_weights_bytes` is refused before they are allocated.
    `readout` pools a graph classifier's nodes: `"threshold"` (sum, ours), `"max"`
    (WOMBAT's Eq. 3) or `"soft-or"` (Eq. 4, 1 − Π_v (1 − h_v)). `delta` is the margin δ
    of threshold atoms over numeric features: σ((a·x − b)/δ) is exact outside it.

    ```pycon
    >>> import gracr
    >>> model = gracr.compile(gracr.parse("colors red, blue\\nclassify <1> red"), max_degree=4)
    >>> graph = gracr.Graph.from_json({"num_nodes": 2, "colors": [["red"], ["blue"]],
    ...                                "edges": [[0, 1]]})
    >>> model.predict(graph).tolist()
    [False, True]

    ```
    """
    return CompiledGNN.of(compile_network(program, disjunction, comparison, max_degree,
                                          presence, max_weights_bytes, readout, delta))


def load(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> CompiledGNN:
    """Read a model file (`Network.save`, `gracr.load`); never unpickles anything, and
    refuses one whose arrays would exceed `max_bytes` before reading them.

    ```pycon
    >>> import gracr, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> gracr.compile(gracr.parse("colors red\\nclassify <1> red")).save(path)
    >>> gracr.load(path).formula
    '<1> red'

    ```
    """
    return CompiledGNN.of(load_network(path, max_bytes))
