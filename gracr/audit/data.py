"""What an audit reads: graphs with their class labels and the assumed ground truth.

A graph file (one JSON object, a list of them, or JSON Lines) whose graph objects carry,
besides the documented graph keys,

- `"label"`: the graph's class (a graph task), or `"node_labels"`: one class per node
  (a node task); classes are integers 0, 1, ...; every graph of a file is of one kind;
- `"motif_edges"` (0/1 per edge) and/or `"motif_nodes"` (0/1 per node): the assumed
  ground truth, the planted motif an explainer is scored against.

Errors name the file and the graph's place (`file:line` in JSON Lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from gracr.data.fields import shown_json
from gracr.data.graph import Graph, read_placed_objects
from gracr.errors import GracrError

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
TaskKind = Literal["graph", "node"]


@dataclass(frozen=True, eq=False)
class AuditData:
    """Graphs, their labels (a graph task: one class per graph, `labels[g]` of length 1;
    a node task: one per node) and the motif masks (all false where none is given).
    `has_motif` says whether the file gave any motif at all. `families` names the
    attribute families the trained models and the probes read (`None`: every one); a rule
    reads the whole graph (molecules: the element alone, App. B.2, beside the full graph
    a SMARTS rule reads)."""

    name: str
    kind: TaskKind
    graphs: tuple[Graph, ...]
    labels: tuple[IntArray, ...]
    motif_edges: tuple[BoolArray, ...]
    motif_nodes: tuple[BoolArray, ...]
    has_motif: bool
    families: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        counts = {len(self.graphs), len(self.labels), len(self.motif_edges),
                  len(self.motif_nodes)}
        if len(counts) != 1:
            raise ValueError("graphs, labels and motif masks must be aligned")
        if not self.graphs:
            raise GracrError(f"{self.name}: no graphs")

    @property
    def instance_labels(self) -> IntArray:
        """Every instance's class, in order: one per graph, or one per node of each graph."""
        return np.concatenate(self.labels).astype(np.int64)

    @property
    def classes(self) -> tuple[int, ...]:
        return tuple(int(c) for c in np.unique(self.instance_labels))

    @property
    def majority_rate(self) -> float:
        """The accuracy of always answering the most frequent class."""
        counts = np.bincount(self.instance_labels)
        return float(counts.max() / counts.sum())

    def outside_motif(self, index: int) -> BoolArray:
        """The edges of graph `index` strictly outside the motif: not a motif edge when the
        motif has edges (the ground truth explainers are scored on: an edge joining a
        motif to the background, as the synthetic benchmarks' are, is outside it); else,
        touching no motif node."""
        if self.motif_edges[index].any():
            return ~self.motif_edges[index]
        graph = self.graphs[index]
        nodes = self.motif_nodes[index]
        return ~nodes[graph.sources] & ~nodes[graph.targets]

    def outside_motif_nodes(self, index: int) -> BoolArray:
        """The nodes of graph `index` strictly outside the motif: no motif node, no end of
        a motif edge."""
        graph = self.graphs[index]
        inside = self.motif_nodes[index].copy()
        edges = self.motif_edges[index]
        inside[graph.sources[edges]] = True
        inside[graph.targets[edges]] = True
        return ~inside


def read_audit_data(path: str) -> AuditData:
    """The graph file `path` as `AuditData` (see the module docstring)."""
    graphs: list[Graph] = []
    labels: list[IntArray] = []
    edges: list[BoolArray] = []
    nodes: list[BoolArray] = []
    kind: TaskKind | None = None
    has_motif = False
    for place, obj in read_placed_objects(path):
        graph = Graph.from_json(obj, where=place)   # checks obj is an object, every key
        here: TaskKind = _kind_of(obj, place)
        if kind is not None and here != kind:
            raise GracrError(f"{place}: a {here} task's graph in a file of {kind} task graphs "
                             f"(every graph has 'label', or every graph 'node_labels')")
        kind = here
        if here == "graph":
            labels.append(np.asarray([_class(obj["label"], place, "'label'")], dtype=np.int64))
        else:
            labels.append(np.asarray(
                [_class(v, place, f"'node_labels' of node {i}")
                 for i, v in enumerate(_list(obj, "node_labels", graph.num_nodes, "node",
                                             place))], dtype=np.int64))
        edges.append(_mask(obj, "motif_edges", graph.num_edges, "edge", place))
        nodes.append(_mask(obj, "motif_nodes", graph.num_nodes, "node", place))
        has_motif = has_motif or "motif_edges" in obj or "motif_nodes" in obj
        graphs.append(graph)
    if kind is None:
        raise GracrError(f"{path}: no graphs")
    return AuditData(path, kind, tuple(graphs), tuple(labels), tuple(edges), tuple(nodes),
                     has_motif)


def _kind_of(obj: dict[str, Any], place: str) -> TaskKind:
    if ("label" in obj) == ("node_labels" in obj):
        raise GracrError(f"{place}: a graph to audit has 'label' (a graph task) or "
                         f"'node_labels' (a node task), exactly one of them")
    return "graph" if "label" in obj else "node"


def _class(value: Any, place: str, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GracrError(f"{place}: {what} must be a class number 0, 1, ..., got "
                         f"{shown_json(value)}")
    return value


def _list(obj: dict[str, Any], key: str, count: int, unit: str, place: str) -> list[Any]:
    value = obj[key]
    if not isinstance(value, list):
        raise GracrError(f"{place}: '{key}' must be a list with one entry per {unit}")
    if len(value) != count:
        raise GracrError(f"{place}: '{key}' has {len(value)} entries but the graph has "
                         f"{count} {unit}s")
    return value


def _mask(obj: dict[str, Any], key: str, count: int, unit: str, place: str) -> BoolArray:
    if key not in obj:
        return np.zeros(count, dtype=np.bool_)
    values = _list(obj, key, count, unit, place)
    for index, value in enumerate(values):
        if value not in (0, 1) or isinstance(value, float):
            raise GracrError(f"{place}: '{key}' of {unit} {index} must be 0 or 1, got "
                             f"{shown_json(value)}")
    return np.asarray(values, dtype=np.bool_)
