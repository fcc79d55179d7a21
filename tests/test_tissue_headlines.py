"""The tissue report's headline verdicts (`gracr.domains.tissue.headlines`) on hand-made
evidence whose verdicts are known: a finding flips from reproduced to not reproduced when
the numbers do, a reason is printed only beside a difference, and a finding the study
never ran says so with its reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gracr.domains.headlines import DIFFERS, NOT_RUN, REPRODUCED, estimate
from gracr.domains.tissue.headlines import NOTE_HEADLINES, Evidence
from gracr.domains.tissue.phases import COMPILED, ModelFile

MODELS = [ModelFile(COMPILED, Path("compiled.npz"), 1.0),
          ModelFile("GIN-r1-s0", Path("a.json"), 1.0, architecture="GIN"),
          ModelFile("GIN-r1-s1", Path("b.json"), 1.0, architecture="GIN"),
          ModelFile("GIN-r1-s0-untrained", Path("c.json"), 1.0, architecture="GIN")]


def rows(*aps: float) -> list[dict[str, Any]]:
    """One scored row per AP, alternating positive and negative samples."""
    return [{"sample": i, "class": "positive" if i % 2 == 0 else "negative", "AP": ap,
             "decoy mass": None} for i, ap in enumerate(aps)]


def verdict(evidence: Evidence, key: str) -> list[str]:
    return NOTE_HEADLINES.row(evidence, key)


def test_the_estimate_is_a_mean_of_model_means() -> None:
    # Model a: 0.1, 0.3 (mean 0.2); model b: four times 0.6 (mean 0.6; None left out).
    # The mean of the model means is 0.4; the pooled mean of the six values would be
    # (0.4 + 2.4) / 6 ≈ 0.467.
    found = estimate({"a": [0.1, 0.3], "b": [0.6, 0.6, 0.6, 0.6, None]})
    assert found is not None and found.mean == pytest.approx(0.4)
    assert estimate({"a": [None]}) is None


def test_gnnexplainer_below_random_flips_with_the_numbers() -> None:
    random = rows(0.20, 0.22, 0.18, 0.20)
    below = Evidence(MODELS, {(COMPILED, "Rnd-cells"): random,
                              ("GIN-r1-s0", "GNNExplainer"): rows(0.05, 0.04, 0.06, 0.05),
                              ("GIN-r1-s1", "GNNExplainer"): rows(0.10, 0.12, 0.08, 0.10)})
    row = verdict(below, "gnnexplainer-below-random")
    assert row[3] == REPRODUCED and row[4] == "–" and row[5] == "–"
    assert "GIN 0.075" in row[2]   # (0.05 + 0.10) / 2
    above = Evidence(MODELS, {(COMPILED, "Rnd-cells"): random,
                              ("GIN-r1-s0", "GNNExplainer"): rows(0.35, 0.25, 0.30, 0.30),
                              ("GIN-r1-s1", "GNNExplainer"): rows(0.05, 0.04, 0.06, 0.05)})
    row = verdict(above, "gnnexplainer-below-random")
    # (0.30 + 0.05) / 2 = 0.175 is below 0.20: still reproduced on the mean of the seeds ...
    assert row[3] == REPRODUCED
    higher = Evidence(MODELS, {(COMPILED, "Rnd-cells"): random,
                               ("GIN-r1-s0", "GNNExplainer"): rows(0.35, 0.25, 0.30, 0.30),
                               ("GIN-r1-s1", "GNNExplainer"): rows(0.25, 0.25, 0.25, 0.25)})
    row = verdict(higher, "gnnexplainer-below-random")
    # ... (0.30 + 0.25) / 2 = 0.275 is not: the verdict and its reason follow.
    assert row[3] == DIFFERS and "counterfactual set" in row[4] and row[5] == "untested"


def test_the_class_split_needs_both_intervals_clear_of_zero() -> None:
    marker = rows(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
    # IG − Marker: +0.3 on every positive, −0.2 on every negative, both models.
    split = rows(0.8, 0.3, 0.8, 0.3, 0.8, 0.3)
    evidence = Evidence(MODELS, {(COMPILED, "Marker"): marker, ("GIN-r1-s0", "IG"): split,
                                 ("GIN-r1-s1", "IG"): split})
    assert verdict(evidence, "class-split-reverses")[3] == REPRODUCED
    # Positives straddling zero (+0.3, −0.3, +0.0): the positive interval holds 0.
    mixed = rows(0.8, 0.3, 0.2, 0.3, 0.5, 0.3)
    evidence = Evidence(MODELS, {(COMPILED, "Marker"): marker, ("GIN-r1-s0", "IG"): mixed,
                                 ("GIN-r1-s1", "IG"): mixed})
    assert verdict(evidence, "class-split-reverses")[3] == DIFFERS


def test_a_finding_never_run_says_why() -> None:
    row = verdict(Evidence(MODELS, {}), "cnn-baseline")
    assert row[3] == NOT_RUN and "CNN" in row[4]
    assert verdict(Evidence(MODELS, {}), "gnnexplainer-below-random")[3] == NOT_RUN


def test_untrained_controls_are_not_trained_models() -> None:
    evidence = Evidence(MODELS, {})
    assert evidence.trained() == ["GIN-r1-s0", "GIN-r1-s1"]
    assert evidence.control("GIN", "untrained") == ["GIN-r1-s0-untrained"]
