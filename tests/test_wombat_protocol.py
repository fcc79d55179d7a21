"""WOMBAT's protocol in the runner (§3.3 of the WOMBAT paper): AUROC and average precision
per positive instance, the IQR test on negative ones, the presence bit at node level, the
records that carry them, and the report's ranking table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch_geometric.explain import Explanation

from gracr.bench.datasets import load_or_build
from gracr.explainers import EXPLAINERS, ExplainerSpec, Subject, register
from gracr.bench.instances import (compile_variant, ground_truth, negative_instances,
                                   positive_instances, variant_named)
from gracr.explainers.metric import ranking, ranking_at, uniform_attribution
from gracr.bench.record import Record, read_records
from gracr.bench.report.ranking import ranking_rows
from gracr.bench.report.write import write_report
from gracr.domains.paper.report import paper_report
from gracr.bench.runner import plan_jobs, run
from gracr.errors import GracrError

SIZES: dict[str, int | None] = {"Redundancy": 12, "Majority1Hop": 3}


# ---------------------------------------------------------------- the metrics, by hand


def test_auroc_and_average_precision_by_hand() -> None:
    # Both ground-truth nodes above both others: perfect.
    assert ranking([0.9, 0.8, 0.1, 0.7], [1, 1, 0, 0]).auroc == 1.0
    # One ground-truth node tied with one other, above a second: pairs (tie, win) = 0.75.
    # Average precision: the one threshold 1 selects two nodes, one right: 1/2 at recall 1.
    tied = ranking([1.0, 1.0, 0.0], [1, 0, 0])
    assert tied.auroc == pytest.approx(0.75)
    assert tied.average_precision == pytest.approx(0.5)
    # Ground truth ranked last: AUROC 0; AP = mean precision at each hit = (1/3 + 2/4) / 2.
    last = ranking([4.0, 3.0, 2.0, 1.0], [0, 0, 1, 1])
    assert last.auroc == 0.0
    assert last.average_precision == pytest.approx((1 / 3 + 2 / 4) / 2)


def test_ranking_is_undefined_without_elements_outside_the_ground_truth() -> None:
    assert ranking([0.3, 0.2], [1, 1]).auroc is None
    assert ranking([0.3, 0.2], [1, 1]).average_precision is None
    assert ranking([0.3, 0.2], [0, 0]).auroc is None


def test_ranking_at_node_level_leaves_the_explained_node_out() -> None:
    # With the target (node 0, scored highest, not in the truth) counted, AUROC would be 0.5.
    assert ranking_at("node", [9.0, 2.0, 1.0], [0, 1, 0], target=0).auroc == 1.0
    assert ranking_at("edge", [9.0, 2.0, 1.0], [0, 1, 0], target=0).auroc == 0.5


def test_iqr_test_by_hand() -> None:
    assert uniform_attribution([0.0, 0.0, 0.0, 0.0])
    assert uniform_attribution([1.0, 2.0, 3.0, 4.0, 5.0])        # bounds [-1, 7]
    assert not uniform_attribution([1.0, 2.0, 3.0, 4.0, 100.0])  # Q1 2, Q3 4: 100 > 7
    assert not uniform_attribution([0.0, 0.0, 0.0, 1.0])         # Q3 0.25: 1 > 0.625
    assert uniform_attribution([0.0, 0.0, 1.0])                  # Q3 0.5: 1 < 1.25
    with pytest.raises(GracrError, match="NaN"):
        uniform_attribution([0.0, float("nan")])


# ---------------------------------------------------------------- the runner


def _constant(subject: Subject, settings: Any, seed: int) -> Any:
    """Every node the same score: AUROC 0.5 and AP = the ground truth's share, exactly."""
    return Explanation(node_mask=torch.ones(subject.num_nodes),
                       edge_mask=torch.ones(subject.num_edges))


def _spike(subject: Subject, settings: Any, seed: int) -> Any:
    """Node 0 scored 1, every other 0: an outlier on any graph of 4 nodes or more."""
    values = torch.zeros(subject.num_nodes)
    values[0] = 1.0
    return Explanation(node_mask=values)


@pytest.fixture
def plugins() -> Iterator[None]:
    register(ExplainerSpec("Constant", _constant, {}, levels=frozenset({"edge", "node"})))
    register(ExplainerSpec("Spike", _spike, {}, levels=frozenset({"node"})))
    yield
    EXPLAINERS.pop("Constant", None)
    EXPLAINERS.pop("Spike", None)


def test_node_level_models_carry_the_presence_bit(tmp_path: Path) -> None:
    dataset = load_or_build("Redundancy", 0, 12, str(tmp_path))
    assert compile_variant("Redundancy", variant_named("main"), dataset, "node").presence
    assert not compile_variant("Redundancy", variant_named("main"), dataset).presence


def test_negatives_and_ranks_are_recorded(tmp_path: Path, plugins: None) -> None:
    datasets = str(tmp_path / "datasets")
    jobs = plan_jobs(["Redundancy"], ["main"], ["Constant", "Spike"], [0], 3, 60.0, SIZES,
                     datasets, settings="default", level="node", negatives=4)
    assert [(j.explainer, j.sample, j.limit) for j in jobs] == [
        ("Constant", "positive", 3), ("Constant", "negative", 4),
        ("Spike", "positive", 3), ("Spike", "negative", 4)]
    results = run(jobs, str(tmp_path / "out"), progress=False)
    records = list(read_records(results))
    assert all(r.status == "ok" for r in records), [r.error for r in records]
    dataset = load_or_build("Redundancy", 0, 12, datasets)
    negatives = list(negative_instances(dataset))[:4]
    positives = list(positive_instances(dataset))[:3]
    truth = ground_truth(dataset, positives, "node", datasets)
    for record in records:
        graph = dataset.instances[record.graph].graph
        if record.sample == "negative":
            assert dataset.instances[record.graph].label == 0
            assert record.f1 is None and record.auroc is None
            # Constant scores are uniform; a spike on a graph of 4+ nodes is not.
            assert record.uniform is (record.explainer == "Constant" or graph.num_nodes < 4)
        else:
            assert record.uniform is None
            mask = truth[record.instance]
            if record.explainer == "Constant" and 0 < mask.sum() < mask.size:
                assert record.auroc == 0.5
                assert record.average_precision == pytest.approx(mask.mean())
    assert sorted(r.graph for r in records if r.sample == "negative") == \
        sorted([n.graph for n in negatives] * 2)

    rows = {row.explainer: row for row in ranking_rows(records)}
    assert rows["Constant"].negatives == 4 and rows["Constant"].iqr_success == 1.0
    assert rows["Constant"].perfect is False
    assert rows["Constant"].variant == "main@node"
    text = write_report([str(tmp_path / "out")], str(tmp_path / "report"), "test", "today",
                        paper_report)
    assert "WOMBAT" in text
    assert (tmp_path / "report" / "ranking.csv").read_text().count("\n") == 3
    # A rerun finds every key (sample included) done: nothing is explained again.
    run(jobs, str(tmp_path / "out"), progress=False)
    assert len(list(read_records(results))) == len(records)


def test_negatives_of_a_node_task_are_refused(tmp_path: Path) -> None:
    with pytest.raises(GracrError, match="node task"):
        plan_jobs(["Majority1Hop"], ["main"], ["Rnd"], [0], 2, 60.0, SIZES,
                  str(tmp_path), settings="default", level="node", negatives=2)


def test_records_of_version_2_read_as_positive_and_unranked(tmp_path: Path) -> None:
    obj = {"task": "Redundancy", "variant": "main", "explainer": "Rnd", "config": {},
           "config_hash": "x", "seed": 0, "instance": 0, "graph": 0, "target": None,
           "status": "ok", "error": None, "precision": 1.0, "recall": 1.0, "f1": 1.0,
           "threshold": 1.0, "upi_edges": 2, "edges": 4, "cpu_seconds": 0.1,
           "wall_seconds": 0.1, "gracr_version": "0", "level": "edge"}
    record = Record.from_json(obj, "f:1")
    assert (record.sample, record.auroc, record.uniform) == ("positive", None, None)
    negative = dict(obj, sample="negative", precision=None, recall=None, f1=None,
                    threshold=None)
    with pytest.raises(GracrError, match="'uniform' is null"):
        Record.from_json(negative, "f:2")
    assert Record.from_json(dict(negative, uniform=False), "f:3").uniform is False
    with pytest.raises(GracrError, match="sample"):
        Record.from_json(dict(obj, sample="both"), "f:4")
    round_trip = Record.from_json(json.loads(json.dumps(
        Record.from_json(dict(negative, uniform=True), "f:5").to_json())), "f:6")
    assert round_trip.key[5] == "negative" and round_trip.uniform is True
    assert np.isclose(round_trip.cpu_seconds, 0.1)


def test_published_tables_are_transcribed_as_the_paper_averages_them() -> None:
    """The 'Mean' rows of Tables S7 and S8 are the paper's own averages over the 14
    patterns: the columns stored here must average to them (to the rounding of 3 digits)."""
    from gracr.domains.chem.published import (WOMBAT_EXPLAINERS, WOMBAT_READOUTS,
                                           published_auroc, published_average_precision,
                                           published_perfect)

    s7_means = (0.534, 0.536, 0.971, 0.500, 0.971, 0.999, 0.536, 0.536, 0.987, 0.989, 0.972,
                0.500, 0.899, 0.894)
    s8_means = {("IG", "max"): 0.962, ("IG", "soft-or"): 0.999,
                ("ShapleySampling", "max"): 0.989, ("SubgraphX", "soft-or"): 0.812}
    columns = [(e, r) for e in WOMBAT_EXPLAINERS for r in WOMBAT_READOUTS]
    for (explainer, readout), mean in zip(columns, s7_means):
        values = [published_auroc(n, explainer, readout) for n in range(1, 15)]
        assert np.mean(values) == pytest.approx(mean, abs=0.0015), (explainer, readout)
    for (explainer, readout), mean in s8_means.items():
        values = [published_average_precision(n, explainer, readout) for n in range(1, 15)]
        assert np.mean(values) == pytest.approx(mean, abs=0.0015), (explainer, readout)
    # Table 2's marks as the text states them: IG under r2 perfect on patterns 2, 3, 6-14;
    # Shapley sampling perfect on 12 and 14 under both readouts; PGExplainer never.
    assert [n for n in range(1, 15) if published_perfect(n, "IG", "soft-or")] == \
        [2, 3, *range(6, 15)]
    assert [n for n in range(1, 15) if published_perfect(n, "ShapleySampling", "max")] == [12, 14]
    assert not any(published_perfect(n, "PGExplainer", r) for n in range(1, 15)
                   for r in WOMBAT_READOUTS)
    with pytest.raises(GracrError, match="patterns 1 to 14"):
        published_auroc(15, "IG", "max")


def test_table_s1_counts_agree_with_table_2_and_the_text() -> None:
    """Table S1's counts, as transcribed, must say what Table 2 (r2) and App. E.1 say: a
    pattern is perfect under r2 exactly where every counted positive is, and Shapley
    sampling explains 3 of the 22 positives of pattern 3 perfectly."""
    from gracr.domains.chem.published import (TABLE_S1_EXPLAINERS,
                                              TABLE_S1_READOUT, published_perfect,
                                              published_perfect_count)

    for number in range(1, 15):
        for explainer in TABLE_S1_EXPLAINERS:
            perfect, total = published_perfect_count(number, explainer)
            assert 0 <= perfect <= total <= 10_000
            assert (perfect == total) == published_perfect(number, explainer,
                                                           TABLE_S1_READOUT), \
                (number, explainer)
    assert published_perfect_count(3, "ShapleySampling") == (3, 22)
    assert published_perfect_count(4, "IG") == (964, 1137)
    with pytest.raises(GracrError, match="Table S1 counts"):
        published_perfect_count(1, "Saliency")


def test_explainer_lists_paper_all_and_named() -> None:
    from gracr.bench.options import parse_explainers
    from gracr.explainers import PAPER_EXPLAINERS

    assert parse_explainers("paper") == list(PAPER_EXPLAINERS)
    everything = parse_explainers("all")
    assert {"InputXGradient", "ShapleySampling", "PGExplainer"} <= set(everything)
    assert "PGExplainer" not in parse_explainers("all", trained=False)
    assert "ShapleySampling" in parse_explainers("all", trained=False)
    assert parse_explainers("IG,Rnd") == ["IG", "Rnd"]
    with pytest.raises(GracrError, match="unknown explainer 'Nope'"):
        parse_explainers("IG,Nope")


def _edges_only(subject: Subject, settings: Any, seed: int) -> Any:
    """Edge i scored i: a node's derived score is its highest incident edge index."""
    return Explanation(edge_mask=torch.arange(subject.num_edges, dtype=torch.float64))


def test_records_say_when_node_scores_come_from_edge_scores(tmp_path: Path) -> None:
    register(ExplainerSpec("EdgesOnly", _edges_only, {}))
    try:
        jobs = plan_jobs(["Redundancy"], ["main"], ["EdgesOnly", "Rnd"], [0], 2, 60.0, SIZES,
                         str(tmp_path / "datasets"), settings="default", level="node")
        records = list(read_records(run(jobs, str(tmp_path / "out"), progress=False)))
    finally:
        EXPLAINERS.pop("EdgesOnly", None)
    assert {r.explainer: r.extra.get("node_scores") for r in records} == {
        "EdgesOnly": "max over incident edges", "Rnd": None}
    assert all(r.status == "ok" for r in records)


def test_a_task_folder_stands_for_the_task_file_named_after_it(tmp_path: Path) -> None:
    from gracr.bench.tasks import task_named

    folder = tmp_path / "P99"
    folder.mkdir()
    (folder / "P99.gml").write_text("colors red\nclassify exists red\n")
    (folder / "P99.toml").write_text('name = "Folder-P99"\nformula = "P99.gml"\n'
                                     '[graphs]\nfile = "g.jsonl"\n')
    (folder / "g.jsonl").write_text('{"num_nodes": 1, "colors": [["red"]], "edges": []}\n')
    assert task_named(str(folder)).name == "Folder-P99"
    assert task_named(str(folder)) is task_named(str(folder / "P99.toml"))
    with pytest.raises(GracrError):
        task_named(str(tmp_path))     # a folder without <name>.toml is no task


# ---------------------------------------------------------------- at WOMBAT's scale


def _molecule_subject(smiles: str, modules: dict[str, Any] | None = None) -> Subject:
    import gracr
    from gracr.domains.chem.molecules import read_smiles
    from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path
    from gracr.executor.model import compile_program

    program = gracr.parse(wombat_formula_path(WOMBAT_PATTERNS[11]).read_text())   # P12
    model = compile_program(program, presence=True)
    graph = read_smiles(smiles).graph
    return Subject.of(model, program, graph, None, modules, level="node")


@pytest.mark.parametrize("smiles", ["CC(C)CC=O", "CCOC(=O)C"])   # a P12 positive, a negative
def test_direct_node_gradients_are_those_of_pyg_captum_bridge(smiles: str) -> None:
    """Saliency, InputXGradient and IG on the node features without PyG's bridge (IG's
    steps in one call) give the bridge's attributions bit for bit, on a positive and a
    negative (where the target is the other class)."""
    from gracr.explainers.library import _node_attribution, _run_captum

    subject = _molecule_subject(smiles)
    for method, derivative, options in (("Saliency", "surrogate", {"abs": True}),
                                        ("InputXGradient", "surrogate", {}),
                                        ("IntegratedGradients", "exact", {"n_steps": 7})):
        bridge = _run_captum(subject, method, derivative, options).node_mask.detach()
        direct = _node_attribution(subject, method, derivative, options).node_mask
        assert direct.shape == bridge.shape
        assert torch.equal(direct, bridge), method
        if smiles == "CC(C)CC=O":   # not all zero, on the positive at least
            assert bool(direct.abs().sum() > 0), method


def test_subjects_of_one_model_share_its_modules() -> None:
    """A module is built once per model and derivative for all the subjects that share
    `modules` (the runner's job), and never for a subject given none."""
    shared: dict[str, Any] = {}
    first = _molecule_subject("CC(C)CC=O", shared)
    second = _molecule_subject("CCC=O", shared)
    assert first.module("exact") is second.module("exact")
    assert set(shared) == {"exact"}
    alone = _molecule_subject("CCC=O")
    assert alone.module("exact") is not first.module("exact")


def test_figure_s8_scores_by_hand() -> None:
    """WOMBAT App. E.2's construction on a path 0-1-2-3-4, UPI {1, 2, 3}: an active UPI
    node and its UPI neighbours score 1, an active node outside the UPI lends nothing."""
    from gracr.explainers.bound import terminal_scores

    path = np.array([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]])
    upi = np.array([False, True, True, True, False])
    only_1 = np.array([False, True, False, False, False])
    assert terminal_scores(only_1, upi, path).tolist() == [0, 1, 1, 0, 0]
    only_4 = np.array([False, False, False, False, True])
    assert terminal_scores(only_4, upi, path).tolist() == [0, 0, 0, 0, 0]
    assert ranking(terminal_scores(only_1, upi, path), upi).auroc == pytest.approx(
        1 - 0.5 * (1 / 3))   # node 3 ties with the two nodes outside the UPI
