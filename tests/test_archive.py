"""The append-only archive that carries a results file's records to a fresh machine."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from gracr.bench.archive import archived, pack, packs, unpack
from gracr.bench.record import read_records
from gracr.errors import GracrError


def line(instance: int, status: str = "ok", f1: float = 0.5, seed: int = 0) -> str:
    ok = status == "ok"
    return json.dumps({
        "task": "P01", "variant": "max", "explainer": "Saliency", "config": {"abs": True},
        "config_hash": "ab12cd34", "seed": seed, "instance": instance, "graph": instance,
        "target": None, "status": status, "error": None if ok else "RuntimeError: boom",
        "precision": f1 if ok else None, "recall": f1 if ok else None,
        "f1": f1 if ok else None, "threshold": 0.5 if ok else None, "upi_edges": 3,
        "edges": 20, "cpu_seconds": 0.25, "wall_seconds": 0.5, "gracr_version": "0.1.0",
        "level": "node", "sample": "positive", "auroc": 0.75, "average_precision": 0.625,
        "uniform": None}) + "\n"


def results(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"gracr-results":3}\n' + "".join(lines), encoding="utf-8")
    return path


def keyed(path: Path) -> dict[tuple[object, ...], tuple[str, float | None]]:
    """The latest (status, f1) of every instance of a results file."""
    return {(r.seed, r.instance): (r.status, r.f1) for r in read_records(path)}


def test_packs_hold_each_latest_record_once_and_only_what_is_new(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    source = results(tmp_path / "a" / "results.jsonl",
                     [line(0, "error"), line(1, f1=0.25), line(0, f1=0.75)])
    first = pack(source, archive)
    assert first is not None and first.name == "0001.jsonl.xz"
    # The error of instance 0 was replaced by its retry: one record per key.
    assert {k[-1]: (r.status, r.f1) for k, r in archived(archive).items()} == {
        0: ("ok", 0.75), 1: ("ok", 0.25)}
    assert pack(source, archive) is None                       # nothing new: no pack
    with open(source, "a", encoding="utf-8") as sink:          # one new, one redone
        sink.write(line(2, f1=1.0) + line(1, f1=0.5))
    second = pack(source, archive)
    assert second is not None and second.name == "0002.jsonl.xz"
    text = lzma.decompress(second.read_bytes()).decode().splitlines()
    assert text[0] == '{"gracr-results":3}' and len(text) == 3
    assert {k[-1]: r.f1 for k, r in archived(archive).items()} == {0: 0.75, 1: 0.5, 2: 1.0}
    assert [path.name for path in packs(archive)] == ["0001.jsonl.xz", "0002.jsonl.xz"]


def test_unpack_fills_a_new_file_and_keeps_a_files_own_records(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    pack(results(tmp_path / "a" / "results.jsonl", [line(0, f1=0.75), line(1, f1=0.25)]),
         archive)
    fresh = tmp_path / "fresh" / "results.jsonl"
    assert unpack(archive, fresh) == 2
    assert fresh.read_text().splitlines()[0] == '{"gracr-results":3}'
    assert keyed(fresh) == {(0, 0): ("ok", 0.75), (0, 1): ("ok", 0.25)}
    assert unpack(archive, fresh) == 0                         # a second unpack adds nothing
    # A file that already explained instance 1 (another result) keeps its own record.
    own = results(tmp_path / "own" / "results.jsonl", [line(1, f1=1.0)])
    assert unpack(archive, own) == 1
    assert keyed(own) == {(0, 1): ("ok", 1.0), (0, 0): ("ok", 0.75)}
    assert unpack(tmp_path / "none", tmp_path / "x" / "results.jsonl") == 0


def test_a_damaged_or_missing_pack_is_named(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    source = results(tmp_path / "a" / "results.jsonl", [line(0)])
    pack(source, archive)
    with open(source, "a", encoding="utf-8") as sink:
        sink.write(line(1))
    pack(source, archive)
    (archive / "0001.jsonl.xz").write_bytes(b"not xz")
    with pytest.raises(GracrError, match="0001.jsonl.xz: not an xz-compressed"):
        archived(archive)
    (archive / "0001.jsonl.xz").unlink()
    with pytest.raises(GracrError, match="not numbered 1 to 1"):
        archived(archive)
    (archive / "7.jsonl.xz").write_bytes(b"")
    with pytest.raises(GracrError, match="7.jsonl.xz: a pack's name"):
        packs(archive)
