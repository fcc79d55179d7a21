"""What a task's graph source draws: a `Candidate` graph, and the edge order every
generated graph is given.

A generator draws one candidate from a numpy `Generator`. For graph tasks a candidate
may name where the task's node predicate φ must fire (`annotated`, the exact-annotation
rule of App. F); the dataset builder then keeps it only if φ fires exactly there.
Without an annotation the candidate is kept when the formula's label is the one the
builder wants (rejection sampling to the task's class balance).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gracr.data.graph import Graph, IntArray

Rng = np.random.Generator

# Bump when a generator changes: stored datasets are keyed by it.
GENERATOR_VERSION = 3


@dataclass(frozen=True)
class Candidate:
    """A drawn graph; for graph tasks with the exact-annotation rule, its label and where
    φ must fire (both `None` otherwise)."""

    graph: Graph
    label: int | None = None
    annotated: frozenset[int] | None = None


def target_sorted(num_nodes: int, colors: Sequence[Sequence[str]] | None, edges: IntArray,
                  attributes: dict[str, list[str]] | None = None,
                  relations: Sequence[str] | None = None) -> Graph:
    """The graph with its `[E, 2]` (source, target) `edges` sorted by (target, source).

    The ROBDD's static variable order is the edge order (§4.3), and every modality
    counts the in-edges of a node: listing each node's in-edges together keeps the
    diagrams small (on Majority2Hop, hub neighbourhoods blow up under an interleaved
    order).
    """
    order = np.lexsort((edges[:, 0], edges[:, 1]))
    sorted_relations = None if relations is None else [relations[i] for i in order]
    return Graph.from_edges(num_nodes, colors, edges[order], attributes=attributes,
                            relations=sorted_relations)
