"""The compiled network as data: numpy weights, the meaning of every column and of every
input feature, and a safe model file (npz arrays + JSON metadata, no pickle).

Running it is the executors' job (`gracr.executor`): `CompiledGNN` there is this
network with its forward passes.

Model files: format version 2 records the attribute families, the relations, the
presence option and each layer's aggregations (`layer{n}_A{k}`, k indexing the
layer's `aggregations` in the metadata). Version 1 files (gracr 0.1.0: colours only,
one aggregation `layer{n}_A` per layer) still load.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gracr.compiler.desugar import CompileOptions
from gracr.compiler.weights import Aggregation, DenseLayer, Layer, Matrix, Vector
from gracr.data.schema import Family, Schema
from gracr.dsl.ir import Kind
from gracr.errors import ModelFileError

FORMAT_NAME = "gracr-model"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Column:
    """What one hidden (or readout) column computes."""

    meaning: str          # the core subformula, as text
    depth: int            # the layer at which it is settled
    name: str | None = None  # the `let` name it was written under, if any


@dataclass(frozen=True)
class Network:
    """A compiled classifier: h⁽⁰⁾ = xP + p, then the layers of Eq. 2, then (graph
    classifiers) the readout. `output_column` indexes the last hidden layer (node
    classifier) or the last readout layer (graph classifier). `families` and
    `relations` are the program's declarations: they fix the layout of `x` and the
    meaning of `edge_type`."""

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
    families: tuple[Family, ...] = ()
    relations: tuple[str, ...] = ()

    @property
    def schema(self) -> Schema:
        return Schema(self.palette, self.families, self.relations)

    @property
    def presence(self) -> bool:
        """Whether `x` carries the presence column (compile option `presence`)."""
        return self.options.presence

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The meaning of each column of `x`."""
        return self.schema.feature_names(self.presence)

    @property
    def num_layers(self) -> int:
        """Message-passing layers (the readout is not counted)."""
        return len(self.layers)

    @property
    def width(self) -> int:
        """Hidden columns: one per distinct subformula."""
        return int(self.input_bias.shape[0])

    # ------------------------------------------------------------ model file

    def metadata(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "gracr_version": self.version,
            "formula": self.formula,
            "kind": self.kind.value,
            "palette": list(self.palette),
            "families": [{"name": f.name, "values": list(f.values)} for f in self.families],
            "relations": list(self.relations),
            "features": list(self.feature_names),
            "options": asdict(self.options),
            "num_layers": self.num_layers,
            "width": self.width,
            "output_column": self.output_column,
            "columns": [asdict(c) for c in self.columns],
            "readout_columns": [asdict(c) for c in self.readout_columns],
            "aggregations": [[a.relation for a in layer.aggregations] for layer in self.layers],
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
            for k, aggregation in enumerate(layer.aggregations):
                arrays[f"layer{number}_A{k}"] = aggregation.A
            arrays[f"layer{number}_b"] = layer.b
        for number, dense in enumerate(self.readout, start=1):
            arrays[f"readout{number}_W"] = dense.W
            arrays[f"readout{number}_b"] = dense.b
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]


def load_network(path: str) -> Network:
    """Read a model file written by `Network.save` (never unpickles anything)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{path}: not a gracr model file ({error})") from None
    try:
        meta = json.loads(str(arrays["metadata"]))
        if meta.get("format") != FORMAT_NAME:
            raise ModelFileError(f"{path}: not a gracr model file")
        version = meta.get("format_version")
        if version not in READABLE_VERSIONS:
            raise ModelFileError(f"{path}: model format version {version} is not supported "
                                 f"(this gracr reads {', '.join(map(str, READABLE_VERSIONS))})")
        layers = tuple(
            Layer(arrays[f"layer{n}_C"], _aggregations(arrays, meta, n, version),
                  arrays[f"layer{n}_b"])
            for n in range(1, meta["num_layers"] + 1))
        readout = tuple(
            DenseLayer(arrays[f"readout{n}_W"], arrays[f"readout{n}_b"])
            for n in range(1, sum(1 for k in arrays if k.endswith("_W")) + 1))
        return Network(
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
            families=tuple(Family(f["name"], tuple(f["values"]))
                           for f in meta.get("families", [])),
            relations=tuple(meta.get("relations", [])),
        )
    except KeyError as missing:
        raise ModelFileError(f"{path}: model file is missing {missing}") from None


def _aggregations(arrays: dict[str, npt.NDArray[Any]], meta: dict[str, Any], n: int,
                  version: int) -> tuple[Aggregation, ...]:
    if version == 1:
        return (Aggregation(None, arrays[f"layer{n}_A"]),)
    return tuple(Aggregation(relation, arrays[f"layer{n}_A{k}"])
                 for k, relation in enumerate(meta["aggregations"][n - 1]))

