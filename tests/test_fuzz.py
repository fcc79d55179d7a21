"""`gracrc fuzz`: spreads across equivalent models, failures, and 1-minimal shrinking."""

from __future__ import annotations

import csv
import json
import pathlib
import random
from typing import Any, Mapping

import numpy as np
import pytest
import torch
from torch_geometric.explain import Explanation

import gracr
from gracr.explainers.base import ExplainerSpec, Subject, register
from gracr.cli import main
from gracr.dsl.show import show_formula
from gracr.fuzz.random_formulas import is_constant, program_of, random_formula, random_graph
from gracr.fuzz.rewrites import FAMILIES, implementations
from gracr.fuzz.run import FuzzConfig, find_instances, run_fuzz
from gracr.fuzz.shrink import Case, Models, judge, shrink, single_steps


def _parity(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    """Deliberately not implementation-invariant: with an odd number of layers it
    scores the target's in-edges 1 (graph tasks: the edges into blue nodes), with an
    even number it scores every edge 0."""
    if subject.num_layers % 2 == 0:
        return Explanation(edge_mask=torch.zeros(subject.num_edges, dtype=torch.float64))
    if subject.target is None:
        return Explanation(edge_mask=subject.x[subject.edge_index[1], 1].to(torch.float64))
    return Explanation(edge_mask=(subject.edge_index[1] == subject.target).to(torch.float64))


register(ExplainerSpec("ParityFake", _parity, {}, source="test only"))


def prog(formula: str) -> gracr.Program:
    return gracr.parse(f"colors red, blue, green\nclassify {formula}")


def parity_case(formula: str, graph: gracr.Graph, target: int | None,
                formula_shrinks: bool = False) -> Case:
    program = prog(formula)
    impls = implementations(program, FAMILIES, seed=0)
    return Case("ParityFake", {}, 0, 0, impls, graph, target,
                max(1, int(graph.in_degrees().max(initial=0))), formula_shrinks)


def assert_one_minimal(case: Case, models: Models) -> None:
    """Re-apply every single shrinking step: none may still give a valid failing case."""
    for candidate in single_steps(case):
        verdict = judge(candidate, models)
        assert verdict is None or not verdict.failing, (
            [i.label for i in candidate.implementations], candidate.graph.to_json(),
            show_formula(candidate.base.classifier))


# Target 0 (blue) with a red in-neighbour 1, plus a blue one and some unrelated edges.
UNDIRECTED = [(1, 0), (2, 0), (3, 1), (4, 2), (3, 4), (5, 3)]
GRAPH = gracr.Graph.from_edges(
    6, [["blue"], ["red"], ["blue"], ["red"], ["green"], ["red"]],
    UNDIRECTED + [(t, s) for s, t in UNDIRECTED])


def test_the_parity_explainer_fails_and_shrinks_to_the_smallest_case() -> None:
    # `<1> red` compiles to 1 layer; pad-end-1 makes 2 (the parity flips). The odd model
    # scores the target's in-edges, the even one nothing: F1 1 vs 2u/(u + |E|), which
    # differs by more than 0.1 as soon as there is one edge besides the UPI edge 1 -> 0
    # that does not enter the target; removing any node but 0 and 1 or any edge
    # loses that, so the only 1-minimal case is nodes {0, 1} with both directions.
    case = parity_case("<1> red", GRAPH, 0)
    # double negation (3 layers) and pad-start-2 (3 layers) keep the parity
    assert [i.label for i in case.implementations] == ["base", "double-negation", "pad-end-1",
                                                       "pad-start-2"]
    models = Models()
    result = shrink(case, models)
    final = result.case
    assert [i.label for i in final.implementations] == ["base", "pad-end-1"]
    assert final.graph.num_nodes == 2 and final.target == 0
    assert sorted(final.graph.edges) == [(0, 1), (1, 0)]
    assert final.graph.colors == (frozenset({"blue"}), frozenset({"red"}))
    f1 = {r.label: r.f1 for r in result.verdict.results}
    assert f1 == {"base": 1.0, "pad-end-1": pytest.approx(2 / 3)}
    assert result.steps > 0
    assert_one_minimal(final, models)


def test_formula_shrinking_reaches_a_one_minimal_formula_and_graph() -> None:
    formula = "(<1> red | <2> green) & !green & between 0 3 true"
    case = parity_case(formula, GRAPH, 0, formula_shrinks=True)
    models = Models()
    verdict = judge(case, models)
    assert verdict is not None and verdict.failing
    result = shrink(case, models)
    final = result.case
    assert len(final.implementations) == 2
    # greedy order reaches `<1> true`: no smaller formula has a non-empty UPI
    assert show_formula(final.base.classifier) == "<1> true"
    assert final.graph.num_edges < GRAPH.num_edges
    assert_one_minimal(final, models)


def test_a_graph_classifier_fails_and_shrinks() -> None:
    case = parity_case("exists (blue & <1> red)", GRAPH, None)
    models = Models()
    result = shrink(case, models)
    assert len(result.case.implementations) == 2
    assert_one_minimal(result.case, models)


def test_judge_rejects_invalid_cases() -> None:
    models = Models()
    assert judge(parity_case("<1> red", GRAPH, 2), models) is None  # 2 is not positive
    assert judge(parity_case("true", GRAPH, 0), models) is None     # empty UPI
    case = parity_case("<1> red", GRAPH, 0)
    wrong = prog("<2> red")
    from gracr.fuzz.rewrites import Implementation
    broken = Case(case.explainer, {}, 0, 0, (case.implementations[0],
                                              Implementation("alt:x", "alternative", wrong)),
                  GRAPH, 0, 3)
    assert judge(broken, models) is None  # not BDD-equivalent on the graph


# ---------------------------------------------------------------- whole runs


def test_random_baseline_with_a_fixed_seed_never_fails() -> None:
    # Rnd scores the receptive field with seeded coins: the same on every equivalent
    # model (their modal depth, hence their field, is the same).
    config = FuzzConfig(("Rnd",), FAMILIES, limit=3, seed=1)
    report = run_fuzz(config, prog("<1> (red | blue) & exactly 1 green"), progress=False)
    assert not report.failures
    assert len(report.rows) == 3
    assert all(r.spread("f1") == 0.0 for r in report.rows)
    assert len(report.implementations[0]) >= 5


def test_saliency_is_not_invariant_to_de_morgan_but_ig_is() -> None:
    # App. C.5, Table 10: the De Morgan disjunction puts a negation on every path, so
    # the surrogate gradient never reaches the branches; the flat gate does not.
    # IG keeps its scores.
    config = FuzzConfig(("Saliency", "IG"), ("disjunction",), limit=1, seed=0, shrink="none")
    report = run_fuzz(config, prog("<1> red | <1> blue"), progress=False)
    rows = {r.explainer: r for r in report.rows}
    assert [r.label for r in rows["Saliency"].results] == ["base", "flat"]
    saliency = {r.label: r for r in rows["Saliency"].results}
    assert saliency["flat"].f1 == 1.0 and saliency["base"].f1 < 0.9
    assert rows["Saliency"].failing and not rows["IG"].failing
    assert [f.explainer for f in report.failures] == ["Saliency"]


def test_random_formulas_and_instances_are_reproducible() -> None:
    first = [show_formula(random_formula(random.Random(5))) for _ in range(3)]
    assert first == [show_formula(random_formula(random.Random(5))) for _ in range(3)]
    rng = random.Random(3)
    formulas = [random_formula(rng) for _ in range(30)]
    assert len({show_formula(f) for f in formulas}) > 20
    graph = random_graph(random.Random(2), ("red", "blue", "green"))
    assert 8 <= graph.num_nodes <= 16
    assert is_constant(prog("red | !red"), [graph])
    assert not is_constant(prog("red"), [graph]) or not graph.color_mask("red").any()
    program = program_of(formulas[0])
    a = find_instances(prog("<1> red"), random.Random(4), 4)
    b = find_instances(prog("<1> red"), random.Random(4), 4)
    assert len(a) == 4 and [(i.target, i.graph.edges) for i in a] == \
        [(i.target, i.graph.edges) for i in b]
    assert all(i.upi.any() and np.asarray(gracr.evaluate(prog("<1> red"), i.graph))[i.target]
               for i in a)
    assert program.palette == ("red", "blue", "green")


# ---------------------------------------------------------------- the command


def test_cli_writes_the_result_files(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "or.gml"
    source.write_text("colors red, blue, green\nclassify <1> red | <1> blue\n")
    out = tmp_path / "fuzz"
    lines: list[str] = []

    class Capture:
        def write(self, text: str) -> int:
            lines.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    code = main(["fuzz", str(source), "--explainers", "Saliency,Rnd", "--rewrites", "disjunction",
                 "--limit", "2", "--out", str(out)], out=Capture())  # type: ignore[arg-type]
    assert code == 0
    text = "".join(lines)
    assert "FAIL Saliency" in text and "| Saliency" in text
    with open(out / "summary.csv") as handle:
        summary = list(csv.DictReader(handle))
    assert [row["explainer"] for row in summary] == ["Saliency", "Rnd"]
    assert summary[0]["failures"] == "2" and summary[1]["failures"] == "0"
    assert float(summary[0]["f1_spread"]) > 0.1 and float(summary[1]["f1_spread"]) == 0.0
    with open(out / "models.csv") as handle:
        models = list(csv.DictReader(handle))
    assert list(models[0]) == ["explainer", "formula", "instance", "rewrite", "precision",
                               "recall", "f1"]
    assert len(models) == 2 * 2 * 2  # explainers x instances x implementations
    records = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert len(records) == 2
    record = records[0]
    graph = gracr.Graph.from_json(record["graph"])
    assert graph.target == record["target"]
    assert [i["label"] for i in record["implementations"]] == ["base", "flat"]
    assert len(record["results"][0]["scores"]) == graph.num_edges
    assert (out / "failures.md").read_text().startswith("# Fuzzing failures (2)")
    assert (out / "summary.md").exists()


def test_cli_random_formulas(tmp_path: pathlib.Path) -> None:
    code = main(["fuzz", "--formulas", "2", "--limit", "2", "--explainers", "Rnd", "--quiet",
                 "--seed", "3", "--out", str(tmp_path)])
    assert code == 0
    with open(tmp_path / "models.csv") as handle:
        formulas = {row["formula"] for row in csv.DictReader(handle)}
    assert len(formulas) == 2


@pytest.mark.parametrize("argv, message", [
    (["--rewrites", "nope"], "unknown rewrite family 'nope'"),
    (["--explainers", "Nope"], "unknown explainer 'Nope'"),
    (["--set", "IG.x=1", "--explainers", "Rnd"], "--set names IG"),
    (["--alternative", "x.gml"], "--alternative needs a FILE.gml"),
    (["--limit", "0"], "--limit must be positive"),
])
def test_cli_bad_input_is_a_clean_error(argv: list[str], message: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--formulas", "1", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def _crash_when_padded(subject: Subject, settings: Mapping[str, Any], seed: int
                       ) -> Explanation:
    if subject.num_layers > 1:
        raise ValueError("too deep for me")  # LINE_OF_CRASH
    return Explanation(edge_mask=torch.ones(subject.num_edges, dtype=torch.float64))


register(ExplainerSpec("CrashFake", _crash_when_padded, {}, source="test only"))
LINE_OF_CRASH = next(number for number, text in enumerate(pathlib.Path(__file__).read_text().splitlines(),
                                                          start=1)
                     if text.endswith("# LINE_OF_CRASH") and "raise" in text)


def test_an_explainer_crash_is_recorded_not_scored() -> None:
    from gracr.fuzz.run import distinct_errors, summary_table

    config = FuzzConfig(("CrashFake",), ("padding",), limit=2, seed=0)
    report = run_fuzz(config, prog("<1> red"), progress=False)
    assert not report.failures
    for row in report.rows:
        assert [r.ok for r in row.results] == [True, False, False]
        assert row.spread("f1") is None  # one model scored: no spread
    # The error names where the explainer raised, as the runner's records do.
    assert distinct_errors(report) == [
        f"CrashFake on {where} (2x): ValueError: too deep for me (test_fuzz.py:{line})"
        for where, line in (("pad-end-1", LINE_OF_CRASH), ("pad-start-2", LINE_OF_CRASH))]
    assert "| CrashFake | -" in summary_table(report)


def _spin_when_padded(subject: Subject, settings: Mapping[str, Any], seed: int
                      ) -> Explanation:
    if subject.num_layers > 1:
        while True:  # burns CPU until the budget's SIGPROF interrupts it
            sum(range(1000))
    return Explanation(edge_mask=torch.ones(subject.num_edges, dtype=torch.float64))


register(ExplainerSpec("SpinFake", _spin_when_padded, {}, source="test only"))


def test_an_explainer_over_budget_is_recorded_out_of_time() -> None:
    from gracr.fuzz.run import distinct_errors

    config = FuzzConfig(("SpinFake",), ("padding",), limit=1, seed=0, budget=0.3)
    report = run_fuzz(config, prog("<1> red"), progress=False)
    assert [r.ok for r in report.rows[0].results] == [True, False, False]
    assert distinct_errors(report) == [
        "SpinFake on pad-end-1 (1x): out of time (0.3 CPU s)",
        "SpinFake on pad-start-2 (1x): out of time (0.3 CPU s)"]
