"""A tissue study carried to a fresh folder through its archive
(`gracr.domains.tissue.study_archive`): packed after a first part, unpacked into an empty
folder (the data made again and checked), and resumed with a larger test limit, it
explains nothing again and reports what a study run straight through reports; the
archived records hold no raw scores but those of the samples the figures draw. A damaged
pack, data other than the archive's, and an archive of another study are refused, naming
the file."""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from gracr.bench.record import Record, read_records
from gracr.bench.study import Execution
from gracr.errors import GracrError
from gracr.domains.tissue.phases import StudySettings, prepare_data
from gracr.domains.tissue.study import TissueStudy
from gracr.domains.tissue.study_archive import pack_study, unpack_study
from gracr.domains.tissue.study_report import drawn_samples
from gracr.domains.tissue.trained import TrainingSettings

# Big: three small studies (the CI stage `-m big`).
pytestmark = pytest.mark.big

# Dataset seed 11: a task name ('Tissue-11-r1-test') no other test module's data use.
PART = StudySettings(samples=30, cells=60, seed=11, ratios=(1.0,), model_seeds=(0,),
                     test_limit=1, explainers=("Saliency", "GNNExplainer"), epochs=(5,),
                     budget=60.0, hidden=8, layers=1,
                     training=TrainingSettings(max_epochs=2, patience=1, batch_size=8))
WHOLE = replace(PART, test_limit=2)


def run_study(folder: Path, settings: StudySettings) -> Path:
    return TissueStudy(folder, settings, Execution(progress=False)).run()


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A study run straight through; its first part, packed; the archive unpacked into a
    fresh folder before the study resumed there with the larger test limit."""
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("archive")
    straight = run_study(root / "straight", WHOLE)
    part = run_study(root / "part", PART)
    pack_study(part, root / "archive")
    unpack_study(root / "archive", root / "resumed")
    unpacked = (root / "resumed" / "attributions" / "results.jsonl").read_text()
    resumed = run_study(root / "resumed", WHOLE)
    (root / "unpacked.jsonl").write_text(unpacked)
    return {"straight": straight, "part": part, "archive": root / "archive",
            "resumed": resumed, "unpacked": root / "unpacked.jsonl"}


def tables(folder: Path) -> dict[str, list[dict[str, str]]]:
    """Every table of the report, as rows (the training table without its seconds), but
    the cost table: what each run spent, which a resumed run spends differently."""
    found = {}
    for path in sorted((folder / "tables").glob("*.csv")):
        if path.stem == "cost":
            continue
        with open(path, encoding="utf-8") as table:
            found[path.stem] = [{k: v for k, v in row.items() if k != "seconds"}
                                for row in csv.DictReader(table)]
    return found


def test_the_resumed_study_reports_what_the_straight_one_does(
        folders: dict[str, Path]) -> None:
    straight, resumed = tables(folders["straight"]), tables(folders["resumed"])
    assert set(straight) >= {"metric-ap", "randomisation", "epochs", "seeds", "headlines"}
    assert resumed == straight
    assert any(row["n"] == "4" for row in straight["randomisation"])   # both parts paired

    def metrics(folder: Path) -> list[str]:
        return sorted((folder / "metrics.jsonl").read_text().splitlines())

    assert metrics(folders["resumed"]) == metrics(folders["straight"])


def test_unpacked_records_are_not_explained_again(folders: dict[str, Path]) -> None:
    results = folders["resumed"] / "attributions" / "results.jsonl"
    assert results.read_text().startswith(folders["unpacked"].read_text())
    keys = Counter(r.key for r in read_records(results))
    assert keys and max(keys.values()) == 1
    part = {r.key for r in read_records(folders["part"] / "attributions" / "results.jsonl")}
    assert part < set(keys)
    assert set(keys) == {r.key for r in read_records(
        folders["straight"] / "attributions" / "results.jsonl")}


def test_archived_records_keep_scores_only_where_the_figures_draw(
        folders: dict[str, Path]) -> None:
    records = [r for r in read_records(folders["unpacked"]) if r.status == "ok"]
    drawn = set(drawn_samples(prepare_data(folders["resumed"], PART)))
    kept = [r for r in records if r.extra["scores"] is not None]
    assert kept and {r.graph for r in kept} <= drawn
    assert all("~" not in r.variant for r in kept)   # no randomised copy keeps them
    assert sum(r.extra["scores"] is None for r in records) > len(kept)
    figures = {p.name for p in (folders["straight"] / "figures").iterdir()}
    assert figures and {p.name for p in (folders["resumed"] / "figures").iterdir()} == figures


def test_packing_again_adds_only_what_is_new(folders: dict[str, Path],
                                             tmp_path: Path) -> None:
    archive = Path(shutil.copytree(folders["archive"], tmp_path / "archive"))
    assert pack_study(folders["part"], archive).written == ()
    written = pack_study(folders["resumed"], archive).written
    assert archive / "records" / "0002.jsonl.xz" in written
    assert (archive / "records" / "0001.jsonl.xz").read_bytes() == (
        folders["archive"] / "records" / "0001.jsonl.xz").read_bytes()
    assert json.loads((archive / "settings.json").read_text())["test_limit"] == 2
    moved = unpack_study(archive, folders["resumed"])
    assert (moved.records, moved.lines, moved.models) == (0, 0, 0)


def test_a_damaged_pack_is_refused_naming_it(folders: dict[str, Path],
                                             tmp_path: Path) -> None:
    archive = Path(shutil.copytree(folders["archive"], tmp_path / "archive"))
    pack = archive / "records" / "0001.jsonl.xz"
    pack.write_bytes(pack.read_bytes()[:200])
    with pytest.raises(GracrError, match=f"{pack}: not an xz-compressed"):
        unpack_study(archive, tmp_path / "study")
    assert not (tmp_path / "study").exists()   # refused before anything was written


def test_other_data_are_refused_naming_the_file(folders: dict[str, Path],
                                                tmp_path: Path) -> None:
    archive = Path(shutil.copytree(folders["archive"], tmp_path / "archive"))
    fingerprint = archive / "data.sha256"
    lines = fingerprint.read_text().splitlines()
    name = lines[0].split("  ")[1]
    fingerprint.write_text("\n".join(["0" * 64 + "  " + name, *lines[1:]]) + "\n")
    study = tmp_path / "study"
    with pytest.raises(GracrError, match=f"{study / name}: not the data the archive's"):
        unpack_study(archive, study)
    assert not (study / "attributions").exists()   # nothing of the archive taken
    with pytest.raises(GracrError, match=f"{folders['part'] / name}: not the file"):
        pack_study(folders["part"], archive)


def test_an_archive_of_other_settings_is_refused(folders: dict[str, Path],
                                                 tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "settings.json").write_text(json.dumps(replace(PART, hidden=9).to_json()))
    with pytest.raises(GracrError, match="other settings"):
        unpack_study(folders["archive"], other)


def test_a_record_explained_again_is_scored_again(folders: dict[str, Path],
                                                  tmp_path: Path) -> None:
    """A kept row is the record's only while its scores are the same (their digest)."""
    from gracr.bench.record import write_record
    from gracr.domains.tissue.study_report import read_rows

    folder = Path(shutil.copytree(folders["straight"], tmp_path / "study"))
    results = folder / "attributions" / "results.jsonl"
    before = read_rows(folder)
    record = next(r for r in read_records(results) if r.status == "ok"
                  and r.key in before and before[r.key]["ρ Shapley"] not in (None, 0.0))
    with open(results, "a", encoding="utf-8") as sink:   # explained again: other scores
        write_record(sink, replace(record, extra={
            **record.extra, "scores": [-v for v in record.extra["scores"]]}))
    run_study(folder, WHOLE)
    after = read_rows(folder)[record.key]
    assert after["digest"] != before[record.key]["digest"]
    assert after["ρ Shapley"] == pytest.approx(-before[record.key]["ρ Shapley"])


def test_an_archive_holding_what_the_folder_replaced_is_refused(folders: dict[str, Path],
                                                               tmp_path: Path) -> None:
    """Records the folder no longer holds (set aside by `--replace-stale`), or a model
    file the folder holds other bytes of (trained again), would come back on unpack: the
    pack stops, naming the archive, and writes nothing."""
    for change in ("records", "model"):
        archive = Path(shutil.copytree(folders["archive"], tmp_path / change / "archive"))
        folder = Path(shutil.copytree(folders["resumed"], tmp_path / change / "study"))
        if change == "records":
            results = folder / "attributions" / "results.jsonl"
            header, *lines = results.read_text().splitlines(keepends=True)
            gone = [line for line in lines if '"GIN-r1-s0"' in line]
            results.write_text(header + "".join(line for line in lines if line not in gone))
            assert gone
            message = (re.escape(f"{archive}: holds ") + r"\d+" +
                       re.escape(f" records that {results} no longer holds"))
        else:
            model = folder / "models" / "GIN-r1-s0.pt"
            model.write_bytes(model.read_bytes() + b"\0")
            message = re.escape(f"{archive}: holds another GIN-r1-s0.pt than "
                                f"{folder / 'models'}")
        before = sorted(p.relative_to(archive) for p in archive.rglob("*"))
        with pytest.raises(GracrError, match=message + ".*new, empty archive"):
            pack_study(folder, archive)
        assert sorted(p.relative_to(archive) for p in archive.rglob("*")) == before


def test_an_unpack_leaves_out_the_records_the_folder_set_aside(folders: dict[str, Path],
                                                              tmp_path: Path) -> None:
    """An archive packed before a model was trained again still holds its old records:
    unpacked into the folder that set them aside, they stay out."""
    from gracr.domains.tissue.phases import set_aside_explained

    folder = Path(shutil.copytree(folders["resumed"], tmp_path / "study"))
    results = folder / "attributions" / "results.jsonl"
    set_aside_explained(folder, ["GIN-r1-s0"], replace_stale=True)
    left = results.read_bytes()
    assert b'"GIN-r1-s0"' in (folder / "attributions" / "replaced.jsonl").read_bytes()
    assert b'"GIN-r1-s0"' not in left
    assert unpack_study(folders["archive"], folder).records == 0
    assert results.read_bytes() == left


def test_copies_explained_after_their_base_was_unpacked_are_paired(
        folders: dict[str, Path], tmp_path: Path) -> None:
    """A session ends after the models' explanations and before their randomised copies':
    the pack strips the models' scores, so the next folder, unpacking them, explains the
    copies against records without scores. The study explains those records again, and
    reports what the study run straight through reports (every copy paired)."""
    from gracr.domains.tissue.study_pairs import AGAIN, keep_again

    part = Path(shutil.copytree(folders["straight"], tmp_path / "part"))
    results = part / "attributions" / "results.jsonl"
    header, *lines = results.read_text().splitlines(keepends=True)
    copies = [line for line in lines if '~' in json.loads(line)["variant"]]
    results.write_text(header + "".join(line for line in lines if line not in copies))
    (part / "rows.jsonl").unlink()   # the stopped run had scored no copy
    assert copies
    pack_study(part, tmp_path / "archive")
    unpack_study(tmp_path / "archive", tmp_path / "resumed")
    unpacked = [r for r in read_records(tmp_path / "resumed" / "attributions" /
                                        "results.jsonl") if r.status == "ok"]
    assert any(r.extra["scores"] is None for r in unpacked)   # all but the drawn samples'
    resumed = run_study(tmp_path / "resumed", WHOLE)
    assert not (resumed / "attributions" / AGAIN).exists()
    assert tables(resumed)["randomisation"] == tables(folders["straight"])["randomisation"]
    assert tables(resumed) == tables(folders["straight"])
    # Each record without scores that a copy is paired with was explained again, and
    # only those.
    bases = {(key[0], key[1].split("~")[0], *key[2:]) for key in (
        Record.from_json(json.loads(line), "copy").key for line in copies)}
    again = Counter(r.key for r in read_records(resumed / "attributions" / "results.jsonl"))
    assert {key for key, count in again.items() if count == 2} == {
        r.key for r in unpacked if r.extra["scores"] is None and r.key in bases} != set()
    # After a crash before the folder's removal the next call keeps nothing twice.
    (resumed / "attributions" / AGAIN).mkdir()
    shutil.copy(resumed / "attributions" / "results.jsonl",
                resumed / "attributions" / AGAIN / "results.jsonl")
    assert keep_again(resumed) == 0 and not (resumed / "attributions" / AGAIN).exists()
