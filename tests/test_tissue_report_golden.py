"""The tissue study's report byte for byte: a committed study folder (a tiny real run,
cut to a few records: the compiled model, trained GIN and GATv2, the baselines, randomised
copies, a GNNExplainer epoch budget and one failed explanation) gives the committed
tables and printed text. The metrics file is compared to six decimals (its curves come
from forward passes); the figures are not compared. `GRACR_UPDATE_GOLDEN=1` rewrites the
golden files after an intended change."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "tissue"
UPDATE = os.environ.get("GRACR_UPDATE_GOLDEN") == "1"
TABLES = ("metric-ap", "metric-auroc", "metric-spearman-shapley", "metric-spearman-banzhaf",
          "metric-decoy-mass", "metric-deletion", "metric-insertion", "seeds",
          "randomisation", "epochs", "between_class", "training", "probes", "ratios", "cost",
          "headlines")


def report(folder: Path) -> str:
    """The report of the study in `folder`; returns what it printed."""
    from gracr.domains.tissue.phases import StudySettings
    from gracr.domains.tissue.study import TissueStudy
    from gracr.domains.tissue.trained import TrainingSettings

    known = json.loads((folder / "settings.json").read_text())
    settings = StudySettings(**{**known, "ratios": tuple(known["ratios"]),
                                "model_seeds": tuple(known["model_seeds"]),
                                "explainers": tuple(known["explainers"]),
                                "epochs": tuple(known["epochs"]),
                                "training": TrainingSettings(**known["training"])})
    shown: list[str] = []
    TissueStudy(folder, settings).report(shown.append)
    return "\n".join(shown) + "\n"


def rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def metrics(path: Path) -> list[Any]:
    return [rounded(json.loads(line)) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = Path(shutil.copytree(FIXTURE / "study", tmp_path_factory.mktemp("t") / "study"))
    shown = report(folder).replace(str(folder), "<study>")
    expected = FIXTURE / "expected"
    if UPDATE:
        expected.mkdir(exist_ok=True)
        (expected / "shown.txt").write_text(shown)
        shutil.copy(folder / "metrics.jsonl", expected / "metrics.jsonl")
        for name in TABLES:
            for suffix in ("md", "csv"):
                shutil.copy(folder / "tables" / f"{name}.{suffix}", expected)
    return folder, shown


def test_the_printed_report_is_the_golden_one(study: tuple[Path, str]) -> None:
    assert study[1] == (FIXTURE / "expected" / "shown.txt").read_text()


@pytest.mark.parametrize("name", [f"{table}.{suffix}" for table in TABLES
                                  for suffix in ("md", "csv")])
def test_each_table_is_the_golden_one(study: tuple[Path, str], name: str) -> None:
    made = (study[0] / "tables" / name).read_bytes()
    assert made == (FIXTURE / "expected" / name).read_bytes()


def test_the_metrics_are_the_golden_ones(study: tuple[Path, str]) -> None:
    assert metrics(study[0] / "metrics.jsonl") == metrics(FIXTURE / "expected" /
                                                          "metrics.jsonl")


def test_the_fixture_holds_every_table_with_rows(study: tuple[Path, str]) -> None:
    for name in TABLES:   # a header and its rule, then at least one row
        assert len((FIXTURE / "expected" / f"{name}.md").read_text().splitlines()) >= 3, name
    assert "did not finish" in study[1]
