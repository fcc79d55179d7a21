"""Adding a connective is one entry in a table (`gracr.dsl.operators`): `xor`, registered
in a copy of the language's table inside this test only, is evaluated, printed, built in
the BDD and compiled, each checked against its hand-written truth table."""

from __future__ import annotations

import pytest

from gracr.bdd.backend import Var, make_backend
from gracr.bdd.build import Builder
from gracr.bdd.polarity import Polarity, polarity
from gracr.compiler.compile import compile_network
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.dsl.evaluate import evaluate_kept, evaluate_node, evaluate_sentence
from gracr.dsl.ir import Formula, Kind, frozen_node
from gracr.dsl.operators import AND, CONNECTIVES, OR, Connective
from gracr.dsl.program import Program
from gracr.dsl.show import show_formula
from gracr.errors import Span
from gracr.executor.model import CompiledGNN


@frozen_node
class Xor:
    left: Formula
    right: Formula
    span: Span = ir.NO_SPAN


XOR = Connective("xor", Xor, 2, " ^ ", OR, (OR, AND),
                 lambda algebra, a, b: algebra.neg(algebra.iff(a, b)))
WITH_XOR = {**CONNECTIVES, Xor: XOR}

A, B, C = ir.Color("a"), ir.Color("b"), ir.Color("c")
# Nodes 0..3 carry the colours (a, b) = (no, no), (no, yes), (yes, no), (yes, yes).
FOUR = Graph.from_json({"num_nodes": 4, "colors": [[], ["b"], ["a"], ["a", "b"]],
                        "edges": []})
XOR_BY_HAND = [False, True, True, False]


def xor(left: Formula, right: Formula) -> Formula:
    node: Formula = Xor(left, right)  # type: ignore[assignment]
    return node


def test_xor_is_not_in_the_language() -> None:
    assert Xor not in CONNECTIVES
    with pytest.raises(TypeError):
        show_formula(xor(A, B))


def test_xor_is_evaluated_at_nodes() -> None:
    assert evaluate_node(xor(A, B), FOUR, operators=WITH_XOR).tolist() == XOR_BY_HAND


def test_xor_is_evaluated_on_graphs() -> None:
    sentence = xor(ir.Exists(1, None, A), ir.Exists(1, None, B))
    for colours, expected in [([[]], False), ([["b"]], True), ([["a"]], True),
                              ([["a", "b"]], False)]:
        graph = Graph.from_json({"num_nodes": 1, "colors": colours, "edges": []})
        assert evaluate_sentence(sentence, graph, operators=WITH_XOR) is expected


def test_xor_is_evaluated_on_kept_subgraphs() -> None:
    # `exists a ^ exists b` over nodes 0 (a) and 1 (b): true when exactly one is kept.
    graph = Graph.from_json({"num_nodes": 2, "colors": [["a"], ["b"]], "edges": []})
    program = Program(Schema(("a", "b")),
                      xor(ir.Exists(1, None, A), ir.Exists(1, None, B)), Kind.GRAPH)
    kept = [[False, False], [False, True], [True, False], [True, True]]
    assert evaluate_kept(program, graph, kept, operators=WITH_XOR).tolist() == XOR_BY_HAND


def test_xor_has_a_polarity() -> None:
    # xor reads each argument both ways: constant only over constant arguments.
    assert polarity(xor(A, B), operators=WITH_XOR) is Polarity.CONSTANT
    assert polarity(xor(ir.AtLeast(1, A), B), operators=WITH_XOR) is Polarity.MIXED
    assert polarity(ir.Or(ir.AtLeast(1, A), B), operators=WITH_XOR) is Polarity.INCREASING


def test_xor_is_printed_with_its_precedence() -> None:
    assert show_formula(xor(A, B), operators=WITH_XOR) == "a ^ b"
    assert show_formula(xor(ir.And(A, B), C), operators=WITH_XOR) == "a & b ^ c"
    assert show_formula(xor(A, ir.Or(B, C)), operators=WITH_XOR) == "a ^ (b | c)"
    assert show_formula(ir.Not(xor(A, B)), operators=WITH_XOR) == "!(a ^ b)"


def test_xor_is_built_in_the_bdd_of_a_sentence() -> None:
    # Node 0 is a, node 1 is b: `exists a ^ exists b` holds when exactly one is kept.
    graph = Graph.from_json({"num_nodes": 2, "colors": [["a"], ["b"]], "edges": []})
    backend = make_backend("autoref")
    y0, y1 = Var("node", 0), Var("node", 1)
    backend.declare([y0, y1])
    diagram = Builder(backend, graph, "nodes", operators=WITH_XOR).build_graph(
        xor(ir.Exists(1, None, A), ir.Exists(1, None, B)))
    for kept0, kept1, expected in [(False, False, False), (False, True, True),
                                   (True, False, True), (True, True, False)]:
        value = backend.restrict(diagram, {y0: kept0, y1: kept1})
        assert backend.is_true(value) is expected
        assert backend.is_false(value) is not expected


def test_xor_is_built_in_the_bdd_of_a_node() -> None:
    # Node 0 is a, with one in-edge (edge 0) from node 1, which is b: `a ^ <1> b` at
    # node 0 holds exactly when the edge is removed.
    graph = Graph.from_json({"num_nodes": 2, "colors": [["a"], ["b"]], "edges": [[1, 0]]})
    backend = make_backend("autoref")
    backend.declare_edges([0])
    diagram = Builder(backend, graph, "edges", kept=0, operators=WITH_XOR).build_node(
        xor(A, ir.AtLeast(1, B)), 0)
    edge = Var("edge", 0)
    assert backend.is_true(backend.restrict(diagram, {edge: False}))
    assert backend.is_false(backend.restrict(diagram, {edge: True}))


def test_xor_is_compiled() -> None:
    program = Program(Schema(("a", "b")), xor(A, B), Kind.NODE)
    network = CompiledGNN.of(compile_network(program, operators=WITH_XOR))
    assert network.formula == "a ^ b"
    assert network.predict(FOUR).tolist() == XOR_BY_HAND  # type: ignore[union-attr]


def test_xor_is_compiled_under_a_modality() -> None:
    # Node 2 receives an edge from node 1 (b); the others receive none.
    graph = Graph.from_json({"num_nodes": 4, "colors": [[], ["b"], ["a"], ["a", "b"]],
                             "edges": [[1, 2], [1, 0]]})
    program = Program(Schema(("a", "b")), xor(A, ir.AtLeast(1, B)), Kind.NODE)
    network = CompiledGNN.of(compile_network(program, operators=WITH_XOR))
    # a:            no,  no,  yes, yes;  <1> b: yes, no, yes, no
    assert network.predict(graph).tolist() == [True, False, False, True]  # type: ignore[union-attr]
