"""Fuzzing cases, their verdicts, and the shrinker that makes a failure 1-minimal.

A `Case` is one explainer (with its settings and seed) run on one instance
(graph, target) under several equivalent implementations. It *fails* when the F1
of the explanations spreads by more than `threshold` across the implementations:
an explainer that were implementation-invariant (App. C.5) would score them alike,
since their ground truth (the UPI) is the same.

`shrink` reduces a failing case by greedy first-improvement over single steps

(a) drop one non-base implementation,
(b) remove one edge: both directions of an undirected edge as one step, or one
    direction alone,
(c) remove one node other than the target (nodes renumbered),
(d) random formulas only: replace a subformula of the base by one of its children
    or by `true`/`false`, and re-derive each rewrite on the smaller formula with the
    same label and seed (dropped when it no longer applies),

keeping a step only when the smaller case is still valid (target positive, UPI
non-empty, implementations BDD-equivalent on the graph) and still failing. It stops
when no single step does: that is 1-minimality by definition.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

import numpy as np
import numpy.typing as npt

from gracr.dsl.evaluate import evaluate_program
from gracr.bdd.upi import upi
from gracr.explainers.base import Subject
from gracr.bench.budget import explain
from gracr.executor.model import CompiledGNN
from gracr.dsl import ir
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.fuzz.rewrites import (
    Implementation, equivalent_on, positions, rederive, replace_at,
)
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]
FAILURE_THRESHOLD = 0.1


# ---------------------------------------------------------------- compiled models


@dataclass
class Models:
    """Compiled implementations, each compiled once per bound of Eq. 6."""

    cache: dict[tuple[Any, ...], CompiledGNN] = field(default_factory=dict)

    def get(self, implementation: Implementation, max_degree: int) -> CompiledGNN:
        key = (implementation.program.palette, implementation.program.kind,
               implementation.identity, max_degree)
        if key not in self.cache:
            self.cache[key] = implementation.compile(max_degree)
        return self.cache[key]


# ---------------------------------------------------------------- explaining one case


@dataclass(frozen=True)
class Explained:
    """One explainer's scores for one implementation, scored against the UPI."""

    label: str
    precision: float
    recall: float
    f1: float
    scores: tuple[float, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def explain_all(explainer: str, settings: Mapping[str, Any], seed: int,
                implementations: tuple[Implementation, ...], models: Models, max_degree: int,
                graph: Graph, target: int | None, upi_mask: BoolArray,
                budget: float | None = None) -> tuple[Explained, ...]:
    """Run `explainer` with the same settings and seed on every implementation.

    Each implementation gets its own `Subject` (its compiled model and its own
    receptive field, which depends only on the formula's modal depth). An
    explainer that raises, or runs past `budget` CPU seconds, is recorded with its
    error, not scored (`gracr.bench.budget.explain`).
    """
    results = []
    for implementation in implementations:
        model = models.get(implementation, max_degree)
        subject = Subject.of(model, implementation.program, graph, target)
        if subject.prediction < 0.5:
            # Equivalent formulas compiled exactly: this would be a compiler bug.
            raise AssertionError(f"{implementation.label} does not predict the positive instance")
        outcome = explain(explainer, subject, upi_mask, settings, seed, budget or None)
        if not outcome.ok:
            error = (f"out of time ({budget:g} CPU s)" if outcome.status == "oot" and budget
                     else outcome.error)
            results.append(Explained(implementation.label, float("nan"), float("nan"),
                                     float("nan"), (), error))
            continue
        assert outcome.scores is not None and outcome.f1 is not None
        assert outcome.precision is not None and outcome.recall is not None
        results.append(Explained(implementation.label, outcome.precision, outcome.recall,
                                 outcome.f1, tuple(float(s) for s in outcome.scores)))
    return tuple(results)


def spread(results: tuple[Explained, ...], metric: str) -> float | None:
    """max − min of `metric` over the implementations that ran (None if fewer than 2)."""
    values = [getattr(r, metric) for r in results if r.ok]
    if len(values) < 2:
        return None
    return float(max(values) - min(values))


# ---------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One explainer on one instance under several implementations (base first).

    `max_degree` is the bound of Eq. 6 the models are compiled with (at least the
    largest in-degree of the graph, so the models are exact; shrinking only lowers
    degrees). `formula_shrinks` allows step (d) (random formulas).
    """

    explainer: str
    settings: Mapping[str, Any]
    seed: int
    rewrite_seed: int
    implementations: tuple[Implementation, ...]
    graph: Graph
    target: int | None
    max_degree: int
    formula_shrinks: bool = False
    budget: float | None = None

    @property
    def base(self) -> Program:
        return self.implementations[0].program

    def key(self) -> tuple[Any, ...]:
        """What determines the verdict (for memoising checks while shrinking)."""
        g = self.graph
        return (tuple(i.identity for i in self.implementations), g.num_nodes, g.colors,
                tuple(g.sources.tolist()), tuple(g.targets.tolist()), self.target)


@dataclass(frozen=True)
class Verdict:
    """A valid case's explanations: `failing` when the F1 spread exceeds the threshold."""

    upi: BoolArray
    results: tuple[Explained, ...]
    failing: bool


def judge(case: Case, models: Models, threshold: float = FAILURE_THRESHOLD) -> Verdict | None:
    """The case's verdict, or None when it is not a valid case: the target must be a
    positive instance with a non-empty UPI, and every implementation's classifier
    must be BDD-equivalent to the base on the graph."""
    base = case.base
    value = evaluate_program(base, case.graph)
    positive = bool(value) if base.kind is Kind.GRAPH else bool(np.asarray(value)[case.target])
    if not positive:
        return None
    label, mask = upi(base, case.graph, case.target)
    if not mask.any():
        return None
    checked = {base.classifier}
    for implementation in case.implementations[1:]:
        program = implementation.program
        if program.classifier not in checked:
            if not equivalent_on(base, program, case.graph, case.target):
                return None
            checked.add(program.classifier)
    results = explain_all(case.explainer, case.settings, case.seed, case.implementations,
                          models, case.max_degree, case.graph, case.target, mask, case.budget)
    f1_spread = spread(results, "f1")
    return Verdict(mask, results, f1_spread is not None and f1_spread > threshold)


# ---------------------------------------------------------------- single shrinking steps


def _without_node(graph: Graph, node: int) -> Graph:
    """`graph` with `node` and its edges deleted, the other nodes renumbered in order."""
    base = graph if graph.target != node else graph.with_target(None)
    return base.keep_nodes(np.arange(graph.num_nodes) != node)[0]


def _edge_removals(graph: Graph) -> Iterator[BoolArray]:
    """Keep-masks: each undirected edge (both directions) at once, then each single edge."""
    first_of: dict[tuple[int, int], int] = {}
    for e, (s, t) in enumerate(graph.edges):
        first_of.setdefault((s, t), e)
    for (s, t), e in first_of.items():
        back = first_of.get((t, s))
        if s < t and back is not None:
            keep = np.ones(graph.num_edges, dtype=np.bool_)
            keep[[e, back]] = False
            yield keep
    for e in range(graph.num_edges):
        keep = np.ones(graph.num_edges, dtype=np.bool_)
        keep[e] = False
        yield keep


def _smaller_formulas(program: Program) -> Iterator[ir.Formula]:
    """Each subformula replaced by one of its children of the same kind, or (node
    formulas) by `true` / `false`."""
    for path, sub, kind in positions(program.classifier, program.kind):
        below = Kind.NODE if isinstance(sub, ir.Exists) else kind
        for child in ir.children(sub):
            if below is kind:
                yield replace_at(program.classifier, path, child)
        if kind is Kind.NODE and path and not isinstance(sub, (ir.Top, ir.Bottom)):
            yield replace_at(program.classifier, path, ir.Top())
            yield replace_at(program.classifier, path, ir.Bottom())


def _with_formula(case: Case, formula: ir.Formula) -> Case | None:
    """`case` on a smaller base formula, its rewrites re-derived (step (d))."""
    program = dataclasses.replace(case.base, classifier=formula)
    kept = [Implementation("base", "base", program)]
    seen = {kept[0].identity}
    for implementation in case.implementations[1:]:
        derived = rederive(implementation, program, case.rewrite_seed)
        if derived is not None and derived.identity not in seen:
            seen.add(derived.identity)
            kept.append(derived)
    if len(kept) < 2:
        return None
    return dataclasses.replace(case, implementations=tuple(kept))


def single_steps(case: Case) -> Iterator[Case]:
    """Every case one shrinking step away from `case` (cheap ones first)."""
    if len(case.implementations) > 2:
        for drop in range(1, len(case.implementations)):
            kept = case.implementations[:drop] + case.implementations[drop + 1:]
            yield dataclasses.replace(case, implementations=kept)
    if case.formula_shrinks:
        for formula in _smaller_formulas(case.base):
            smaller = _with_formula(case, formula)
            if smaller is not None:
                yield smaller
    for node in range(case.graph.num_nodes):
        if node != case.target:
            target = None if case.target is None else case.target - (node < case.target)
            graph = _without_node(case.graph, node)
            yield dataclasses.replace(case, graph=graph, target=target)
    for keep in _edge_removals(case.graph):
        yield dataclasses.replace(case, graph=case.graph.keep_edges(keep))


@dataclass(frozen=True)
class Shrunk:
    """A shrinker's result: the 1-minimal case, its verdict and the work done."""

    case: Case
    verdict: Verdict
    steps: int       # accepted steps
    checks: int      # candidate cases judged


def shrink(case: Case, models: Models, threshold: float = FAILURE_THRESHOLD,
           on_step: Callable[[Case], None] | None = None) -> Shrunk:
    """Greedy first-improvement shrinking of a failing case until no single step
    (see the module docstring) still fails: the result is 1-minimal."""
    verdict = judge(case, models, threshold)
    if verdict is None or not verdict.failing:
        raise ValueError("shrink needs a valid failing case")
    memo: dict[tuple[Any, ...], bool] = {case.key(): True}
    steps = checks = 0
    while True:
        for candidate in single_steps(case):
            key = candidate.key()
            if key in memo:
                continue  # judged already (failing ones are accepted at once)
            checks += 1
            candidate_verdict = judge(candidate, models, threshold)
            memo[key] = candidate_verdict is not None and candidate_verdict.failing
            if candidate_verdict is not None and candidate_verdict.failing:
                case, verdict = candidate, candidate_verdict
                steps += 1
                if on_step is not None:
                    on_step(case)
                break
        else:
            return Shrunk(case, verdict, steps, checks)
