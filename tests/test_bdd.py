"""Unit tests of `gracr.bdd`: backends, Algorithms 1-5, receptive field, brute force, API.

Every expected mask here is worked out by hand from §4.2's definition (the
reasoning is in each test), never computed by the code under test. The suite runs
against both backends.
"""

from __future__ import annotations

from typing import Any

import dd.autoref
import dd.cudd
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gracr
from gracr.bdd.backend import BACKENDS, AutorefBackend, CuddBackend, Var, make_backend
from gracr.bdd.brute import brute_force_upi, subset_values, upi_from_values
from gracr.bdd.build import Builder, build_graph, build_node
from gracr.bdd.polarity import Polarity, polarity
from gracr.bdd.upi import (
    bandwidth_order,
    computation_order, extend, extract, receptive_field, resolve_target, union_pi, upi, upi_json,
    upi_report,
)
from gracr.errors import GracrError, GraphError
from gracr.data.graph import Graph

Backend = CuddBackend | AutorefBackend


@pytest.fixture(params=BACKENDS)
def backend_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def backend(backend_name: str) -> Backend:
    return make_backend(backend_name)


def program(text: str) -> gracr.Program:
    return gracr.parse("colors red, blue, green, black, grey\n" + text)


def mask_of(num_edges: int, members: set[int]) -> list[bool]:
    return [e in members for e in range(num_edges)]


def edge_vars(edges: list[int]) -> list[Var]:
    return [Var.edge(e) for e in edges]


# ---------------------------------------------------------------- backends


def test_adapters_wrap_the_named_dd_engines() -> None:
    assert isinstance(CuddBackend().manager, dd.cudd.BDD)
    assert isinstance(AutorefBackend().manager, dd.autoref.BDD)
    assert make_backend("cudd").name == "cudd"
    assert make_backend("autoref").name == "autoref"
    with pytest.raises(GracrError, match="unknown BDD backend 'sylvan'"):
        make_backend("sylvan")


def test_static_order_is_the_declaration_order_and_reordering_is_off(backend: Backend) -> None:
    backend.declare_edges([3, 0, 7])
    manager: Any = backend.manager
    assert [manager.var_at_level(level) for level in range(3)] == ["e3", "e0", "e7"]
    assert manager.configure()["reordering"] is False
    assert make_backend(backend.name, reorder=True).manager.configure()["reordering"] is True


def test_boolean_operations(backend: Backend) -> None:
    backend.declare_edges([0, 1])
    x0, x1 = backend.edge_var(0), backend.edge_var(1)
    both = backend.conj(x0, x1)
    e0, e1 = Var.edge(0), Var.edge(1)
    assert backend.is_true(backend.restrict(both, {e0: True, e1: True}))
    assert backend.is_false(backend.restrict(both, {e0: False}))
    assert backend.is_true(backend.restrict(backend.disj(x0, x1), {e1: True}))
    assert backend.is_false(backend.conj(x0, backend.neg(x0)))
    assert backend.is_true(backend.iff(x0, x0))
    assert backend.support(both) == frozenset({e0, e1})
    assert backend.support(backend.true) == frozenset()
    assert backend.dag_size(backend.true) == 1
    assert backend.dag_size(both) == 3  # two decision nodes and the terminal
    assert backend.live_nodes() >= 2


# ---------------------------------------------------------------- Algorithms 1-3 on raw functions


def test_example_2_edge_cover_on_the_path(backend: Backend) -> None:
    """App. D.1, Example 2: f = x1 & x3 on the 3-edge path; UPI = {e1, e3}."""
    edges = [0, 1, 2]
    backend.declare_edges(edges)
    f = backend.conj(backend.edge_var(0), backend.edge_var(2))
    # f is monotone, so Extend must leave it as it is (Eq. 13: only {e1, e3} and E are 1).
    assert extend(backend, f, edge_vars(edges)) == f
    label, mask = union_pi(backend, f, edge_vars(edges))
    assert label == 1
    assert mask.tolist() == [True, False, True]


def test_extend_computes_sufficiency(backend: Backend) -> None:
    """f = x0 | (x1 & !x2), f(G) = 1. If R lacks e0, its superset R + {e2} still lacks
    e0 and has x2 = 1, so f = 0 there: R is not sufficient. If R has e0, f = 1 on
    every superset. So f^ = x0, and the only PI is {e0}."""
    edges = [0, 1, 2]
    backend.declare_edges(edges)
    x0, x1, x2 = (backend.edge_var(e) for e in edges)
    f = backend.disj(x0, backend.conj(x1, backend.neg(x2)))
    assert extend(backend, f, edge_vars(edges)) == x0
    assert extract(backend, x0, edge_vars(edges)).tolist() == [True, False, False]


def test_negative_instance_goes_through_the_negation(backend: Backend) -> None:
    """f = !x0 & x1 is 0 at G. Sufficient for 0: every superset keeps f = 0, i.e.
    R contains e0 (else R + {e1} - {e0} ... gives f = 1). The only PI is {e0}."""
    edges = [0, 1]
    backend.declare_edges(edges)
    f = backend.conj(backend.neg(backend.edge_var(0)), backend.edge_var(1))
    label, mask = union_pi(backend, f, edge_vars(edges))
    assert label == 0
    assert mask.tolist() == [True, False]


def test_corollary_1_empty_mask_when_nothing_matters(backend: Backend) -> None:
    """A function constant on every subgraph: the empty set is a PI, the mask is empty."""
    edges = [0, 1]
    backend.declare_edges(edges)
    label, mask = union_pi(backend, backend.true, edge_vars(edges))
    assert (label, mask.tolist()) == (1, [False, False])
    # The same for a negative instance.
    label, mask = union_pi(backend, backend.false, edge_vars(edges))
    assert (label, mask.tolist()) == (0, [False, False])


def test_parity_has_every_edge_in_its_only_prime_implicant(backend: Backend) -> None:
    """x0 xor x1 is 0 at G = {e0, e1}; only G itself is sufficient, so UPI = {e0, e1}."""
    edges = [0, 1]
    backend.declare_edges(edges)
    f = backend.neg(backend.iff(backend.edge_var(0), backend.edge_var(1)))
    assert union_pi(backend, f, edge_vars(edges))[1].tolist() == [True, True]


def test_variables_are_found_by_name_after_reordering(backend_name: str) -> None:
    """Permuting the levels after the build must not change Extend/Extract (no cached levels)."""
    backend = make_backend(backend_name)
    edges = [0, 1, 2, 3]
    backend.declare_edges(edges)
    x = [backend.edge_var(e) for e in edges]
    # (x0 & x3) | x1, with x2 irrelevant: PIs {e0, e3} and {e1} at G.
    f = backend.disj(backend.conj(x[0], x[3]), x[1])
    module = dd.cudd if backend_name == "cudd" else dd.autoref
    module.reorder(backend.manager, {"e3": 0, "e1": 1, "e2": 2, "e0": 3})
    assert backend.manager.level_of_var("e3") == 0
    assert union_pi(backend, f, edge_vars(edges))[1].tolist() == [True, True, False, True]


# ---------------------------------------------------------------- Build (Algorithms 4 and 5)


def star(colors: list[list[str]]) -> Graph:
    """Node 0 receives one edge from each other node, in node order."""
    return Graph.from_edges(len(colors), colors, [(u, 0) for u in range(1, len(colors))])


def truth_table(backend: Backend, f: Any, edges: list[int]) -> list[bool]:
    """f on every subset, bit e of the index = edge e kept (the brute force's indexing)."""
    rows = []
    for r in range(1 << len(edges)):
        values = {Var.edge(e): bool(r >> i & 1) for i, e in enumerate(edges)}
        rows.append(backend.is_true(backend.restrict(f, values)))
    return rows


def test_build_node_counts_in_edges(backend: Backend) -> None:
    """`<2> red` at node 0 with in-edges from red, blue, red: true iff both red edges kept."""
    graph = star([[], ["red"], ["blue"], ["red"]])
    backend.declare_edges(range(3))
    f = build_node(backend, program("classify <2> red").classifier, graph, 0)
    # bit 0 = e0 (from red 1), bit 2 = e2 (from red 3): rows 5 and 7 only.
    assert truth_table(backend, f, [0, 1, 2]) == [r in (5, 7) for r in range(8)]


def test_build_node_reads_edges_as_source_to_target(backend: Backend) -> None:
    """Edge (s, t) counts s at t: `<1> red` at the red source itself is false."""
    graph = Graph.from_edges(2, [["red"], []], [(0, 1)])
    backend.declare_edges([0])
    at_source = build_node(backend, program("classify <1> red").classifier, graph, 0)
    at_target = build_node(backend, program("classify <1> red").classifier, graph, 1)
    assert backend.is_false(at_source)
    assert at_target == backend.edge_var(0)


def test_build_node_counts_multi_edges_and_self_loops(backend: Backend) -> None:
    """Two parallel edges from red node 1 and a self-loop at red node 0: `<3> red` at 0
    needs all three edges."""
    graph = Graph.from_edges(2, [["red"], ["red"]], [(1, 0), (1, 0), (0, 0)])
    backend.declare_edges(range(3))
    f = build_node(backend, program("classify <3> red").classifier, graph, 0)
    assert truth_table(backend, f, [0, 1, 2]) == [r == 7 for r in range(8)]


def test_build_box_and_comparisons(backend: Backend) -> None:
    """At node 0 with in-edges from red (e0), blue (e1), red (e2)."""
    graph = star([[], ["red"], ["blue"], ["red"]])
    backend.declare_edges(range(3))
    table = {
        # every kept in-neighbour red: e1 dropped
        "[] red": [not (r >> 1 & 1) for r in range(8)],
        # #red > #blue: (e0 + e2) > e1
        "more(red, blue)": [(r & 1) + (r >> 2 & 1) > (r >> 1 & 1) for r in range(8)],
        # #red == #blue
        "same(red, blue)": [(r & 1) + (r >> 2 & 1) == (r >> 1 & 1) for r in range(8)],
        "exactly 1 red": [(r & 1) + (r >> 2 & 1) == 1 for r in range(8)],
        "between 1 2 true": [1 <= bin(r).count("1") <= 2 for r in range(8)],
        "atmost 0 blue": [not (r >> 1 & 1) for r in range(8)],
    }
    for text, expected in table.items():
        f = build_node(backend, program("classify " + text).classifier, graph, 0)
        assert truth_table(backend, f, [0, 1, 2]) == expected, text


def test_build_graph_counts_nodes(backend: Backend) -> None:
    """Two edges into distinct nodes from red node 0: `exists[lo, hi] <1> red` counts
    the kept edges (each makes one node satisfy `<1> red`)."""
    graph = Graph.from_edges(3, [["red"], [], []], [(0, 1), (0, 2)])
    backend.declare_edges([0, 1])
    cases = {
        "exists <1> red": [False, True, True, True],
        "exists[2, inf] <1> red": [False, False, False, True],
        "exists[0, 1] <1> red": [True, True, True, False],
        "exists[1, 1] <1> red": [False, True, True, False],
        "exists[4, inf] <1> red": [False] * 4,
        "!exists <1> red": [True, False, False, False],
        "exists <1> red <-> exists[2, 2] <1> red": [True, False, False, True],
        "exists[0, 0] <1> red -> exists[5, 9] true": [False, True, True, True],
    }
    for text, expected in cases.items():
        f = build_graph(backend, program("classify " + text).classifier, graph)
        assert truth_table(backend, f, [0, 1]) == expected, text


def test_memo_builds_each_subformula_node_pair_once(backend: Backend) -> None:
    """`<1> red & <1> red | <1> red`: one distinct modality plus `red` and the connectives."""
    graph = star([[], ["red"], ["red"]])
    backend.declare_edges(range(2))
    builder = Builder(backend, graph)
    builder.build_node(program("classify (<1> red & <1> red) | <1> red").classifier, 0)
    # (Or, 0), (And, 0), (<1> red, 0), (red, 1), (red, 2)
    assert builder.memo_size == 5


def test_build_node_rejects_a_sentence(backend: Backend) -> None:
    graph = star([[], []])
    with pytest.raises(TypeError):
        build_node(backend, program("classify exists red").classifier, graph, 0)


# ---------------------------------------------------------------- UPI on formulas


@pytest.mark.parametrize("shortcuts", [False, True])
def test_redundancy_positive_and_negative(backend_name: str, shortcuts: bool) -> None:
    """App. F Redundancy: any one red->black edge is a PI, so the UPI is all of them;
    the black->red and grey->black edges are in none."""
    prog = program("classify exists (black & <1> red)")
    colors = [["black"], ["red"], ["red"], ["red"], ["grey"]]
    graph = Graph.from_edges(5, colors, [(1, 0), (0, 1), (2, 0), (3, 0), (4, 0)])
    label, mask = upi(prog, graph, backend=backend_name, shortcuts=shortcuts)
    assert label == 1 and mask.tolist() == mask_of(5, {0, 2, 3})
    # Negative: no red neighbour, and no removal can create one (Corollary 1).
    negative = Graph.from_edges(5, colors, [(0, 1), (4, 0)])
    label, mask = upi(prog, negative, backend=backend_name, shortcuts=shortcuts)
    assert label == 0 and mask.tolist() == [False, False]


@pytest.mark.parametrize("shortcuts", [False, True])
def test_competing_redundancy(backend_name: str, shortcuts: bool) -> None:
    """App. F CompetingRedundancy: 1 red, 2 blue, 3 green around black: three PIs
    ({red}, {both blue}, {all green}), UPI = all six edges, not the grey one."""
    prog = program("classify exists (black & (<1> red | <2> blue | <3> green))")
    colors = [["black"], ["red"], ["blue"], ["blue"], ["green"], ["green"], ["green"], ["grey"]]
    graph = star(colors)
    label, mask = upi(prog, graph, backend=backend_name, shortcuts=shortcuts)
    assert label == 1 and mask.tolist() == mask_of(7, {0, 1, 2, 3, 4, 5})


@pytest.mark.parametrize("shortcuts", [False, True])
def test_isolated_node_makes_the_upi_empty(backend_name: str, shortcuts: bool) -> None:
    """`exists !<1> true` (some node has no in-edge) holds on every subgraph when a
    node is isolated: the empty set is a PI (App. I, Corollary 1)."""
    prog = program("classify exists !<1> true")
    graph = Graph.from_edges(3, [[], [], []], [(0, 1), (1, 0)])
    assert upi(prog, graph, backend=backend_name, shortcuts=shortcuts)[1].tolist() == [False] * 2


@pytest.mark.parametrize("shortcuts", [False, True])
def test_edge_cover_on_complete_graph_with_self_loops(backend_name: str,
                                                      shortcuts: bool) -> None:
    """App. D.4: every in-edge of a node is in some minimal cover, so UPI = E."""
    prog = program("classify exists[0, 0] !<1> true")
    n = 3
    graph = Graph.from_edges(n, [[]] * n, [(s, t) for s in range(n) for t in range(n)])
    label, mask = upi(prog, graph, backend=backend_name, shortcuts=shortcuts)
    assert label == 1 and mask.all()
    # On the directed path 0 -> 1 -> 2, node 0 has no in-edge: negative, and nothing
    # can fix it, so the empty set is a PI.
    path = Graph.from_edges(3, [[]] * 3, [(0, 1), (1, 2)])
    label, mask = upi(prog, path, backend=backend_name, shortcuts=shortcuts)
    assert label == 0 and not mask.any()


@pytest.mark.parametrize("shortcuts", [False, True])
def test_majority_node_targets(backend_name: str, shortcuts: bool) -> None:
    """App. F Majority1Hop at node 0.

    Positive: red 1, red 2, blue 3 -> 0. Every superset keeps the blue edge possible,
    so both reds are needed: the only PI is {e0, e1}.
    Negative: red 1, blue 2, blue 3 -> 0. One kept blue edge caps #red - #blue at 0:
    PIs {e1}, {e2}. The edge 0 -> 1 is outside the receptive field in both.
    """
    prog = program("classify more(red, blue)")
    positive = Graph.from_edges(4, [[], ["red"], ["red"], ["blue"]],
                                [(1, 0), (2, 0), (3, 0), (0, 1)])
    label, mask = upi(prog, positive, target=0, backend=backend_name, shortcuts=shortcuts)
    assert label == 1 and mask.tolist() == mask_of(4, {0, 1})
    negative = Graph.from_edges(4, [[], ["red"], ["blue"], ["blue"]],
                                [(1, 0), (2, 0), (3, 0), (0, 1)], target=0)
    label, mask = upi(prog, negative, backend=backend_name, shortcuts=shortcuts)
    assert label == 0 and mask.tolist() == mask_of(4, {1, 2})


def test_two_hop_node_target(backend_name: str) -> None:
    """`<1> <1> red` at node 2 on red 0 -> 1 -> 2, plus 3 -> 1 (uncoloured) and 2 -> 0.
    The only PI is the path {e0, e1}."""
    prog = program("classify <1> <1> red")
    graph = Graph.from_edges(4, [["red"], [], [], []], [(0, 1), (1, 2), (3, 1), (2, 0)])
    for shortcuts in (False, True):
        label, mask = upi(prog, graph, target=2, backend=backend_name, shortcuts=shortcuts)
        assert label == 1 and mask.tolist() == mask_of(4, {0, 1})


def test_computation_order_puts_each_source_before_its_edge() -> None:
    """`<1> <1> red` at 2 on e0 = (0,1), e1 = (1,2), e2 = (3,1), e3 = (2,0): BuildNode
    reads e1 into 2, whose source 1 first reads e0 and e2; e3 is read by nobody."""
    prog = program("classify <1> <1> red")
    graph = Graph.from_edges(4, [["red"], [], [], []], [(0, 1), (1, 2), (3, 1), (2, 0)])
    assert computation_order(prog, graph, 2) == edge_vars([0, 2, 1, 3])
    # A graph classifier starts from every node in reverse Cuthill–McKee order, here
    # 2, 0, 1, 3 (scipy's, from the undirected graph): node 2 reads e1, node 0 reads e3,
    # node 1 reads e0 and e2, node 3 nothing (each source at depth 0 reads nothing).
    assert bandwidth_order(graph) == [2, 0, 1, 3]
    sentence = program("classify exists <1> red")
    assert computation_order(sentence, graph) == edge_vars([1, 3, 0, 2])


def test_variable_order_changes_sizes_never_masks(backend_name: str) -> None:
    """The edge cover on the complete graph with self-loops: the lexicographic (s, t)
    order interleaves every node's clause, the computation order groups them."""
    prog = program("classify exists[0, 0] !<1> true")
    n = 5
    graph = Graph.from_edges(n, [[]] * n, [(s, t) for s in range(n) for t in range(n)])
    by_edges = upi_report(prog, graph, backend=backend_name, order="edges")
    by_computation = upi_report(prog, graph, backend=backend_name, order="computation")
    assert by_edges.mask.all() and by_computation.mask.all()
    # Grouped by node, the diagram is a chain of n ORs of n variables: n*n nodes + 1.
    assert by_computation.nodes == n * n + 1
    assert by_edges.nodes > 4 * by_computation.nodes
    assert (by_edges.order, by_computation.order) == ("edges", "computation")
    with pytest.raises(GracrError, match="unknown variable order 'random'"):
        upi(prog, graph, order="random")  # type: ignore[call-overload]


def test_reordering_gives_the_same_mask() -> None:
    """On the edge cover of App. D.4 with n = 7 in the edge-list order, CUDD's sifting
    fires during Extend and Extract and groups each node's clause: a smaller diagram, the
    same mask."""
    prog = program("classify exists[0, 0] !<1> true")
    n = 7
    graph = Graph.from_edges(n, [[]] * n, [(s, t) for s in range(n) for t in range(n)])
    static = upi_report(prog, graph, backend="cudd", shortcuts=False, order="edges")
    dynamic = upi_report(prog, graph, backend="cudd", reorder=True, shortcuts=False,
                         order="edges")
    assert dynamic.reorder and dynamic.nodes < static.nodes
    assert static.mask.all() and dynamic.mask.all()


def test_report_fields(backend_name: str) -> None:
    prog = program("classify more(red, blue)")
    graph = Graph.from_edges(4, [[], ["red"], ["red"], ["blue"]],
                             [(1, 0), (2, 0), (3, 0), (0, 1)])
    written = upi_report(prog, graph, target=0, backend=backend_name, shortcuts=False)
    fast = upi_report(prog, graph, target=0, backend=backend_name, shortcuts=True)
    assert written.extend == "all variables" and written.num_variables == 4
    assert fast.extend == "support" and fast.num_variables == 3  # edge 0 -> 1 is outside
    for report in (written, fast):
        assert report.backend == backend_name
        assert min(report.build_seconds, report.extend_seconds, report.extract_seconds) >= 0
        assert report.total_seconds >= report.build_seconds
        assert report.nodes_built > 1 and report.nodes_extended > 1
        assert report.nodes == max(report.nodes_built, report.nodes_extended)
    monotone = upi_report(program("classify exists (black & <1> red)"),
                          star([["black"], ["red"]]), backend=backend_name)
    assert monotone.extend == "skipped (monotone)"


def test_upi_json_is_the_cli_record() -> None:
    prog = program("classify exists (black & <1> red)")
    graph = star([["black"], ["red"], ["grey"]])
    assert upi_json(prog, graph) == {"label": 1, "mask": [1, 0]}


# ---------------------------------------------------------------- targets and receptive field


def test_node_classifier_needs_a_target_in_range() -> None:
    prog = program("classify <1> red")
    graph = star([[], ["red"]])
    with pytest.raises(GracrError, match="node classifier: it needs a target node"):
        upi(prog, graph)
    with pytest.raises(GracrError, match="target node 2 is out of range for a graph with 2 nodes"):
        upi(prog, graph, target=2)
    with pytest.raises(GracrError, match="out of range"):
        receptive_field(prog, graph, -1)
    with pytest.raises(GracrError, match="graph classifier"):
        upi(program("classify exists red"), graph, target=0)
    assert resolve_target(prog, graph.with_target(1)) == 1
    assert resolve_target(prog, graph.with_target(1), 0) == 0  # the argument wins


def test_colour_outside_the_palette_is_a_graph_error() -> None:
    graph = star([["red"], ["purple"]])
    with pytest.raises(GraphError, match="purple"):
        upi(program("classify exists red"), graph)


def test_receptive_field_follows_paths_to_the_target() -> None:
    """Edges (0,1), (1,2), (2,3), (3,0), (4,4), target 3. Depth k keeps (s, t) with a
    path of length <= k-1 from t to 3: k=1 -> (2,3); k=2 -> also (1,2); k=3 -> also
    (0,1); k=4 -> also (3,0). The self-loop at 4 never reaches 3."""
    graph = Graph.from_edges(5, [[]] * 5, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 4)])
    formulas = {0: "red", 1: "<1> red", 2: "<1> <1> red", 3: "<1> [] <1> red",
                4: "<1> <1> <1> <1> red"}
    expected = {0: set(), 1: {2}, 2: {1, 2}, 3: {0, 1, 2}, 4: {0, 1, 2, 3}}
    for k, text in formulas.items():
        prog = program("classify " + text)
        assert prog.modal_depth == k
        assert receptive_field(prog, graph, 3).tolist() == mask_of(5, expected[k]), k


def test_receptive_field_of_a_graph_classifier_is_all_or_nothing() -> None:
    graph = Graph.from_edges(3, [[]] * 3, [(0, 1), (1, 2)])
    assert receptive_field(program("classify exists <1> red"), graph).tolist() == [True, True]
    assert receptive_field(program("classify exists red"), graph).tolist() == [False, False]


# ---------------------------------------------------------------- brute force


def test_brute_force_example_2_table() -> None:
    """Eq. 13: f is 1 on {e1, e3} (bitmask 0b101) and on E (0b111) only."""
    values = np.array([r in (5, 7) for r in range(8)])
    assert upi_from_values(values).tolist() == [True, False, True]


def test_brute_force_tables() -> None:
    # Constant: the empty set is sufficient, nothing is in the UPI (Corollary 1).
    assert upi_from_values(np.zeros(8, dtype=bool)).tolist() == [False] * 3
    assert upi_from_values(np.ones(4, dtype=bool)).tolist() == [False] * 2
    # XOR, 0 at G: only G is sufficient.
    assert upi_from_values(np.array([False, True, True, False])).tolist() == [True, True]
    # x0 | x1 at G: PIs {e0} and {e1}.
    assert upi_from_values(np.array([False, True, True, True])).tolist() == [True, True]
    # x0 | (x1 & !x2) (bit e = edge e): 1 at G, PI {e0} only (see test_extend_...).
    table = np.array([bool(r & 1) or (bool(r & 2) and not r & 4) for r in range(8)])
    assert upi_from_values(table).tolist() == [True, False, False]
    # No edges at all.
    assert upi_from_values(np.array([True])).tolist() == []
    with pytest.raises(ValueError):
        upi_from_values(np.zeros(6, dtype=bool))


def test_brute_force_on_formulas_and_its_limit() -> None:
    prog = program("classify more(red, blue)")
    graph = Graph.from_edges(4, [[], ["red"], ["red"], ["blue"]],
                             [(1, 0), (2, 0), (3, 0), (0, 1)])
    label, mask = brute_force_upi(prog, graph, 0)
    assert label == 1 and mask.tolist() == mask_of(4, {0, 1})
    values = subset_values(prog, graph, 0)
    # bit e = edge e: two reds beat one blue (0b0111); one red ties one blue (0b0101)
    assert values.shape == (16,) and values[0b0111] and not values[0b0101]
    with pytest.raises(GracrError, match="over the limit"):
        brute_force_upi(prog, graph, 0, max_variables=3)


# ---------------------------------------------------------------- polarity


@pytest.mark.parametrize("text, expected", [
    ("red & !blue", Polarity.CONSTANT),
    ("<0> red", Polarity.CONSTANT),
    ("<1> red", Polarity.INCREASING),
    ("<2> <1> red | red", Polarity.INCREASING),
    ("atmost 1 red", Polarity.DECREASING),
    ("exactly 0 red", Polarity.DECREASING),
    ("between 0 2 red", Polarity.DECREASING),
    ("exactly 1 red", Polarity.MIXED),
    ("[] red", Polarity.DECREASING),
    ("[] <1> red", Polarity.MIXED),
    ("<1> !<1> red", Polarity.MIXED),
    ("<1> red -> <1> blue", Polarity.MIXED),
    ("[] red -> <1> blue", Polarity.INCREASING),
    ("<1> red <-> red", Polarity.MIXED),
    ("more(red, blue)", Polarity.MIXED),
    ("exists (black & <1> red)", Polarity.INCREASING),
    ("exists[0, 0] !<1> true", Polarity.INCREASING),
    ("exists[0, 3] <1> red", Polarity.DECREASING),
    ("exists[1, 3] <1> red", Polarity.MIXED),
    ("exists[0, inf] <1> red", Polarity.CONSTANT),
    ("!exists <1> red", Polarity.DECREASING),
])
def test_polarity(text: str, expected: Polarity) -> None:
    assert polarity(program("classify " + text).classifier) is expected


def _variables_by_walk(graph: Graph, over: str, edges: np.ndarray, nodes: np.ndarray
                       ) -> list[Var]:
    """The edge-list walk `_variables` stands for, written as the loop it describes."""
    found: list[Var] = []
    placed = ~nodes if over != "edges" else np.ones(graph.num_nodes, dtype=np.bool_)
    for edge in range(graph.num_edges):
        for end in (int(graph.targets[edge]), int(graph.sources[edge])):
            if not placed[end]:
                placed[end] = True
                found.append(Var.node(end))
        if over != "nodes" and edges[edge]:
            found.append(Var.edge(edge))
    return found + [Var.node(int(v)) for v in np.flatnonzero(~placed)]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 7), st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)),
                                   max_size=14),
       st.sampled_from(["edges", "nodes", "both"]), st.integers(0, 2**20))
def test_the_vectorised_variable_walk_is_the_loop(n: int, pairs: list[tuple[int, int]],
                                                  over: str, bits: int) -> None:
    from gracr.bdd.upi import _variables

    edges = [(s % n, t % n) for s, t in pairs]
    graph = Graph.from_edges(n, [[]] * n, edges)
    edge_mask = np.array([(bits >> i) & 1 for i in range(len(edges))], dtype=np.bool_)
    node_mask = np.array([(bits >> (14 + i)) & 1 for i in range(n)], dtype=np.bool_)
    assert _variables(graph, over, edge_mask, node_mask) == \
        _variables_by_walk(graph, over, edge_mask, node_mask)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the value at the full graph


@pytest.mark.parametrize("backend_name", BACKENDS)
@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.sampled_from("&|^"),
                                st.booleans()), max_size=14),
       start=st.booleans())
def test_value_all_true_is_the_restriction_to_all_ones(backend_name: str,
                                                        steps: list[tuple[int, bool, str, bool]],
                                                        start: bool) -> None:
    # One path down the 1-branches, complemented edges counted, against Bryant's Restrict
    # with every variable set to 1 (what Algorithm 1, line 4 computed before).
    b = make_backend(backend_name)
    variables = edge_vars(list(range(6)))
    b.declare(variables)
    f = b.true if start else b.false
    for index, negate_var, op, negate_result in steps:
        g = b.var(variables[index])
        g = b.neg(g) if negate_var else g
        f = b.conj(f, g) if op == "&" else b.disj(f, g) if op == "|" else b.neg(b.iff(f, g))
        f = b.neg(f) if negate_result else f
    assert b.value_all_true(f) == b.is_true(b.restrict(f, {v: True for v in variables}))


@settings(max_examples=80, deadline=None)
@given(num_nodes=st.integers(1, 12), data=st.data())
def test_bandwidth_order_is_scipys_order_of_the_edge_list(num_nodes: int,
                                                          data: st.DataObject) -> None:
    # The CSR structure is made directly; scipy's own path from the edge list (A + A.T,
    # repeated edges, self-loops and isolated nodes included) must give the same order.
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    edges = data.draw(st.lists(st.tuples(st.integers(0, num_nodes - 1),
                                         st.integers(0, num_nodes - 1)), max_size=30))
    graph = Graph.from_edges(num_nodes, [[] for _ in range(num_nodes)], edges)
    adjacency = csr_matrix((np.ones(graph.num_edges), (graph.sources, graph.targets)),
                           shape=(num_nodes, num_nodes))
    expected = reverse_cuthill_mckee(adjacency, symmetric_mode=False).tolist()
    assert bandwidth_order(graph) == expected
