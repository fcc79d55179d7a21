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


def decoys(*masses: float) -> list[dict[str, Any]]:
    """One scored row per decoy mass (AP left out)."""
    return [{"sample": i, "class": "positive" if i % 2 == 0 else "negative", "AP": None,
             "decoy mass": mass} for i, mass in enumerate(masses)]


CNNS = [ModelFile("CNN-image-s0", Path("d.json"), 0.0, architecture="CNN"),
        ModelFile("CNN-image-s1", Path("e.json"), 0.0, architecture="CNN")]


def test_the_cnn_row_reads_igs_decoy_mass_on_the_cnns_against_random() -> None:
    random = decoys(0.15, 0.16, 0.14, 0.15)
    above = Evidence(MODELS + CNNS, {(COMPILED, "Rnd-cells"): random,
                                     ("CNN-image-s0", "IG"): decoys(0.40, 0.42, 0.38, 0.40),
                                     ("CNN-image-s1", "IG"): decoys(0.30, 0.32, 0.28, 0.30),
                                     ("CNN-image-s0", "Saliency"): decoys(0.1, 0.1)})
    row = verdict(above, "cnn-baseline")
    assert row[3] == REPRODUCED and "IG 0.350" in row[2] and "Saliency 0.100" in row[2]
    assert "2 training seeds" in row[2]
    # IG's interval reaching below random's mean (0.15): not above random.
    near = Evidence(MODELS + CNNS, {(COMPILED, "Rnd-cells"): random,
                                    ("CNN-image-s0", "IG"): decoys(0.10, 0.30, 0.10, 0.30),
                                    ("CNN-image-s1", "IG"): decoys(0.12, 0.28, 0.12, 0.28)})
    assert verdict(near, "cnn-baseline")[3] == DIFFERS
    # No IG on the CNN at all: not run, saying so.
    row = verdict(Evidence(MODELS + CNNS, {(COMPILED, "Rnd-cells"): random}), "cnn-baseline")
    assert row[3] == NOT_RUN and "CNN" in row[4]


GRID = [ModelFile("GIN-r1-s0", Path("a.json"), 1.0, architecture="GIN"),
        ModelFile("GIN-r2-s0", Path("b.json"), 2.0, architecture="GIN"),
        ModelFile("GATv2-r1-s0", Path("c.json"), 1.0, architecture="GATv2"),
        ModelFile("GATv2-r2-s0", Path("d.json"), 2.0, architecture="GATv2")]


def test_the_grid_row_wants_a_tight_band_per_architecture_and_the_bands_apart() -> None:
    def grid(gin: tuple[float, float], gatv2: tuple[float, float]) -> Evidence:
        return Evidence(GRID, {}, full_randomisation={
            ("GIN-r1-s0", "GNNExplainer"): [gin[0]] * 3,
            ("GIN-r2-s0", "GNNExplainer"): [gin[1], None, gin[1]],
            ("GATv2-r1-s0", "GNNExplainer"): [gatv2[0]] * 3,
            ("GATv2-r2-s0", "GNNExplainer"): [gatv2[1]] * 3,
            ("GIN-r1-s0", "IG"): [0.0] * 3})
    row = verdict(grid((0.30, 0.36), (0.83, 0.89)), "randomisation-grid")
    assert row[3] == REPRODUCED
    assert "GIN 0.300–0.360 over 2 models" in row[2] and "(ratios 1, 2)" in row[2]
    # GIN's band 0.15 wide (wider than GRID_BAND = 0.1): not a tight band.
    assert verdict(grid((0.30, 0.45), (0.83, 0.89)), "randomisation-grid")[3] == DIFFERS
    # Both tight but overlapping: not a band per architecture.
    assert verdict(grid((0.80, 0.85), (0.83, 0.89)), "randomisation-grid")[3] == DIFFERS
    # One model per architecture is no band: not run.
    one = Evidence(GRID[:1] + GRID[2:3], {}, full_randomisation={
        ("GIN-r1-s0", "GNNExplainer"): [0.3], ("GATv2-r1-s0", "GNNExplainer"): [0.8]})
    assert verdict(one, "randomisation-grid")[3] == NOT_RUN


def test_the_ig_baselines_row_compares_ig_mean_with_ig_per_architecture() -> None:
    def evidence(mean: float, zero: float) -> Evidence:
        return Evidence(MODELS, {("GIN-r1-s0", "IG-mean"): rows(mean, mean),
                                 ("GIN-r1-s1", "IG-mean"): rows(mean, mean),
                                 ("GIN-r1-s0", "IG"): rows(zero, zero),
                                 ("GIN-r1-s1", "IG"): rows(zero, zero)})
    row = verdict(evidence(0.159, 0.147), "ig-baselines")
    assert row[3] == REPRODUCED and "GIN: IG-mean 0.159" in row[2] and "IG 0.147" in row[2]
    assert verdict(evidence(0.140, 0.147), "ig-baselines")[3] == DIFFERS
    assert verdict(Evidence(MODELS, {}), "ig-baselines")[3] == NOT_RUN


def test_the_sparse_row_wants_each_architectures_mean_auc_at_chance() -> None:
    at_chance = {"sparse0/GIN-r1-s0": 0.45, "sparse0/GIN-r1-s1": 0.55,
                 "sparse1/GIN-r1-s0": 0.50, "sparse0/GATv2-r1-s0": 0.40,
                 "sparse1/GATv2-r1-s0": 0.62, "sparse1/GATv2-r1-s1": None}
    row = verdict(Evidence(MODELS, {}, sparse_test_auc=at_chance), "sparse-drivers")
    assert row[3] == REPRODUCED
    assert "GIN 0.500" in row[2] and "over 3 models (highest 0.550)" in row[2]
    assert "GATv2 0.510" in row[2] and "highest 0.620" in row[2]
    learned = dict(at_chance, **{"sparse0/GIN-r1-s0": 0.95, "sparse0/GIN-r1-s1": 0.90,
                                 "sparse1/GIN-r1-s0": 0.92})
    assert verdict(Evidence(MODELS, {}, sparse_test_auc=learned),
                   "sparse-drivers")[3] == DIFFERS
    row = verdict(Evidence(MODELS, {}), "sparse-drivers")
    assert row[3] == NOT_RUN and "--sparse" in row[4]


def test_the_solved_task_row_reads_the_graph_models_not_the_cnn() -> None:
    evidence = Evidence(MODELS + CNNS, {}, test_auc={"GIN-r1-s0": 0.995, "GIN-r1-s1": 0.999,
                                                     "CNN-image-s0": 0.5})
    row = verdict(evidence, "test-auc")
    assert row[3] == REPRODUCED and "over 2 trained models" in row[2]


def test_the_sparse_family_is_read_from_its_folders_latest_training_lines(
        tmp_path: Path) -> None:
    import json

    from gracr.errors import GracrError
    from gracr.domains.tissue.study import sparse_test_aucs

    folder = tmp_path / "sparse3"
    (folder / "models").mkdir(parents=True)
    lines = [{"model": "GIN-r1-s0", "test_auc": 0.9}, {"model": "GATv2-r1-s0",
                                                      "test_auc": float("nan")},
             {"model": "GIN-r1-s0", "test_auc": 0.52}]   # trained again: the last line
    (folder / "models" / "training.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines))
    assert sparse_test_aucs([folder]) == {"sparse3/GIN-r1-s0": 0.52,
                                          "sparse3/GATv2-r1-s0": None}
    with pytest.raises(GracrError, match=r"nothing/models/training\.jsonl: not found"):
        sparse_test_aucs([tmp_path / "nothing"])


def test_the_notes_numbers_stand_only_beside_rows_the_note_ran() -> None:
    from gracr.domains.tissue.phases import CNN
    from gracr.domains.tissue.study_report import note_ran

    gin, shuffled = MODELS[1], ModelFile("GIN-r1-s0-shuffled", Path("s.json"), 1.0,
                                         architecture="GIN")
    gatv2 = ModelFile("GATv2-r3-s2", Path("g.json"), 3.0, architecture="GATv2")
    cnn = ModelFile("CNN-image-s0", Path("cnn.json"), 1.0, architecture=CNN)
    assert note_ran(gin, "IG") and note_ran(gatv2, "GNNExplainer")
    # Its controls, its CNN (of which it gives no number) and our compiled model: none.
    for model in (shuffled, MODELS[3], cnn, MODELS[0]):
        assert not note_ran(model, "IG"), model.name
    # The model-free baselines are scored on the compiled model's records: the note ran them.
    assert note_ran(MODELS[0], "TDensity") and note_ran(cnn, "Marker")


def test_ig_from_the_mean_baseline_is_the_notes_ig() -> None:
    # The note's best IG number is from the dataset-mean baseline, so IG-mean is one of its
    # methods: on GIN it is the best (0.7 above IG's 0.5 and GNNExplainer's 0.3), which
    # keeps "IG is the best graph method" and breaks "the marker heuristic is above every
    # graph method" (Marker 0.6).
    evidence = Evidence(MODELS, {(COMPILED, "Marker"): rows(0.6, 0.6, 0.6, 0.6),
                                 **{(model, explainer): rows(ap, ap, ap, ap)
                                    for model in ("GIN-r1-s0", "GIN-r1-s1")
                                    for explainer, ap in (("IG", 0.5), ("IG-mean", 0.7),
                                                          ("GNNExplainer", 0.3))}})
    best = verdict(evidence, "ig-best-graph-method")
    assert best[3] == REPRODUCED and "best of the note's methods IG-mean 0.700" in best[2]
    marker = verdict(evidence, "marker-above-graph-methods")
    assert marker[3] == DIFFERS and "2 of 6 trained model–explainer pairs" in marker[2]
    assert verdict(evidence, "seed-ordering")[3] == REPRODUCED


def test_the_cost_table_adds_what_each_part_recorded() -> None:
    from types import SimpleNamespace
    from typing import cast

    from gracr.bench.record import Record
    from gracr.domains.tissue.study_report import cost_rows

    truth = {0: {"seconds": {"build": 1.5, "shapley": 0.5}}, 1: {"seconds": {"build": 2.0}}}
    training = [{"model": "GIN-r1-s0", "seconds": 10.0},
                {"model": "GIN-r1-s0-shuffled", "seconds": 5.0},
                {"model": "CNN-image-s0", "seconds": 7.25}]
    copy = ModelFile("GIN-r1-s0~cascading~top-1", Path("r.json"), 1.0, base="GIN-r1-s0",
                     mode="cascading", variant="top-1", architecture="GIN")
    models = {m.name: m for m in [*MODELS, copy]}
    records = cast(list[Record], [
        SimpleNamespace(variant="compiled", cpu_seconds=0.5),
        SimpleNamespace(variant="GIN-r1-s0", cpu_seconds=1.0),
        SimpleNamespace(variant="GIN-r1-s0~cascading~top-1", cpu_seconds=2.0),
        SimpleNamespace(variant="gone", cpu_seconds=100.0)])   # a model no longer held
    rows = cost_rows(truth, training, records, models)
    assert [row[:3] for row in rows] == [
        ["ground truth", "2", "4.0"], ["training GIN", "2", "15.0"],
        ["training CNN", "1", "7.2"], ["explanations, compiled", "1", "0.5"],
        ["explanations, GIN r1", "2", "3.0"], ["in all", "–", "29.8"]]
    assert rows[-1][3] == "0.01"


def test_the_ratio_table_gives_each_measure_per_architecture_and_ratio() -> None:
    """Hand-made values: a cell is the mean of the models of every training seed at one
    ratio with the lowest and highest and their count; a model without the measure is
    left out, and a ratio without any shows a dash."""
    from gracr.domains.tissue.phases import StudySettings
    from gracr.domains.tissue.study_report import ratio_rows

    settings = StudySettings(samples=10, cells=40, seed=0, ratios=(1.0, 2.0), model_seeds=(0, 1))

    def samples(ap: float) -> list[dict[str, Any]]:   # one sample of each class, equal AP
        return [{"AP": ap, "class": "positive"}, {"AP": ap, "class": "negative"}]

    groups = {("GIN-r1-s0", "IG"): samples(0.4), ("GIN-r1-s1", "IG"): samples(0.6),
              ("GIN-r2-s0", "IG"): samples(0.3), ("GIN-r1-s0-shuffled", "IG"): samples(0.9),
              ("GATv2-r1-s0", "AttentionRollout"): samples(0.2)}
    randomised = {("GIN-r1-s0", "IG"): [0.5, 0.7, None], ("GIN-r2-s1", "IG"): [0.1]}
    test_auc = {"GIN-r1-s0": 0.9, "GIN-r1-s1": 0.95, "GIN-r2-s0": float("nan"),
                "GATv2-r1-s0": 0.99}
    rows = {tuple(row[:3]): row[3:] for row in ratio_rows(
        settings, groups, randomised, test_auc, {"GIN-r1-s0": 0.8}, share=0.5)}
    assert rows[("GIN", "AP", "IG")] == ["0.500 (0.400–0.600, 2)", "0.300 (0.300–0.300, 1)"]
    assert rows[("GIN", "ρ", "IG")] == ["0.600 (0.600–0.600, 1)", "0.100 (0.100–0.100, 1)"]
    assert rows[("GIN", "test AUC", "")] == ["0.925 (0.900–0.950, 2)", "–"]
    assert rows[("GIN", "probe AUC (trained)", "")] == ["0.800 (0.800–0.800, 1)", "–"]
    assert rows[("GATv2", "AP", "AttentionRollout")] == ["0.200 (0.200–0.200, 1)", "–"]
    assert ("GIN", "AP", "AttentionRollout") not in rows   # GIN has no such explainer
