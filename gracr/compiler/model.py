"""The compiled network: numpy weights, a numpy forward pass, the meaning of every
column, and a safe model file (npz arrays + JSON metadata, no pickle)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gracr.compiler.desugar import CompileOptions
from gracr.compiler.weights import DenseLayer, Layer, Matrix, Vector
from gracr.dsl.ir import Kind
from gracr.errors import ModelFileError
from gracr.data.graph import Graph

if TYPE_CHECKING:
    import torch

FORMAT_NAME = "gracr-model"
FORMAT_VERSION = 1

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Column:
    """What one hidden (or readout) column computes."""

    meaning: str          # the core subformula, as text
    depth: int            # the layer at which it is settled
    name: str | None = None  # the `let` name it was written under, if any


@dataclass(frozen=True)
class CompiledGNN:
    """A compiled classifier: h⁽⁰⁾ = xP + p, then the layers of Eq. 2, then (graph
    classifiers) the readout. `output_column` indexes the last hidden layer (node
    classifier) or the last readout layer (graph classifier)."""

    palette: tuple[str, ...]
    kind: Kind
    input_matrix: Matrix
    input_bias: Vector
    layers: tuple[Layer, ...]
    readout: tuple[DenseLayer, ...]
    columns: tuple[Column, ...]
    readout_columns: tuple[Column, ...]
    output_column: int
    options: CompileOptions
    formula: str
    version: str

    @property
    def num_layers(self) -> int:
        """Message-passing layers (the readout is not counted)."""
        return len(self.layers)

    @property
    def width(self) -> int:
        """Hidden columns: one per distinct subformula."""
        return int(self.input_bias.shape[0])

    # ------------------------------------------------------------ forward

    def forward(self, x: npt.ArrayLike, edge_index: npt.ArrayLike,
                batch: npt.ArrayLike | None = None) -> Array:
        """The numpy forward pass: `[N, 1]` (node classifier) or `[B, 1]` (graph)."""
        features = np.asarray(x, dtype=np.float64)
        edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
        sources, targets = edges[0], edges[1]
        h = features @ self.input_matrix.astype(np.float64) + self.input_bias
        for layer in self.layers:
            z = h @ layer.C.astype(np.float64) + layer.b
            if layer.A.any():
                messages = (h @ layer.A.astype(np.float64))[sources]
                aggregated = np.zeros_like(z)
                np.add.at(aggregated, targets, messages)
                z += aggregated
            h = np.clip(z, 0.0, 1.0)
        if self.kind is Kind.NODE:
            return h[:, self.output_column:self.output_column + 1]
        graph_of_node = (np.zeros(h.shape[0], dtype=np.int64) if batch is None
                         else np.asarray(batch, dtype=np.int64))
        num_graphs = int(graph_of_node.max()) + 1 if graph_of_node.size else 1
        pooled = np.zeros((num_graphs, h.shape[1]))
        np.add.at(pooled, graph_of_node, h)
        r = pooled
        for dense in self.readout:
            r = np.clip(r @ dense.W.astype(np.float64) + dense.b, 0.0, 1.0)
        return r[:, self.output_column:self.output_column + 1]

    def predict(self, graph: Graph) -> npt.NDArray[np.bool_] | bool:
        """The network's answer on `graph`: a bool per node, or one bool."""
        output = self.forward(graph.features(self.palette), graph.edge_index)
        if self.kind is Kind.NODE:
            return output[:, 0] > 0.5
        return bool(output[0, 0] > 0.5)

    def to_pyg(self, surrogate: bool = True, fused: bool = False,
               narrow: bool = True) -> "torch.nn.Module":
        """A `torch.nn.Module` with `forward(x, edge_index, batch=None)` running these weights.

        `surrogate=True` uses the backward of Eq. 9 (every explainer but IG);
        `False` keeps the exact derivative of the truncated ReLU (IG).
        `fused=True` gives a faster inference-only module (no gradients, no PyG
        edge masks) computing the same function. `narrow=False` sends full-width
        messages (`out_channels` wide), which PyG's GraphMaskExplainer requires.
        """
        from gracr.runtime.torch_module import CompiledModule, FusedCompiledModule

        if fused:
            return FusedCompiledModule(self)
        return CompiledModule(self, surrogate=surrogate, narrow=narrow)

    # ------------------------------------------------------------ model file

    def metadata(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "gracr_version": self.version,
            "formula": self.formula,
            "kind": self.kind.value,
            "palette": list(self.palette),
            "options": asdict(self.options),
            "num_layers": self.num_layers,
            "width": self.width,
            "output_column": self.output_column,
            "columns": [asdict(c) for c in self.columns],
            "readout_columns": [asdict(c) for c in self.readout_columns],
        }

    def save(self, path: str) -> None:
        """Write weights and metadata to `path` (a `.npz` archive; JSON metadata inside)."""
        arrays: dict[str, npt.NDArray[Any]] = {
            "metadata": np.array(json.dumps(self.metadata())),
            "input_matrix": self.input_matrix,
            "input_bias": self.input_bias,
        }
        for number, layer in enumerate(self.layers, start=1):
            arrays[f"layer{number}_C"] = layer.C
            arrays[f"layer{number}_A"] = layer.A
            arrays[f"layer{number}_b"] = layer.b
        for number, dense in enumerate(self.readout, start=1):
            arrays[f"readout{number}_W"] = dense.W
            arrays[f"readout{number}_b"] = dense.b
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


def load(path: str) -> CompiledGNN:
    """Read a model file written by `CompiledGNN.save` (never unpickles anything)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{path}: not a gracr model file ({error})") from None
    try:
        meta = json.loads(str(arrays["metadata"]))
        if meta.get("format") != FORMAT_NAME:
            raise ModelFileError(f"{path}: not a gracr model file")
        if meta.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(f"{path}: model format version {meta.get('format_version')} "
                                 f"is not supported (this gracr reads {FORMAT_VERSION})")
        layers = tuple(
            Layer(arrays[f"layer{n}_C"], arrays[f"layer{n}_A"], arrays[f"layer{n}_b"])
            for n in range(1, meta["num_layers"] + 1))
        readout = tuple(
            DenseLayer(arrays[f"readout{n}_W"], arrays[f"readout{n}_b"])
            for n in range(1, sum(1 for k in arrays if k.endswith("_W")) + 1))
        return CompiledGNN(
            palette=tuple(meta["palette"]),
            kind=Kind(meta["kind"]),
            input_matrix=arrays["input_matrix"],
            input_bias=arrays["input_bias"],
            layers=layers,
            readout=readout,
            columns=tuple(Column(**c) for c in meta["columns"]),
            readout_columns=tuple(Column(**c) for c in meta["readout_columns"]),
            output_column=int(meta["output_column"]),
            options=CompileOptions(**meta["options"]),
            formula=meta["formula"],
            version=meta["gracr_version"],
        )
    except KeyError as missing:
        raise ModelFileError(f"{path}: model file is missing {missing}") from None

