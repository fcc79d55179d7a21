"""The UPI on typed graphs (attribute families, relation filters), over edges, nodes or both.

Properties: on random typed programs and graphs, the ROBDD's UPI equals the brute
force of `gracr.bdd.brute` (which builds every subgraph with `keep_edges` /
`keep_nodes` and runs the reference evaluator) in each removal mode, on both
backends, with and without the exact shortcuts; the polarity claims hold on every
subgraph; the diagram equals the evaluator on sampled subgraphs of larger graphs.
Each property counts how often the UPI was non-empty and fails when that share is
under `MIN_NON_EMPTY` of its draws: a property whose instances all have an empty
UPI would compare nothing but labels.

Unit tests work each expected mask out by hand from §4.2's definition.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import gracr
from gracr.bdd.backend import BACKENDS, Var, make_backend
from gracr.bdd.brute import brute_force_masks, brute_force_upi, subset_values, subset_variables
from gracr.bdd.brute import upi_from_values
from gracr.bdd.build import OVER, Builder, Over
from gracr.bdd.oracle import upi_disagreements
from gracr.bdd.polarity import Polarity, polarity
from gracr.bdd.upi import (
    VariableOrder, admitted_by_depth, computation_order, node_receptive_field, receptive_field,
    upi, upi_json, upi_report,
)
from gracr.cli import main
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.dsl.evaluate import evaluate_node, evaluate_sentence, neighbour_counts
from gracr.dsl.ir import Formula, Kind
from gracr.dsl.program import Program
from strategies import (
    relation_filters, schemas, typed_graphs, typed_node_formulas, typed_program_for,
)

MIN_NON_EMPTY = 0.20


def property_settings(examples: int) -> settings:
    """Exactly `examples` draws (no example database replayed), however slow; the same
    draws on every run (`derandomize`): a fresh random draw once grew one diagram of the
    pure-Python engine past 23 GB and the run was killed."""
    return settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def predicates(schema: Schema) -> st.SearchStrategy[Formula]:
    """`exists` arguments: mostly one modality deep (a deep one rarely changes how many
    nodes satisfy it when parts of the graph are removed), sometimes two deep or an
    atom (constant over edges, but not over nodes)."""
    one_deep = typed_node_formulas(schema, 1, top=True)
    return st.one_of(one_deep, one_deep, one_deep, typed_node_formulas(schema, 2, top=True),
                     typed_node_formulas(schema, 0))


@st.composite
def exists_sentences(draw: st.DrawFn, schema: Schema, graph: Graph) -> Formula:
    """`exists[lo, hi] f`, the bounds often next to the number c of nodes satisfying f
    in `graph` (where removing parts of it can cross them), else counts 1..3 (`lo = 0`
    with `hi = inf` holds everywhere) or `inf`."""
    predicate = draw(predicates(schema))
    satisfied = int(evaluate_node(predicate, graph).sum())
    near = st.sampled_from([satisfied, satisfied + 1, max(0, satisfied - 1)])
    low = draw(st.one_of(near, st.integers(min_value=1, max_value=3)))
    high = draw(st.one_of(st.none(), near.map(lambda h: max(h, low)),
                          st.integers(min_value=0, max_value=3).map(lambda extra: low + extra)))
    return ir.Exists(low, high, predicate)


@st.composite
def sentences(draw: st.DrawFn, schema: Schema, graph: Graph) -> Formula:
    """An `exists` sentence, or a Boolean combination of two."""
    shape = draw(st.sampled_from(["exists"] * 3 + ["not", "and", "or", "implies", "iff"]))
    first = draw(exists_sentences(schema, graph))
    if shape == "exists":
        return first
    if shape == "not":
        return ir.Not(first)
    second = draw(exists_sentences(schema, graph))
    connectives: dict[str, Callable[[Formula, Formula], Formula]] = {
        "and": ir.And, "or": ir.Or, "implies": ir.Implies, "iff": ir.Iff}
    return connectives[shape](first, second)


@st.composite
def tight_modalities(draw: st.DrawFn, schema: Schema, graph: Graph, target: int) -> Formula:
    """A counting modality at `target` whose bound the whole graph just meets or just
    misses: with c the in-edges it counts, `atleast c`, `atmost c - 1`, `exactly c` or
    `between c-1 c`; its argument up to one modality deep (`true` if no in-edge
    satisfies it)."""
    arg = draw(st.one_of(typed_node_formulas(schema, 0), typed_node_formulas(schema, 1)))
    relations = draw(relation_filters(schema))
    count = int(neighbour_counts(graph, evaluate_node(arg, graph), relations)[target])
    if count == 0:  # nothing to count: every bound would be constant; count in-edges instead
        arg, relations = ir.Top(), None
        count = int(graph.in_degrees()[target])
    shape = draw(st.sampled_from(["atleast", "atmost", "exactly", "between"]))
    if shape == "atleast":
        return ir.AtLeast(max(1, count), arg, relations)
    if shape == "atmost":
        return ir.AtMost(max(0, count - 1), arg, relations)
    if shape == "exactly":
        return ir.Exactly(count, arg, relations)
    return ir.Between(max(0, count - 1), count, arg, relations)


@dataclass(frozen=True)
class Instance:
    prog: Program
    graph: Graph
    target: int | None  # passed explicitly; the graph may carry it instead


@st.composite
def instances(draw: st.DrawFn, max_nodes: int = 8, max_edges: int = 10,
              max_parts: int | None = None) -> Instance:
    """A typed program (through the parser) and a graph of at least 3 nodes fitting its
    schema; for a node classifier, a target (mostly one with in-edges from other nodes:
    at a node without any, every modality is constant over nodes)."""
    schema = draw(schemas())
    graph = draw(typed_graphs(schema, max_nodes, max_edges, max_parts, min_nodes=3))
    if draw(st.booleans()):
        return Instance(typed_program_for(schema, draw(sentences(schema, graph))), graph, None)
    receivers = sorted({int(t) for s, t in graph.edges if s != t})
    if receivers and draw(st.integers(min_value=0, max_value=3)) > 0:
        target = draw(st.sampled_from(receivers))
    else:
        target = draw(st.integers(min_value=0, max_value=graph.num_nodes - 1))
    if draw(st.booleans()):
        classifier = draw(tight_modalities(schema, graph, target))
    else:
        depth = draw(st.sampled_from([1, 1, 2, 2, 3]))
        classifier = draw(typed_node_formulas(schema, depth, top=True))
    prog = typed_program_for(schema, classifier)
    if draw(st.booleans()):  # the target carried by the graph, as in the JSON form
        return Instance(prog, graph.with_target(target), None)
    return Instance(prog, graph, target)


@dataclass
class Tally:
    """How many draws a property ran, and how many had a non-empty UPI."""

    name: str
    draws: int = 0
    non_empty: int = 0
    labels: dict[int, int] = field(default_factory=dict)

    def record(self, non_empty: bool, label: int) -> None:
        self.draws += 1
        self.non_empty += int(non_empty)
        self.labels[label] = self.labels.get(label, 0) + 1
        event("non-empty UPI" if non_empty else "empty UPI")
        event(f"label {label}")

    def check(self, examples: int) -> None:
        """Fail unless the property really ran and `MIN_NON_EMPTY` of its draws were informative."""
        share = self.non_empty / max(self.draws, 1)
        print(f"\n{self.name}: non-empty UPI in {self.non_empty} of {self.draws} draws "
              f"({share:.0%}); labels {self.labels}")
        assert self.draws >= examples // 2, f"{self.name}: only {self.draws} draws ran"
        assert share >= MIN_NON_EMPTY, f"{self.name}: non-empty UPI in only {share:.0%} of draws"


def _value(instance: Instance) -> bool:
    value = gracr.evaluate(instance.prog, instance.graph)
    if isinstance(value, bool):
        return value
    node = instance.graph.target if instance.target is None else instance.target
    assert node is not None
    return bool(value[node])


def _assert_polarity_holds(formula: Formula, over: Over, values: np.ndarray) -> Polarity:
    """What `polarity(formula, over)` claims holds on every one-variable step of the table."""
    claim = polarity(formula, over)
    for bit in range(values.shape[0].bit_length() - 1):
        view = values.reshape(-1, 2, 1 << bit)  # [:, 0, :] without variable `bit`, [:, 1, :] with
        without, with_it = view[:, 0, :], view[:, 1, :]
        if claim in (Polarity.INCREASING, Polarity.CONSTANT):
            assert not (without & ~with_it).any(), (claim, over, bit)
        if claim in (Polarity.DECREASING, Polarity.CONSTANT):
            assert not (with_it & ~without).any(), (claim, over, bit)
    return claim


def check_against_brute_force(instance: Instance, over: Over, order: VariableOrder) -> bool:
    """Both engines, with and without shortcuts, agree with the definition and the UPI
    lies in the receptive fields (`gracr.bdd.oracle`); the polarity claim holds. Returns
    whether the UPI is non-empty."""
    prog, graph, target = instance.prog, instance.graph, instance.target
    values = subset_values(prog, graph, target, over)
    assert int(values[-1]) == _value(instance)
    truth, problems = upi_disagreements(prog, graph, target, over=over, orders=(order,))
    assert not problems, problems
    claim = _assert_polarity_holds(prog.classifier, over, values)
    event(f"polarity {claim.value}")
    event(f"{prog.kind.value} classifier")
    return bool(truth.mask.any() or truth.node_mask.any())


def _brute_force_property(over: Over, examples: int, **sizes: int) -> None:
    tally = Tally(f"over {over}")

    @property_settings(examples)
    @given(instance=instances(**sizes), order=st.sampled_from(["edges", "computation"]))
    def prop(instance: Instance, order: VariableOrder) -> None:
        non_empty = check_against_brute_force(instance, over, order)
        tally.record(non_empty, int(_value(instance)))

    prop()
    tally.check(examples)


def test_typed_upi_over_edges_equals_brute_force() -> None:
    _brute_force_property("edges", 150, max_nodes=8, max_edges=10)


def test_typed_upi_over_nodes_equals_brute_force() -> None:
    _brute_force_property("nodes", 150, max_nodes=8, max_edges=10)


def test_typed_upi_over_both_equals_brute_force() -> None:
    # 2^(|V| + |E|) subgraphs: nodes and edges together capped at 12.
    _brute_force_property("both", 100, max_nodes=6, max_edges=9, max_parts=12)


@st.composite
def one_sided_instances(draw: st.DrawFn) -> tuple[Instance, Over]:
    """`exists[lo, inf] f` or `exists[0, hi] f` alone, or negated: the shapes `polarity`
    can find monotone, which Boolean combinations of random sentences rarely are."""
    over: Over = draw(st.sampled_from(OVER))
    schema = draw(schemas())
    graph = draw(typed_graphs(schema, max_parts=12 if over == "both" else None))
    predicate = draw(predicates(schema))
    satisfied = int(evaluate_node(predicate, graph).sum())
    # Bounds the whole graph just meets or just misses, so that removing parts can cross
    # them: "at least c" (or c + 1), "at most c - 1" (or c).
    shift = draw(st.sampled_from([0, 0, 1]))
    sentence: Formula
    if draw(st.booleans()):
        sentence = ir.Exists(max(1, satisfied + shift), None, predicate)
    else:
        sentence = ir.Exists(0, max(0, satisfied - 1 + shift), predicate)
    if draw(st.booleans()):
        sentence = ir.Not(sentence)
    return Instance(typed_program_for(schema, sentence), graph, None), over


def test_typed_polarity_claims_hold_on_every_subgraph() -> None:
    """What `polarity(f, over)` claims (the Extend shortcut skips on it) holds on every
    subgraph, in each mode, for the sentence shapes it can claim something about."""
    examples = 150
    tally = Tally("polarity of one-sided exists")

    @property_settings(examples)
    @given(case=one_sided_instances())
    def prop(case: tuple[Instance, Over]) -> None:
        instance, over = case
        values = subset_values(instance.prog, instance.graph, None, over)
        claim = _assert_polarity_holds(instance.prog.classifier, over, values)
        event(f"over {over}: {claim.value}")
        tally.record(bool(upi_from_values(values).any()), int(values[-1]))

    prop()
    tally.check(examples)


def _subgraph_value(prog: Program, graph: Graph, target: int | None, keep_edge: np.ndarray,
                    keep_node: np.ndarray) -> bool:
    sub, _ = graph.with_target(target).keep_edges(keep_edge).keep_nodes(keep_node)
    if sub.target is None:
        return evaluate_sentence(prog.classifier, sub)
    return bool(evaluate_node(prog.classifier, sub)[sub.target])


def test_typed_diagram_equals_evaluator_on_sampled_subgraphs() -> None:
    """On larger typed graphs (no brute force), in each mode and on both backends: the
    label is the evaluator's value, and the diagram built over every variable equals
    the evaluator on sampled subgraphs (kept edges and nodes drawn at random)."""
    examples = 100
    tally = Tally("diagram == evaluator")

    @property_settings(examples)
    @given(instance=instances(max_nodes=12, max_edges=24), data=st.data())
    def prop(instance: Instance, data: st.DataObject) -> None:
        prog, graph = instance.prog, instance.graph
        node = graph.target if instance.target is None else instance.target
        node = None if prog.kind is Kind.GRAPH else node
        value = _value(instance)
        samples = [(np.asarray(data.draw(st.lists(st.booleans(), min_size=graph.num_edges,
                                                  max_size=graph.num_edges)), dtype=np.bool_),
                    np.asarray(data.draw(st.lists(st.booleans(), min_size=graph.num_nodes,
                                                  max_size=graph.num_nodes)), dtype=np.bool_))
                   for _ in range(3)]
        non_empty = False
        for over, backend in itertools.product(OVER, BACKENDS):
            report = upi_report(prog, graph, instance.target, over, backend=backend)
            assert report.label == value, (over, backend)
            non_empty |= bool(report.mask.any() or report.node_mask.any())
            manager = make_backend(backend)
            manager.declare(subset_variables(prog, graph, instance.target, over))
            builder = Builder(manager, graph, over, kept=node)
            f = (builder.build_graph(prog.classifier) if node is None
                 else builder.build_node(prog.classifier, node))
            for keep_edge, keep_node in samples:
                if over == "nodes":
                    keep_edge = np.ones(graph.num_edges, dtype=np.bool_)
                if over == "edges":
                    keep_node = np.ones(graph.num_nodes, dtype=np.bool_)
                if node is not None:
                    keep_node = keep_node.copy()
                    keep_node[node] = True
                assignment = {v: bool(keep_edge[v.index] if v.kind == "edge"
                                      else keep_node[v.index]) for v in manager.support(f)}
                expected = _subgraph_value(prog, graph, node, keep_edge, keep_node)
                assert manager.is_true(manager.restrict(f, assignment)) == expected, over
        tally.record(non_empty, int(value))

    prop()
    tally.check(examples)


# ---------------------------------------------------------------- named cases

CARBONYL = """attribute element = C, O
relations single, double
classify exists (element=C & <1>{double} element=O)
"""


def carbonyl_graph() -> Graph:
    """C0 - C1, C1 = O2 (the carbonyl), C1 - O3, C4 = C5: every bond both ways.

    Edges: 0 (0,1) 1 (1,0) single; 2 (2,1) 3 (1,2) double; 4 (3,1) 5 (1,3) single;
    6 (4,5) 7 (5,4) double.
    """
    bonds = [((0, 1), "single"), ((2, 1), "double"), ((3, 1), "single"), ((4, 5), "double")]
    edges = [e for (s, t), _ in bonds for e in ((s, t), (t, s))]
    relations = [r for _, r in bonds for _ in range(2)]
    return Graph.from_edges(6, None, edges, attributes={"element": list("CCOOCC")},
                            relations=relations)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shortcuts", [False, True])
def test_carbonyl_node_upi_is_the_c_and_o_of_the_double_bond(backend: str,
                                                             shortcuts: bool) -> None:
    """The one C with a double-bonded O is C1, through the double edge 2 = (O2, C1).

    Over nodes the sentence holds on an induced subgraph iff it keeps C1 and O2 (the
    only C=O double bond): the only PI is {C1, O2}. C0 and O3 are single-bonded to C1
    and C4 = C5 is a double bond between carbons: none of them matters. Over edges
    the only PI is {edge 2}; over both, {edge 2, C1, O2}.
    """
    prog = gracr.parse(CARBONYL)
    graph = carbonyl_graph()
    label, node_mask = upi(prog, graph, over="nodes", backend=backend, shortcuts=shortcuts)
    assert label == 1 and np.flatnonzero(node_mask).tolist() == [1, 2]
    label, mask = upi(prog, graph, over="edges", backend=backend, shortcuts=shortcuts)
    assert label == 1 and np.flatnonzero(mask).tolist() == [2]
    label, mask, node_mask = upi(prog, graph, over="both", backend=backend, shortcuts=shortcuts)
    assert label == 1 and np.flatnonzero(mask).tolist() == [2]
    assert np.flatnonzero(node_mask).tolist() == [1, 2]
    assert brute_force_upi(prog, graph, over="nodes")[1].tolist() == node_mask.tolist()


def test_carbonyl_receptive_fields_follow_the_filter() -> None:
    """`<1>{double}` at depth 1 reads only double edges: edges 2, 3, 6, 7 (every node is a
    root of a graph classifier); every node can be deleted."""
    prog = gracr.parse(CARBONYL)
    graph = carbonyl_graph()
    assert np.flatnonzero(receptive_field(prog, graph)).tolist() == [2, 3, 6, 7]
    assert node_receptive_field(prog, graph).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_filtered_modality_does_not_depend_on_other_relations(backend: str) -> None:
    """`<1>{double} element=O` at C1 reads only edge 2 (the double in-edge from O2); the
    single in-edge from O3 is not counted, so it gets no variable dependence."""
    prog = gracr.parse(CARBONYL)
    graph = carbonyl_graph()
    manager = make_backend(backend)
    manager.declare(subset_variables(prog, graph, None, "both"))
    modality = ir.AtLeast(1, ir.Attribute("element", "O"), ("double",))
    f = Builder(manager, graph, "both").build_node(modality, 1)
    assert manager.support(f) == {Var.edge(2), Var.node(1), Var.node(2)}
    nodes_only = make_backend(backend)
    nodes_only.declare(subset_variables(prog, graph, None, "nodes"))
    f = Builder(nodes_only, graph, "nodes", kept=1).build_node(modality, 1)
    assert f == nodes_only.node_var(2)  # the kept node's y is the constant 1


def test_receptive_field_admits_each_depths_filters() -> None:
    """Target 0; edges 0 (1,0) a, 1 (2,0) b, 2 (3,1) a, 3 (4,1) b, 4 (5,2) a.

    `<1>{a} <1>{b} true`: depth 1 reads the a-edges into 0 (edge 0, reaching 1), depth
    2 the b-edges into 1 (edge 3). `<1>{a} true & <1>{b} <1>{a} true` admits a and b at
    depth 1 (edges 0, 1, reaching 1 and 2) and a at depth 2 (edges 2 and 4, not 3).
    """
    schema = "relations a, b\nclassify "
    graph = Graph.from_edges(6, None, [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2)], target=0,
                             relations=["a", "b", "a", "b", "a"])
    chain = gracr.parse(schema + "<1>{a} <1>{b} true")
    assert admitted_by_depth(chain.classifier) == [frozenset({"a"}), frozenset({"b"})]
    assert np.flatnonzero(receptive_field(chain, graph)).tolist() == [0, 3]
    assert np.flatnonzero(node_receptive_field(chain, graph)).tolist() == [1, 4]
    mixed = gracr.parse(schema + "<1>{a} true & <1>{b} <1>{a} true")
    assert admitted_by_depth(mixed.classifier) == [frozenset({"a", "b"}), frozenset({"a"})]
    assert np.flatnonzero(receptive_field(mixed, graph)).tolist() == [0, 1, 2, 4]
    unfiltered = gracr.parse(schema + "<1>{a} <1> true")
    assert admitted_by_depth(unfiltered.classifier) == [frozenset({"a"}), None]
    assert np.flatnonzero(receptive_field(unfiltered, graph)).tolist() == [0, 2, 3]


def test_computation_order_over_nodes_places_each_node_before_its_first_edge() -> None:
    """`<1> <1> true` at 2 on e0 = (0,1), e1 = (1,2), e2 = (3,1), e3 = (2,0): the edges in
    the order of test_bdd (e0, e2, e1, then e3 nobody reads); each end's `y` just before
    the first edge it ends: y1, y0 before e0, y3 before e2; 2 is the target."""
    prog = gracr.parse("classify <1> <1> true")
    graph = Graph.from_edges(4, None, [(0, 1), (1, 2), (3, 1), (2, 0)])
    n, e = Var.node, Var.edge
    assert computation_order(prog, graph, 2, "both") == [
        n(1), n(0), e(0), n(3), e(2), e(1), e(3)]
    assert computation_order(prog, graph, 2, "nodes") == [n(1), n(0), n(3)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shortcuts", [False, True])
def test_edge_cover_has_an_empty_node_upi_when_every_node_has_a_self_loop(
        backend: str, shortcuts: bool) -> None:
    """Table 12's edge-cover classifier `exists[0, 0] !<1> true` ("no node lacks an
    in-edge") on the complete graph with self-loops: over edges every edge is in some
    minimal cover, so the UPI is E (App. D.4), but its node UPI is EMPTY. Deleting
    nodes never uncovers a node that stays, since its self-loop stays with it: the
    classifier is 1 on every induced subgraph, and the empty set is its only PI.
    """
    prog = gracr.parse("classify exists[0, 0] !<1> true")
    n = 3
    graph = Graph.from_edges(n, None, [(s, t) for s in range(n) for t in range(n)])
    label, node_mask = upi(prog, graph, over="nodes", backend=backend, shortcuts=shortcuts)
    assert label == 1 and not node_mask.any()
    label, mask = upi(prog, graph, over="edges", backend=backend, shortcuts=shortcuts)
    assert label == 1 and mask.all()
    assert polarity(prog.classifier, "edges") is Polarity.INCREASING
    assert polarity(prog.classifier, "nodes") is Polarity.MIXED  # true here, but not always


def test_exists_of_an_atom_is_constant_over_edges_but_decreasing_over_nodes() -> None:
    """`exists[0, 0] red` ("no red node") reads no edge, but deleting a red node can make
    it true: adding nodes can only make it false."""
    formula = gracr.parse("colors red\nclassify exists[0, 0] red").classifier
    assert polarity(formula, "edges") is Polarity.CONSTANT
    assert polarity(formula, "nodes") is Polarity.DECREASING
    assert polarity(formula, "both") is Polarity.DECREASING
    assert polarity(ir.Exists(2, None, ir.Color("red")), "nodes") is Polarity.INCREASING
    # A decreasing predicate under `exists` says nothing once nodes are deleted.
    assert polarity(ir.Exists(1, None, ir.AtMost(0, ir.Top())), "nodes") is Polarity.MIXED
    assert polarity(ir.Exists(0, None, ir.AtMost(0, ir.Top())), "nodes") is Polarity.CONSTANT
    # Red nodes 0 and 2: on a negative instance each alone keeps it false.
    prog = gracr.parse("colors red\nclassify exists[0, 0] red")
    graph = Graph.from_edges(3, [["red"], [], ["red"]], [(0, 1)])
    assert upi(prog, graph, over="edges")[1].tolist() == [False]
    label, node_mask = upi(prog, graph, over="nodes")
    assert label == 0 and node_mask.tolist() == [True, False, True]


@pytest.mark.parametrize("backend", BACKENDS)
def test_node_target_is_never_removed(backend: str) -> None:
    """`<2> red` at 0 with in-edges from red 1, blue 2, red 3, and the edge 0 -> 1.

    Over nodes, both red neighbours are needed and the blue one is not: node UPI {1, 3};
    0 is never in it. Over both, a red neighbour counts only with its edge: {e0, e2, 1, 3}.
    """
    prog = gracr.parse("colors red, blue\nclassify <2> red")
    graph = Graph.from_edges(4, [[], ["red"], ["blue"], ["red"]],
                             [(1, 0), (2, 0), (3, 0), (0, 1)])
    label, node_mask = upi(prog, graph, 0, "nodes", backend=backend)
    assert label == 1 and node_mask.tolist() == [False, True, False, True]
    label, mask, node_mask = upi(prog, graph, 0, over="both", backend=backend)
    assert mask.tolist() == [True, False, True, False]
    assert node_mask.tolist() == [False, True, False, True]
    assert subset_variables(prog, graph, 0, "nodes") == [Var.node(1), Var.node(2), Var.node(3)]
    report = upi_report(prog, graph, 0, "both", backend=backend, shortcuts=False)
    assert report.num_variables == 4 + 3 and report.extend == "all variables"


def test_brute_force_evaluates_the_target_in_the_renumbered_subgraph() -> None:
    """`red & <1> true` at 2 (red), in-edge from 1: deleting node 0 renumbers 2 as 1, and
    the value must still be read at the target."""
    prog = gracr.parse("colors red\nclassify red & <1> true")
    graph = Graph.from_edges(3, [[], [], ["red"]], [(1, 2), (0, 1)])
    # bit 0 = node 0, bit 1 = node 1 (node 2 is the target)
    assert subset_values(prog, graph, 2, "nodes").tolist() == [False, False, True, True]
    label, mask, node_mask = brute_force_masks(prog, graph, 2, "nodes")
    assert (label, mask.tolist(), node_mask.tolist()) == (1, [False, False], [False, True, False])


def test_upi_json_keys_per_mode() -> None:
    prog = gracr.parse(CARBONYL)
    graph = carbonyl_graph()
    assert upi_json(prog, graph) == {"label": 1, "mask": [0, 0, 1, 0, 0, 0, 0, 0]}
    assert upi_json(prog, graph, over="nodes") == {"label": 1, "node_mask": [0, 1, 1, 0, 0, 0]}
    assert upi_json(prog, graph, over="both") == {
        "label": 1, "mask": [0, 0, 1, 0, 0, 0, 0, 0], "node_mask": [0, 1, 1, 0, 0, 0]}


def test_cli_upi_over(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "carbonyl.gml"
    source.write_text(CARBONYL)
    graphs = tmp_path / "graphs.json"
    graphs.write_text(json.dumps(carbonyl_graph().to_json()))

    def run(*options: str) -> dict[str, object]:
        code = main(["upi", str(source), str(graphs), *options])
        out = capsys.readouterr().out
        assert code == 0
        record: dict[str, object] = json.loads(out)
        return record

    assert run() == {"label": 1, "mask": [0, 0, 1, 0, 0, 0, 0, 0]}
    assert run("--over", "edges") == run()
    assert run("--over", "nodes") == {"label": 1, "node_mask": [0, 1, 1, 0, 0, 0]}
    assert set(run("--over", "both", "--backend", "autoref")) == {"label", "mask", "node_mask"}
    code = main(["upi", str(source), str(graphs), "--over", "vertices"])
    err = capsys.readouterr().err
    assert code == 2
    assert "invalid choice: 'vertices'" in err and "Traceback" not in err
