"""Model files: format 3 checksums format 2, which records families, relations, presence and
per-layer aggregations; files of formats 1 and 2 still load and run as compiled today."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.errors import ModelFileError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TYPED = """colors marked
attribute element = C, N, O
relations single, double
classify element=C & <1>{double} element=O & atmost{single} 1 true & []{double} !marked
"""


@pytest.mark.parametrize("name,formula,options", [
    ("CompetingRedundancy-format1.npz", "formulas/CompetingRedundancy.gml", {}),
    ("Majority1Hop-direct-format1.npz", "formulas/Majority1Hop.gml", {"comparison": "direct"}),
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
    assert meta["format_version"] == 3
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
