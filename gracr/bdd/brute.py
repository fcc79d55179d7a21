"""The UPI by its definition (§4.2), enumerating every subgraph: the oracle for the BDD.

The variables are those `gracr.bdd.upi` uses (`over`): one per edge, one per node
(but a node classifier's target, never removed), or both, edges first. Subset `R`
is the bitmask `r` with bit `i` set iff variable `i` is kept. The classifier is
evaluated on each of the `2^|variables|` subgraphs with the reference evaluator
(`gracr.dsl.evaluate`), never with the ROBDD: the subgraph is built for real, by
`Graph.keep_edges` and then `Graph.keep_nodes` (which deletes the edges incident to
a deleted node and renumbers the rest). Then, on arrays indexed by bitmask:

- sufficiency (§4.2, condition 1): `R` is sufficient iff every `R'` with
  `R <= R' <= G` has `g(R') = g(G)`; computed as a superset-AND closure, one
  vectorised pass per variable;
- minimality (condition 2): a sufficient `R` is a prime implicant iff no `R - {x}`
  is sufficient (sufficiency is closed under supersets, so the one-variable-smaller
  subsets are the only ones to check);
- the UPI is the union of the prime implicants.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import Var
from gracr.bdd.build import OVER, Over
from gracr.bdd.upi import resolve_target, shaped
from gracr.dsl.evaluate import evaluate_node, evaluate_sentence
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]

MAX_VARIABLES = 20


def _bit_view(values: BoolArray, bit: int) -> BoolArray:
    """`values` as `[high bits, bit, low bits]`: `[:, 0, :]` lacks the variable, `[:, 1, :]` has it."""
    return values.reshape(-1, 2, 1 << bit)


def subset_variables(prog: Program, graph: Graph, target: int | None = None,
                     over: Over = "edges") -> list[Var]:
    """The variables the brute force enumerates, bit `i` of a subset being `[i]`:
    every edge, then every node but a node classifier's target (as `over` chooses)."""
    if over not in OVER:
        raise GracrError(f"unknown removal {over!r}: explain over {', '.join(OVER)}")
    node = resolve_target(prog, graph, target)
    variables: list[Var] = []
    if over != "nodes":
        variables.extend(Var.edge(e) for e in range(graph.num_edges))
    if over != "edges":
        variables.extend(Var.node(v) for v in range(graph.num_nodes) if v != node)
    return variables


def subset_values(prog: Program, graph: Graph, target: int | None = None,
                  over: Over = "edges", max_variables: int = MAX_VARIABLES) -> BoolArray:
    """The classifier's value on every subgraph, indexed by the bitmask of `subset_variables`.

    For a node classifier, its value at the target (`target`, else `graph.target`),
    which keeps its place in the renumbered subgraph.
    """
    node = resolve_target(prog, graph, target)
    graph.check_schema(prog.schema)
    variables = subset_variables(prog, graph, target, over)
    count = len(variables)
    if count > max_variables:
        raise GracrError(f"brute force enumerates 2^{count} subgraphs: {count} variables is over "
                         f"the limit of {max_variables}")
    whole = graph.with_target(node)  # a graph classifier's `graph.target` is not kept
    subsets = 1 << count
    bits = ((np.arange(subsets, dtype=np.int64)[:, None] >> np.arange(count)) & 1).astype(np.bool_)
    values = np.empty(subsets, dtype=np.bool_)
    for r in range(subsets):
        keep_edge = np.ones(graph.num_edges, dtype=np.bool_)
        keep_node = np.ones(graph.num_nodes, dtype=np.bool_)
        for variable, kept in zip(variables, bits[r]):
            (keep_edge if variable.kind == "edge" else keep_node)[variable.index] = kept
        sub, _ = whole.keep_edges(keep_edge).keep_nodes(keep_node)
        if sub.target is None:
            values[r] = evaluate_sentence(prog.classifier, sub)
        else:
            values[r] = evaluate_node(prog.classifier, sub)[sub.target]
    return values


def upi_from_values(values: BoolArray) -> BoolArray:
    """The UPI mask of the instance `G` (the full bitmask) from a classifier's value table.

    `values[r]` is the classifier on subset `r`; its length is `2^|variables|`, and the
    mask has one bool per variable.
    """
    subsets = values.shape[0]
    m = subsets.bit_length() - 1
    if subsets != 1 << m:
        raise ValueError(f"a value table has 2^|variables| entries, got {subsets}")
    sufficient = values == values[subsets - 1]
    for bit in range(m):
        view = _bit_view(sufficient, bit)
        view[:, 0, :] &= view[:, 1, :]
    prime = sufficient.copy()
    for bit in range(m):
        _bit_view(prime, bit)[:, 1, :] &= ~_bit_view(sufficient, bit)[:, 0, :]
    return np.array([bool(_bit_view(prime, bit)[:, 1, :].any()) for bit in range(m)],
                    dtype=np.bool_)


def brute_force_masks(prog: Program, graph: Graph, target: int | None = None,
                      over: Over = "edges", max_variables: int = MAX_VARIABLES
                      ) -> tuple[int, BoolArray, BoolArray]:
    """`(label, mask, node_mask)` as in `gracr.bdd.upi.UpiReport`, by exhaustive enumeration:
    a bool per edge and per node, false for every part that is not a variable."""
    variables = subset_variables(prog, graph, target, over)
    values = subset_values(prog, graph, target, over, max_variables)
    mask = np.zeros(graph.num_edges, dtype=np.bool_)
    node_mask = np.zeros(graph.num_nodes, dtype=np.bool_)
    for variable, member in zip(variables, upi_from_values(values)):
        (mask if variable.kind == "edge" else node_mask)[variable.index] = member
    return int(values[-1]), mask, node_mask


@overload
def brute_force_upi(prog: Program, graph: Graph, target: int | None = None,
                    over: Literal["edges", "nodes"] = "edges",
                    max_variables: int = MAX_VARIABLES) -> tuple[int, BoolArray]: ...


@overload
def brute_force_upi(prog: Program, graph: Graph, target: int | None = None, *,
                    over: Literal["both"],
                    max_variables: int = MAX_VARIABLES) -> tuple[int, BoolArray, BoolArray]: ...


@overload
def brute_force_upi(prog: Program, graph: Graph, target: int | None = None,
                    over: Over = "edges", max_variables: int = MAX_VARIABLES
                    ) -> tuple[int, BoolArray] | tuple[int, BoolArray, BoolArray]: ...


def brute_force_upi(prog: Program, graph: Graph, target: int | None = None,
                    over: Over = "edges", max_variables: int = MAX_VARIABLES
                    ) -> tuple[int, BoolArray] | tuple[int, BoolArray, BoolArray]:
    """The result of `gracr.bdd.upi.upi`, of the same shape, by exhaustive enumeration.

    Costs `2^|variables|` evaluations: meant for graphs of about a dozen edges or nodes.
    """
    return shaped(*brute_force_masks(prog, graph, target, over, max_variables), over)


# ---------------------------------------------------------------- node relevance by definition


IntArray = npt.NDArray[np.int64]


def _int_bit_view(values: IntArray, bit: int) -> IntArray:
    """`_bit_view` of an integer table."""
    return values.reshape(-1, 2, 1 << bit)


def _popcounts(count: int) -> IntArray:
    """`|S|` for every bitmask `S` of `count` bits."""
    sizes = np.zeros(1 << count, dtype=np.int64)
    for bit in range(count):
        _int_bit_view(sizes, bit)[:, 1, :] += 1
    return sizes


def brute_force_relevance(prog: Program, graph: Graph, target: int | None = None,
                          max_variables: int = MAX_VARIABLES
                          ) -> tuple[int, BoolArray, int | None, list[Fraction], list[Fraction]]:
    """`(label, counterfactual, min_counterfactual, banzhaf, shapley)` of
    `gracr.bdd.relevance.relevance`, by their definitions over every node subset.

    The players are all nodes but a node classifier's target (`subset_variables` over
    nodes), dummies included: the oracle does not rely on the diagram's support. The
    game is `v(S)` = the classifier on `graph.keep_nodes(S)` (`subset_values`). Values
    are exact `Fraction`s, one per node (0 for the target); `counterfactual[v]`: `v`
    lies in an inclusion-minimal removal `R` with `v(V - R) != v(V)`.
    """
    variables = subset_variables(prog, graph, target, "nodes")
    values = subset_values(prog, graph, target, "nodes", max_variables)
    count = len(variables)
    full = (1 << count) - 1
    label = int(values[full])
    # Bitmask r is the kept set; its removal is full - r.
    flips = values != values[full]
    sizes = _popcounts(count)
    # below[r]: some kept set K >= r flips, i.e. some removal inside full - r does.
    below = flips.copy()
    for bit in range(count):
        view = _bit_view(below, bit)
        view[:, 0, :] |= view[:, 1, :]
    # A flipping removal R is minimal iff for no x in R does a removal inside R - {x}
    # flip (every proper subset of R lies in some R - {x}).
    minimal = flips.copy()
    for bit in range(count):
        _bit_view(minimal, bit)[:, 0, :] &= ~_bit_view(below, bit)[:, 1, :]
    counterfactual = np.zeros(graph.num_nodes, dtype=np.bool_)
    for bit, variable in enumerate(variables):
        counterfactual[variable.index] = bool(_bit_view(minimal, bit)[:, 0, :].any())
    removed = count - sizes
    min_counterfactual = int(removed[flips].min()) if flips.any() else None
    # n! phi_i = sum_S |S|! (n - |S| - 1)! (v(S + i) - v(S)) is an integer of absolute
    # value at most n! (2.4e18 for n = 20): int64 holds every partial sum.
    weights = np.array([math.factorial(k) * math.factorial(count - k - 1)
                        for k in range(count)], dtype=np.int64)
    banzhaf = [Fraction(0)] * graph.num_nodes
    shapley = [Fraction(0)] * graph.num_nodes
    game = values.astype(np.int64)
    for bit, variable in enumerate(variables):
        table = _int_bit_view(game, bit)
        step: IntArray = table[:, 1, :] - table[:, 0, :]
        without = _int_bit_view(sizes, bit)[:, 0, :]
        banzhaf[variable.index] = Fraction(int(step.sum()), 1 << (count - 1))
        shapley[variable.index] = Fraction(int((step * weights[without]).sum()),
                                           math.factorial(count))
    return label, counterfactual, min_counterfactual, banzhaf, shapley
