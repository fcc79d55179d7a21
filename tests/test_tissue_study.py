"""`gracrc tissue-study` end to end on a tiny study (small fields, few epochs, two test
samples per class): every phase writes its output, the runner's records carry each
explanation's raw scores, the tables hold the compiled model, a trained one, the
baselines and the randomised copies, a rerun resumes without redoing anything, and other
settings in the same folder are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from gracr.bench.record import read_records
from gracr.errors import GracrError
from gracr.spatial.study import StudySettings
from gracr.spatial.study_report import study as run_study
from gracr.spatial.trained import TrainingSettings

TINY = StudySettings(samples=16, cells=60, seed=3, ratios=(1.0, 2.0), model_seeds=(0,),
                     test_limit=1, explainers=("Saliency", "GNNExplainer"), epochs=(5, 10),
                     budget=60.0, hidden=8, layers=2,
                     training=TrainingSettings(max_epochs=3, patience=2, batch_size=8))


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("study")
    return run_study(root, TINY, progress=False)


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
                  "randomisation", "epochs", "between_class", "training", "probes"):
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
    run_study(study, TINY, progress=False)
    assert results.read_text() == before
    with pytest.raises(GracrError, match="other settings"):
        run_study(study, StudySettings(samples=17, cells=60, seed=3), progress=False)
