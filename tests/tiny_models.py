"""Tiny compiled models whose right explanation is known by hand, shared by the
explainer tests.

Node task, `classify <> red` at node 0: node 0 reads one red neighbour (1) and one
blue (2); 3 -> 2 is two hops out. The only sufficient subgraph is {1 -> 0}.
Graph task, `exists (black & <> red)`: a black hub (0) with a red (1) and a grey (2)
neighbour, plus a red-grey pair elsewhere; 1 -> 0 alone makes it true.
"""

from __future__ import annotations


import gracr
from gracr.bench.explainers import Subject

NODE_GRAPH = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                    [(1, 0), (2, 0), (3, 2)])
GRAPH_GRAPH = gracr.Graph.from_edges(
    5, [["black"], ["red"], ["grey"], ["red"], ["grey"]],
    [(1, 0), (2, 0), (3, 4), (4, 3), (0, 2)])


def subject_of(source: str, graph: gracr.Graph, target: int | None) -> Subject:
    """The Subject of `source` compiled with the default options, on `graph`."""
    program = gracr.parse(source)
    return Subject.of(gracr.compile(program), program, graph, target)


def node_subject() -> Subject:
    return subject_of("colors grey, red, blue\nclassify <> red", NODE_GRAPH, 0)


def graph_subject() -> Subject:
    return subject_of("colors black, red, grey\nclassify exists (black & <> red)",
                      GRAPH_GRAPH, None)
