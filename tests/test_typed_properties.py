"""Typed graphs across the stages: the reference evaluator is the oracle for every executor.

Random typed programs (1-2 attribute families, 0-4 relations, relation filters on any
modality; `tests/strategies.py`) on random typed graphs, compiled under all four
compile options, with and without the presence bit: the evaluator == the numpy
forward == the PyG module (surrogate and exact derivative) == the fused module ==
the numba kernel, and at one target the target-cone module. The presence property
zeroes the features of some nodes and compares with the evaluator on the graph where
those nodes are deleted.

Each property counts its non-trivial draws (a classifier true somewhere and false
somewhere; a deletion that changes a value, or a classifier true at some nodes and false at
others) and fails when they are under 20 % of them. The draws are derandomized (the same
sample on every run), so that share is a property of the test, not of the run.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import gracr
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.dsl.parse import Program
from gracr.executor.model import CompiledGNN, compile_program
from gracr.executor.numba_backend import evaluate_columns, in_neighbour_csr, sparse_program
from gracr.executor.torch_backend import TargetConeModule
from tests.strategies import schemas, typed_graphs, typed_node_formulas, typed_program_for

OPTIONS = [(d, c) for d in ("demorgan", "flat") for c in ("expanded", "direct")]
EXAMPLES = 25  # per compile option and presence: 200 typed cases per run of the suite
MIN_SHARE = 0.2


@st.composite
def typed_cases(draw: st.DrawFn, min_edges: int = 3) -> tuple[Program, Graph]:
    schema: Schema = draw(schemas())
    formula = draw(typed_node_formulas(schema, depth=draw(st.integers(1, 2)), top=True))
    if draw(st.booleans()):
        low = draw(st.integers(0, 2))
        formula = ir.Exists(low, draw(st.one_of(st.none(), st.integers(low, low + 2))), formula)
    graph = draw(typed_graphs(schema, max_nodes=7, max_edges=14, min_edges=min_edges))
    return typed_program_for(schema, formula), graph


def _tensors(model: CompiledGNN, graph: Graph, x: np.ndarray[Any, Any] | None = None
             ) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    features = model.features(graph) if x is None else x
    edge_type = model.edge_types(graph)
    kwargs = {} if edge_type is None else {"edge_type": torch.as_tensor(edge_type)}
    return (torch.as_tensor(features, dtype=torch.float32),
            torch.as_tensor(graph.edge_index, dtype=torch.long), kwargs)


def _every_executor(model: CompiledGNN, graph: Graph,
                    x: np.ndarray[Any, Any] | None = None) -> Iterator[tuple[str, np.ndarray[Any, Any]]]:
    """The classifier's output `[N]` (node) or `[1]` (graph) from each executor."""
    features, edge_index, kwargs = _tensors(model, graph, x)
    yield "numpy", model.forward(features.numpy(), graph.edge_index,
                                 edge_type=kwargs.get("edge_type"))[:, 0]
    for name, module in (("surrogate", model.to_pyg(surrogate=True)),
                         ("exact", model.to_pyg(surrogate=False)),
                         ("wide", model.to_pyg(narrow=False)),
                         ("fused", model.to_pyg(fused=True))):
        with torch.no_grad():
            yield name, module(features, edge_index, **kwargs)[:, 0].numpy()
    if model.kind is ir.Kind.NODE:
        indptr, sources, types = in_neighbour_csr(graph, model.edge_types(graph))
        columns = evaluate_columns(sparse_program(model), features.numpy().astype(np.float64),
                                   indptr, sources, types)
        yield "numba", columns[:, model.output_column]
        target = 0
        cone = TargetConeModule(model, graph.edge_index, graph.num_nodes, target,
                                edge_type=model.edge_types(graph))
        with torch.no_grad():
            value = cone(features, edge_index, **kwargs)[target, 0].numpy()
        yield "cone", np.array([value])


def _expected(program: Program, graph: Graph) -> np.ndarray[Any, Any]:
    value = gracr.evaluate(program, graph)
    return np.atleast_1d(np.asarray(value, dtype=np.float64))


SEEN: Counter[str] = Counter()


@pytest.mark.parametrize("presence", [False, True])
@pytest.mark.parametrize("disjunction,comparison", OPTIONS)
def test_every_executor_equals_the_evaluator_on_typed_graphs(
        disjunction: str, comparison: str, presence: bool) -> None:
    tally: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(typed_cases())
    def check(case: tuple[Program, Graph]) -> None:
        program, graph = case
        model = compile_program(program, disjunction=disjunction,  # type: ignore[arg-type]
                                comparison=comparison,  # type: ignore[arg-type]
                                max_degree=graph.num_edges, presence=presence)
        expected = _expected(program, graph)
        tally["draws"] += 1
        if program.kind is ir.Kind.NODE and 0 < expected.sum() < expected.size:
            tally["mixed"] += 1
            event("node classifier true at some nodes, false at others")
        elif program.kind is ir.Kind.GRAPH:
            tally["mixed"] += 1  # a sentence is non-trivial whichever way it falls
            event(f"graph sentence, value {int(expected[0])}")
        for name, output in _every_executor(model, graph):
            want = expected[:1] if name == "cone" else expected
            np.testing.assert_array_equal(output, want, err_msg=f"{name} on {program.show()}")

    check()
    assert tally["mixed"] >= MIN_SHARE * tally["draws"], tally


@st.composite
def deletions(draw: st.DrawFn) -> tuple[Program, Graph, np.ndarray[Any, Any]]:
    # At least three nodes, so that a deletion leaves a graph with some structure.
    program, graph = draw(typed_cases(min_edges=8).filter(lambda c: c[1].num_nodes >= 3))
    keep = np.array(draw(st.lists(st.booleans(),
                                  min_size=graph.num_nodes, max_size=graph.num_nodes)),
                    dtype=np.bool_)
    keep[0] = True  # node 0 is the target of a node classifier: never removed
    return program, graph.with_target(0), keep


@pytest.mark.parametrize("disjunction", ["demorgan", "flat"])
def test_zeroed_features_under_the_presence_bit_delete_the_node(disjunction: str) -> None:
    tally: Counter[str] = Counter()

    @settings(max_examples=2 * EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(deletions())
    def check(case: tuple[Program, Graph, np.ndarray[Any, Any]]) -> None:
        program, graph, keep = case
        model = compile_program(program, disjunction=disjunction,  # type: ignore[arg-type]
                                comparison="direct", presence=True)
        x = model.features(graph)
        x[~keep] = 0.0
        subgraph, _ = graph.keep_nodes(keep)
        expected = _expected(program, subgraph)
        full = _expected(program, graph)
        tally["draws"] += 1
        kept_values = full if program.kind is ir.Kind.GRAPH else full[keep]
        if not np.array_equal(kept_values, expected):
            tally["changed"] += 1
            event("deleting the nodes changes a value")
        elif 0 < expected.sum() < expected.size or 0 < full.sum() < full.size:
            tally["changed"] += 1
            event("unchanged, but true at some nodes and false at others")
        for name, output in _every_executor(model, graph, x):
            if name == "cone":
                np.testing.assert_array_equal(output, expected[:1], err_msg=name)
            elif program.kind is ir.Kind.GRAPH:
                np.testing.assert_array_equal(output, expected, err_msg=name)
            else:
                np.testing.assert_array_equal(output[keep], expected, err_msg=name)
                assert not output[~keep].any(), f"{name}: a deleted node computes a 1"

    check()
    assert tally["changed"] >= MIN_SHARE * tally["draws"], tally


def test_without_the_presence_bit_a_zeroed_node_still_counts() -> None:
    """`!red` holds at a node with no features: without the bit it is counted."""
    program = typed_program_for(Schema(palette=("red",)), ir.AtLeast(1, ir.Not(ir.Color("red"))))
    graph = Graph.from_edges(2, [["red"], ["red"]], [(1, 0)])
    for presence, counted in ((False, 1.0), (True, 0.0)):
        model = compile_program(program, presence=presence)
        x = model.features(graph)
        x[1] = 0.0
        assert model.forward(x, graph.edge_index)[0, 0] == counted


def test_a_typed_module_requires_edge_type() -> None:
    program = typed_program_for(Schema(families=(), relations=("single", "double")),
                                ir.AtLeast(1, ir.Top()))  # declares relations, filters none
    model = compile_program(program)
    graph = Graph.from_edges(2, None, [(1, 0)], relations=["single"])
    x, edge_index, kwargs = _tensors(model, graph)
    for module in (model.to_pyg(), model.to_pyg(fused=True)):
        with pytest.raises(ValueError, match="declares the relations single, double"):
            module(x, edge_index)
        with pytest.raises(ValueError, match="one relation index per edge"):
            module(x, edge_index, edge_type=torch.zeros(2, dtype=torch.long))
        assert module(x, edge_index, **kwargs)[0, 0] == 1.0
