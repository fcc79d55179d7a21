"""The reference semantics of `.gml`: every operator interpreted by its own meaning.

This evaluator reads the *surface* IR, before any desugaring, so it is an
independent oracle for the compiled network (`gracr.compiler`) and for the ROBDD
construction (`gracr.bdd`). It is written for clarity, not speed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.data.graph import Graph
from gracr.limits import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from gracr.dsl.parse import Program

NodeValues = npt.NDArray[np.bool_]
Counts = npt.NDArray[np.int64]


def neighbour_counts(graph: Graph, values: NodeValues, relations: ir.Relations = None) -> Counts:
    """For each node t, how many edges (s, t) have `values[s]` true (multi-edges count twice),
    counting only the edges of `relations` when a filter is given."""
    weights = (values[graph.sources] & graph.relation_mask(relations)).astype(np.int64)
    return np.bincount(graph.targets, weights=weights, minlength=graph.num_nodes).astype(np.int64)


def evaluate_node(formula: Formula, graph: Graph,
                  memo: dict[Formula, NodeValues] | None = None) -> NodeValues:
    """The truth value of a node formula at every node of `graph`."""
    memo = {} if memo is None else memo
    if formula in memo:
        return memo[formula]

    def sub(child: Formula) -> NodeValues:
        return evaluate_node(child, graph, memo)

    relations: ir.Relations = getattr(formula, "relations", None)

    def count(child: Formula) -> Counts:
        return neighbour_counts(graph, sub(child), relations)

    n = graph.num_nodes
    value: NodeValues
    match formula:
        case ir.Top():
            value = np.ones(n, dtype=np.bool_)
        case ir.Bottom():
            value = np.zeros(n, dtype=np.bool_)
        case ir.Color(name):
            value = graph.color_mask(name)
        case ir.Attribute(family, attribute_value):
            value = graph.attribute_mask(family, attribute_value)
        case ir.Not(arg):
            value = ~sub(arg)
        case ir.And(a, b):
            value = sub(a) & sub(b)
        case ir.Or(a, b):
            value = sub(a) | sub(b)
        case ir.Implies(a, b):
            value = ~sub(a) | sub(b)
        case ir.Iff(a, b):
            value = sub(a) == sub(b)
        case ir.AtLeast(k, arg):
            value = count(arg) >= k
        case ir.AtMost(k, arg):
            value = count(arg) <= k
        case ir.Exactly(k, arg):
            value = count(arg) == k
        case ir.Between(low, high, arg):
            c = count(arg)
            value = (low <= c) & (c <= high)
        case ir.Box(arg):
            value = count(arg) == count(ir.Top())
        case ir.More(a, b):
            value = count(a) > count(b)
        case ir.Same(a, b):
            value = count(a) == count(b)
        case ir.Exists():
            raise TypeError("a graph sentence has no value at a node")
        case _:
            raise TypeError(f"not a formula: {formula!r}")
    memo[formula] = value
    return value


def evaluate_sentence(formula: Formula, graph: Graph,
                      memo: dict[Formula, NodeValues] | None = None,
                      sentences: dict[Formula, bool] | None = None) -> bool:
    """The truth value of a graph sentence on `graph` (`sentences` memoises the
    sentences met, so one shared through `let` is evaluated once)."""
    memo = {} if memo is None else memo
    sentences = {} if sentences is None else sentences
    known = sentences.get(formula)
    if known is not None:
        return known

    def sub(child: Formula) -> bool:
        return evaluate_sentence(child, graph, memo, sentences)

    value: bool
    match formula:
        case ir.Exists(low, high, arg):
            satisfied = int(evaluate_node(arg, graph, memo).sum())
            value = low <= satisfied and (high is None or satisfied <= high)
        case ir.Not(arg):
            value = not sub(arg)
        case ir.And(a, b):
            value = sub(a) and sub(b)
        case ir.Or(a, b):
            value = sub(a) or sub(b)
        case ir.Implies(a, b):
            value = (not sub(a)) or sub(b)
        case ir.Iff(a, b):
            value = sub(a) == sub(b)
        case _:
            raise TypeError(f"not a graph sentence: {formula!r}")
    sentences[formula] = value
    return value


def evaluate_program(program: Program, graph: Graph,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> NodeValues | bool:
    """A bool per node for a node classifier, one bool for a graph classifier. A graph on
    which the evaluation would exceed `max_bytes` is refused (`GraphError`)."""
    # One bool per node for each distinct subformula (the memo), and the int64 counts
    # and weights a modality builds per node and per edge.
    graph.require_budget("evaluating the formula",
                         len(ir.postorder([program.classifier], ir.children)) + 24, 16,
                         max_bytes)
    graph.check_schema(program.schema)
    if program.kind is ir.Kind.GRAPH:
        return evaluate_sentence(program.classifier, graph)
    return evaluate_node(program.classifier, graph)
