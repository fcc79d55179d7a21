"""`gracrc tissue-study` end to end on a tiny study (small fields, few epochs, two test
samples per class): every phase writes its output, the runner's records carry each
explanation's raw scores, the tables hold the compiled model, a trained one, the
baselines and the randomised copies, the report keeps every record's metrics, a rerun
resumes without redoing anything, other settings in the same folder are refused, a larger
test limit adds samples (a smaller one reports fewer), and on Ray the study gets the
process pool's attributions."""

from __future__ import annotations

import csv
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# Big: every test here runs benches, studies or Ray sessions (the CI stage `-m big`).
pytestmark = pytest.mark.big
import torch

from gracr.bench.record import Record, read_records, start_results, write_record
from gracr.bench.study import Execution
from gracr.bench.runner import Engine
from gracr.errors import GracrError
from gracr.domains.tissue.phases import StudySettings
from gracr.domains.tissue.study import TissueStudy
from gracr.domains.tissue.trained import TrainingSettings

TINY = StudySettings(samples=16, cells=60, seed=3, ratios=(1.0, 2.0), model_seeds=(0,),
                     test_limit=1, explainers=("Saliency", "GNNExplainer"), epochs=(5, 10),
                     budget=60.0, hidden=8, layers=2,
                     training=TrainingSettings(max_epochs=3, patience=2, batch_size=8))


def run_study(folder: Path, settings: StudySettings, workers: int = 1,
              engine: Engine = "process") -> Path:
    return TissueStudy(folder, settings, Execution(workers=workers, engine=engine,
                                                   progress=False)).run()


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("study")
    return run_study(root, TINY)


def test_every_phase_writes_its_output(study: Path) -> None:
    assert (study / "data" / "split.json").exists()
    split = json.loads((study / "data" / "split.json").read_text())
    truth = [json.loads(line) for line in (study / "truth.jsonl").read_text().splitlines()]
    # The ground truth of the explained test samples only: a positive and a negative.
    assert 1 <= len(truth) <= 2 * TINY.test_limit <= len(split["test"])
    assert {t["label"] for t in truth} <= {0, 1} and len({t["sample"] for t in truth}) == len(truth)
    models = {p.name for p in (study / "models").iterdir()}
    assert {"compiled.npz", "GIN-r1-s0.json", "GATv2-r2-s0.json", "GIN-r1-s0-shuffled.json",
            "GATv2-r1-s0-untrained.json"} <= models
    randomised = {p.name for p in (study / "models" / "randomised").iterdir()}
    assert any(name.startswith("compiled~cascading~top-") for name in randomised)
    assert any(name.startswith("GIN-r1-s0~independent~") for name in randomised)
    for table in ("metric-ap", "metric-auroc", "metric-spearman-shapley", "metric-spearman-banzhaf",
                  "metric-decoy-mass", "metric-deletion", "metric-insertion", "seeds",
                  "randomisation", "epochs", "between_class", "training", "probes",
                  "headlines"):
        assert (study / "tables" / f"{table}.md").exists(), table
        assert (study / "tables" / f"{table}.csv").exists(), table


def test_records_keep_raw_scores_of_every_model_kind(study: Path) -> None:
    records = list(read_records(study / "attributions" / "results.jsonl"))
    assert records and all(not r.scored for r in records)
    variants = {r.variant for r in records}
    assert {"compiled", "GIN-r1-s0", "GATv2-r1-s0"} <= variants
    assert any("~cascading~" in v for v in variants)
    explainers = {r.explainer for r in records}
    assert {"Saliency", "GNNExplainer", "Marker", "NearestT", "AttentionRollout"} <= explainers
    ok = [r for r in records if r.status == "ok"]
    assert len(ok) >= 0.9 * len(records)
    assert all(len(r.extra["scores"]) > 0 for r in ok)
    assert {r.config.get("epochs") for r in records if r.explainer == "GNNExplainer"} >= {5, 10}


def test_the_metrics_table_names_models_and_explainers(study: Path) -> None:
    text = (study / "tables" / "metric-ap.md").read_text()
    for name in ("compiled", "GIN-r1-s0", "GATv2-r1-s0", "Marker", "Saliency"):
        assert name in text


def test_a_rerun_resumes_and_other_settings_are_refused(study: Path) -> None:
    results = study / "attributions" / "results.jsonl"
    before = results.read_text()
    run_study(study, TINY)
    assert results.read_text() == before
    with pytest.raises(GracrError, match="other settings"):
        run_study(study, StudySettings(samples=17, cells=60, seed=3))


def test_the_report_keeps_every_records_metrics(study: Path) -> None:
    lines = [json.loads(line) for line in (study / "metrics.jsonl").read_text().splitlines()]
    scored = [r for r in read_records(study / "attributions" / "results.jsonl")
              if r.status == "ok"]
    assert len(lines) == len({(r.variant, r.explainer, r.config_hash, r.graph)
                              for r in scored})
    assert any(line["randomised"] for line in lines) and any(line["default"] for line in lines)
    assert {"AP", "ρ Shapley", "decoy mass", "deletion AUC"} <= set(lines[0])
    assert "scores" not in lines[0]


def copy_study(study: Path, to: Path, attributions: bool) -> Path:
    """The study's folder without its report (and without its explanations unless
    `attributions`)."""
    skipped = {"tables", "figures", "metrics.jsonl"} | (set() if attributions
                                                          else {"attributions", "store"})
    return Path(shutil.copytree(study, to, ignore=lambda folder, names: [
        n for n in names if Path(folder) == study and n in skipped]))


def test_a_larger_test_limit_adds_samples_and_a_smaller_one_reports_fewer(
        study: Path, tmp_path: Path) -> None:
    from gracr.domains.tissue.phases import explained_positions, prepare_data

    grown = copy_study(study, tmp_path / "grown", attributions=True)
    before = (grown / "attributions" / "results.jsonl").read_text()
    first = {line["sample"] for line in map(json.loads, (study / "metrics.jsonl")
                                            .read_text().splitlines())}
    run_study(grown, replace(TINY, test_limit=2))
    after = (grown / "attributions" / "results.jsonl").read_text()
    assert after.startswith(before)   # the first samples' records kept, not redone
    data = prepare_data(grown, TINY)
    wanted = explained_positions(data, 2)
    truth = (grown / "truth.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["sample"] for line in truth) == wanted
    reported = {line["sample"] for line in map(json.loads, (grown / "metrics.jsonl")
                                               .read_text().splitlines())}
    assert reported == set(wanted) and first <= reported
    run_study(grown, TINY)   # back to one per class: reported, not redone
    assert (grown / "attributions" / "results.jsonl").read_text() == after
    again = {line["sample"] for line in map(json.loads, (grown / "metrics.jsonl")
                                            .read_text().splitlines())}
    assert again == first


def test_on_ray_the_study_gets_the_process_pools_attributions(study: Path,
                                                              tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    on_ray = copy_study(study, tmp_path / "ray", attributions=False)
    run_study(on_ray, TINY, workers=2, engine="ray")
    assert not ray.is_initialized()   # started and stopped by the run

    def explained(folder: Path) -> dict[tuple[object, ...], list[float]]:
        return {(r.variant, r.explainer, r.config_hash, r.graph): r.extra["scores"]
                for r in read_records(folder / "attributions" / "results.jsonl")
                if r.status == "ok"}

    pool, ray_run = explained(study), explained(on_ray)
    assert set(ray_run) == set(pool)
    deterministic = ("Saliency", "Marker", "NearestT", "TDensity", "Degree")
    compared = [key for key in pool if key[1] in deterministic]
    assert len(compared) >= 10
    for key in compared:
        assert np.allclose(ray_run[key], pool[key]), key
    assert (on_ray / "tables" / "metric-ap.md").exists()


def test_attributions_that_read_the_model_change_when_it_is_randomised(study: Path) -> None:
    with open(study / "tables" / "randomisation.csv", encoding="utf-8") as table:
        rows = list(csv.DictReader(table))
    assert rows and all(re.fullmatch(r"\d+/\d+", row["changed"]) for row in rows)
    saliency = [row for row in rows if row["explainer"] == "Saliency"
                and row["model"] != "compiled" and int(row["n"]) > 0]
    assert saliency
    for row in saliency:   # gradients of a re-initialised network are other gradients
        changed, n = map(int, row["changed"].split("/"))
        assert changed == n, row


# --- resuming from what is complete: cut files and a run stopped between two writes -----

PHASES = replace(TINY, ratios=(1.0,), explainers=("Saliency",), epochs=(), layers=1,
                 training=TrainingSettings(max_epochs=1, patience=1, batch_size=8))


def prepare_phases(root: Path, settings: StudySettings = PHASES) -> None:
    """Phases 1–3 (data, ground truth, models) of `settings` into `root`, as a run does."""
    from gracr.domains.tissue.phases import (explained_positions, prepare_data, prepare_models,
                                     prepare_truth)

    data = prepare_data(root, settings)
    prepare_truth(root, data, explained_positions(data, settings.test_limit), lambda _: None)
    prepare_models(root, settings, data, lambda _: None)


@pytest.fixture(scope="module")
def phases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("phases")
    (root / "settings.json").write_text(json.dumps(PHASES.to_json()))
    prepare_phases(root)
    return root


def cut_last_line(path: Path) -> str:
    """Cut `path`'s last line in half (what a run killed while appending it leaves);
    returns the line."""
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][:len(lines[-1]) // 2])
    return lines[-1]


def test_cut_logs_are_read_to_their_last_whole_line_and_the_rest_redone(
        phases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    truth, probes = folder / "truth.jsonl", folder / "models" / "probes.jsonl"
    whole = {path: path.read_text() for path in (truth, probes)}
    cut_last_line(truth)
    cut_last_line(probes)   # the compiled model's probe, the last one written
    prepare_phases(folder)
    err = capsys.readouterr().err
    assert f"{truth}:" in err and f"{probes}:" in err and "cut" in err
    def records(text: str) -> list[dict[str, object]]:
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
                for line in text.splitlines()]

    for path, text in whole.items():   # the cut line dropped, its record made again
        assert records(path.read_text()) == records(text), path


def test_a_model_whose_probe_is_missing_is_probed_on_resume(phases: Path,
                                                            tmp_path: Path) -> None:
    """A run killed between saving a model and appending its probe."""
    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    probes, training = folder / "models" / "probes.jsonl", folder / "models" / "training.jsonl"
    rows = [json.loads(line) for line in probes.read_text().splitlines()]
    probes.write_text("".join(json.dumps(row) + "\n" for row in rows
                              if row["model"] != "GIN-r1-s0"))
    trained = training.read_text()
    prepare_phases(folder)
    assert "GIN-r1-s0" in {json.loads(line)["model"] for line in probes.read_text().splitlines()}
    assert training.read_text() == trained   # probed, not trained again


def test_a_damaged_model_file_is_trained_again(phases: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from gracr.domains.tissue.trained import load_model

    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    weights = folder / "models" / "GIN-r1-s0-shuffled.pt"
    weights.write_bytes(weights.read_bytes()[:100])
    prepare_phases(folder)
    assert f"{weights}: cannot read the model's weights" in capsys.readouterr().err
    load_model(weights)



def with_other_cnn_settings(folder: Path, **changes: object) -> Path:
    """Rewrite the first CNN's model file as an earlier design's (its weights stay: the
    shapes do not depend on the pixel size); returns its settings file."""
    meta_path = folder / "models" / "CNN-image-s0.json"
    meta = json.loads(meta_path.read_text())
    meta["settings"].update(changes)
    meta_path.write_text(json.dumps(meta))
    return meta_path


def test_a_model_made_with_other_settings_is_trained_again(
        phases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gracr.domains.tissue.phases import CNN_PIXEL_UM, models_complete
    from gracr.domains.tissue.trained import load_model

    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    assert models_complete(folder, PHASES)
    meta_path = with_other_cnn_settings(folder, pixel_um=CNN_PIXEL_UM / 2)
    assert not models_complete(folder, PHASES)   # so the study runs phase 3 again
    training = folder / "models" / "training.jsonl"
    before = len(training.read_text().splitlines())
    prepare_phases(folder)
    assert (f"{meta_path}: made with other settings (pixel_um {CNN_PIXEL_UM / 2!r}, not "
            f"{CNN_PIXEL_UM!r}); training it again") in capsys.readouterr().err
    assert load_model(meta_path).settings.pixel_um == CNN_PIXEL_UM
    lines = [json.loads(line) for line in training.read_text().splitlines()]
    assert len(lines) == before + 1 and lines[-1]["model"] == "CNN-image-s0"
    # Each architecture trains at its own learning rate, and its line says which: GIN
    # and the CNN at 1e-3, GATv2 at the settings' 1e-2.
    assert PHASES.training.learning_rate == 0.01
    rates = {line["model"]: line["learning_rate"] for line in lines if not line.get("untrained")}
    assert rates == {"GIN-r1-s0": 0.001, "GIN-r1-s0-shuffled": 0.001, "GATv2-r1-s0": 0.01,
                     "GATv2-r1-s0-shuffled": 0.01, "CNN-image-s0": 0.001}
    assert models_complete(folder, PHASES)


def test_a_model_logged_at_another_learning_rate_is_trained_again(
        phases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A training line without a learning rate (written before the lines carried it) is
    read as the 1e-2 every model then trained at: the models whose architecture now trains
    at another rate (GIN, the CNN) are trained again, GATv2's are kept."""
    from gracr.domains.tissue.phases import models_complete

    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    training = folder / "models" / "training.jsonl"
    old = [{key: value for key, value in json.loads(line).items() if key != "learning_rate"}
           for line in training.read_text().splitlines()]
    training.write_text("".join(json.dumps(line) + "\n" for line in old))
    assert not models_complete(folder, PHASES)
    prepare_phases(folder)
    err = capsys.readouterr().err
    again = sorted(re.findall(r"models/([^/ ]+)\.json: made with other settings \(learning "
                              r"rate 0\.01, not 0\.001\); training it again", err))
    assert again == ["CNN-image-s0", "GIN-r1-s0", "GIN-r1-s0-shuffled"]
    added = [json.loads(line) for line in training.read_text().splitlines()][len(old):]
    assert sorted(line["model"] for line in added) == again
    assert all(line["learning_rate"] == 0.001 for line in added)
    assert models_complete(folder, PHASES)


def explained_record(variant: str) -> Record:
    return Record("Tissue-3-image-test", variant, "Saliency", {}, "h", 3, 0, 0, None, "ok",
                  None, None, None, None, None, 0, 0, 0.1, 0.1, "test", level="node",
                  sample="negative", uniform=False)


def with_records(folder: Path, variants: list[str]) -> Path:
    records = folder / "attributions" / "results.jsonl"
    records.parent.mkdir()
    start_results(records)
    with open(records, "a", encoding="utf-8") as sink:
        for variant in variants:
            write_record(sink, explained_record(variant))
    return records


def test_replace_stale_sets_the_stale_models_records_aside_and_trains_it_again(
        phases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The records of the model made with other settings and of its randomised copies
    move to `replaced.jsonl`; another model's records stay, one whose name only begins
    with the stale one's (a control) too."""
    from gracr.domains.tissue.phases import CNN_PIXEL_UM, prepare_data, prepare_models
    from gracr.domains.tissue.trained import load_model

    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    meta_path = with_other_cnn_settings(folder, pixel_um=CNN_PIXEL_UM / 2)
    variants = ["CNN-image-s0", "GIN-r1-s0", "CNN-image-s0~cascading~top-1",
                "CNN-image-s0-shuffled"]
    records = with_records(folder, variants)
    prepare_models(folder, PHASES, prepare_data(folder, PHASES), lambda _: None,
                   replace_stale=True)
    assert [r.variant for r in read_records(records)] == ["GIN-r1-s0", "CNN-image-s0-shuffled"]
    aside = folder / "attributions" / "replaced.jsonl"
    assert [r.variant for r in read_records(aside)] == ["CNN-image-s0",
                                                       "CNN-image-s0~cascading~top-1"]
    assert (f"{records}: the explanations of CNN-image-s0 and their copies (2 records) "
            f"moved to {aside}; training them again") in capsys.readouterr().err
    assert load_model(meta_path).settings.pixel_um == CNN_PIXEL_UM


def test_a_model_made_with_other_settings_and_explained_stops_the_study(
        phases: Path, tmp_path: Path) -> None:
    """Its records were made on the model a new training would replace: the folder
    cannot go on, and nothing in it is changed."""
    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    from gracr.domains.tissue.phases import CNN_PIXEL_UM

    meta_path = with_other_cnn_settings(folder, pixel_um=CNN_PIXEL_UM / 2)
    records = with_records(folder, ["CNN-image-s0"])
    settings_before, records_before = meta_path.read_text(), records.read_bytes()
    with pytest.raises(GracrError, match=r"results\.jsonl: holds explanations of "
                                         r"CNN-image-s0 or of their randomised copies \(1 "
                                         r"records\), whose model files were made with other "
                                         r"settings .* --replace-stale"):
        prepare_phases(folder)
    assert meta_path.read_text() == settings_before
    assert records.read_bytes() == records_before
    assert not (folder / "attributions" / "replaced.jsonl").exists()


def test_cut_data_files_are_made_again(phases: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from gracr.domains.tissue.phases import prepare_data

    for name in ("split.json", "cells.jsonl"):
        folder = Path(shutil.copytree(phases, tmp_path / name))
        path = folder / "data" / name
        whole = path.read_text()
        path.write_text(whole[:len(whole) // 2])
        prepare_data(folder, PHASES)
        assert f"{path}: damaged" in capsys.readouterr().err
        assert path.read_text() == whole


def test_a_cut_settings_file_is_written_again_only_in_a_folder_holding_nothing_else(
        phases: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gracr.domains.tissue.study as study_module

    class Stop(Exception):
        pass

    def stop(folder: Path, settings: StudySettings) -> None:
        raise Stop

    monkeypatch.setattr(study_module, "prepare_data", stop)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "settings.json").write_text('{"samples": 1')   # cut while writing it
    with pytest.raises(Stop):
        run_study(empty, PHASES)
    assert json.loads((empty / "settings.json").read_text()) == PHASES.to_json()
    folder = Path(shutil.copytree(phases, tmp_path / "study"))
    (folder / "settings.json").write_text('{"samples": 1')
    with pytest.raises(GracrError, match="damaged"):
        run_study(folder, PHASES)
    assert (folder / "settings.json").read_text() == '{"samples": 1'


def test_more_ratios_on_a_resume_add_their_models_and_keep_the_rest(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    first = replace(TINY, ratios=(1.0,), explainers=("Saliency",), epochs=(5,))
    run_study(tmp_path, first)
    results = tmp_path / "attributions" / "results.jsonl"
    before = results.read_text()
    assert not (tmp_path / "models" / "GIN-r2-s0.json").exists()
    run_study(tmp_path, replace(first, ratios=(1.0, 2.0)))
    assert results.read_text().startswith(before)   # nothing redone
    variants = {r.variant for r in read_records(results)}
    assert {"GIN-r2-s0", "GATv2-r2-s0", "CNN-image-s0"} <= variants
    # The grid: the ratio-2 models' fully randomised copies, read at ratio 2.
    assert any(v.startswith("GIN-r2-s0~cascading~top-") for v in variants)
    assert (tmp_path / "data" / "r2" / "tissue.toml").exists()


def test_models_trained_in_a_pool_are_those_trained_one_after_another(
        phases: Path, tmp_path: Path) -> None:
    from gracr.domains.tissue.phases import prepare_data, prepare_models
    from gracr.domains.tissue.trained import load_model

    pooled = tmp_path / "pooled"
    shutil.copytree(phases / "data", pooled / "data")
    (pooled / "settings.json").write_text(json.dumps(PHASES.to_json()))
    prepare_models(pooled, PHASES, prepare_data(pooled, PHASES), lambda _: None, workers=2)

    def lines(root: Path, log: str) -> dict[str, dict[str, object]]:
        records = [json.loads(line) for line in (root / "models" / log).read_text().splitlines()]
        return {str(r["model"]): {k: v for k, v in r.items() if k != "seconds"} for r in records}

    assert lines(pooled, "training.jsonl") == lines(phases, "training.jsonl")
    assert lines(pooled, "probes.jsonl") == lines(phases, "probes.jsonl")
    for name in lines(phases, "training.jsonl"):
        one, other = (load_model(root / "models" / f"{name}.json") for root in (phases, pooled))
        for key, value in one.state_dict().items():
            assert torch.equal(value, other.state_dict()[key]), (name, key)


def test_a_model_stopped_mid_training_goes_on_from_its_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A run stopped after two of a model's three epochs leaves its checkpoint; the next
    run goes on from it and every model ends as in a run never stopped (both made here,
    in one process: bit-equality is exact by construction)."""
    from gracr.domains.tissue import trained
    from gracr.domains.tissue.phases import checkpoint_path

    settings = replace(PHASES, training=TrainingSettings(max_epochs=3, patience=5,
                                                         batch_size=8))
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    for root in (whole, stopped):
        root.mkdir()
        (root / "settings.json").write_text(json.dumps(settings.to_json()))
    torch.set_num_threads(1)
    prepare_phases(whole, settings)

    class Stopped(Exception):
        pass

    real = trained.train_model

    def stopped_after_two_epochs(model_settings: Any, splits: Any, training: Any,
                                 checkpoint: Path | None = None,
                                 checkpoint_seconds: float | None = None) -> Any:
        real(model_settings, splits, replace(training, max_epochs=2), checkpoint=checkpoint)
        raise Stopped

    monkeypatch.setattr(trained, "CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr(trained, "train_model", stopped_after_two_epochs)
    with pytest.raises(Stopped):
        prepare_phases(stopped, settings)
    [left] = list((stopped / "checkpoints").iterdir())
    assert torch.load(left, weights_only=True)["epoch"] == 2
    monkeypatch.setattr(trained, "train_model", real)
    capsys.readouterr()
    prepare_phases(stopped, settings)
    assert f"{left}: going on from epoch 2" in capsys.readouterr().err
    assert not left.exists()                          # removed once the model was saved

    def lines(root: Path) -> dict[str, dict[str, Any]]:
        return {line["model"]: {k: v for k, v in line.items() if k != "seconds"}
                for line in map(json.loads,
                                (root / "models" / "training.jsonl").read_text().splitlines())}

    assert lines(stopped) == lines(whole)
    assert any(line.get("epochs") == 3 for line in lines(whole).values())
    for name in lines(whole):
        assert not checkpoint_path(stopped, name).exists()
        a = torch.load(whole / "models" / f"{name}.pt", weights_only=True)
        b = torch.load(stopped / "models" / f"{name}.pt", weights_only=True)
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), name
