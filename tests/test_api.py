"""The public API (`import gracr`): `parse`, `evaluate`, `ground_truth`, `Benchmark`, and
what `import gracr` loads.

`ground_truth` is checked against the definitions, never against itself: its masks
against the brute-force oracle (`gracr.bdd.oracle`, every subgraph enumerated) on random
small programs and graphs, its signed fields against `gracr.bdd.relevance.relevance`
(whose own properties check it against brute force) and against numbers worked out by
hand. `Benchmark` is checked against the engine it fronts (`plan_jobs`) and `gracrc
bench`.
"""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.bdd.oracle import upi_disagreements
from gracr.bdd.relevance import relevance
from gracr.bench.runner import plan_jobs
from gracr.bench.tasks import task_named
from gracr.cli import main
from gracr.data.graph import Graph
from strategies import graph_sentences, graphs, node_formulas, program_for

ROOT = Path(__file__).resolve().parent.parent

# `<1> red` at node 2, whose in-neighbours 0 and 1 are both red: either keeps it true.
TWO_REDS = "colors red, blue\nclassify <1> red"
TWO_REDS_GRAPH = {"num_nodes": 3, "colors": [["red"], ["red"], ["blue"]],
                  "edges": [[0, 2], [1, 2]], "target": 2}


@st.composite
def instances(draw: st.DrawFn) -> tuple[gracr.Program, Graph, int | None]:
    """A random graph sentence, or a node formula at a random node, on a graph small
    enough to enumerate every subgraph over edges and nodes together."""
    graph = draw(graphs(max_nodes=5, max_edges=7))
    if draw(st.booleans()):
        return program_for(draw(graph_sentences)), graph, None
    target = draw(st.integers(min_value=0, max_value=graph.num_nodes - 1))
    return program_for(draw(node_formulas)), graph, target


# ---------------------------------------------------------------- parse


def test_a_str_is_always_text_and_a_path_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "rule.gml"
    path.write_text(TWO_REDS, encoding="utf-8")
    from_file, from_text = gracr.parse(path), gracr.parse(TWO_REDS)
    assert from_file.classifier == from_text.classifier
    assert from_file.schema == from_text.schema
    # The path as a str is text: a bare formula naming no colour of a palette.
    with pytest.raises(gracr.GmlError, match="<string>"):
        gracr.parse(str(path))


def test_errors_of_a_file_name_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gml"
    bad.write_text("colors red\nclassify <1> green\n", encoding="utf-8")
    with pytest.raises(gracr.GmlError, match=rf"{bad}:2:"):
        gracr.parse(bad)
    with pytest.raises(gracr.GmlError, match=r"^shown\.gml:2:"):
        gracr.parse(bad, filename="shown.gml")
    binary = tmp_path / "binary.gml"
    binary.write_bytes(b"colors red\nclassify \xff\n")
    with pytest.raises(gracr.GracrError, match=rf"{binary}: not UTF-8 text \(byte 20\)"):
        gracr.parse(binary)
    with pytest.raises(FileNotFoundError, match="missing.gml"):
        gracr.parse(tmp_path / "missing.gml")


def test_the_filename_of_text_is_a_keyword() -> None:
    with pytest.raises(gracr.GmlError, match=r"^rule\.gml:1:"):
        gracr.parse("classify <1>", filename="rule.gml")
    with pytest.raises(TypeError):
        gracr.parse("classify red", "rule.gml")  # type: ignore[misc]


# ---------------------------------------------------------------- evaluate


def test_evaluate_is_the_reference_semantics() -> None:
    program = gracr.parse(TWO_REDS)
    graph = Graph.from_json(TWO_REDS_GRAPH)
    assert gracr.evaluate(program, graph).tolist() == [False, False, True]  # type: ignore[union-attr]
    assert gracr.evaluate(gracr.parse("colors red, blue\nclassify exists red"), graph) is True
    with pytest.raises(gracr.GraphError, match="evaluating the formula"):
        gracr.evaluate(program, graph, max_bytes=8)


# ---------------------------------------------------------------- ground truth


def test_ground_truth_by_hand() -> None:
    program, graph = gracr.parse(TWO_REDS), Graph.from_json(TWO_REDS_GRAPH)
    edges = gracr.ground_truth(program, graph)
    assert (edges.label, edges.target, edges.over) == (1, 2, "edges")
    assert edges.edge_mask is not None and edges.edge_mask.tolist() == [True, True]
    assert edges.node_mask is None
    assert edges.counterfactual is None and edges.min_flip is None and edges.method is None
    nodes = gracr.ground_truth(program, graph, over="nodes")
    assert nodes.edge_mask is None
    assert nodes.node_mask is not None and nodes.node_mask.tolist() == [True, True, False]
    both = gracr.ground_truth(program, graph, target=2, over="both", signed=True)
    assert both.edge_mask is not None and both.edge_mask.tolist() == [True, True]
    assert both.node_mask is not None and both.node_mask.tolist() == [True, True, False]
    # Only removing both reds flips the label; each red is pivotal in 1 of the 2 orders
    # of the two players (Shapley 1/2), and in 1 of the 2 coalitions of the other (Banzhaf).
    assert both.counterfactual is not None
    assert both.counterfactual.tolist() == [True, True, False]
    assert both.min_flip == 2
    assert both.banzhaf is not None and both.banzhaf.tolist() == [0.5, 0.5, 0.0]
    assert both.shapley is not None and both.shapley.tolist() == [0.5, 0.5, 0.0]
    assert both.method == gracr.SignedMethod(diagram="built", banzhaf="exact", shapley="exact",
                                             banzhaf_stderr=None, shapley_stderr=None,
                                             samples=None, seed=None, reason=None)


def test_ground_truth_is_frozen() -> None:
    truth = gracr.ground_truth(gracr.parse(TWO_REDS), Graph.from_json(TWO_REDS_GRAPH))
    with pytest.raises(AttributeError):
        truth.label = 0  # type: ignore[misc]


def test_ground_truth_checks_its_input() -> None:
    program, graph = gracr.parse(TWO_REDS), Graph.from_json(TWO_REDS_GRAPH)
    with pytest.raises(gracr.GracrError, match="unknown removal 'cells'"):
        gracr.ground_truth(program, graph, over="cells")  # type: ignore[arg-type]
    with pytest.raises(gracr.GracrError, match="target node 7 is out of range"):
        gracr.ground_truth(program, graph, target=7)
    with pytest.raises(gracr.GracrError, match="takes no target node"):
        gracr.ground_truth(gracr.parse("colors red, blue\nclassify exists red"), graph,
                           target=0)


@settings(max_examples=120, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(), over=st.sampled_from(["edges", "nodes", "both"]))
def test_ground_truth_masks_equal_the_brute_force_oracle(
        instance: tuple[gracr.Program, Graph, int | None], over: str) -> None:
    program, graph, target = instance
    # No engine run here: the oracle's enumeration alone (and its receptive-field checks).
    truth, problems = upi_disagreements(program, graph, target, over=over,  # type: ignore[arg-type]
                                        backends=(), shortcuts=())
    assert not problems, problems
    answer = gracr.ground_truth(program, graph, target=target, over=over)  # type: ignore[arg-type]
    assert answer.label == truth.label
    if over == "nodes":
        assert answer.edge_mask is None
    else:
        assert answer.edge_mask is not None
        assert answer.edge_mask.tolist() == truth.mask.tolist()
    if over == "edges":
        assert answer.node_mask is None
    else:
        assert answer.node_mask is not None
        assert answer.node_mask.tolist() == truth.node_mask.tolist()


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(), max_exact=st.sampled_from([0, 200]))
def test_signed_fields_are_those_of_relevance(
        instance: tuple[gracr.Program, Graph, int | None], max_exact: int) -> None:
    program, graph, target = instance
    signed = gracr.ground_truth(program, graph, target=target, signed=True,
                                max_exact=max_exact, permutations=50, seed=3)
    report = relevance(program, graph, target, max_exact=max_exact, permutations=50, seed=3)
    assert signed.label == report.label
    assert signed.counterfactual is not None and report.counterfactual is not None
    assert signed.counterfactual.tolist() == report.counterfactual.tolist()
    assert signed.min_flip == report.min_counterfactual
    assert signed.banzhaf is not None and signed.banzhaf.tolist() == report.banzhaf.tolist()
    assert signed.shapley is not None and signed.shapley.tolist() == report.shapley.tolist()
    method = signed.method
    assert method is not None and method.diagram == "built" and method.banzhaf == "exact"
    if report.shapley_method == "exact":
        assert (method.shapley, method.shapley_stderr, method.samples) == ("exact", None, None)
    else:
        assert report.shapley_stderr is not None and method.shapley_stderr is not None
        # Rounds of 50 permutations until every standard error is at most 0.01.
        assert method.shapley == "sampled" and method.seed == 3
        assert method.samples == report.permutations and method.samples is not None
        assert method.samples % 50 == 0
        assert method.shapley_stderr.tolist() == report.shapley_stderr.tolist()


# ---------------------------------------------------------------- Benchmark

SMALL = {"tasks": ["Redundancy", "Majority1Hop"], "explainers": ["Rnd"], "seeds": [0, 2],
         "limit": 3, "graphs": 10, "targets": 5}


def test_benchmark_plans_what_plan_jobs_plans() -> None:
    jobs = gracr.Benchmark(**SMALL).jobs()  # type: ignore[arg-type]
    sizes = {"Redundancy": 10, "Majority1Hop": 5}
    assert jobs == plan_jobs(["Redundancy", "Majority1Hop"], ["main"], ["Rnd"], [0, 2], 3,
                             180.0, sizes)
    assert [(job.task, job.seed, job.dataset_size) for job in jobs] == [
        ("Redundancy", 0, 10), ("Redundancy", 2, 10), ("Majority1Hop", 0, 5),
        ("Majority1Hop", 2, 5)]


def test_benchmark_defaults_are_gracrc_bench_s() -> None:
    bench = gracr.Benchmark()
    assert (tuple(bench.tasks), tuple(bench.seeds), tuple(bench.variants), bench.limit,
            bench.budget, bench.level, bench.settings) == (
        ("RedBlueLeaf", "Redundancy", "CompetingRedundancy", "RedBlueLeaf-NC",
         "Majority1Hop", "Majority2Hop"), (0, 1, 2, 3, 4), ("main",), 100, 180.0, "edge",
        "tuned")


def test_benchmark_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(gracr.GracrError, match="unknown task"):
        gracr.Benchmark(tasks=["Nope"], explainers=["Rnd"]).jobs()
    with pytest.raises(gracr.GracrError, match="seed -1 is not in"):
        gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"], seeds=[-1]).jobs()
    with pytest.raises(gracr.GracrError, match="overrides name Saliency"):
        gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"],
                        overrides={"Saliency": {"abs": True}}).jobs()
    bench = gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"], seeds=[0])
    with pytest.raises(gracr.GracrError, match="--jobs must be positive"):
        bench.run(tmp_path / "out", jobs=0)
    with pytest.raises(gracr.GracrError, match="--address needs --engine ray"):
        bench.run(tmp_path / "out", address="localhost:1")
    with pytest.raises(gracr.GracrError, match="at least one results folder"):
        bench.report()
    assert not (tmp_path / "out").exists()


def _records(path: Path) -> list[dict[str, object]]:
    """The records of a results file (its header line left out) without what differs
    between two runs (times)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [{k: v for k, v in line.items() if "seconds" not in k and k != "versions"}
            for line in lines if "task" in line]


def test_benchmark_runs_and_reports_as_gracrc_bench(tmp_path: Path) -> None:
    datasets = str(tmp_path / "datasets")
    bench = gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"], seeds=[0], limit=2,
                            graphs=10, datasets=datasets)
    ran = bench.run(tmp_path / "api", progress=False)
    assert (ran.folder, ran.results, ran.jobs) == (tmp_path / "api",
                                                   tmp_path / "api" / "results.jsonl", 1)
    shown = bench.report(tmp_path / "api", instance_figures=False, date="2026-01-01")
    code = main(["bench", "--tasks", "Redundancy", "--explainers", "Rnd", "--seeds", "0",
                 "--limit", "2", "--graphs", "10", "--datasets", datasets, "--out",
                 str(tmp_path / "cli"), "--no-report", "--quiet"])
    assert code == 0
    assert _records(ran.results) == _records(tmp_path / "cli" / "results.jsonl")
    assert len(_records(ran.results)) == 2
    # The provenance the tables print is the `gracrc report` command that writes them.
    assert f"gracrc report {tmp_path / 'api'}" in shown
    assert (tmp_path / "api" / "results.csv").exists()


# ---------------------------------------------------------------- import gracr


def test_import_gracr_loads_no_torch_numba_scipy_lark_and_every_name_resolves() -> None:
    code = ("import sys, gracr\n"
            "assert not [m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'torch_geometric', 'numba', 'scipy', 'lark')], 'a heavy import'\n"
            "missing = [n for n in gracr.__all__ if n not in ('explain', 'score') "
            "and getattr(gracr, n, None) is None]\n"
            "assert not missing, missing\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_heavy_names_are_imported_on_first_use() -> None:
    assert gracr.Benchmark is __import__("gracr.benchmark").benchmark.Benchmark
    with pytest.raises(AttributeError, match="no attribute 'upi'"):
        gracr.upi  # type: ignore[attr-defined]  # noqa: B018
    assert {"parse", "compile", "evaluate", "ground_truth", "GroundTruth", "explain", "score",
            "Benchmark"} <= set(gracr.__all__)
    assert not {"parse_file", "upi", "upi_report"} & set(gracr.__all__)


def test_benchmark_tasks_are_task_names() -> None:
    # A task file given to Benchmark is planned under its task's name, as `gracrc bench`.
    path = ROOT / "examples" / "tasks" / "TwoRedNoGreen.toml"
    jobs = gracr.Benchmark(tasks=[str(path)], explainers=["Rnd"], seeds=[0], limit=1).jobs()
    assert [job.task for job in jobs] == [task_named(str(path)).name]


@pytest.mark.parametrize("name", ["parse", "compile", "load", "evaluate", "ground_truth",
                                  "Benchmark"])
def test_each_docstring_example_runs(name: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    tests = doctest.DocTestFinder(recurse=False).find(getattr(gracr, name), name)
    assert sum(len(test.examples) for test in tests) >= 2, f"gracr.{name} shows no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
