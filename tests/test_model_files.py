"""Model files: format 3 checksums format 2, which records families, relations, presence and
per-layer aggregations; files of formats 1 and 2 still load and run as compiled today."""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.cli import main
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.errors import GracrError, ModelFileError
from tests.strategies import (
    shared_name_schemas,
    typed_graphs,
    typed_node_formulas,
    typed_program_for,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
TYPED = """colors marked
attribute element = C, N, O
relations single, double
classify element=C & <1>{double} element=O & atmost{single} 1 true & []{double} !marked
"""


@pytest.mark.parametrize("name,formula,options", [
    ("CompetingRedundancy-format1.npz", "gracr/formulas/CompetingRedundancy.gml", {}),
    ("Majority1Hop-direct-format1.npz", "gracr/formulas/Majority1Hop.gml", {"comparison": "direct"}),
])
def test_format_1_files_written_by_gracr_0_1_0_still_load(name: str, formula: str,
                                                          options: dict[str, str]) -> None:
    old = gracr.load(str(FIXTURES / name))
    new = gracr.compile(gracr.parse(Path(formula)), **options)  # type: ignore[arg-type]
    assert (old.num_layers, old.width, old.relations, old.families, old.presence) == \
        (new.num_layers, new.width, (), (), False)
    for a, b in zip(old.layers, new.layers, strict=True):
        np.testing.assert_array_equal(a.C, b.C)
        assert [g.relation for g in a.aggregations] == [None] == [g.relation for g in b.aggregations]
        np.testing.assert_array_equal(a.aggregations[0].A, b.aggregations[0].A)
    assert [c.meaning for c in old.columns] == [c.meaning for c in new.columns]


@pytest.mark.parametrize("presence", [False, True])
def test_a_typed_model_round_trips_through_its_file(presence: bool, tmp_path: Path) -> None:
    program = gracr.parse(TYPED)
    model = gracr.compile(program, disjunction="flat", presence=presence)
    path = str(tmp_path / "typed.npz")
    model.save(path)
    loaded = gracr.load(path)
    assert loaded.schema == program.schema and loaded.presence is presence
    assert loaded.feature_names == model.feature_names
    assert [[g.relation for g in layer.aggregations] for layer in loaded.layers] == \
        [[g.relation for g in layer.aggregations] for layer in model.layers]
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(str(archive["metadata"]))
    assert meta["format_version"] == 5
    assert meta["relations"] == ["single", "double"]
    assert meta["families"] == [{"name": "element", "values": ["C", "N", "O"]}]
    assert meta["features"][-1] == ("present" if presence else "element=O")
    graph = gracr.Graph.from_edges(
        3, [[], [], ["marked"]], [(1, 0), (2, 0), (0, 1)],
        attributes={"element": ["C", "O", "N"]}, relations=["double", "single", "double"])
    assert loaded.predict(graph).tolist() == gracr.evaluate(program, graph).tolist() \
        == [True, False, False]


def test_an_unknown_format_version_is_a_clear_error(tmp_path: Path) -> None:
    model = gracr.compile(gracr.parse("colors red\nclassify <1> red"))
    path = tmp_path / "model.npz"
    model.save(str(path))
    with np.load(str(path), allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays["metadata"]))
    meta["format_version"] = 99
    arrays["metadata"] = np.array(json.dumps(meta))
    np.savez(str(path), **arrays)  # type: ignore[arg-type]
    with pytest.raises(ModelFileError, match="format version 99 is not supported"):
        gracr.load(str(path))


# ---------------------------------------------------------------- damaged and edited files


@pytest.mark.parametrize("name,formula,options", [
    ("typed-flat-presence-format2.npz", None, {"disjunction": "flat", "presence": True}),
    ("Redundancy-format2.npz", "gracr/formulas/Redundancy.gml", {}),
])
def test_format_2_files_written_before_the_checksum_still_load(
        name: str, formula: str | None, options: dict[str, object]) -> None:
    old = gracr.load(str(FIXTURES / name))
    program = gracr.parse(TYPED) if formula is None else gracr.parse(Path(formula))
    new = gracr.compile(program, **options)  # type: ignore[arg-type]
    assert old.arrays().keys() == new.arrays().keys()
    for key, array in new.arrays().items():
        np.testing.assert_array_equal(old.arrays()[key], array)
    assert (old.kind, old.schema, old.options, old.columns) == \
        (new.kind, new.schema, new.options, new.columns)


def _arrays(path: Path) -> dict[str, np.ndarray]:  # type: ignore[type-arg]
    with np.load(str(path), allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def _rewrite(path: Path, arrays: dict[str, object], meta: dict[str, object] | None = None,
             **edits: object) -> None:
    """`path` rewritten with `arrays` (and the metadata edited by `edits`)."""
    if meta is None:
        meta = json.loads(str(arrays["metadata"]))
    meta.update(edits)
    np.savez(str(path), **{**arrays, "metadata": np.array(json.dumps(meta))})  # type: ignore[arg-type]


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "model.npz"
    gracr.compile(gracr.parse("colors red, blue\nclassify <1> red & !blue")).save(str(path))
    return path


def test_a_weight_changed_in_the_file_is_a_checksum_mismatch(saved: Path) -> None:
    arrays = _arrays(saved)
    arrays["layer1_C"][0, 0] += 1.0
    _rewrite(saved, arrays)
    with pytest.raises(ModelFileError, match="checksum mismatch: the file is damaged or was "
                                             "edited"):
        gracr.load(str(saved))


def test_edited_metadata_is_a_checksum_mismatch(saved: Path) -> None:
    _rewrite(saved, _arrays(saved), output_column=0)
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        gracr.load(str(saved))


def test_shapes_that_disagree_with_the_metadata_are_named(saved: Path) -> None:
    arrays = _arrays(saved)
    arrays["layer1_C"] = arrays["layer1_C"][:, :-1]
    _rewrite(saved, arrays, format_version=2)             # no checksum to catch it first
    with pytest.raises(ModelFileError, match=r"array 'layer1_C' is float32\[\d+, \d+\], the "
                                             r"metadata makes it float32\[\d+, \d+\]"):
        gracr.load(str(saved))


@pytest.mark.parametrize("edit,message", [
    ({"width": 99}, "column meanings for a width of 99"),
    ({"num_layers": 7}, "field 'aggregations' should be 7 lists"),
    ({"kind": "tree"}, "field 'kind' should be one of node, graph"),
    ({"palette": "red"}, "field 'palette' should be a list of strings"),
    ({"output_column": 50}, "output column 50 of a width of"),
    ({"options": {"disjunction": "flat", "comparison": "expanded", "max_degree": -1,
                  "presence": False}}, "field 'max_degree' should be an integer, at least 0"),
    ({"features": ["blue", "red"]}, "the feature names disagree with the palette"),
    ({"format": "other"}, "not a gracr model file"),
])
def test_metadata_that_disagrees_with_the_arrays_is_named(
        saved: Path, edit: dict[str, object], message: str) -> None:
    _rewrite(saved, _arrays(saved), format_version=2, **edit)
    with pytest.raises(ModelFileError, match=message):
        gracr.load(str(saved))


def test_columns_out_of_depth_order_are_refused(saved: Path) -> None:
    arrays = _arrays(saved)
    meta = json.loads(str(arrays["metadata"]))
    meta["columns"] = meta["columns"][::-1]
    _rewrite(saved, arrays, meta, format_version=2)
    with pytest.raises(ModelFileError, match="not in depth order"):
        gracr.load(str(saved))


def test_a_weight_that_is_not_a_number_is_refused(saved: Path) -> None:
    arrays = _arrays(saved)
    arrays["input_bias"][0] = np.nan
    _rewrite(saved, arrays, format_version=2)
    with pytest.raises(ModelFileError, match="'input_bias' holds a value that is not a finite"):
        gracr.load(str(saved))


def test_a_truncated_file_is_a_damaged_archive(saved: Path) -> None:
    data = saved.read_bytes()
    saved.write_bytes(data[:len(data) // 2])
    with pytest.raises(ModelFileError, match="damaged archive"):
        gracr.load(str(saved))


def test_a_pickled_array_is_never_loaded(saved: Path, tmp_path: Path) -> None:
    arrays = _arrays(saved)
    arrays["input_bias"] = np.array([{"evil": 1}], dtype=object)
    np.savez(str(saved), **arrays, allow_pickle=True)  # type: ignore[arg-type]
    with pytest.raises(ModelFileError, match="'input_bias' holds Python objects"):
        gracr.load(str(saved))


def test_an_array_header_claiming_more_than_its_bytes_is_refused_unread(tmp_path: Path) -> None:
    import zipfile

    header = np.lib.format.header_data_from_array_1_0(np.zeros(1, dtype=np.float32))
    header["shape"] = (10**6, 10**6)
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, header)
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.npy", member.getvalue() + b"\0" * 16)
    with pytest.raises(ModelFileError, match=r"claims shape \(1000000, 1000000\), more than"):
        gracr.load(str(path))


def _archive(path: Path, name: str, member: bytes) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}.npy", member)


def _header(array: np.ndarray) -> bytes:  # type: ignore[type-arg]
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, np.lib.format.header_data_from_array_1_0(array))
    return member.getvalue()


@pytest.mark.parametrize("member,message", [
    # numpy reads the header as Python text: a damaged one raises tokenize.TokenError
    (_header(np.array("x")).replace(b"}", b"("), "has a damaged header"),
    (_header(np.zeros(2, dtype=np.float64)) + bytes(16), "is of type float64"),
    (_header(np.zeros(2, dtype="V0")), "is of type"),
])
def test_a_damaged_or_foreign_array_header_is_named(tmp_path: Path, member: bytes,
                                                    message: str) -> None:
    path = tmp_path / "model.npz"
    _archive(path, "metadata", member)
    with pytest.raises(ModelFileError, match=message):
        gracr.load(str(path))


@pytest.mark.parametrize("content,message", [
    (b"", "it is empty"),
    (b"my notes\n", "it is not an .npz archive"),
    (b"\x93NUMPY\x01\x00", "it is a single .npy array"),
])
def test_a_file_that_is_no_archive_says_what_it_is(tmp_path: Path, content: bytes,
                                                   message: str) -> None:
    path = tmp_path / "model.npz"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match=message):
        gracr.load(str(path))


def test_a_save_never_leaves_half_a_file(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = saved.read_bytes()
    model = gracr.compile(gracr.parse("colors red\nclassify <2> red"))

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full_disk)
    with pytest.raises(GracrError, match="No space left on device"):
        model.save(str(saved))
    assert saved.read_bytes() == before and sorted(saved.parent.iterdir()) == [saved]


# ---------------------------------------------------------------- names across namespaces

SHARED = """attribute aromatic = no, yes
relations single, aromatic
classify aromatic=yes & <1>{aromatic} true & atmost{single} 1 aromatic=no
"""


def test_a_family_and_a_relation_of_one_name_load_back(tmp_path: Path) -> None:
    """Colours, families and relations are separate namespaces in the language (every
    SMARTS translation declares `aromatic` as both): what compiles, loads."""
    source = tmp_path / "x.gml"
    source.write_text(SHARED)
    model = tmp_path / "x.npz"
    assert main(["compile", str(source), "-o", str(model)], out=io.StringIO(),
                err=io.StringIO()) == 0
    out, err = io.StringIO(), io.StringIO()
    assert main(["inspect", str(model)], out=out, err=err) == 0, err.getvalue()
    assert "relations: single, aromatic" in out.getvalue()
    loaded = gracr.load(str(model))
    assert loaded.schema == gracr.parse(SHARED).schema


@pytest.mark.parametrize("edit,message", [
    (lambda meta: meta["relations"].append("single"), "relation 'single' is declared twice"),
    (lambda meta: meta["families"][0]["values"].append("no"),
     "value of 'aromatic' 'no' is declared twice"),
    (lambda meta: meta.update(palette=["aromatic", "aromatic"]),
     "colour 'aromatic' is declared twice"),
])
def test_declarations_no_program_could_make_are_refused(tmp_path: Path, edit: Any,
                                                        message: str) -> None:
    """The loader refuses what the parser refuses, and only that (the checksum
    recomputed, so that the declarations themselves are what is checked)."""
    from gracr.compiler.network import checksum

    path = tmp_path / "x.npz"
    gracr.compile(gracr.parse(SHARED)).save(str(path))
    arrays = _arrays(path)
    meta = json.loads(str(arrays.pop("metadata")))
    edit(meta)
    meta["checksum"] = checksum(arrays, meta)
    np.savez(str(path), metadata=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    with pytest.raises(ModelFileError, match=re.escape(message)):
        gracr.load(str(path))


def test_a_numeric_feature_named_as_a_relation_loads_back(tmp_path: Path) -> None:
    program = gracr.parse("features single\nrelations single\nclassify <1>{single} (single > 0)")
    path = str(tmp_path / "x.npz")
    gracr.compile(program).save(path)
    assert gracr.load(path).schema == program.schema


BUNDLED = sorted([*(ROOT / "gracr" / "formulas").rglob("*.gml"),
                  *(ROOT / "examples").rglob("*.gml")])


def test_the_bundled_programs_are_found() -> None:
    assert len(BUNDLED) >= 20 and ROOT / "gracr/formulas/wombat/P06.gml" in BUNDLED


@pytest.mark.parametrize("source", BUNDLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_program_compiles_saves_and_loads(source: Path, tmp_path: Path) -> None:
    program = gracr.parse(source)
    model = gracr.compile(program, max_degree=4)  # Eq. 6's bound, for those that compare
    path = str(tmp_path / "model.npz")
    model.save(path)
    loaded = gracr.load(path)
    assert loaded.metadata() == model.metadata()
    assert loaded.schema == program.schema


@st.composite
def _typed_programs(draw: st.DrawFn) -> tuple[Schema, Formula]:
    schema = draw(shared_name_schemas())
    formula = draw(typed_node_formulas(schema, 2, top=True))
    if draw(st.booleans()):
        formula = ir.Exists(draw(st.integers(0, 2)), draw(st.sampled_from([None, 3])), formula)
    return schema, formula


@given(drawn=_typed_programs(), options=st.fixed_dictionaries({
    "disjunction": st.sampled_from(["demorgan", "flat"]),
    "comparison": st.sampled_from(["expanded", "direct"]),
    "presence": st.booleans()}), data=st.data())
@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_typed_programs_round_trip_through_their_model_files(
        drawn: tuple[Schema, Formula], options: dict[str, Any], data: st.DataObject) -> None:
    """Compile -> save -> load gives the same metadata, the same weights and the same
    outputs, over typed programs whose colours, families and relations share names."""
    schema, formula = drawn
    program = typed_program_for(schema, formula)
    model = gracr.compile(program, max_degree=4, **options)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        model.save(path)
        loaded = gracr.load(path)
    assert loaded.metadata() == model.metadata()
    assert loaded.arrays().keys() == model.arrays().keys()
    for name, array in model.arrays().items():
        assert np.array_equal(loaded.arrays()[name], array), name
    for graph in data.draw(st.lists(typed_graphs(schema), min_size=1, max_size=3)):
        assert np.array_equal(
            loaded.forward(loaded.features(graph), graph.edge_index,
                           edge_type=loaded.edge_types(graph)),
            model.forward(model.features(graph), graph.edge_index,
                          edge_type=model.edge_types(graph)))


# ---------------------------------------------------------------- inflated sizes


def _zeros_archive(path: Path, **sizes: int) -> None:
    """A small deflated archive whose members inflate to `sizes` bytes of float32 zeros."""
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, size in sizes.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.zeros(size // 4, dtype=np.float32))
            archive.writestr(f"{name}.npy", member.getvalue())


def test_an_archive_inflating_past_the_budget_is_refused_unread_naming_its_largest_member(
        tmp_path: Path) -> None:
    path = tmp_path / "bomb.npz"
    _zeros_archive(path, input_bias=4096, input_matrix=40 * 2**20)
    assert path.stat().st_size < 2**20
    with pytest.raises(ModelFileError, match=r"would take 40 MiB inflated \(the largest, "
                                             r"'input_matrix.npy', 40 MiB\), over "
                                             r"--max-weights-bytes 8 MiB"):
        gracr.load(str(path), max_bytes=8 * 2**20)


def test_reading_an_archive_holds_its_inflated_bytes_once_within_the_budget(
        tmp_path: Path) -> None:
    """An archive within the budget takes the budget's memory, not twice it: each member
    inflates straight into its array."""
    import tracemalloc

    path = tmp_path / "bomb.npz"
    _zeros_archive(path, input_matrix=24 * 2**20)
    budget = 32 * 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match="no JSON metadata"):
            gracr.load(str(path), max_bytes=budget)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= budget, f"reading took {peak} bytes at its peak, over the {budget} budget"


def test_an_array_the_memory_cannot_hold_is_a_model_file_error(
        saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(np, "empty", no_memory)
    with pytest.raises(ModelFileError, match=r"not enough memory for array '\w+' \(the archive "
                                             r"declares [\d.]+ \w+ inflated\)"):
        gracr.load(str(saved))
