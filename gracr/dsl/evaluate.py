"""The reference semantics of `.gml`: every operator interpreted by its own meaning.

This evaluator reads the *surface* IR, before any desugaring, so it is an
independent oracle for the compiled network (`gracr.compiler`) and for the ROBDD
construction (`gracr.bdd`). It is written for clarity, not speed.
"""

from __future__ import annotations

from fractions import Fraction
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


def linear_values(atom: ir.Threshold, graph: Graph) -> npt.NDArray[np.float64]:
    """`Σ_i a_i · x_{f_i}` at every node, in float64 (`threshold_values` decides exactly)."""
    if graph.feature_values is None:
        raise ValueError("the graph has no numeric features")
    weights = np.array([float(c) for c in atom.coefficients])
    values: npt.NDArray[np.float64] = graph.feature_values[:, list(atom.columns)] @ weights
    return values


def threshold_values(atom: ir.Threshold, graph: Graph) -> NodeValues:
    """Whether each node satisfies the threshold atom, exactly: the features are the
    float64 numbers the graph holds, the coefficients and bound exact rationals, so the
    float64 sum decides every node but those within rounding of the bound, which are
    decided in exact rational arithmetic."""
    values = linear_values(atom, graph)
    bound = float(atom.bound)
    result = _compare_floats(atom.op, values, bound)
    assert graph.feature_values is not None
    # Rounding of the sum and of the coefficients is far below 1e-12 of this scale.
    scale = 1.0 + abs(bound) + np.abs(graph.feature_values[:, list(atom.columns)]) @ \
        np.array([abs(float(c)) for c in atom.coefficients])
    close = np.flatnonzero(np.abs(values - bound) <= 1e-12 * scale)
    for v in close:
        exact = sum((c * Fraction(float(graph.feature_values[v, column]))
                     for c, column in zip(atom.coefficients, atom.columns)), Fraction(0))
        result[v] = ir.compares(atom.op, exact, atom.bound)
    return result


def _compare_floats(op: str, values: npt.NDArray[np.float64], bound: float) -> NodeValues:
    match op:
        case ">":
            return values > bound
        case ">=":
            return values >= bound
        case "<":
            return values < bound
        case "<=":
            return values <= bound
    raise ValueError(f"a threshold atom has no comparison {op!r}")


def margin_interval(atom: ir.Threshold, delta: float) -> tuple[float, float]:
    """The closed interval of `Σ a_i x_i` on which the compiled σ((a·x − b)/δ) (`>`; the
    other comparisons alike) may differ from the threshold: `[b, b + δ]` for `>` and `<=`,
    `[b − δ, b]` for `>=` and `<` (the compiled unit is exact outside the open interval;
    the closed one is reported, to be safe)."""
    bound = float(atom.bound)
    return (bound, bound + delta) if atom.op in (">", "<=") else (bound - delta, bound)


def margin_nodes(program: Program, graph: Graph, delta: float) -> NodeValues:
    """The nodes whose features lie inside the margin of some threshold atom of the
    program (`margin_interval`): where a network compiled with this `delta` is not
    guaranteed to agree with the formula."""
    inside = np.zeros(graph.num_nodes, dtype=np.bool_)
    for sub in ir.postorder([program.classifier], ir.children):
        if isinstance(sub, ir.Threshold):
            low, high = margin_interval(sub, delta)
            values = linear_values(sub, graph)
            inside |= (values >= low) & (values <= high)
    return inside


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
        case ir.Threshold():
            value = threshold_values(formula, graph)
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
        case ir.Exists() | ir.CountCompare():
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
        case ir.CountCompare(coefficients, args, op, bound):
            total = sum((c * int(evaluate_node(arg, graph, memo).sum())
                         for c, arg in zip(coefficients, args)), Fraction(0))
            value = ir.compares(op, total, bound)
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
