"""`gracrc fuzz`: explainers across logically equivalent models (App. C.5, generalised).

For each formula (a `.gml` file, or `--formulas K` random ones), the fuzzer builds
the base implementation and its rewrites (`gracr.fuzz.rewrites`), draws instances
(small seeded graphs from the dataset generators; positive targets with a
non-empty UPI), and runs every explainer on every instance under every
implementation with the same settings and the same seed. Per explainer it reports
the spread (max − min across the equivalent models) of precision, recall and F1,
averaged over instances. An instance *fails* when its F1 spread exceeds 0.1; each
failure is shrunk to a 1-minimal counterexample (`gracr.fuzz.shrink`).

Instances: graphs of 8–16 nodes from a family of `GRAPH_FAMILIES` with uniform
colours over the program's palette; node classifiers take at most
`PER_GRAPH` positive targets of each graph (so that one graph does not supply all
of them), graph classifiers the positive graphs. The bound of Eq. 6 is the
largest in-degree of the instance graphs (at least 1), so every model is exact.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gracr.dsl.evaluate import evaluate_program
from gracr.bdd.upi import upi
from gracr.explainers.base import explainer_named, settings_for
from gracr.bench.budget import OutOfTime, cpu_budget
from gracr.bench.report.tables import render_table, write_table
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.dsl.show import show_formula
from gracr.errors import GracrError
from gracr.files import write_text
from gracr.fuzz.random_formulas import is_constant, program_of, random_formula, random_graph
from gracr.fuzz.rewrites import Implementation, equivalent_on, implementations, same_weights
from gracr.fuzz.shrink import (
    FAILURE_THRESHOLD, Case, Explained, Models, Shrunk, explain_all, shrink, spread,
)
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]
PER_GRAPH = 2
GRAPH_ATTEMPTS = 40
METRICS = ("precision", "recall", "f1")


@dataclass(frozen=True)
class Instance:
    """One positive instance: a graph, its target (None for graph classifiers), its UPI."""

    graph: Graph
    target: int | None
    upi: BoolArray


def find_instances(program: Program, rng: random.Random, limit: int,
                   attempts: int = GRAPH_ATTEMPTS, budget: float | None = None) -> list[Instance]:
    """Up to `limit` positive instances with a non-empty UPI, from at most `attempts`
    random graphs. A target whose UPI takes more than `budget` CPU seconds is passed
    over: a random formula can make the ROBDD of a 16-node graph blow up (we saw one
    reach 5 GB), and one such draw must not stall a fuzz run."""
    found: list[Instance] = []
    for _ in range(attempts):
        if len(found) >= limit:
            break
        graph = random_graph(rng, program.palette)
        value = evaluate_program(program, graph)
        if program.kind is Kind.GRAPH:
            candidates: list[int | None] = [None] if value else []
        else:
            positives = [int(v) for v in np.flatnonzero(np.asarray(value))]
            rng.shuffle(positives)
            candidates = list(positives)
        taken = 0
        for target in candidates:
            if len(found) >= limit or taken >= PER_GRAPH:
                break
            try:
                with cpu_budget(budget or None):
                    _, mask = upi(program, graph, target)
            except OutOfTime:
                continue
            if mask.any():
                found.append(Instance(graph, target, mask))
                taken += 1
    return found


def bound_for(instances: Sequence[Instance]) -> int:
    """Eq. 6's bound: the largest in-degree of the instance graphs, at least 1."""
    return max([1] + [int(i.graph.in_degrees().max(initial=0)) for i in instances])


def distinct_models(candidates: Sequence[Implementation], models: Models,
                    max_degree: int) -> tuple[Implementation, ...]:
    """`candidates` without those that compile to the same weights as an earlier one
    (the compiler's own desugaring makes, e.g., `[] f` and `!<1> !f` one network)."""
    kept: list[Implementation] = []
    for candidate in candidates:
        model = models.get(candidate, max_degree)
        if not any(same_weights(model, models.get(k, max_degree)) for k in kept):
            kept.append(candidate)
    return tuple(kept)


def check_equivalence(impls: Sequence[Implementation], instances: Sequence[Instance]) -> None:
    """Every implementation's classifier is BDD-equivalent to the base on every instance
    graph; a user alternative that is not is a `GracrError` naming its file and the graph."""
    base = impls[0].program
    checked = {base.classifier}
    for implementation in impls[1:]:
        if implementation.program.classifier in checked:
            continue
        checked.add(implementation.program.classifier)
        for number, instance in enumerate(instances):
            if not equivalent_on(base, implementation.program, instance.graph, instance.target):
                where = "" if instance.target is None else f" at node {instance.target}"
                what = (f"{implementation.label[len('alt:'):]}: the alternative formula"
                        if implementation.family == "alternative"
                        else f"internal error: rewrite {implementation.label}")
                raise GracrError(
                    f"{what} is not equivalent to {base.filename} on instance graph {number}"
                    f"{where}: {json.dumps(instance.graph.to_json())}")


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class InstanceResult:
    explainer: str
    formula: str
    formula_index: int
    instance: int
    results: tuple[Explained, ...]

    def spread(self, metric: str) -> float | None:
        return spread(self.results, metric)

    @property
    def failing(self) -> bool:
        f1 = self.spread("f1")
        return f1 is not None and f1 > FAILURE_THRESHOLD


@dataclass(frozen=True)
class Failure:
    """A failing instance and its shrunk counterexample."""

    explainer: str
    formula: str
    instance: int
    original: Case
    shrunk: Shrunk | None


@dataclass
class FuzzReport:
    explainers: tuple[str, ...]
    formulas: list[str] = field(default_factory=list)
    skipped_formulas: int = 0
    rows: list[InstanceResult] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    implementations: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def summary_rows(self) -> list[list[str]]:
        rows = []
        for explainer in self.explainers:
            mine = [r for r in self.rows if r.explainer == explainer]
            cells = [explainer]
            for metric in METRICS:
                values = [s for r in mine if (s := r.spread(metric)) is not None]
                cells.append(f"{np.mean(values):.3f}" if values else "-")
            errors = sum(1 for r in mine for e in r.results if not e.ok)
            cells += [str(sum(1 for r in mine if r.spread("f1") is not None)),
                      str(sum(1 for r in mine if r.failing)), str(errors)]
            rows.append(cells)
        return rows


def distinct_errors(report: FuzzReport) -> list[str]:
    """One line per distinct (explainer, implementation, error): explainer crashes are
    results (left out of the spreads), and this says which."""
    seen: dict[tuple[str, str, str], int] = {}
    for row in report.rows:
        for result in row.results:
            if result.error is not None:
                key = (row.explainer, result.label.split("#", 1)[0], result.error)
                seen[key] = seen.get(key, 0) + 1
    return [f"{explainer} on {label} ({count}x): {error}"
            for (explainer, label, error), count in seen.items()]


SUMMARY_HEADERS = ["explainer", "precision_spread", "recall_spread", "f1_spread", "instances",
                   "failures", "errors"]


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class FuzzConfig:
    explainers: tuple[str, ...]
    families: tuple[str, ...]
    limit: int = 10
    seed: int = 0
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    per_family: int = 1
    shrink: str = "all"   # "all" | "first" (per formula and explainer) | "none"
    budget: float = 30.0  # CPU seconds for one explainer run or one instance's UPI


def _explainer_seed(seed: int, formula_index: int, instance: int) -> int:
    return (seed * 1_000_003 + formula_index * 10_007 + instance) % 2**31


def fuzz_formula(program: Program, instances: Sequence[Instance], config: FuzzConfig,
                 report: FuzzReport, formula_index: int, formula_shrinks: bool,
                 alternatives: Sequence[Implementation] = (),
                 progress: Callable[[int], None] | None = None,
                 announce: Callable[[Failure], None] | None = None) -> None:
    """Explain `instances` under every implementation of `program`; record the spreads,
    and shrink the failures."""
    models = Models()
    max_degree = bound_for(instances)
    candidates = implementations(program, config.families, config.seed, config.per_family,
                                 alternatives)
    impls = distinct_models(candidates, models, max_degree)
    check_equivalence(impls, instances)
    text = show_formula(program.classifier)
    report.formulas.append(text)
    report.implementations[formula_index] = tuple(i.label for i in impls)
    shrunk_for: set[str] = set()
    for number, instance in enumerate(instances):
        for explainer in config.explainers:
            settings = settings_for(explainer_named(explainer), config.overrides.get(explainer))
            seed = _explainer_seed(config.seed, formula_index, number)
            results = explain_all(explainer, settings, seed, impls, models, max_degree,
                                  instance.graph, instance.target, instance.upi, config.budget)
            row = InstanceResult(explainer, text, formula_index, number, results)
            report.rows.append(row)
            if not row.failing or len(impls) < 2:
                continue
            case = Case(explainer, settings, seed, config.seed, impls, instance.graph,
                        instance.target, max_degree, formula_shrinks, config.budget)
            shrunk = None
            if config.shrink == "all" or (config.shrink == "first" and explainer not in shrunk_for):
                shrunk_for.add(explainer)
                shrunk = shrink(case, models)
            failure = Failure(explainer, text, number, case, shrunk)
            report.failures.append(failure)
            if announce is not None:
                announce(failure)
        if progress is not None:
            progress(1)


def run_fuzz(config: FuzzConfig, program: Program | None = None,
             alternatives: Sequence[Implementation] = (), formulas: int = 100,
             progress: bool = True,
             announce: Callable[[Failure], None] | None = None) -> FuzzReport:
    """Fuzz `program` (or `formulas` random ones when it is None) with `config`."""
    from tqdm import tqdm

    for name in config.explainers:
        spec = explainer_named(name)
        if spec.train is not None:
            # Training needs a task's held-out seed; a fuzzed formula has no dataset.
            raise GracrError(f"{name} must be trained before it explains, on a task's "
                             "held-out seed; fuzz runs formulas without one (benchmark it "
                             "with gracrc bench)")
        if "edge" not in spec.levels:
            raise GracrError(f"{name} gives node scores only; the fuzzer compares edge scores")
    if config.limit <= 0:
        raise GracrError(f"--limit must be positive, got {config.limit}")
    if config.budget <= 0:
        raise GracrError(f"--budget must be positive, got {config.budget:g}")
    if program is not None and (program.families or program.relations or program.features):
        declared = [what for what, present in (("attribute families", program.families),
                                                ("relations", program.relations),
                                                ("numeric features", program.features))
                    if present]
        raise GracrError(f"the fuzzer draws graphs of colours only; this program declares "
                         f"{' and '.join(declared)}")
    report = FuzzReport(config.explainers)
    rng = random.Random(config.seed)
    if program is not None:
        instances = find_instances(program, rng, config.limit,
                                   attempts=max(GRAPH_ATTEMPTS, 10 * config.limit),
                                   budget=config.budget)
        if not instances:
            raise GracrError(f"{program.filename}: no positive instance with a non-empty UPI "
                             f"in {max(GRAPH_ATTEMPTS, 10 * config.limit)} random graphs "
                             f"(seed {config.seed})")
        with tqdm(total=len(instances), desc="fuzz", unit="instance",
                  disable=not progress, leave=False) as bar:
            fuzz_formula(program, instances, config, report, 0, False, alternatives,
                         bar.update, announce)
        return report
    if alternatives:
        raise GracrError("--alternative needs a FILE.gml to be an alternative to")
    if formulas <= 0:
        raise GracrError(f"--formulas must be positive, got {formulas}")
    with tqdm(total=formulas * config.limit, desc="fuzz", unit="instance",
              disable=not progress, leave=False) as bar:
        accepted = attempts = 0
        while accepted < formulas and attempts < 50 * formulas:
            attempts += 1
            candidate = program_of(random_formula(rng))
            probes = [random_graph(rng, candidate.palette) for _ in range(3)]
            if is_constant(candidate, probes):
                report.skipped_formulas += 1
                continue
            instances = find_instances(candidate, rng, config.limit, attempts=12,
                                       budget=config.budget)
            if not instances:
                report.skipped_formulas += 1
                continue
            fuzz_formula(candidate, instances, config, report, accepted, True, (),
                         bar.update, announce)
            bar.update(config.limit - len(instances))
            accepted += 1
    return report


# ---------------------------------------------------------------- printing and files


def _number(value: float) -> str:
    return "" if value != value else f"{value:.4f}"  # NaN (explainer error) -> empty


def _implementation_json(implementation: Implementation, models: Models,
                         max_degree: int) -> dict[str, Any]:
    model = models.get(implementation, max_degree)
    return {"label": implementation.label, "family": implementation.family,
            "formula": show_formula(implementation.program.classifier),
            "disjunction": implementation.disjunction, "comparison": implementation.comparison,
            "padding_end": implementation.padding,
            "padding_start": implementation.padding_before,
            "layers": model.num_layers, "width": model.width}


def failure_json(failure: Failure) -> dict[str, Any]:
    """A failure as one JSON object: the shrunk counterexample (or the original)."""
    final = failure.shrunk.case if failure.shrunk else failure.original
    models = Models()
    record: dict[str, Any] = {
        "explainer": failure.explainer, "settings": dict(final.settings), "seed": final.seed,
        "formula": show_formula(final.base.classifier), "original_formula": failure.formula,
        "original_instance": failure.instance, "shrunk": failure.shrunk is not None,
        "implementations": [_implementation_json(i, models, final.max_degree)
                            for i in final.implementations],
        "graph": final.graph.with_target(final.target).to_json(), "target": final.target,
        "max_degree": final.max_degree,
    }
    if failure.shrunk is not None:
        verdict = failure.shrunk.verdict
        record.update(
            upi=[int(m) for m in verdict.upi], shrink_steps=failure.shrunk.steps,
            shrink_checks=failure.shrunk.checks,
            results=[{"label": r.label, "scores": list(r.scores), "precision": r.precision,
                      "recall": r.recall, "f1": r.f1, "error": r.error}
                     for r in verdict.results])
    return record


def describe_failure(failure: Failure) -> str:
    """A compact, human-readable counterexample."""
    record = failure_json(failure)
    graph = record["graph"]
    lines = [f"FAIL {failure.explainer}: F1 spread > {FAILURE_THRESHOLD} on "
             f"'{failure.formula}' instance {failure.instance}"
             + ("" if failure.shrunk else " (not shrunk)"),
             f"  formula: {record['formula']}"]
    for implementation in record["implementations"]:
        lines.append(f"  {implementation['label']:<22} {implementation['formula']}  "
                     f"[{implementation['disjunction']}, {implementation['comparison']}, "
                     f"{implementation['layers']} layers]")
    target = "" if record["target"] is None else f", target {record['target']}"
    lines.append(f"  graph: {graph['num_nodes']} nodes {graph['colors']}, edges "
                 f"{graph['edges']}{target}")
    if failure.shrunk is not None:
        lines.append(f"  UPI: {record['upi']}   ({record['shrink_steps']} shrinking steps)")
        for result in record["results"]:
            scores = ", ".join(f"{s:.3g}" for s in result["scores"])
            lines.append(f"  {result['label']:<22} F1 {result['f1']:.2f} "
                         f"(P {result['precision']:.2f} R {result['recall']:.2f})  "
                         f"scores [{scores}]" + (f" error: {result['error']}"
                                                 if result["error"] else ""))
    return "\n".join(lines)


def write_outputs(report: FuzzReport, out: str) -> None:
    """models.csv, summary.csv, summary.md, failures.md, failures.jsonl in `out`."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as error:
        raise GracrError(f"{out}: cannot create the folder ({error.strerror})") from None
    model_rows = [[row.explainer, row.formula, str(row.instance), result.label,
                   _number(result.precision), _number(result.recall), _number(result.f1)]
                  for row in report.rows for result in row.results]
    write_table(os.path.join(out, "models.csv"),
                ["explainer", "formula", "instance", "rewrite", "precision", "recall", "f1"],
                model_rows)
    summary = report.summary_rows()
    write_table(os.path.join(out, "summary.csv"), SUMMARY_HEADERS, summary)
    write_text(os.path.join(out, "summary.md"), summary_table(report) + "\n")
    write_text(os.path.join(out, "failures.jsonl"),
               "".join(json.dumps(failure_json(failure)) + "\n" for failure in report.failures))
    write_text(os.path.join(out, "failures.md"),
               f"# Fuzzing failures ({len(report.failures)})\n\n"
               + "".join(f"## {number}. {failure.explainer} on `{failure.formula}`\n\n```\n"
                         f"{describe_failure(failure)}\n```\n\n"
                         for number, failure in enumerate(report.failures, start=1)))


def summary_table(report: FuzzReport) -> str:
    """The per-explainer summary, followed by the distinct explainer errors if any."""
    text = render_table(SUMMARY_HEADERS, report.summary_rows())
    errors = distinct_errors(report)
    if errors:
        text += "\nexplainer errors (not scored):\n" + "\n".join(f"  {e}" for e in errors)
    return text
