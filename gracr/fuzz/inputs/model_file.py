"""Model files: files `Network.save` wrote for a few programs, then damaged or edited: bytes
flipped, the file cut or padded, metadata fields given other values, arrays reshaped,
retyped, made non-finite or pickled, members dropped or added, headers that claim a
terabyte; with the checksum kept (so that any change must be caught), recomputed, or
dropped by writing an older format version.

An input runs as parsed (its archive reads) -> checked (it loads) -> evaluated (it runs
on graphs of its schema). A file whose checksum was left alone must either be refused or
load as the very model that was saved; one whose checksum was forged or dropped may load
as another model, but must then run.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from gracr.dsl.evaluate import evaluate_program
from gracr.compiler.network import checksum, read_arrays
from gracr.executor.model import CompiledGNN, compile_program, load
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.oracle import GRAPH_SPECS, PROGRAMS, exact_on, pool_program, realise

FILENAME = "model.npz"
OPTIONS = st.fixed_dictionaries({"disjunction": st.sampled_from(["demorgan", "flat"]),
                                 "comparison": st.sampled_from(["expanded", "direct"]),
                                 "presence": st.booleans()})
FIELDS = ("format", "format_version", "kind", "palette", "families", "relations", "features",
          "options", "num_layers", "width", "output_column", "columns", "readout_columns",
          "aggregations", "formula", "gracr_version", "checksum")
VALUES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([None, -1, 0, 1, 2, 3, 99, 10**12, 2.5, True, "", "node", "graph", [],
                     [None], [[None]], ["red"], {}, "x" * 500,
                     [{"meaning": "m", "depth": 0, "name": None}]]),
    st.integers(), st.text(max_size=6))


@cache
def _original(program: int, disjunction: str, comparison: str, presence: bool) -> CompiledGNN:
    return compile_program(pool_program(program), disjunction=disjunction,  # type: ignore[arg-type]
                           comparison=comparison,  # type: ignore[arg-type]
                           max_degree=3, presence=presence)


@cache
def _saved(program: int, disjunction: str, comparison: str, presence: bool) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, FILENAME)
        _original(program, disjunction, comparison, presence).save(path)
        return Path(path).read_bytes()


def _members(data: bytes) -> dict[str, np.ndarray[Any, Any]]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def _written(arrays: dict[str, Any], meta: dict[str, Any], forge: str) -> bytes:
    """The archive of `arrays` and `meta`, its checksum kept, recomputed (`forge="checksum"`)
    or dropped with the format version set to 2 (`"version"`)."""
    if forge == "checksum":
        meta["checksum"] = checksum({k: v for k, v in arrays.items()}, meta)
    elif forge == "version":
        meta.pop("checksum", None)
        meta["format_version"] = 2
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=True, metadata=np.array(json.dumps(meta)), **arrays)
    return buffer.getvalue()


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    program = draw(st.integers(0, len(PROGRAMS) - 1))
    options = draw(OPTIONS)
    data = _saved(program, options["disjunction"], options["comparison"], options["presence"])
    forge = draw(st.sampled_from(["none", "none", "checksum", "version"]))
    how = draw(st.sampled_from(["intact", "flip", "cut", "pad", "field", "drop-field", "array",
                                "member", "bomb"]))
    arrays = _members(data)
    meta = json.loads(str(arrays.pop("metadata")))
    names = sorted(arrays)
    if how == "intact":
        pass
    elif how == "flip":
        raw = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            raw[draw(st.integers(0, len(raw) - 1))] ^= draw(st.integers(1, 255))
        data, forge = bytes(raw), "none"
    elif how == "cut":
        data, forge = data[:draw(st.integers(0, len(data) - 1))], "none"
    elif how == "pad":
        data, forge = data + draw(st.binary(min_size=1, max_size=64)), "none"
    elif how in ("field", "drop-field"):
        field = draw(st.sampled_from(FIELDS))
        if how == "field":
            meta[field] = draw(VALUES)
        else:
            meta.pop(field, None)
        data = _written(arrays, meta, forge)
    elif how == "array":
        name = draw(st.sampled_from(names))
        array = arrays[name]
        match draw(st.sampled_from(["slice", "float64", "nan", "value", "object", "scalar",
                                    "transpose", "int"])):
            case "slice":
                arrays[name] = array[..., :-1] if array.size else array
            case "float64":
                arrays[name] = array.astype(np.float64)
            case "nan" if array.size:
                array.flat[0] = np.nan
            case "value" if array.size:
                array.flat[draw(st.integers(0, array.size - 1))] += 1.0
            case "object":
                arrays[name] = np.array([{"evil": 1}], dtype=object)
            case "scalar":
                arrays[name] = np.array(1.0, dtype=np.float32)
            case "transpose":
                arrays[name] = array.T.copy() if array.ndim == 2 else array
            case "int":
                arrays[name] = array.astype(np.int32)
        data = _written(arrays, meta, forge)
    elif how == "member":
        if draw(st.booleans()):
            arrays.pop(draw(st.sampled_from(names)))
        else:
            arrays[draw(st.sampled_from(["layer99_C", "readout7_W", "extra", "layer1_A9"]))] = \
                np.zeros((2, 2), dtype=np.float32)
        data = _written(arrays, meta, forge)
    else:
        data, forge = _bomb(draw(st.sampled_from(names + ["metadata"]))), "none"
    return {"program": program, "options": options, "how": how, "forge": forge, "bytes": data,
            "graphs": draw(st.lists(GRAPH_SPECS, min_size=1, max_size=2))}


def _bomb(name: str) -> bytes:
    """An archive whose member `name` has a header claiming 4 TB, and 16 bytes of data."""
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1, dtype=np.float32))
    header["shape"] = (10**6, 10**6)
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, header)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}.npy", member.getvalue() + b"\0" * 16)
    return buffer.getvalue()


def run(payload: Payload, reached: Reached) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, FILENAME)
        Path(path).write_bytes(payload["bytes"])
        read_arrays(path, FUZZ_BUDGET)
        reached.passed("parsed")
        model = load(path)
    reached.passed("checked")
    options = payload["options"]
    original = _original(payload["program"], options["disjunction"], options["comparison"],
                         options["presence"])
    same = model.metadata() == original.metadata() and model.arrays().keys() == \
        original.arrays().keys() and all(np.array_equal(a, original.arrays()[k], equal_nan=True)
                                         for k, a in model.arrays().items())
    if payload["forge"] == "none" and not same:
        raise Finding("a changed model file loaded as another model",
                      f"{payload['how']}: the checksum should have refused it")
    program = pool_program(payload["program"])
    for spec in payload["graphs"]:
        graph = realise(spec, model.schema)
        predicted = model.predict(graph, FUZZ_BUDGET)
        if same and exact_on(program, model, graph):
            value = evaluate_program(program, graph)
            if not np.array_equal(np.asarray(predicted), np.asarray(value)):
                raise Finding("a loaded model disagrees with its formula",
                              f"formula {np.asarray(value).astype(int).tolist()}, network "
                              f"{np.asarray(predicted).astype(int).tolist()}")
    reached.passed("evaluated")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc inspect` on the file: exit 2 exactly when the API could not load it."""
    (folder / FILENAME).write_bytes(payload["bytes"])

    def check(out: str) -> None:
        if not out.startswith("formula:"):
            raise Finding("gracrc inspect printed no model", out[:200])

    loaded = "checked" in reached.stages
    return CliRun(["inspect", FILENAME], must_fail=not loaded,
                  check_output=check if loaded else None)


def describe(payload: Payload) -> str:
    return (f"program {payload['program']}, {payload['how']} (checksum {payload['forge']}), "
            f"{len(payload['bytes'])} bytes")


KIND = InputKind("model-file", ("parsed", "checked", "evaluated"), payloads, run, cli,
                 share=2.0, describe=describe)

