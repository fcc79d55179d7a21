"""`gracrc tissue-seeds`: the model-seed and the dataset-seed spread of a metric over
several study folders, on hand-made `metrics.jsonl` files whose answers are worked out by
hand in the comments; and the note's findings over the dataset seeds, on hand-made
headline tables whose combined verdicts are known."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from gracr.cli import main
from gracr.errors import GracrError
from gracr.domains.tissue.phases import model_family
from gracr.domains.headlines import DIFFERS, NOT_RUN, REPRODUCED
from gracr.domains.tissue.headlines import NOTE_HEADLINES
from gracr.domains.tissue.study_seeds import read_study, seed_spreads

FINDINGS = [f"{finding.claim} ({finding.where})" for finding in NOTE_HEADLINES.findings]

DESIGN = {"samples": 100, "cells": 300, "model_seeds": [0, 1], "test_limit": 1,
          "ratios": [1.0], "epochs": [100]}


def row(model: str, explainer: str, sample: int, label: str, ap: float | None,
        **flags: Any) -> dict[str, Any]:
    return {"model": model, "explainer": explainer, "config": "c", "epochs": None,
            "sample": sample, "class": label, "AP": ap, "AUROC": None,
            "randomised": flags.get("randomised", False), "default": flags.get("default", True)}


def write_headlines(folder: Path, verdicts: dict[int, str]) -> None:
    """A study's headline table: the findings in the note's order, each reproduced unless
    `verdicts` (finding index -> verdict) says otherwise; a difference's why names the
    folder, so the combined table shows whose why it took."""
    (folder / "tables").mkdir(parents=True, exist_ok=True)
    with (folder / "tables" / "headlines.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(NOTE_HEADLINES.headers)
        for index, claim in enumerate(FINDINGS):
            verdict = verdicts.get(index, REPRODUCED)
            why = "–" if verdict == REPRODUCED else f"why of {folder.name}"
            writer.writerow([claim, f"note {index}", "we got", verdict, why,
                             "–" if verdict == REPRODUCED else "untested"])


def write_study(folder: Path, seed: int, rows: list[dict[str, Any]], **changes: Any) -> Path:
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({**DESIGN, "seed": seed, **changes}))
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_headlines(folder, {})
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


def test_a_finding_is_reproduced_over_the_seeds_only_where_every_seed_reproduces_it(
        two_studies: list[Path], tmp_path: Path) -> None:
    a, b = two_studies
    c = write_study(tmp_path / "c", 2, [])
    # Finding 0: reproduced on all three. Finding 1: not on b only. Finding 2: not run on a,
    # not reproduced on b, reproduced on c. Finding 3: run nowhere.
    write_headlines(a, {2: NOT_RUN, 3: NOT_RUN})
    write_headlines(b, {1: DIFFERS, 2: DIFFERS, 3: NOT_RUN})
    write_headlines(c, {3: NOT_RUN})
    out, err = io.StringIO(), io.StringIO()
    code = main(["tissue-seeds", str(a), str(b), str(c), "--out", str(tmp_path / "s")],
                out=out, err=err)
    assert code == 0, err.getvalue()
    with (tmp_path / "s" / "seeds-headlines.csv").open(newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header[2] == "reproduced on" and header[3] == "verdict"
    assert [row[0] for row in rows] == FINDINGS
    assert rows[0][1:] == ["note 0", "3 of 3: dataset seed 0, dataset seed 1, dataset seed 2",
                           REPRODUCED, "–", "–"]
    assert rows[1][2:] == ["2 of 3: dataset seed 0, dataset seed 2", DIFFERS,
                           "not on dataset seed 1; dataset seed 1: why of b", "untested"]
    # The first seed that does not reproduce it gives the why: a, which did not run it.
    assert rows[2][2:] == ["1 of 3: dataset seed 2; not run on dataset seed 0", DIFFERS,
                           "not on dataset seed 0, dataset seed 1; dataset seed 0: why of a",
                           "untested"]
    # No seed reproduces finding 3: its why is the first seed's, unnamed.
    assert rows[3][4] == "why of a"
    assert rows[3][2:4] == ["0 of 3", NOT_RUN]
    others = len(FINDINGS) - 4
    assert (f"{1 + others} reproduced, 2 not reproduced, 1 not run"
            in out.getvalue()), out.getvalue()


def test_headline_tables_of_other_findings_or_cut_are_named(two_studies: list[Path],
                                                            tmp_path: Path) -> None:
    a, b = two_studies
    table = b / "tables" / "headlines.csv"
    lines = table.read_text().splitlines()
    table.write_text("\n".join(lines[:1] + lines[2:]) + "\n")   # one finding fewer
    out, err = io.StringIO(), io.StringIO()
    assert main(["tissue-seeds", str(a), str(b), "--out", str(tmp_path / "s")],
                out=out, err=err) != 0
    assert "dataset seed 1: its findings are not those of dataset seed 0" in err.getvalue()
    table.write_text("\n".join(lines[:3] + ["cut,row"]) + "\n")
    err = io.StringIO()
    assert main(["tissue-seeds", str(a), str(b), "--out", str(tmp_path / "s")],
                out=io.StringIO(), err=err) != 0
    assert f"{table}:4: 2 columns" in err.getvalue()
    table.unlink()
    err = io.StringIO()
    assert main(["tissue-seeds", str(a), str(b), "--out", str(tmp_path / "s")],
                out=io.StringIO(), err=err) != 0
    assert f"{table}: not found" in err.getvalue() and "Traceback" not in err.getvalue()


def test_the_notes_seed_spread_stands_beside_trained_graph_models_only(tmp_path: Path) -> None:
    from gracr.domains.tissue.phases import name_architecture

    assert [name_architecture(n) for n in ("GIN-r1-s0", "GATv2-r1.5", "CNN-image",
                                           "compiled")] == ["GIN", "GATv2", "CNN", None]
    studies = [write_study(tmp_path / name, seed, [
        row(model, "IG", sample, label, 0.5)
        for model in ("GIN-r1-s0", "GIN-r1-s1", "CNN-image-s0", "CNN-image-s1")
        for sample, label in ((0, "positive"), (1, "negative"))]) for name, seed in
        (("a", 0), ("b", 1))]
    assert main(["tissue-seeds", *map(str, studies), "--out", str(tmp_path / "s")],
                out=io.StringIO(), err=io.StringIO()) == 0
    with (tmp_path / "s" / "seeds-ap.csv").open(newline="") as handle:
        notes = {r["model"]: r["note"] for r in csv.DictReader(handle)}
    assert notes["GIN-r1"].startswith("IG 0.135") and notes["CNN-image"] == ""
