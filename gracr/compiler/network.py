"""The compiled network as data: numpy weights, the meaning of every column and of every
input feature, and a safe model file (npz arrays + JSON metadata, no pickle).

Running it is the executors' job (`gracr.executor`): `CompiledGNN` there is this
network with its forward passes.

Model files: format version 5 adds the numeric features (`numeric_features`, their
columns of `x`) and the compile option `delta` (their threshold atoms' margin); files
of versions 1-4 have neither and load with none. Version 4 records the compile option `readout` (how a graph
classifier pools its nodes) with the other options; files of versions 1-3 load with the
sum-pooled `threshold` readout they were written under. Version 3 adds a `checksum` of
the weights and the metadata to version 2, which records the attribute families, the relations, the presence option and
each layer's aggregations (`layer{n}_A{k}`, k indexing the layer's `aggregations` in the
metadata). Version 2 files (no checksum) and version 1 files (gracr 0.1.0: colours only,
one aggregation `layer{n}_A` per layer) still load. Reading checks every array's header
before its data and every shape against the metadata, so a damaged or edited file is an
error that says what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import zipfile
import zlib
from dataclasses import asdict, dataclass
from typing import IO, Any, Mapping

import numpy as np
import numpy.typing as npt

from gracr.compiler.desugar import DEFAULT_DELTA, READOUTS, CompileOptions
from gracr.compiler.weights import Aggregation, DenseLayer, Layer, Matrix, Vector
from gracr.data.schema import Family, Schema
from gracr.dsl.ir import Kind
from gracr.data.fields import Fields, shown_json
from gracr.data.json_text import JsonError, parse_json
from gracr.errors import GracrError, ModelFileError, quoted
from gracr.files import atomic_writer
from gracr.limits import DEFAULT_MAX_BYTES, format_bytes

FORMAT_NAME = "gracr-model"
FORMAT_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)

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
    classifiers) the readout: the nodes pooled by `options.readout`, then its dense
    layers. `output_column` indexes the last hidden layer (node classifier) or the
    last readout layer (graph classifier). `schema` holds the program's declarations:
    they fix the layout of `x` and the meaning of `edge_type`."""

    schema: Schema
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

    # Read by many callers; the declarations themselves live once, in `schema`.
    @property
    def palette(self) -> tuple[str, ...]:
        return self.schema.palette

    @property
    def families(self) -> tuple[Family, ...]:
        return self.schema.families

    @property
    def relations(self) -> tuple[str, ...]:
        return self.schema.relations

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
            "numeric_features": list(self.schema.features),
            "features": list(self.feature_names),
            "options": asdict(self.options),
            "num_layers": self.num_layers,
            "width": self.width,
            "output_column": self.output_column,
            "columns": [asdict(c) for c in self.columns],
            "readout_columns": [asdict(c) for c in self.readout_columns],
            "aggregations": [[a.relation for a in layer.aggregations] for layer in self.layers],
        }

    def arrays(self) -> dict[str, Matrix | Vector]:
        """The weights by their names in the model file."""
        arrays: dict[str, Matrix | Vector] = {
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
        return arrays

    def save(self, path: str) -> None:
        """Write weights and metadata to `path` (a `.npz` archive; JSON metadata inside).

        Written atomically by `gracr.files.atomic_writer`: a run killed while saving leaves
        the old file or the new one, never half of one, and a `path` that is not a regular
        file (a device, a folder) is refused, never replaced."""
        arrays = self.arrays()
        meta = self.metadata()
        meta["checksum"] = checksum(arrays, meta)
        with atomic_writer(path, binary=True) as handle:
            np.savez_compressed(handle, metadata=np.array(json.dumps(meta)),
                                **arrays)  # type: ignore[arg-type]


def checksum(arrays: Mapping[str, npt.NDArray[Any]], meta: Mapping[str, Any]) -> str:
    """`sha256:` of the metadata (but its `checksum`) and of every array's name, dtype,
    shape and bytes: any change to a model file shows."""
    digest = hashlib.sha256()
    digest.update(json.dumps({k: v for k, v in meta.items() if k != "checksum"},
                             sort_keys=True).encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(array.tobytes())
    return "sha256:" + digest.hexdigest()


def load_network(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Network:
    """Read a model file written by `Network.save` (never unpickles anything).

    A file that is not one, is damaged, or whose arrays disagree with its metadata (or,
    from format 3 on, with its checksum) is a `ModelFileError` that says what is wrong:
    never a wrong model that loads. Arrays over `max_bytes` are refused unread.
    """
    arrays = read_arrays(path, max_bytes)
    meta_array = arrays.pop("metadata", None)
    if meta_array is None or meta_array.dtype.kind != "U" or meta_array.shape != ():
        raise ModelFileError(f"{path}: not a gracr model file (no JSON metadata in it)")
    try:
        meta = parse_json(str(meta_array))
    except JsonError as error:
        raise ModelFileError(f"{path}: the metadata is not JSON ({error.message})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path}: not a gracr model file (its metadata does not say "
                             f"format {FORMAT_NAME!r})")
    version = meta.get("format_version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise ModelFileError(f"{path}: model format version {shown_json(version)} is not "
                             f"supported (this gracr reads "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
    if version >= 3:
        stored = meta.get("checksum")
        if stored != checksum(arrays, meta):
            raise ModelFileError(f"{path}: checksum mismatch: the file is damaged or was "
                                 f"edited (stored {shown_json(stored)}, its contents give "
                                 f"{checksum(arrays, meta)})")
    return _network(arrays, Fields(meta, f"{path}: metadata", ModelFileError), version, path)


_ZIP_MAGIC = b"PK\x03\x04"
_CHUNK = 2**20


def read_arrays(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, npt.NDArray[Any]]:
    """The arrays of an `.npz` archive, each header read and checked before its data (the
    first half of `load_network`; `ModelFileError` for a file that is no such archive)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_ZIP_MAGIC))
    except OSError as error:
        raise ModelFileError(f"{path}: cannot read: {error.strerror}") from None
    if head != _ZIP_MAGIC:
        what = ("it is empty" if not head else
                "it is a single .npy array" if head.startswith(b"\x93NUM") else
                "it is not an .npz archive")
        raise ModelFileError(f"{path}: not a gracr model file: {what} (a model file is the "
                             ".npz archive `gracrc compile -o` writes)")
    arrays: dict[str, npt.NDArray[Any]] = {}
    name, size = "?", 0
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            declared = sum(member.file_size for member in members)
            if declared > max_bytes:
                largest = max(members, key=lambda member: member.file_size)
                raise ModelFileError(f"{path}: its arrays would take {format_bytes(declared)} "
                                     f"inflated (the largest, {quoted(largest.filename)}, "
                                     f"{format_bytes(largest.file_size)}), over "
                                     f"--max-weights-bytes {format_bytes(max_bytes)}")
            for member in members:
                name, size = member.filename.removesuffix(".npy"), member.file_size
                if name == member.filename or name in arrays:
                    raise ModelFileError(f"{path}: unexpected archive member "
                                         f"{quoted(member.filename)}")
                with archive.open(member) as stream:
                    arrays[name] = _read_array(stream, size, path, name)
    except zipfile.BadZipFile as error:
        raise ModelFileError(f"{path}: damaged archive ({error})") from None
    except (EOFError, zlib.error, NotImplementedError) as error:
        raise ModelFileError(f"{path}: damaged archive member '{name}' "
                             f"({type(error).__name__}: {error})") from None
    except MemoryError:
        # Within the budget, but more than this machine has free: still the file's size.
        raise ModelFileError(f"{path}: not enough memory for array '{name}' (the archive "
                             f"declares {format_bytes(size)} inflated); lower "
                             f"--max-weights-bytes to refuse such files unread") from None
    except OSError as error:
        raise ModelFileError(f"{path}: cannot read: {error.strerror or error}") from None
    return arrays


def _read_array(stream: IO[bytes], size: int, path: str, name: str) -> npt.NDArray[Any]:
    """One `.npy` member of `size` bytes: its header checked, then exactly its data."""
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"npy format version {version}")
    except Exception as error:  # numpy parses the header text: ValueError, SyntaxError,
        # tokenize.TokenError and more, whatever a damaged header makes of it
        raise ModelFileError(f"{path}: array '{name}' has a damaged header "
                             f"({type(error).__name__})") from None
    if dtype.hasobject:
        raise ModelFileError(f"{path}: array '{name}' holds Python objects (a pickle), which "
                             "gracr never loads")
    if not (dtype == np.float32 or (dtype.kind == "U" and dtype.isnative)) or \
            not dtype.itemsize:
        raise ModelFileError(f"{path}: array '{name}' is of type {dtype}; a model file holds "
                             "float32 weights and text metadata")
    count = math.prod(shape)
    if count * dtype.itemsize > size:
        raise ModelFileError(f"{path}: array '{name}' claims shape {shape}, more than its "
                             f"{size} bytes hold")
    # Inflated chunk by chunk straight into the array: memory holds its bytes once, not
    # also as one `bytes` of the whole (a reading's peak stays within the budget).
    array = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
    data = array.reshape(-1, order="A").view(np.uint8)  # a view: filling it fills the array
    filled = 0
    while filled < data.size:
        chunk = stream.read(min(data.size - filled, _CHUNK))
        if not chunk:
            raise ModelFileError(f"{path}: array '{name}' is cut short")
        data[filled:filled + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        filled += len(chunk)
    return array


def _network(arrays: dict[str, npt.NDArray[Any]], meta: Fields, version: int,
             path: str) -> Network:
    """The network of a model file, each part checked against the others."""
    def problem(message: str) -> ModelFileError:
        return ModelFileError(f"{path}: {message}")

    kind = Kind(meta.choice("kind", [k.value for k in Kind]))
    palette = meta.texts("palette")
    families = tuple(Family(f.text("name"), f.texts("values")) for f in meta.objects("families")) \
        if version >= 2 else ()
    relations = meta.texts("relations") if version >= 2 else ()
    numeric = meta.texts("numeric_features") if version >= 5 else ()
    schema = Schema(palette, families, relations, numeric)
    declared = schema.declaration_problem()
    if declared is not None:
        raise problem(f"its declarations are not a program's: {declared}")
    options_fields = meta.object("options")
    try:
        options = CompileOptions(
            options_fields.choice("disjunction", ("demorgan", "flat")),  # type: ignore[arg-type]
            options_fields.choice("comparison", ("expanded", "direct")),  # type: ignore[arg-type]
            options_fields.optional_integer("max_degree", 0),
            options_fields.boolean("presence") if version >= 2 else False,
            options_fields.choice("readout", READOUTS)  # type: ignore[arg-type]
            if version >= 4 else "threshold",
            options_fields.number("delta") if version >= 5 else DEFAULT_DELTA)
    except ModelFileError:
        raise
    except GracrError as error:
        raise problem(f"bad compile options ({error})") from None
    if version >= 2 and meta.texts("features") != schema.feature_names(options.presence):
        raise problem("the feature names disagree with the palette, families and presence")
    num_layers = meta.integer("num_layers", 0)
    width = meta.integer("width", 0)
    columns = tuple(_column(c, num_layers) for c in meta.objects("columns"))
    readout_columns = tuple(_column(c, None) for c in meta.objects("readout_columns"))
    if len(columns) != width:
        raise problem(f"{len(columns)} column meanings for a width of {width}")
    depths = [c.depth for c in columns]
    if depths != sorted(depths):
        raise problem("the columns are not in depth order")
    per_layer = _aggregations(meta, version, num_layers, relations)
    readout_count = sum(1 for key in arrays if re.fullmatch(r"readout\d+_W", key))
    readout_width = len(readout_columns)
    expected: dict[str, tuple[int, ...]] = {
        "input_matrix": (schema.num_features + (1 if options.presence else 0), width),
        "input_bias": (width,)}
    for n, kinds in enumerate(per_layer, start=1):
        expected[f"layer{n}_C"] = (width, width)
        for k in range(len(kinds)):
            expected[f"layer{n}_A" if version == 1 else f"layer{n}_A{k}"] = (width, width)
        expected[f"layer{n}_b"] = (width,)
    for n in range(1, readout_count + 1):
        expected[f"readout{n}_W"] = (width if n == 1 else readout_width, readout_width)
        expected[f"readout{n}_b"] = (readout_width,)
    missing = sorted(set(expected) - set(arrays))
    unexpected = sorted(set(arrays) - set(expected))
    if missing or unexpected:
        raise problem("its arrays disagree with its metadata ("
                      + "; ".join(([f"missing {', '.join(missing)}"] if missing else [])
                                  + ([f"unexpected {', '.join(unexpected)}"] if unexpected
                                     else [])) + ")")
    for key, shape in expected.items():
        array = arrays[key]
        if array.shape != shape or array.dtype != np.float32:
            raise problem(f"array '{key}' is {array.dtype}{list(array.shape)}, the metadata "
                          f"makes it float32{list(shape)}")
        if not np.isfinite(array).all():
            raise problem(f"array '{key}' holds a value that is not a finite number")
    output_column = meta.integer("output_column", 0)
    if kind is Kind.NODE:
        if readout_count or readout_columns or options.readout != "threshold":
            raise problem("a node classifier with a readout")
        if output_column >= width:
            raise problem(f"output column {output_column} of a width of {width}")
    else:
        if not readout_count or output_column >= readout_width:
            raise problem(f"a graph classifier's output column {output_column} is not one of "
                          f"its {readout_width} readout columns")
    layers = tuple(
        Layer(arrays[f"layer{n}_C"],
              tuple(Aggregation(relation, arrays[f"layer{n}_A" if version == 1
                                                 else f"layer{n}_A{k}"])
                    for k, relation in enumerate(kinds)),
              arrays[f"layer{n}_b"])
        for n, kinds in enumerate(per_layer, start=1))
    return Network(
        schema=schema, kind=kind, input_matrix=arrays["input_matrix"],
        input_bias=arrays["input_bias"], layers=layers,
        readout=tuple(DenseLayer(arrays[f"readout{n}_W"], arrays[f"readout{n}_b"])
                      for n in range(1, readout_count + 1)),
        columns=columns, readout_columns=readout_columns, output_column=output_column,
        options=options, formula=meta.text("formula"),
        version=meta.text("gracr_version"))


def _column(fields: Fields, layers: int | None) -> Column:
    depth = fields.integer("depth", 0)
    if layers is not None and depth > layers:
        raise fields.bad("depth", f"at most the {layers} layers")
    return Column(fields.text("meaning"), depth, fields.optional_text("name"))


def _aggregations(meta: Fields, version: int, num_layers: int,
                  relations: tuple[str, ...]) -> list[tuple[str | None, ...]]:
    """Each layer's aggregations: the relation each sums over (`None`: every edge)."""
    if version == 1:
        return [(None,)] * num_layers
    raw = meta.raw("aggregations")
    if not isinstance(raw, list) or len(raw) != num_layers or not all(
            isinstance(kinds, list) and len(set(kinds)) == len(kinds)
            and all(kind is None or kind in relations for kind in kinds) for kinds in raw):
        raise meta.bad("aggregations", f"{num_layers} lists of distinct declared relations "
                                       "(or null), one per layer")
    return [tuple(kinds) for kinds in raw]
