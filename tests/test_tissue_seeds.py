"""`gracrc tissue-seeds`: the model-seed and the dataset-seed spread of a metric over
several study folders, on hand-made `metrics.jsonl` files whose answers are worked out by
hand in the comments."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from gracr.cli import main
from gracr.errors import GracrError
from gracr.domains.tissue.phases import model_family
from gracr.domains.tissue.study_seeds import read_study, seed_spreads

DESIGN = {"samples": 100, "cells": 300, "model_seeds": [0, 1], "test_limit": 1,
          "ratios": [1.0], "epochs": [100]}


def row(model: str, explainer: str, sample: int, label: str, ap: float | None,
        **flags: Any) -> dict[str, Any]:
    return {"model": model, "explainer": explainer, "config": "c", "epochs": None,
            "sample": sample, "class": label, "AP": ap, "AUROC": None,
            "randomised": flags.get("randomised", False), "default": flags.get("default", True)}


def write_study(folder: Path, seed: int, rows: list[dict[str, Any]], **changes: Any) -> Path:
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({**DESIGN, "seed": seed, **changes}))
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.fixture
def two_studies(tmp_path: Path) -> list[Path]:
    a = write_study(tmp_path / "a", 0, [
        row("GIN-r1-s0", "IG", 0, "positive", 0.4), row("GIN-r1-s0", "IG", 1, "negative", 0.2),
        row("GIN-r1-s1", "IG", 0, "positive", 0.6), row("GIN-r1-s1", "IG", 1, "negative", 0.4),
        row("compiled", "Marker", 0, "positive", 0.5),
        # Left out: a randomised copy, a non-default budget, a model only this study has,
        # and a record with no AP.
        row("GIN-r1-s0~cascading~top-1", "IG", 0, "positive", 0.9, randomised=True),
        row("GIN-r1-s0", "IG", 0, "positive", 0.9, default=False),
        row("GIN-r3-s0", "IG", 0, "positive", 0.9),
        row("GIN-r1-s1", "IG", 2, "positive", None)])
    b = write_study(tmp_path / "b", 1, [
        row("GIN-r1-s0", "IG", 0, "positive", 0.2), row("GIN-r1-s0", "IG", 1, "negative", 0.0),
        row("GIN-r1-s1", "IG", 0, "positive", 0.3), row("GIN-r1-s1", "IG", 1, "negative", 0.1),
        row("compiled", "Marker", 0, "positive", 0.7)], ratios=[1.0, 3.0], test_limit=5)
    return [a, b]


def test_model_family_takes_the_training_seed_out() -> None:
    assert model_family("GIN-r1-s2") == ("GIN-r1", 2)
    assert model_family("GATv2-r1.5-s0") == ("GATv2-r1.5", 0)
    assert model_family("GIN-r1-s0-shuffled") == ("GIN-r1-shuffled", 0)
    assert model_family("compiled") == ("compiled", None)


def test_both_spreads_by_hand(two_studies: list[Path]) -> None:
    spreads = {(s.family, s.explainer): s
               for s in seed_spreads([read_study(f) for f in two_studies])}
    assert set(spreads) == {("GIN-r1", "IG"), ("compiled", "Marker")}
    gin = spreads[("GIN-r1", "IG")]
    # Study a: model means 0.3 and 0.5 (std 0.1414), study mean 0.4.
    # Study b: model means 0.1 and 0.2 (std 0.0707), study mean 0.15.
    assert gin.pooled == pytest.approx(0.275)
    assert gin.across_model_seeds == pytest.approx((math.sqrt(0.02) + math.sqrt(0.005)) / 2)
    assert gin.across_dataset_seeds == pytest.approx(math.sqrt(0.03125))   # std(0.4, 0.15)
    assert gin.positives == pytest.approx(0.375) and gin.negatives == pytest.approx(0.175)
    assert (gin.studies, gin.model_seeds, gin.samples) == (2, 2, (2, 2))
    marker = spreads[("compiled", "Marker")]
    assert marker.pooled == pytest.approx(0.6) and marker.across_model_seeds is None
    assert marker.across_dataset_seeds == pytest.approx(math.sqrt(0.02))
    assert marker.negatives is None


def test_the_command_writes_and_prints_the_table(two_studies: list[Path],
                                                  tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["tissue-seeds", *map(str, two_studies), "--out", str(tmp_path / "s")],
                out=out, err=err)
    assert code == 0, err.getvalue()
    table = (tmp_path / "s" / "seeds-ap.md").read_text()
    assert "GIN-r1" in table and "0.177" in table and "0.106" in table
    assert (tmp_path / "s" / "seeds-ap.csv").exists()
    assert "± dataset seeds" in out.getvalue()


def test_other_designs_and_repeated_seeds_are_refused(two_studies: list[Path],
                                                       tmp_path: Path) -> None:
    other = write_study(tmp_path / "c", 2, [], samples=50)
    with pytest.raises(GracrError, match="samples is 50"):
        seed_spreads([read_study(two_studies[0]), read_study(other)])
    again = write_study(tmp_path / "d", 0, [])
    with pytest.raises(GracrError, match="dataset seed 0"):
        seed_spreads([read_study(two_studies[0]), read_study(again)])
    out, err = io.StringIO(), io.StringIO()
    assert main(["tissue-seeds", str(tmp_path / "missing"), "--out", str(tmp_path)],
                out=out, err=err) != 0
    assert "settings.json: not found" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_a_cut_settings_file_is_named(tmp_path: Path) -> None:
    folder = write_study(tmp_path / "a", 0, [row("GIN-r1-s0", "IG", 0, "positive", 0.4)])
    settings = folder / "settings.json"
    settings.write_text(settings.read_text()[:20])
    out, err = io.StringIO(), io.StringIO()
    code = main(["tissue-seeds", str(folder), "--out", str(tmp_path / "out")], out=out, err=err)
    assert code == 2 and f"{settings}: damaged" in err.getvalue(), err.getvalue()


def test_the_interval_weighs_samples_as_the_mean_does(tmp_path: Path) -> None:
    # Every model's samples agree within the model, so resampling them cannot move the
    # mean: the interval is the single point of the pooled mean, whose weights it must use.
    # Study a: seed means 0.4 and 0.6 (study mean 0.5); study b: a third sample on seed 0
    # (seed means 0.2 and 0.3, study mean 0.25). Pooled: (0.5 + 0.25) / 2 = 0.375, where a
    # plain mean of the nine values would give (2.0 + 1.2) / 9 ≈ 0.356.
    a = write_study(tmp_path / "a", 0, [
        row("GIN-r1-s0", "IG", 0, "positive", 0.4), row("GIN-r1-s0", "IG", 1, "negative", 0.4),
        row("GIN-r1-s1", "IG", 0, "positive", 0.6), row("GIN-r1-s1", "IG", 1, "negative", 0.6)])
    b = write_study(tmp_path / "b", 1, [
        row("GIN-r1-s0", "IG", 0, "positive", 0.2), row("GIN-r1-s0", "IG", 1, "negative", 0.2),
        row("GIN-r1-s0", "IG", 2, "negative", 0.2),
        row("GIN-r1-s1", "IG", 0, "positive", 0.3), row("GIN-r1-s1", "IG", 1, "negative", 0.3)])
    spread = seed_spreads([read_study(a), read_study(b)])[0]
    assert spread.pooled == pytest.approx(0.375)
    pooled = spread.intervals[2]
    assert pooled is not None
    assert (pooled.low, pooled.high) == (pytest.approx(0.375), pytest.approx(0.375))
