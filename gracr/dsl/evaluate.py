"""The reference semantics of `.gml`: every operator interpreted by its own meaning.

This evaluator reads the *surface* IR, before any desugaring, so it is an
independent oracle for the compiled network (`gracr.compiler`) and for the ROBDD
construction (`gracr.bdd`). It is written for clarity, not speed.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np
import numpy.typing as npt

from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.dsl.operators import BOOLS, CONNECTIVES, Algebra, Operators
from gracr.dsl.program import Program
from gracr.data.graph import Graph
from gracr.limits import DEFAULT_MAX_BYTES

NodeValues = npt.NDArray[np.bool_]
Counts = npt.NDArray[np.int64]


class ArrayAlgebra:
    """NumPy arrays of truth values, elementwise: node formulas at every node."""

    def neg(self, a: NodeValues) -> NodeValues:
        return ~a

    def conj(self, a: NodeValues, b: NodeValues) -> NodeValues:
        return a & b

    def disj(self, a: NodeValues, b: NodeValues) -> NodeValues:
        return a | b

    def implies(self, a: NodeValues, b: NodeValues) -> NodeValues:
        return ~a | b

    def iff(self, a: NodeValues, b: NodeValues) -> NodeValues:
        same: NodeValues = a == b
        return same


ARRAYS: Algebra[NodeValues] = ArrayAlgebra()


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


# float32's unit roundoff: the network holds x, a/δ and b/δ in float32 and the torch
# executors sum in it.
_FLOAT32_ROUNDOFF = 2.0**-24


def margin_nodes(program: Program, graph: Graph, delta: float) -> NodeValues:
    """The nodes whose features lie inside the margin of some threshold atom of the
    program (`margin_interval`), widened by float32 rounding: where a network compiled
    with this `delta` is not guaranteed to agree with the formula.

    The network computes `Σ a_i x_i − b` from float32 features and weights, each rounded
    by at most the roundoff u, and sums its n + 1 terms in float32: its value is off by at
    most (n + 3) u (Σ |a_i x_i| + |b|) (twice that here, to be safe). With features far
    larger than their differences (`a − b > 0.5` at a = 1e30 + 1e20, b = 1e30) that is
    more than the margin, and the node is named."""
    inside = np.zeros(graph.num_nodes, dtype=np.bool_)
    for sub in ir.postorder([program.classifier], ir.children):
        if isinstance(sub, ir.Threshold):
            low, high = margin_interval(sub, delta)
            values = linear_values(sub, graph)
            assert graph.feature_values is not None  # linear_values
            scale = np.abs(graph.feature_values[:, list(sub.columns)]) @ \
                np.array([abs(float(c)) for c in sub.coefficients]) + abs(float(sub.bound))
            slack = 2 * (len(sub.coefficients) + 3) * _FLOAT32_ROUNDOFF * scale
            inside |= (values >= low - slack) & (values <= high + slack)
    return inside


def evaluate_node(formula: Formula, graph: Graph,
                  memo: dict[Formula, NodeValues] | None = None,
                  operators: Operators = CONNECTIVES) -> NodeValues:
    """The truth value of a node formula at every node of `graph`."""
    memo = {} if memo is None else memo
    if formula in memo:
        return memo[formula]

    def sub(child: Formula) -> NodeValues:
        return evaluate_node(child, graph, memo, operators)

    connective = operators.get(type(formula))
    if connective is not None:
        value: NodeValues = connective.meaning(ARRAYS, *map(sub, ir.children(formula)))
        memo[formula] = value
        return value

    relations: ir.Relations = getattr(formula, "relations", None)

    def count(child: Formula) -> Counts:
        return neighbour_counts(graph, sub(child), relations)

    n = graph.num_nodes
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
                      sentences: dict[Formula, bool] | None = None,
                      operators: Operators = CONNECTIVES) -> bool:
    """The truth value of a graph sentence on `graph` (`sentences` memoises the
    sentences met, so one shared through `let` is evaluated once)."""
    memo = {} if memo is None else memo
    sentences = {} if sentences is None else sentences
    known = sentences.get(formula)
    if known is not None:
        return known

    def sub(child: Formula) -> bool:
        return evaluate_sentence(child, graph, memo, sentences, operators)

    value: bool
    connective = operators.get(type(formula))
    match formula:
        case _ if connective is not None:
            value = bool(connective.meaning(BOOLS, *map(sub, ir.children(formula))))
        case ir.Exists(low, high, arg):
            satisfied = int(evaluate_node(arg, graph, memo, operators).sum())
            value = low <= satisfied and (high is None or satisfied <= high)
        case ir.CountCompare(coefficients, args, op, bound):
            total = sum((c * int(evaluate_node(arg, graph, memo, operators).sum())
                         for c, arg in zip(coefficients, args)), Fraction(0))
            value = ir.compares(op, total, bound)
        case _:
            raise TypeError(f"not a graph sentence: {formula!r}")
    sentences[formula] = value
    return value


def evaluate_program(program: Program, graph: Graph, *,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> NodeValues | bool:
    """The reference semantics (`gracr.evaluate`): a bool per node for a node classifier,
    one bool for a graph classifier. A graph on which the evaluation would exceed
    `max_bytes` is refused (`GraphError`).

    ```pycon
    >>> import gracr
    >>> program = gracr.parse("colors red, blue\\nclassify <1> red")
    >>> graph = gracr.Graph.from_json({"num_nodes": 3, "colors": [["red"], ["red"], ["blue"]],
    ...                                "edges": [[0, 2], [1, 2]]})
    >>> gracr.evaluate(program, graph).tolist()
    [False, False, True]

    ```
    """
    # One bool per node for each distinct subformula (the memo), and the int64 counts
    # and weights a modality builds per node and per edge.
    graph.require_budget("evaluating the formula",
                         len(ir.postorder([program.classifier], ir.children)) + 24, 16,
                         max_bytes)
    graph.check_schema(program.schema)
    if program.kind is ir.Kind.GRAPH:
        return evaluate_sentence(program.classifier, graph)
    return evaluate_node(program.classifier, graph)


def evaluate_batch(program: Program, graph: Graph, graph_of_node: npt.ArrayLike,
                   num_graphs: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> NodeValues:
    """`evaluate_program` on `num_graphs` graphs laid side by side in `graph` (node v
    belongs to graph `graph_of_node[v]`; no edge joins two graphs): a bool per node of
    them all (node classifier) or one per graph (graph classifier). A node's value
    depends on its own graph only, so each node formula is evaluated once on the whole;
    a sentence counts each graph's nodes."""
    graph.require_budget("evaluating the formula",
                         len(ir.postorder([program.classifier], ir.children)) + 24, 16,
                         max_bytes)
    graph.check_schema(program.schema)
    memo: dict[Formula, NodeValues] = {}
    if program.kind is ir.Kind.NODE:
        return evaluate_node(program.classifier, graph, memo)
    owner = np.asarray(graph_of_node, dtype=np.int64)

    def counted(arg: Formula) -> npt.NDArray[np.int64]:
        satisfied = evaluate_node(arg, graph, memo)
        return np.bincount(owner[satisfied], minlength=num_graphs).astype(np.int64)

    return sentence_from_counts(program.classifier, counted, CONNECTIVES)


def evaluate_kept(program: Program, graph: Graph, kept: npt.ArrayLike,
                  operators: Operators = CONNECTIVES) -> NodeValues:
    """The classifier on many induced subgraphs at once: `kept[m]` (one bool per node) is
    the m-th subgraph, the nodes it keeps (deletion semantics, as `Graph.keep_nodes`: a
    deleted node takes its edges with it and leaves every count). Returns one bool per
    subgraph: a graph classifier's value, or a node classifier's at `graph.target`
    (which must be kept).

    The same semantics as `evaluate_program` on `graph.keep_nodes(kept[m])`, computed
    for every m together: each subformula's values are an `[m, n]` array, a modality
    sums the kept in-neighbours' values through the sparse adjacency of its relations.
    What sampled Shapley and Banzhaf values read where no diagram can be built."""
    masks = np.atleast_2d(np.asarray(kept, dtype=np.bool_))
    graph.check_schema(program.schema)
    if masks.shape[1] != graph.num_nodes:
        raise ValueError(f"kept has {masks.shape[1]} columns for {graph.num_nodes} nodes")
    values = node_values_kept([program.classifier], program.kind, graph, masks, operators)
    if program.kind is ir.Kind.NODE:
        if graph.target is None:
            raise ValueError("a node classifier needs the graph's target")
        if not masks[:, graph.target].all():
            raise ValueError("the target node cannot be removed")
        return np.asarray(values[program.classifier][:, graph.target], dtype=np.bool_)

    def counted(arg: Formula) -> npt.NDArray[np.int64]:
        total: npt.NDArray[np.int64] = (values[arg] & masks).sum(axis=1)
        return total

    return sentence_from_counts(program.classifier, counted, operators)


def node_values_kept(roots: Sequence[Formula], kind: ir.Kind, graph: Graph,
                     masks: npt.NDArray[np.bool_], operators: Operators = CONNECTIVES
                     ) -> dict[Formula, npt.NDArray[np.bool_]]:
    """Every node subformula of `roots` on the kept subgraphs `masks` (`[m, n]`, see
    `evaluate_kept`): an `[m, n]` bool array per subformula. With `kind` GRAPH the
    sentences among them (and the connectives joining sentences) are left out."""
    from scipy.sparse import csr_matrix

    n = graph.num_nodes
    adjacency: dict[ir.Relations, csr_matrix] = {}

    def into(relations: ir.Relations) -> csr_matrix:
        # A[s, t] = the number of edges (s, t) of `relations`: counts = values @ A.
        if relations not in adjacency:
            admitted = graph.relation_mask(relations)
            adjacency[relations] = csr_matrix(
                (np.ones(int(admitted.sum())), (graph.sources[admitted], graph.targets[admitted])),
                shape=(n, n))
        return adjacency[relations]

    values: dict[Formula, npt.NDArray[np.bool_]] = {}

    def count(child: Formula, relations: ir.Relations) -> npt.NDArray[np.float64]:
        present = (values[child] & masks).astype(np.float64)
        counted: npt.NDArray[np.float64] = np.asarray(present @ into(relations))
        return counted

    for sub in ir.postorder(list(roots), ir.children):
        if isinstance(sub, ir.Exists | ir.CountCompare) or (
                kind is ir.Kind.GRAPH and _is_sentence(sub, values, operators)):
            continue
        relations: ir.Relations = getattr(sub, "relations", None)
        connective = operators.get(type(sub))
        match sub:
            case _ if connective is not None:
                values[sub] = connective.meaning(ARRAYS, *(values[a] for a in ir.children(sub)))
            case ir.Top() | ir.Bottom() | ir.Color() | ir.Attribute() | ir.Threshold():
                fixed = evaluate_node(sub, graph)
                values[sub] = np.broadcast_to(fixed, masks.shape)
            case ir.AtLeast(k, a):
                values[sub] = count(a, relations) >= k
            case ir.AtMost(k, a):
                values[sub] = count(a, relations) <= k
            case ir.Exactly(k, a):
                values[sub] = count(a, relations) == k
            case ir.Between(low, high, a):
                c = count(a, relations)
                values[sub] = (low <= c) & (c <= high)
            case ir.Box(a):
                values[sub] = _box(values[a], masks, into(relations))
            case ir.More(a, b):
                values[sub] = count(a, relations) > count(b, relations)
            case ir.Same(a, b):
                values[sub] = count(a, relations) == count(b, relations)
    return values


def _box(inner: npt.NDArray[np.bool_], masks: npt.NDArray[np.bool_], into: Any
         ) -> npt.NDArray[np.bool_]:
    """`[] f` on the kept subgraphs: no kept in-neighbour fails f."""
    failing = (~inner & masks).astype(np.float64) @ into
    result: npt.NDArray[np.bool_] = np.asarray(failing) == 0
    return result


def _is_sentence(formula: Formula, values: dict[Formula, npt.NDArray[np.bool_]],
                 operators: Operators) -> bool:
    """Whether a Boolean connective of a graph classifier joins sentences (not node
    formulas): its arguments were not evaluated at the nodes."""
    return type(formula) in operators and any(
        child not in values for child in ir.children(formula))


def sentence_terms(formula: Formula) -> list[Formula]:
    """The node formulas a graph sentence counts (its `exists` and `count` arguments),
    each once, in a fixed order: the sentence is a function of their counts."""
    terms: list[Formula] = []
    for sub in ir.postorder([formula], ir.children):
        match sub:
            case ir.Exists(_, _, arg):
                found: tuple[Formula, ...] = (arg,)
            case ir.CountCompare(_, args, _, _):
                found = args
            case _:
                continue
        terms.extend(arg for arg in found if arg not in terms)
    return terms


def sentence_from_counts(formula: Formula,
                         counted: Callable[[Formula], npt.NDArray[np.int64]],
                         operators: Operators = CONNECTIVES) -> npt.NDArray[np.bool_]:
    """A graph sentence on many subgraphs at once, from `counted(f)`: how many kept
    nodes satisfy the node formula `f` in each (one int per subgraph)."""
    def value(sub: Formula) -> npt.NDArray[np.bool_]:
        connective = operators.get(type(sub))
        match sub:
            case _ if connective is not None:
                result: npt.NDArray[np.bool_] = connective.meaning(
                    ARRAYS, *map(value, ir.children(sub)))
                return result
            case ir.Exists(low, high, arg):
                c = counted(arg)
                within: npt.NDArray[np.bool_] = (c >= low) if high is None else \
                    (c >= low) & (c <= high)
                return within
            case ir.CountCompare(coefficients, args, op, bound):
                # Exact: scaled to integers by the common denominator.
                scale = math.lcm(*(c.denominator for c in (*coefficients, bound)))
                total = sum((int(c * scale) * counted(arg)
                             for c, arg in zip(coefficients, args)),
                            np.zeros(1, dtype=np.int64))
                return _compare_ints(op, total, int(bound * scale))
        raise TypeError(f"not a graph sentence: {sub!r}")

    return np.asarray(value(formula), dtype=np.bool_)


def _compare_ints(op: str, values: npt.NDArray[np.int64], bound: int) -> npt.NDArray[np.bool_]:
    if op == "=":
        equal: npt.NDArray[np.bool_] = values == bound
        return equal
    return _compare_floats(op, values.astype(np.float64), float(bound))
