"""Tiny compiled models whose right explanation is known by hand, shared by the
explainer tests.

Node task, `classify <> red` at node 0: node 0 reads one red neighbour (1) and one
blue (2); 3 -> 2 is two hops out. The only sufficient subgraph is {1 -> 0}.
Graph task, `exists (black & <> red)`: a black hub (0) with a red (1) and a grey (2)
neighbour, plus a red-grey pair elsewhere; 1 -> 0 alone makes it true.
Typed (`MOLECULE`): see `CARBONYL_NODE` below.
"""

from __future__ import annotations

import numpy as np

import gracr
from gracr.explainers import Subject

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


# Typed: an element attribute and two bond relations. At C node 0, `element=C &
# <1>{double} element=O` holds through the one double bond from an O, edge 0 = O1 -> C0;
# O2 -> C0 is single, C3 -> C0 double but from a C, O4 -> C3 two hops out, and C0 sends
# a single and a double bond back. The only sufficient subgraph is {O1 -> C0}.
TYPED_SCHEMA = "attribute element = C, O\nrelations single, double\n"
CARBONYL_NODE = TYPED_SCHEMA + "classify element=C & <1>{double} element=O"
CARBONYL_GRAPH = TYPED_SCHEMA + "classify exists (element=C & <1>{double} element=O)"
# Every kind of channel at once: unfiltered, one relation, and a set of relations.
TYPED_PROGRAMS = (
    CARBONYL_NODE,
    CARBONYL_GRAPH,
    TYPED_SCHEMA + "classify <>{single} (element=C & <1>{double} element=O) "
                   "| atleast 2 (<> element=O)",
    TYPED_SCHEMA + "classify <>{single, double} (<>{double} element=O) & !(<>{single} element=C)",
    TYPED_SCHEMA + "classify exists (element=O & <>{single} (<>{double} element=C))",
)
MOLECULE = gracr.Graph.from_edges(
    5, None, [(1, 0), (2, 0), (3, 0), (4, 3), (0, 2), (0, 1)],
    attributes={"element": ["C", "O", "O", "C", "O"]},
    relations=["double", "single", "double", "double", "single", "double"])


def random_molecule(seed: int, num_nodes: int = 8, num_edges: int = 18) -> gracr.Graph:
    """A random graph of C and O nodes whose edges are single or double bonds."""
    rng = np.random.default_rng(seed)
    edges = [(int(s), int(t)) for s, t in rng.integers(0, num_nodes, size=(num_edges, 2))]
    elements = [["C", "O"][int(e)] for e in rng.integers(0, 2, num_nodes)]
    relations = [["single", "double"][int(r)] for r in rng.integers(0, 2, num_edges)]
    return gracr.Graph.from_edges(num_nodes, None, edges, attributes={"element": elements},
                                  relations=relations)
