"""The fuzzer's oracle for an input that got through: the reference evaluator, the numpy
forward pass of the compiled network and the ROBDD label agree, and the UPI lies inside
the receptive field (and equals the brute-force UPI on graphs of a few edges)."""

from __future__ import annotations

from functools import cache
from typing import Any, Sequence

import numpy as np
from hypothesis import strategies as st

from gracr.dsl.evaluate import evaluate_program
from gracr.bdd.oracle import upi_disagreements
from gracr.bdd.upi import receptive_field, upi
from gracr.compiler.desugar import uses_comparison
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl.ir import Kind
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.executor.model import CompiledGNN
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, Finding

# The programs that graph files and model files are made for: (source, palette,
# families, relations).
PROGRAMS: tuple[tuple[str, tuple[str, ...], dict[str, tuple[str, ...]], tuple[str, ...]], ...] = (
    ("colors red, blue, green\nlet leaf = blue & exactly 1 true\n"
     "classify red & exactly 2 leaf & <1> true\n", ("red", "blue", "green"), {}, ()),
    ("colors black, red\nclassify exists (black & <1> red)\n", ("black", "red"), {}, ()),
    ("colors red, blue\nclassify more(red, blue) | same(red, blue)\n", ("red", "blue"), {}, ()),
    ("classify <1> true & [] <> true\n", (), {}, ()),
    ("colors marked\nattribute element = C, N, O\nrelations single, double\n"
     "classify element=C & <1>{double} O & atmost{single} 2 true & []{double} !marked\n",
     ("marked",), {"element": ("C", "N", "O")}, ("single", "double")),
)



@cache
def pool_program(index: int) -> Program:
    """`PROGRAMS[index]`, parsed."""
    return parse(PROGRAMS[index][0], filename=f"program{index}.gml")


# Graph shapes: nodes, edges (ends taken modulo the nodes), node codes, edge codes, a
# target code (`realise`).
GRAPH_SPECS = st.tuples(st.integers(0, 7),
                        st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=14),
                        st.lists(st.integers(0, 255), max_size=8),
                        st.lists(st.integers(0, 3), max_size=4), st.integers(0, 7))

# The brute-force UPI enumerates 2**edges subgraphs: only on graphs this small.
BRUTE_FORCE_EDGES = 6


def realise(spec: Sequence[Any], schema: Schema) -> Graph:
    """A graph of the shape `spec` drew, fitted to `schema`: `spec` is (nodes, edges, node
    codes, edge codes, target code); node codes pick colours (bits) and attribute values,
    edge codes relations, so every graph a spec gives is valid for its program."""
    nodes, edges, node_codes, edge_codes, target_code = spec
    codes = [node_codes[v % len(node_codes)] if node_codes else 0 for v in range(nodes)]
    colors = [[c for bit, c in enumerate(schema.palette) if code >> bit & 1] for code in codes]
    attributes = {family.name: [family.values[(code >> (4 + 3 * i)) % len(family.values)]
                                for code in codes] for i, family in enumerate(schema.families)}
    pairs = [(s % nodes, t % nodes) for s, t in edges] if nodes else []
    relations = ([schema.relations[(edge_codes[e % len(edge_codes)] if edge_codes else 0)
                                   % len(schema.relations)] for e in range(len(pairs))]
                 if schema.relations else None)
    return Graph.from_edges(nodes, colors if schema.palette or not schema.families else None,
                            pairs, target_code % nodes if nodes else None, attributes,
                            relations)


def exact_on(program: Program, model: CompiledGNN, graph: Graph) -> bool:
    """Whether the compiled network must agree with the formula on `graph`: always, but for
    the expanded comparison of Eq. 6 with a bound below the graph's largest in-degree."""
    options = model.options
    return not (options.comparison == "expanded" and uses_comparison(program.classifier)
                and (options.max_degree or 0) < graph.max_in_degree())


def check_consistent(program: Program, model: CompiledGNN | None, graph: Graph) -> None:
    """Raise `Finding` unless every way gracr computes the classifier agrees on `graph`
    (a `GracrError` passes through: a budget may refuse a huge graph)."""
    value = evaluate_program(program, graph, max_bytes=FUZZ_BUDGET)
    if model is not None and exact_on(program, model, graph):
        predicted = model.predict(graph, FUZZ_BUDGET)
        if not np.array_equal(np.asarray(predicted), np.asarray(value)):
            raise Finding("the compiled network disagrees with the formula",
                          f"formula {np.asarray(value).astype(int).tolist()}, network "
                          f"{np.asarray(predicted).astype(int).tolist()}")
    if program.kind is Kind.NODE:
        if not graph.num_nodes:
            return
        target: int | None = graph.target if graph.target is not None else 0
        assert target is not None
        expected = bool(np.asarray(value)[target])
    else:
        target, expected = None, bool(value)
    label, mask = upi(program, graph, target)
    if label != int(expected):
        raise Finding("the ROBDD label disagrees with the formula",
                      f"target {target}: formula {int(expected)}, ROBDD {label}")
    check_upi(program, graph, target, label, mask, "the UPI", f"target {target}")


def check_upi(program: Program, graph: Graph, target: int | None, label: int, mask: Any,
              what: str, where: str) -> None:
    """Raise `Finding` unless `mask` (`what`: "the UPI", "a stored UPI") lies inside the
    receptive field and, on a small graph, is the brute-force UPI with its `label`."""
    field = receptive_field(program, graph, target)
    if len(mask) != graph.num_edges or (mask & ~field).any():
        raise Finding(f"{what} leaves the receptive field",
                      f"{where}: {np.asarray(mask).astype(int).tolist()}")
    if graph.num_edges <= BRUTE_FORCE_EDGES:
        _, problems = upi_disagreements(program, graph, target, backends=(),
                                        answers={f"{where}: {what}": (label, mask)})
        if problems:
            raise Finding(f"{what} differs from the brute-force UPI", "; ".join(problems))
