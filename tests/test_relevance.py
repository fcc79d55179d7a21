"""Node relevance from the ROBDD (`gracr.bdd.relevance`) against its definitions.

Properties: on random programs and graphs (untyped graph sentences and node
formulas, and typed ones with attribute families and relation filters), the
counterfactual set, its minimum size, the Banzhaf and the exact Shapley values of
every node equal the brute force of `gracr.bdd.brute.brute_force_relevance`, which
builds every induced subgraph with `keep_nodes` and runs the reference evaluator, on
both backends; the Shapley values add up to `v(V) - v(empty)` (efficiency). On
graphs too large for the brute force, the engines agree, efficiency holds against
the reference evaluator and nothing outside the receptive field is relevant. Each
property counts how often a draw was informative (a non-zero Shapley value) and
fails under `MIN_INFORMATIVE` of its draws: draws with constant games would compare
nothing but zeros.

Unit tests: games whose values follow from symmetry and counting by hand, written as
literal numbers; Monte Carlo sampling against an exact answer.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

import gracr
from gracr.bdd.backend import BACKENDS, Var, make_backend
from gracr.bdd.brute import brute_force_relevance
from gracr.bdd.oracle import relevance_disagreements
from gracr.bdd.build import Builder
from gracr.bdd.upi import node_receptive_field
from gracr.bdd.relevance import (
    Relevance, banzhaf, export, relevance, relevance_json, shapley_exact,
)
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.dsl.evaluate import evaluate_node
from gracr.dsl.ir import Formula
from gracr.dsl.program import Program
from gracr.errors import GracrError
from strategies import (
    graph_sentences, graphs, node_formulas, program_for, schemas, typed_graphs,
    typed_node_formulas, typed_program_for,
)

MIN_INFORMATIVE = 0.30
TOLERANCE = 1e-9


def property_settings(examples: int) -> settings:
    """Exactly `examples` fresh draws (no example database replayed), however slow."""
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Instance:
    prog: Program
    graph: Graph
    target: int | None


def _target(draw: st.DrawFn, graph: Graph) -> int:
    """Mostly a node with an in-edge from another node (at any other node every
    modality is constant over nodes)."""
    receivers = sorted({int(t) for s, t in graph.edges if s != t})
    if receivers and draw(st.integers(min_value=0, max_value=3)) > 0:
        return int(draw(st.sampled_from(receivers)))
    return int(draw(st.integers(min_value=0, max_value=graph.num_nodes - 1)))


@st.composite
def near_exists(draw: st.DrawFn, predicate: Formula, graph: Graph) -> Formula:
    """`exists[lo, hi] predicate`, the bounds often next to the number c of nodes
    satisfying it in `graph`, where deleting nodes crosses them."""
    satisfied = int(evaluate_node(predicate, graph).sum())
    near = st.sampled_from([satisfied, satisfied + 1, max(0, satisfied - 1)])
    low = draw(st.one_of(near, st.integers(min_value=1, max_value=3)))
    high = draw(st.one_of(st.none(), near.map(lambda h: max(h, low))))
    return ir.Exists(low, high, predicate)


@st.composite
def untyped_instances(draw: st.DrawFn, max_nodes: int = 9, max_edges: int = 14) -> Instance:
    """Colour-only programs: a random graph sentence, a near-bound `exists`, or a node
    formula at a target."""
    graph = draw(graphs(max_nodes=max_nodes, max_edges=max_edges))
    kind = draw(st.sampled_from(["sentence", "near", "near", "node"]))
    if kind == "sentence":
        return Instance(program_for(draw(graph_sentences)), graph, None)
    if kind == "near":
        sentence = draw(near_exists(draw(node_formulas), graph))
        if draw(st.booleans()):
            sentence = ir.Not(sentence)
        return Instance(program_for(sentence), graph, None)
    return Instance(program_for(draw(node_formulas)), graph, _target(draw, graph))


@st.composite
def typed_instances(draw: st.DrawFn, max_nodes: int = 9, max_edges: int = 12) -> Instance:
    """Typed programs (attribute families, relation filters): a near-bound `exists`
    (possibly combined with a second one) or a node formula at a target."""
    schema: Schema = draw(schemas())
    graph = draw(typed_graphs(schema, max_nodes=max_nodes, max_edges=max_edges, min_nodes=3))
    if draw(st.booleans()):
        predicate = st.one_of(typed_node_formulas(schema, 1, top=True),
                              typed_node_formulas(schema, 0))
        sentence = draw(near_exists(draw(predicate), graph))
        shape = draw(st.sampled_from(["alone", "not", "and", "or", "iff"]))
        if shape == "not":
            sentence = ir.Not(sentence)
        elif shape != "alone":
            other = draw(near_exists(draw(predicate), graph))
            combine: dict[str, Callable[[Formula, Formula], Formula]] = {
                "and": ir.And, "or": ir.Or, "iff": ir.Iff}
            sentence = combine[shape](sentence, other)
        return Instance(typed_program_for(schema, sentence), graph, None)
    depth = draw(st.sampled_from([1, 1, 2]))
    classifier = draw(typed_node_formulas(schema, depth, top=True))
    return Instance(typed_program_for(schema, classifier), graph, _target(draw, graph))


@dataclass
class Tally:
    """How many draws a property ran, and how many were informative."""

    name: str
    draws: int = 0
    informative: int = 0
    counterfactual: int = 0
    negative: int = 0
    labels: dict[int, int] = field(default_factory=dict)

    def record(self, report: Relevance) -> None:
        informative = bool(np.any(report.shapley != 0))
        has_counterfactual = bool(report.counterfactual.any())
        negative = bool(np.any(report.shapley < -TOLERANCE))
        self.draws += 1
        self.informative += int(informative)
        self.counterfactual += int(has_counterfactual)
        self.negative += int(negative)
        self.labels[report.label] = self.labels.get(report.label, 0) + 1
        event("some non-zero Shapley value" if informative else "all Shapley values 0")
        event("non-empty counterfactual set" if has_counterfactual
              else "empty counterfactual set")
        event("some negative Shapley value" if negative else "no negative Shapley value")
        event(f"label {report.label}")

    def check(self, examples: int, least: float = MIN_INFORMATIVE) -> None:
        """Fail unless the property really ran and `least` of its draws had a non-zero
        Shapley value and a non-empty counterfactual set."""
        share = self.informative / max(self.draws, 1)
        print(f"\n{self.name}: non-zero Shapley in {self.informative} of {self.draws} draws "
              f"({share:.0%}), non-empty counterfactual set in {self.counterfactual}, "
              f"a negative value in {self.negative}; labels {self.labels}")
        assert self.draws >= examples // 2, f"{self.name}: only {self.draws} draws ran"
        assert share >= least, f"{self.name}: informative in only {share:.0%}"
        assert self.counterfactual / max(self.draws, 1) >= least


def check_against_brute_force(instance: Instance) -> Relevance:
    """Both engines agree with the definitions, and the Shapley values are efficient
    (`gracr.bdd.oracle`, the one brute-force oracle)."""
    prog, graph, target = instance.prog, instance.graph, instance.target
    note(f"program: {prog.show()}; target {target}; {graph.num_nodes} nodes, "
         f"edges {list(graph.edges)}")
    _, report, problems = relevance_disagreements(prog, graph, target)
    assert not problems, problems
    assert report is not None
    return report


def _brute_force_property(name: str, strategy: st.SearchStrategy[Instance],
                          examples: int) -> None:
    tally = Tally(name)

    @property_settings(examples)
    @given(instance=strategy)
    def prop(instance: Instance) -> None:
        report = check_against_brute_force(instance)
        event(f"{instance.prog.kind.value} classifier")
        event(f"counterfactual closure {report.counterfactual_closure}")
        tally.record(report)

    prop()
    tally.check(examples)


def test_untyped_relevance_equals_brute_force() -> None:
    _brute_force_property("untyped", untyped_instances(), 400)


def test_typed_relevance_equals_brute_force() -> None:
    _brute_force_property("typed", typed_instances(), 400)


def _empty_value(instance: Instance) -> bool:
    """`v(empty)`: the classifier with every player deleted (a node classifier keeps its
    target, renumbered 0)."""
    graph, target = instance.graph, instance.target
    keep = np.zeros(graph.num_nodes, dtype=np.bool_)
    if target is not None:
        keep[target] = True
    sub, _ = graph.with_target(target).keep_nodes(keep)
    value = gracr.evaluate(instance.prog, sub)
    return value if isinstance(value, bool) else bool(value[0])


def test_larger_graphs_efficiency_and_agreement() -> None:
    """On graphs too large for the brute force (up to 16 nodes): both engines give the
    same answer, the Shapley values add up to `v(V) - v(empty)` (from the reference
    evaluator), and nothing outside the node receptive field gets any relevance.
    Fewer draws are informative here (the near bounds of `exists` are crossed less
    often on larger graphs): at least 15%."""
    examples = 200
    tally = Tally("larger graphs")
    strategy = st.one_of(untyped_instances(max_nodes=16, max_edges=32),
                         typed_instances(max_nodes=16, max_edges=28))

    @property_settings(examples)
    @given(instance=strategy)
    def prop(instance: Instance) -> None:
        prog, graph, target = instance.prog, instance.graph, instance.target
        value = gracr.evaluate(prog, graph)
        whole = value if isinstance(value, bool) else bool(value[target])
        reports = [relevance(prog, graph, target, backend=backend) for backend in BACKENDS]
        for report in reports:
            assert report.label == int(whole)
            assert abs(report.shapley.sum() - (int(whole) - int(_empty_value(instance)))) \
                < TOLERANCE
            outside = ~node_receptive_field(prog, graph, target)
            assert not report.counterfactual[outside].any()
            assert not report.shapley[outside].any() and not report.banzhaf[outside].any()
            minimum = report.min_counterfactual
            assert (minimum is None) == (not report.counterfactual.any())
            assert minimum is None or 1 <= minimum <= report.support_size
        first, second = reports
        assert first.counterfactual.tolist() == second.counterfactual.tolist()
        assert first.min_counterfactual == second.min_counterfactual
        assert np.allclose(first.shapley, second.shapley, atol=TOLERANCE)
        assert np.allclose(first.banzhaf, second.banzhaf, atol=TOLERANCE)
        tally.record(first)

    prop()
    tally.check(examples, least=0.15)


# ---------------------------------------------------------------- hand-made games


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_of_three_red_nodes(backend: str) -> None:
    """`exists[2, inf] red` on three red nodes: a symmetric game whose value 1 is
    shared equally, 1/3 each. Banzhaf: i is pivotal exactly when one other node is
    kept, 2 of the 4 subsets of the others. Removing any two nodes flips the label,
    one never does: every node is in a minimal removal of size 2."""
    prog = gracr.parse("colors red, blue\nclassify exists[2, inf] red")
    graph = Graph.from_edges(3, [["red"], ["red"], ["red"]], [(0, 1), (1, 2)])
    report = relevance(prog, graph, backend=backend)
    assert report.label == 1 and report.shapley_method == "exact"
    assert report.shapley == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=TOLERANCE)
    assert report.banzhaf == pytest.approx([0.5, 0.5, 0.5], abs=TOLERANCE)
    assert report.counterfactual.tolist() == [True, True, True]
    assert report.min_counterfactual == 2 and report.support_size == 3
    assert report.counterfactual_closure == "skipped (monotone)"


@pytest.mark.parametrize("backend", BACKENDS)
def test_majority_of_in_neighbours_is_signed(backend: str) -> None:
    """`more(red, blue)` at 0, in-edges from red 1, red 2 and blue 3: positive while the
    kept reds outnumber the kept blues. Over the 6 orders, a red node's marginal
    contributions sum to 4 and the blue node's to -2: Shapley 2/3, 2/3, -1/3 (sum 1 =
    v(V) - v(empty)). Banzhaf over the 4 subsets of the others: 2/4 for a red node,
    -2/4 for the blue one. Removing either red node flips the label; removing the
    blue one never helps: counterfactual set {1, 2}, minimum 1."""
    prog = gracr.parse("colors red, blue\nclassify more(red, blue)")
    graph = Graph.from_edges(4, [["blue"], ["red"], ["red"], ["blue"]],
                             [(1, 0), (2, 0), (3, 0)])
    report = relevance(prog, graph, 0, backend=backend)
    assert report.label == 1
    assert report.shapley == pytest.approx([0, 2 / 3, 2 / 3, -1 / 3], abs=TOLERANCE)
    assert report.banzhaf == pytest.approx([0, 0.5, 0.5, -0.5], abs=TOLERANCE)
    assert report.counterfactual.tolist() == [False, True, True, False]
    assert report.min_counterfactual == 1
    assert report.counterfactual_closure == "support"  # `more` is not monotone
    label, counterfactual, minimum, beta, phi = brute_force_relevance(prog, graph, 0)
    assert (label, counterfactual.tolist(), minimum) == (1, [False, True, True, False], 1)
    half, third = Fraction(1, 2), Fraction(1, 3)
    assert beta == [0, half, half, -half] and phi == [0, 2 * third, 2 * third, -third]


@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_instance_no_red_node(backend: str) -> None:
    """`exists[0, 0] red` with red nodes 0 and 2: false on the graph, true once both
    reds are gone (the only minimal removal, {0, 2}). Node 1 is a dummy (0); by
    symmetry the reds share v(V) - v(empty) = -1: -1/2 each. Banzhaf of node 0 over
    the subsets of {1, 2}: -1, -1, 0, 0, mean -1/2."""
    prog = gracr.parse("colors red\nclassify exists[0, 0] red")
    graph = Graph.from_edges(3, [["red"], [], ["red"]], [(0, 1)])
    report = relevance(prog, graph, backend=backend)
    assert report.label == 0
    assert report.shapley == pytest.approx([-0.5, 0, -0.5], abs=TOLERANCE)
    assert report.banzhaf == pytest.approx([-0.5, 0, -0.5], abs=TOLERANCE)
    assert report.counterfactual.tolist() == [True, False, True]
    assert report.min_counterfactual == 2 and report.support_size == 2
    label, counterfactual, minimum, beta, phi = brute_force_relevance(prog, graph)
    assert (label, counterfactual.tolist(), minimum) == (0, [True, False, True], 2)
    half = Fraction(1, 2)
    assert beta == [-half, 0, -half] and phi == [-half, 0, -half]


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_game_has_no_counterfactual(backend: str) -> None:
    """`<1> red` at 0, which has no in-edge: false whatever is removed. No removal flips
    it (`None`), every value is 0, and the diagram is the constant."""
    prog = gracr.parse("colors red\nclassify <1> red")
    graph = Graph.from_edges(3, [[], ["red"], ["red"]], [(0, 1), (1, 2)])
    report = relevance(prog, graph, 0, backend=backend)
    assert report.label == 0 and report.min_counterfactual is None
    assert report.support_size == 0 and report.diagram_size == 1
    assert not report.counterfactual.any()
    assert report.shapley.tolist() == [0, 0, 0] and report.banzhaf.tolist() == [0, 0, 0]


def test_target_is_never_a_player() -> None:
    """`red & <1> red` at the red node 2 with an in-edge from red 1 and from blue 0: 2 is
    never removed; 1 alone decides (Shapley 1, Banzhaf 1), 0 is a dummy."""
    prog = gracr.parse("colors red, blue\nclassify red & <1> red")
    graph = Graph.from_edges(3, [["blue"], ["red"], ["red"]], [(1, 2), (0, 2)])
    report = relevance(prog, graph, 2)
    assert report.shapley.tolist() == pytest.approx([0, 1, 0], abs=TOLERANCE)
    assert report.banzhaf.tolist() == pytest.approx([0, 1, 0], abs=TOLERANCE)
    assert report.counterfactual.tolist() == [False, True, False]
    assert report.min_counterfactual == 1 and report.support_size == 1


def test_threshold_on_a_larger_graph_is_symmetric() -> None:
    """`exists[20, inf] red` on 60 red nodes (a path): every node gets 1/60 by symmetry,
    exactly, with a support of 60; the smallest flipping removal takes 41 nodes."""
    n = 60
    prog = gracr.parse("colors red\nclassify exists[20, inf] red")
    graph = Graph.from_edges(n, [["red"]] * n, [(i, i + 1) for i in range(n - 1)])
    report = relevance(prog, graph)
    assert report.support_size == n and report.shapley_method == "exact"
    assert report.shapley == pytest.approx([1 / n] * n, abs=TOLERANCE)
    assert report.min_counterfactual == n - 19 and report.counterfactual.all()
    # Banzhaf: i is pivotal when exactly 19 of the other 59 are kept.
    assert report.banzhaf == pytest.approx([comb(59, 19) / 2**59] * n, abs=TOLERANCE)


def test_export_expands_complemented_edges() -> None:
    """The exported plain diagram is the same function as the engine's, negations
    included: checked on every assignment of a small parity-like function."""
    for name in BACKENDS:
        manager = make_backend(name)
        prog = gracr.parse("colors red\nclassify exists[1, 1] red | exists[3, 3] red")
        graph = Graph.from_edges(4, [["red"]] * 4, [])
        variables = [Var.node(v) for v in range(4)]
        manager.declare(variables)
        f = Builder(manager, graph, "nodes").build_graph(prog.classifier)
        for g in (f, manager.neg(f)):
            diagram = export(g)
            assert diagram.variables == tuple(variables)
            for bits in itertools.product([False, True], repeat=4):
                u = diagram.root
                while u > 1:
                    u = int(diagram.high[u] if bits[diagram.level[u]] else diagram.low[u])
                expected = manager.is_true(manager.restrict(g, dict(zip(variables, bits))))
                assert (u == 1) == expected


# ---------------------------------------------------------------- Monte Carlo


def test_monte_carlo_is_reported_and_close_to_exact() -> None:
    """With `max_exact` below the support the values are sampled, and say so: each
    within 5 standard errors of the exact one; each permutation's contributions
    telescope to v(V) - v(empty), so the estimates are efficient exactly."""
    prog = gracr.parse("colors red, blue\nclassify more(red, blue)")
    colors = [["blue"]] + [["red"]] * 4 + [["blue"]] * 3
    graph = Graph.from_edges(8, colors, [(v, 0) for v in range(1, 8)])
    exact = relevance(prog, graph, 0)
    assert exact.shapley_method == "exact" and exact.support_size == 7
    sampled = relevance(prog, graph, 0, max_exact=3, permutations=4000, seed=7)
    assert sampled.shapley_method == "monte-carlo"
    # Rounds of 4000 permutations until every standard error is at most 0.01.
    assert sampled.permutations is not None and sampled.permutations % 4000 == 0
    assert sampled.seed == 7 and sampled.shapley_stderr.max() <= 0.01
    assert sampled.shapley_stderr is not None
    assert sampled.shapley_stderr[0] == 0 and (sampled.shapley_stderr[1:] > 0).all()
    gap = np.abs(sampled.shapley - exact.shapley)
    assert (gap <= 5 * sampled.shapley_stderr + TOLERANCE).all(), (gap, sampled.shapley_stderr)
    assert abs(sampled.shapley.sum() - 1) < TOLERANCE
    # Everything else stays exact.
    assert sampled.banzhaf.tolist() == exact.banzhaf.tolist()
    assert sampled.counterfactual.tolist() == exact.counterfactual.tolist()
    again = relevance(prog, graph, 0, max_exact=3, permutations=4000, seed=7)
    assert again.shapley.tolist() == sampled.shapley.tolist()  # the seed fixes the sample


def test_monte_carlo_on_the_symmetric_threshold() -> None:
    """`exists[3, inf] red` on 12 red nodes, exact 1/12 each, sampled on autoref."""
    n = 12
    prog = gracr.parse("colors red\nclassify exists[3, inf] red")
    graph = Graph.from_edges(n, [["red"]] * n, [])
    sampled = relevance(prog, graph, backend="autoref", max_exact=11, permutations=3000)
    assert sampled.shapley_method == "monte-carlo" and sampled.shapley_stderr is not None
    gap = np.abs(sampled.shapley - 1 / n)
    assert (gap <= 5 * sampled.shapley_stderr).all()


def test_symmetric_indices_from_the_diagram() -> None:
    """`exists[2, inf] red` over three red nodes: Banzhaf 1/2 and Shapley 1/3 each."""
    prog = gracr.parse("colors red\nclassify exists[2, inf] red")
    graph = Graph.from_edges(3, [["red"]] * 3, [])
    manager = make_backend("cudd")
    manager.declare([Var.node(v) for v in range(3)])
    diagram = export(Builder(manager, graph, "nodes").build_graph(prog.classifier))
    assert banzhaf(diagram).tolist() == [0.5, 0.5, 0.5]
    assert shapley_exact(diagram) == pytest.approx([1 / 3] * 3, abs=TOLERANCE)


# ---------------------------------------------------------------- the report


def test_relevance_json_is_per_node_and_json_able() -> None:
    prog = gracr.parse("colors red, blue\nclassify more(red, blue)")
    graph = Graph.from_edges(4, [["blue"], ["red"], ["red"], ["blue"]],
                             [(1, 0), (2, 0), (3, 0)])
    record = relevance_json(prog, graph, 0)
    json.dumps(record)
    assert record["label"] == 1 and record["counterfactual"] == [0, 1, 1, 0]
    assert record["min_counterfactual"] == 1 and record["shapley_method"] == "exact"
    assert record["shapley_stderr"] is None and record["support_size"] == 3
    shapley = record["shapley"]
    assert isinstance(shapley, list) and len(shapley) == 4
    assert [Fraction(s).limit_denominator(100) for s in shapley] == [
        0, Fraction(2, 3), Fraction(2, 3), Fraction(-1, 3)]
    sampled = relevance_json(prog, graph, 0, max_exact=0, permutations=100)
    assert sampled["shapley_method"] == "monte-carlo"
    stderr = sampled["shapley_stderr"]
    assert isinstance(stderr, list) and len(stderr) == 4
    assert set(record) == set(sampled)


def test_bad_arguments_and_budgets_are_refused() -> None:
    prog = gracr.parse("colors red\nclassify exists[2, inf] red")
    graph = Graph.from_edges(3, [["red"]] * 3, [])
    # A diagram over its budget is not an error: the values are sampled, and say so.
    refused = relevance(prog, graph, backend="autoref", max_nodes=3, permutations=400)
    assert refused.diagram == "refused" and "budget of 3 nodes" in (refused.reason or "")
    assert refused.counterfactual is None and refused.min_counterfactual is None
    assert refused.build_seconds > 0  # the time spent until the diagram was refused
    assert refused.shapley_method == "monte-carlo" and refused.banzhaf_stderr is not None
    # Three symmetric red players of `exists[2, inf] red`: 1/3 each (Shapley), 1/2 (Banzhaf).
    assert refused.shapley == pytest.approx([1 / 3] * 3, abs=5 * refused.shapley_stderr.max())
    assert refused.banzhaf == pytest.approx([1 / 2] * 3, abs=5 * refused.banzhaf_stderr.max())
    # A null player (a node that is not red) gets exactly 0 from paired marginals.
    with_null = Graph.from_edges(4, [["red"]] * 3 + [[]], [])
    sampled = relevance(prog, with_null, max_nodes=3, permutations=200)
    assert sampled.diagram == "refused"
    assert sampled.banzhaf[3] == 0 and sampled.shapley[3] == 0
    manager = make_backend("cudd")
    manager.declare([Var.node(v) for v in range(3)])
    diagram = export(Builder(manager, graph, "nodes").build_graph(prog.classifier))
    with pytest.raises(GracrError, match="lower max_exact"):
        shapley_exact(diagram, max_bytes=100)
    with pytest.raises(GracrError):
        relevance(prog, graph, max_exact=5000)
    with pytest.raises(GracrError):
        relevance(prog, graph, max_exact=0, permutations=1)
    with pytest.raises(GracrError):
        relevance(prog, graph, target=0)  # a graph classifier takes no target


def test_sampled_values_lie_within_two_standard_errors_of_the_exact_ones() -> None:
    """Tissue samples (fixed seed) with both an exact diagram and sampled values (the
    same instance refused by `max_players=0`): at least 95 % of the players' sampled
    Shapley and Banzhaf values lie within 2 standard errors of the exact ones, and every
    standard error is at most the `max_stderr` asked for."""
    from gracr.domains.tissue import (TissueSettings, generate_dataset, graph_json,
                                      tissue_program)

    rng = np.random.default_rng([7, 150])
    tables, theta = generate_dataset(rng, TissueSettings.for_cells(150), 3)
    prog = gracr.parse(tissue_program(theta))
    within, values = 0, 0
    for k, table in enumerate(tables):
        graph = Graph.from_json(graph_json(table, theta, 1.0), schema=prog.schema)
        exact = relevance(prog, graph)
        sampled = relevance(prog, graph, max_players=0, seed=k, max_stderr=0.01)
        assert exact.diagram == "built" and exact.shapley_method == "exact"
        assert sampled.diagram == "refused" and "max-players" in (sampled.reason or "")
        assert sampled.label == exact.label
        for name, errors in (("shapley", sampled.shapley_stderr),
                             ("banzhaf", sampled.banzhaf_stderr)):
            assert errors is not None and errors.max() <= 0.01
            truth, estimate = getattr(exact, name), getattr(sampled, name)
            players = (truth != 0) | (estimate != 0)
            within += int((np.abs(estimate - truth) <= 2 * errors)[players].sum())
            values += int(players.sum())
    assert values > 50
    assert within >= 0.95 * values


def test_sampled_values_of_a_node_classifier_match_brute_force() -> None:
    """The incremental sampler on a node classifier (the count at the target alone):
    three symmetric in-neighbours of `atleast 2 red`, Shapley 1/3 and Banzhaf 1/2 each,
    a blue in-neighbour a null player (exactly 0)."""
    prog = gracr.parse("colors red, blue\nclassify atleast 2 red")
    graph = Graph.from_edges(5, [["red"], ["red"], ["red"], ["blue"], ["blue"]],
                             [(0, 4), (1, 4), (2, 4), (3, 4)])
    sampled = relevance(prog, graph, target=4, max_players=0, seed=1, max_stderr=0.01)
    assert sampled.diagram == "refused" and sampled.shapley_stderr is not None
    assert sampled.banzhaf_stderr is not None
    assert sampled.shapley[:3] == pytest.approx([1 / 3] * 3, abs=4 * 0.01)
    assert sampled.banzhaf[:3] == pytest.approx([1 / 2] * 3, abs=4 * 0.01)
    assert sampled.shapley[3] == 0 and sampled.banzhaf[3] == 0


def _assert_same_json(found: object, expected: object, where: str = "") -> None:
    """`found` equals `expected`, floats to 1e-12 relative (a float of 0 exactly)."""
    if isinstance(expected, float) and not isinstance(found, bool):
        assert isinstance(found, (int, float)), where
        assert found == pytest.approx(expected, rel=1e-12, abs=0.0), where
    elif isinstance(expected, dict):
        assert isinstance(found, dict) and found.keys() == expected.keys(), where
        for key, value in expected.items():
            _assert_same_json(found[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(found, list) and len(found) == len(expected), where
        for index, value in enumerate(expected):
            _assert_same_json(found[index], value, f"{where}[{index}]")
    else:
        assert found == expected and type(found) is type(expected), where


def test_tissue_relevance_is_the_golden_one() -> None:
    """The signed ground truth of three 200-cell tissue samples (fixed seed), every
    field but the seconds, equals the golden file written by the code before the linear
    count was built backward (`tests/golden/relevance/tissue_200_cells.json`): the same
    diagram and the same exact values. Exact up to the last bits of a float: the exact
    counts become floats through NumPy sums, whose order of additions depends on the
    CPU's vector instructions (on one machine 23 Banzhaf values of a sample differed
    from the golden file in the 17th significant digit), so floats are compared to 1e-12
    relative, and everything else exactly."""
    from pathlib import Path

    from gracr.bdd.relevance import relevance_record
    from gracr.domains.tissue import (TissueSettings, generate_dataset, graph_json,
                                      tissue_program)

    golden = json.loads((Path(__file__).parent / "golden" / "relevance"
                         / "tissue_200_cells.json").read_text(encoding="utf-8"))
    rng = np.random.default_rng([11, 200])
    tables, theta = generate_dataset(rng, TissueSettings.for_cells(200), 3)
    assert theta == golden["theta"]
    prog = gracr.parse(tissue_program(theta))
    for table, expected in zip(tables, golden["records"], strict=True):
        graph = Graph.from_json(graph_json(table, theta, 1.0), schema=prog.schema)
        record = relevance_record(relevance(prog, graph))
        del record["seconds"]
        _assert_same_json(json.loads(json.dumps(record)), expected)
