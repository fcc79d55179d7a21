"""The UPI by its definition (§4.2), enumerating every edge subset: the oracle for the BDD.

Subset `R` of the edges is the bitmask `r` with bit `e` set iff edge `e` is kept.
The classifier is evaluated on each of the `2^|E|` spanning subgraphs with the
reference evaluator (`gracr.dsl.evaluate`), never with the ROBDD. Then, on arrays
indexed by bitmask:

- sufficiency (§4.2, condition 1): `R` is sufficient iff every `R'` with
  `R <= R' <= G` has `g(R') = g(G)`; computed as a superset-AND closure, one
  vectorised pass per edge;
- minimality (condition 2): a sufficient `R` is a prime implicant iff no `R - {e}`
  is sufficient (sufficiency is closed under supersets, so the one-edge-smaller
  subsets are the only ones to check);
- the UPI is the union of the prime implicants.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gracr.bdd.upi import resolve_target
from gracr.dsl.evaluate import evaluate_node, evaluate_sentence
from gracr.dsl.parse import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]

MAX_EDGES = 20


def _bit_view(values: BoolArray, edge: int) -> BoolArray:
    """`values` as `[high bits, bit edge, low bits]`: `[:, 0, :]` lacks the edge, `[:, 1, :]` has it."""
    return values.reshape(-1, 2, 1 << edge)


def subset_values(prog: Program, graph: Graph, target: int | None = None,
                  max_edges: int = MAX_EDGES) -> BoolArray:
    """The classifier's value on every spanning subgraph, indexed by edge bitmask.

    For a node classifier, its value at the target (`target`, else `graph.target`).
    """
    node = resolve_target(prog, graph, target)
    graph.check_palette(prog.palette)
    m = graph.num_edges
    if m > max_edges:
        raise GracrError(f"brute force enumerates 2^|E| subgraphs: {m} edges is over the "
                         f"limit of {max_edges}")
    subsets = 1 << m
    keep = ((np.arange(subsets, dtype=np.int64)[:, None] >> np.arange(m)) & 1).astype(np.bool_)
    values = np.empty(subsets, dtype=np.bool_)
    for r in range(subsets):
        sub = graph.keep_edges(keep[r])
        if node is None:
            values[r] = evaluate_sentence(prog.classifier, sub)
        else:
            values[r] = evaluate_node(prog.classifier, sub)[node]
    return values


def upi_from_values(values: BoolArray) -> BoolArray:
    """The UPI mask of the instance `G` (the full bitmask) from a classifier's value table.

    `values[r]` is the classifier on subset `r`; its length is `2^|E|`.
    """
    subsets = values.shape[0]
    m = subsets.bit_length() - 1
    if subsets != 1 << m:
        raise ValueError(f"a value table has 2^|E| entries, got {subsets}")
    sufficient = values == values[subsets - 1]
    for e in range(m):
        view = _bit_view(sufficient, e)
        view[:, 0, :] &= view[:, 1, :]
    prime = sufficient.copy()
    for e in range(m):
        _bit_view(prime, e)[:, 1, :] &= ~_bit_view(sufficient, e)[:, 0, :]
    return np.array([bool(_bit_view(prime, e)[:, 1, :].any()) for e in range(m)], dtype=np.bool_)


def brute_force_upi(prog: Program, graph: Graph, target: int | None = None,
                    max_edges: int = MAX_EDGES) -> tuple[int, BoolArray]:
    """`(label, mask)` as `gracr.bdd.upi.upi` returns them, by exhaustive enumeration.

    Costs `2^|E|` evaluations: meant for graphs of about a dozen edges.
    """
    values = subset_values(prog, graph, target, max_edges)
    return int(values[-1]), upi_from_values(values)
