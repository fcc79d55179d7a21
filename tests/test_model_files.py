"""Model files: format 3 checksums format 2, which records families, relations, presence and
per-layer aggregations; files of formats 1 and 2 still load and run as compiled today."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.errors import GracrError, ModelFileError

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
    new = gracr.compile(gracr.parse_file(formula), **options)  # type: ignore[arg-type]
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
    assert loaded.predict(graph).tolist() == program.evaluate(graph).tolist() == [True, False, False]


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
    program = gracr.parse(TYPED) if formula is None else gracr.parse_file(formula)
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
