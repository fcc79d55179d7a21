"""`gracrc show` and the report's instance figures: what is drawn (a node task's receptive
field, a graph task's whole graph, the UPI, the explainer's scores), that the scores are the
benchmark's (same settings, same seed), and one figure per explainer from raw records only.

What is drawn is tested through `instance_view`, never by reading pixels. The receptive field
is computed here by a breadth-first walk of our own.
"""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from gracr.bench.datasets import Dataset, load_or_build
from gracr.explainers import Subject, edge_scores, explainer_seed
from gracr.bench.instances import compile_variant, positive_instances, variant_named
from gracr.bench.record import Record, read_records
from gracr.bench.report.instance_figure import (explained_view, figure_name, figure_records,
                                                instance_view)
from gracr.bench.tasks import TASKS
from gracrc_cli import run

PNG = b"\x89PNG\r\n\x1a\n"
NODE_TASK, TARGETS = "RedBlueLeaf-NC", 20
# RedBlueLeaf-NC is `core & <1> core`, core = `red & exactly 2 leaf`, leaf = `blue & exactly
# 1 true`: modal depth 3, so its field holds the edges (s, t) with a path of <= 2 from t.
NODE_TASK_DEPTH = 3


@pytest.fixture(scope="module")
def node_dataset(store: Path) -> Dataset:
    return load_or_build(NODE_TASK, 0, TARGETS, str(store), progress=False)


@pytest.fixture(scope="module")
def bench(store: Path, node_dataset: Dataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A benchmark run: Rnd and GNNExplainer (tuned settings) on the first 2 instances."""
    folder = tmp_path_factory.mktemp("bench")
    code, _, err = run("bench", "--tasks", NODE_TASK, "--explainers", "Rnd,GNNExplainer",
                       "--seeds", "0", "--limit", "2", "--targets", str(TARGETS), "--datasets",
                       str(store), "--out", str(folder), "--quiet", "--no-report")
    assert code == 0, err
    return folder


def field_by_walk(edges: np.ndarray, target: int, depth: int) -> list[int]:
    """The edges (s, t) from whose t a directed path of at most depth - 1 edges reaches
    `target`, by breadth-first search backwards from the target."""
    distance = {target: 0}
    queue = deque([target])
    while queue:
        node = queue.popleft()
        for source, end in edges:
            if end == node and source not in distance:
                distance[int(source)] = distance[node] + 1
                queue.append(int(source))
    return [e for e, (_, end) in enumerate(edges) if distance.get(int(end), depth) <= depth - 1]


def test_a_node_task_draws_the_receptive_field_and_its_ends(node_dataset: Dataset) -> None:
    positives = list(positive_instances(node_dataset))
    for index in (0, 1, 7):
        view = instance_view(node_dataset, index)
        instance = positives[index]
        graph = node_dataset.instances[instance.graph].graph
        expected = field_by_walk(graph.edges, instance.target, NODE_TASK_DEPTH)
        assert 0 < len(expected) < graph.num_edges
        assert list(view.edges) == expected
        assert list(view.ends) == [tuple(graph.edges[e]) for e in expected]
        assert set(view.nodes) == {instance.target} | {int(v) for e in expected
                                                       for v in graph.edges[e]}
        assert view.target == instance.target and view.total_edges == graph.num_edges
        # The UPI flags are the stored ones, and the whole UPI lies in what is drawn.
        assert list(view.upi) == [bool(instance.upi[e]) for e in expected]
        assert sum(view.upi) == int(instance.upi.sum()) > 0
        assert view.scores is None and view.point is None


def test_a_graph_task_draws_the_whole_graph(store: Path) -> None:
    dataset = load_or_build("Redundancy", 0, 4, str(store), progress=False)
    view = instance_view(dataset, 0)
    first = next(positive_instances(dataset))
    graph = dataset.instances[first.graph].graph
    assert view.target is None and view.graph == first.graph
    assert list(view.edges) == list(range(graph.num_edges))
    assert list(view.nodes) == list(range(graph.num_nodes))
    assert list(view.upi) == first.upi.tolist()
    # Node colours, in the graph's own words: Redundancy's hub is node 30, black.
    assert view.colours[30] == "black"


def test_an_explainers_scores_are_drawn_on_the_drawn_edges(node_dataset: Dataset) -> None:
    view = explained_view(node_dataset, 1, explainer="Rnd")
    instance = list(positive_instances(node_dataset))[1]
    graph = node_dataset.instances[instance.graph].graph
    model = compile_variant(NODE_TASK, variant_named("main"), node_dataset)
    subject = Subject.of(model, TASKS[NODE_TASK].program(), graph, instance.target)
    scores = edge_scores("Rnd", subject, {}, seed=explainer_seed(0, 1)).numpy()
    assert view.scores == tuple(float(scores[e]) for e in view.edges)
    assert view.explainer == "Rnd" and view.point is not None


def test_show_writes_a_png_with_and_without_an_explainer(store: Path, node_dataset: Dataset,
                                                         bench: Path, tmp_path: Path) -> None:
    common = ("show", NODE_TASK, "--targets", str(TARGETS), "--datasets", str(store))
    code, out, err = run(*common, "--instance", "1", "-o", str(tmp_path / "plain.png"))
    assert (code, err) == (0, "")
    assert (tmp_path / "plain.png").read_bytes()[:8] == PNG
    target = list(positive_instances(node_dataset))[1].target
    assert out.startswith(f"{tmp_path / 'plain.png'}: {NODE_TASK} (main) seed 0 instance 1 "
                          f"(graph 0, target {target}): ")
    assert "(the target's receptive field)" in out and "F1" not in out
    records = {(r.explainer, r.instance): r for r in read_records(bench / "results.jsonl")}
    for explainer in ("Rnd", "GNNExplainer"):
        figure = tmp_path / f"{explainer}.png"
        code, out, err = run(*common, "--instance", "1", "--explainer", explainer,
                             "-o", str(figure))
        assert (code, err) == (0, "")
        assert figure.read_bytes()[:8] == PNG
        # The benchmark's settings (GNNExplainer's tuned ones) and the benchmark's result.
        record = records[(explainer, 1)]
        match = re.search(rf"; {explainer} (\{{.*\}}): precision (\S+), recall (\S+), F1 (\S+)$",
                          out.strip())
        assert match is not None, out
        assert json.loads(match.group(1)) == dict(record.config)
        assert [float(v) for v in match.groups()[1:]] == \
            [round(v or 0.0, 2) for v in (record.precision, record.recall, record.f1)]
    assert 0 < records[("Rnd", 1)].f1 < 1    # a seed-dependent score: the seeds agree


@pytest.mark.parametrize(("extra", "message"), [
    (("--instance", "150"), "RedBlueLeaf-NC seed 0 has 150 positive instances; the instance "
                            "must be in 0..149, got 150"),
    (("--instance", "-1"), "--instance must be at least 0, got -1"),
    (("--set", "GNNExplainer.epochs=3"), "--set needs --explainer"),
    (("--explainer", "Nope"), "unknown explainer 'Nope'"),
    (("--variant", "or"), "variant 'or' does not apply to RedBlueLeaf-NC"),
])
def test_show_reports_bad_input_in_one_line(store: Path, node_dataset: Dataset, tmp_path: Path,
                                            extra: tuple[str, ...], message: str) -> None:
    code, out, err = run("show", NODE_TASK, "--targets", str(TARGETS), "--datasets", str(store),
                         *extra, "-o", str(tmp_path / "x.png"))
    assert (code, out) == (2, "")
    assert err.startswith(f"gracrc: error: {message}") and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_show_refuses_a_missing_folder_before_any_work(tmp_path: Path) -> None:
    figure = tmp_path / "nowhere" / "x.png"
    code, _, err = run("show", NODE_TASK, "--datasets", str(tmp_path / "datasets"),
                       "-o", str(figure))
    assert code == 2 and err == f"gracrc: error: {figure}: no such folder {figure.parent}\n"
    assert not (tmp_path / "datasets").exists()


def test_report_draws_one_figure_per_explainer_from_raw_records_only(
        store: Path, bench: Path, tmp_path: Path) -> None:
    options = ("--datasets", str(store), "--targets", str(TARGETS))
    code, out, err = run("report", str(bench), "--out", str(tmp_path / "raw"), *options)
    assert (code, err) == (0, "")
    drawn = sorted(p.name for p in (tmp_path / "raw").glob("instance_*"))
    assert drawn == ["instance_GNNExplainer.png", "instance_Rnd.png"]
    assert all((tmp_path / "raw" / name).read_bytes()[:8] == PNG for name in drawn)
    assert "precision_recall.png, instance_Rnd.png, instance_GNNExplainer.png to" in out
    assert "note:" not in out
    code, out, err = run("report", str(tmp_path / "raw" / "seeds.csv"), "--out",
                         str(tmp_path / "summary"), *options)
    assert (code, err) == (0, "")
    assert not list((tmp_path / "summary").glob("instance_*"))
    assert (tmp_path / "summary" / "table3.md").exists()


def test_report_says_why_when_the_dataset_is_not_stored(store: Path, bench: Path,
                                                        tmp_path: Path) -> None:
    code, out, err = run("report", str(bench), "--out", str(tmp_path), "--datasets", str(store))
    assert (code, err) == (0, "")
    assert not list(tmp_path.glob("instance_*"))
    assert (f"note: no instance figure for Rnd, GNNExplainer: the dataset {NODE_TASK} seed 0 "
            f"(500 targets) under {store} is not stored: pass the --datasets, --graphs and "
            "--targets of the bench run") in out


def _record(**fields: object) -> Record:
    base: dict[str, object] = {
        "task": "Majority1Hop", "variant": "main", "explainer": "Saliency", "config": {},
        "config_hash": "0", "seed": 0, "instance": 0, "graph": 0, "target": 1, "status": "ok",
        "error": None, "precision": 1.0, "recall": 1.0, "f1": 1.0, "threshold": 1.0,
        "upi_edges": 1, "edges": 2, "cpu_seconds": 0.0, "wall_seconds": 0.0,
        "gracr_version": "0"}
    return Record.from_json({**base, **fields}, "test")


def test_each_explainers_figure_is_its_first_finished_record() -> None:
    records = [
        _record(seed=1, instance=0), _record(seed=0, instance=3), _record(seed=0, instance=2),
        # Redundancy comes before Majority1Hop in the paper's order; an OOT record is not drawn.
        _record(task="Redundancy", target=None, seed=4, instance=9, explainer="IG"),
        _record(task="Redundancy", target=None, seed=0, instance=0, explainer="IG",
                status="oot", precision=None, recall=None, f1=None, threshold=None),
        _record(explainer="IG", instance=0), _record(variant="flat", explainer="IG"),
        _record(explainer="Rnd", status="error", precision=None, recall=None, f1=None,
                threshold=None, error="boom")]
    chosen = figure_records(records)
    assert sorted(chosen) == ["IG", "Saliency"]
    assert (chosen["Saliency"].seed, chosen["Saliency"].instance) == (0, 2)
    assert (chosen["IG"].task, chosen["IG"].seed, chosen["IG"].instance) == ("Redundancy", 4, 9)
    assert figure_name("GraphMask-clean") == "instance_GraphMask-clean.png"
    assert figure_name("my/explainer") == "instance_my_explainer.png"
