"""Graphs: coloured nodes and a list of directed edges, and their JSON form.

Edge `(s, t)` carries a message from `s` to `t`: a modality evaluated at `t` counts
`s` (PyG's `source_to_target` flow). Undirected graphs list both directions;
self-loops are ordinary edges; each list entry is one edge, and masks over edges
are indexed by position in this list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from gracr.errors import GraphError

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class Graph:
    """A graph with `num_nodes` nodes, a set of colours per node and directed edges.

    `sources[e], targets[e]` is edge `e`. `target` is the node a node classifier is
    asked about (optional).
    """

    num_nodes: int
    colors: tuple[frozenset[str], ...]
    sources: IntArray
    targets: IntArray
    target: int | None = None

    @classmethod
    def from_edges(cls, num_nodes: int, colors: Sequence[Iterable[str]],
                   edges: Iterable[tuple[int, int]] | IntArray,
                   target: int | None = None) -> Graph:
        """Build a graph from Python values, checking them as `from_json` does."""
        pairs = np.asarray(list(edges) if not isinstance(edges, np.ndarray) else edges,
                           dtype=np.int64).reshape(-1, 2)
        color_sets = tuple(frozenset(c) for c in colors)
        graph = cls(num_nodes, color_sets, np.ascontiguousarray(pairs[:, 0]),
                    np.ascontiguousarray(pairs[:, 1]), target)
        graph.validate()
        return graph

    def validate(self, where: str = "graph") -> None:
        """Raise `GraphError` naming the first thing wrong with this graph."""
        if self.num_nodes < 0:
            raise GraphError(f"{where}: num_nodes must not be negative (got {self.num_nodes})")
        if len(self.colors) != self.num_nodes:
            raise GraphError(f"{where}: 'colors' has {len(self.colors)} entries but the graph "
                             f"has {self.num_nodes} nodes")
        if len(self.sources) != len(self.targets):
            raise GraphError(f"{where}: sources and targets differ in length")
        for name, ends in (("source", self.sources), ("target", self.targets)):
            bad = np.flatnonzero((ends < 0) | (ends >= self.num_nodes))
            if bad.size:
                e = int(bad[0])
                raise GraphError(
                    f"{where}: edge {e} [{int(self.sources[e])}, {int(self.targets[e])}] has "
                    f"{name} {int(ends[e])}, out of range for {self.num_nodes} nodes "
                    f"(nodes are 0..{self.num_nodes - 1})")
        if self.target is not None and not 0 <= self.target < self.num_nodes:
            raise GraphError(f"{where}: target {self.target} is out of range for "
                             f"{self.num_nodes} nodes")

    @property
    def num_edges(self) -> int:
        return int(self.sources.shape[0])

    @property
    def edges(self) -> list[tuple[int, int]]:
        return [(int(s), int(t)) for s, t in zip(self.sources, self.targets)]

    @property
    def edge_index(self) -> IntArray:
        """The `[2, E]` array PyG expects."""
        return np.stack([self.sources, self.targets])

    def in_degrees(self) -> IntArray:
        return np.bincount(self.targets, minlength=self.num_nodes).astype(np.int64)

    def color_mask(self, color: str) -> BoolArray:
        return np.fromiter((color in c for c in self.colors), dtype=np.bool_,
                           count=self.num_nodes)

    def check_palette(self, palette: Sequence[str], where: str = "graph") -> None:
        """Raise `GraphError` if a node carries a colour outside `palette`."""
        allowed = set(palette)
        for node, node_colors in enumerate(self.colors):
            unknown = sorted(node_colors - allowed)
            if unknown:
                raise GraphError(f"{where}: node {node} has colour '{unknown[0]}', which is not "
                                 f"in the palette ({', '.join(palette) or 'empty'})")

    def features(self, palette: Sequence[str], where: str = "graph") -> FloatArray:
        """The multi-hot feature matrix `[N, len(palette)]`, columns in palette order."""
        self.check_palette(palette, where)
        x = np.zeros((self.num_nodes, len(palette)), dtype=np.float32)
        for column, color in enumerate(palette):
            x[:, column] = self.color_mask(color)
        return x

    def keep_edges(self, mask: BoolArray | Sequence[bool]) -> Graph:
        """The spanning subgraph with the edges where `mask` holds (all nodes kept)."""
        keep = np.asarray(mask, dtype=np.bool_)
        return Graph(self.num_nodes, self.colors, self.sources[keep], self.targets[keep],
                     self.target)

    def with_target(self, target: int | None) -> Graph:
        graph = Graph(self.num_nodes, self.colors, self.sources, self.targets, target)
        graph.validate()
        return graph

    # ------------------------------------------------------------ JSON

    @classmethod
    def from_json(cls, obj: Any, where: str = "graph") -> Graph:
        """Read the DESIGN.md graph object; raise `GraphError` naming what is wrong."""
        if not isinstance(obj, dict):
            raise GraphError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        if "num_nodes" not in obj:
            raise GraphError(f"{where}: missing 'num_nodes'")
        num_nodes = obj["num_nodes"]
        if not isinstance(num_nodes, int) or isinstance(num_nodes, bool) or num_nodes < 0:
            raise GraphError(f"{where}: 'num_nodes' must be a non-negative integer, "
                             f"got {json.dumps(num_nodes)}")
        raw_colors = obj.get("colors", [[] for _ in range(num_nodes)])
        if not isinstance(raw_colors, list):
            raise GraphError(f"{where}: 'colors' must be a list with one entry per node")
        colors: list[frozenset[str]] = []
        for node, entry in enumerate(raw_colors):
            if entry is None:
                entry = []
            elif isinstance(entry, str):
                entry = [entry]
            if not isinstance(entry, list) or not all(isinstance(c, str) for c in entry):
                raise GraphError(f"{where}: colors of node {node} must be a list of colour "
                                 f"names, got {json.dumps(entry)}")
            colors.append(frozenset(entry))
        raw_edges = obj.get("edges", [])
        if not isinstance(raw_edges, list):
            raise GraphError(f"{where}: 'edges' must be a list of [source, target] pairs")
        for index, edge in enumerate(raw_edges):
            if (not isinstance(edge, list) or len(edge) != 2 or
                    not all(isinstance(v, int) and not isinstance(v, bool) for v in edge)):
                raise GraphError(f"{where}: edge {index} must be a [source, target] pair of "
                                 f"integers, got {json.dumps(edge)}")
        target = obj.get("target")
        if target is not None and (not isinstance(target, int) or isinstance(target, bool)):
            raise GraphError(f"{where}: 'target' must be an integer node index, "
                             f"got {json.dumps(target)}")
        pairs = np.asarray(raw_edges, dtype=np.int64).reshape(-1, 2)
        graph = cls(num_nodes, tuple(colors), np.ascontiguousarray(pairs[:, 0]),
                    np.ascontiguousarray(pairs[:, 1]), target)
        graph.validate(where)
        return graph

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "num_nodes": self.num_nodes,
            "colors": [sorted(c) for c in self.colors],
            "edges": [list(e) for e in self.edges],
        }
        if self.target is not None:
            obj["target"] = self.target
        return obj


def read_graphs(path: str) -> Iterator[Graph]:
    """Graphs from a file holding one JSON object, a list of them, or JSON Lines.

    Errors name the file and the graph (or line) at fault.
    """
    for _, graph in read_placed_graphs(path):
        yield graph


def read_placed_graphs(path: str) -> Iterator[tuple[str, Graph]]:
    """Like `read_graphs`, each graph with its place (`file:line` or `file: graph i`)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise GraphError(f"{path}: cannot read: {error.strerror}") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as whole_error:
        lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1)
                 if line.strip()]
        if len(lines) <= 1:
            raise GraphError(f"{path}:{whole_error.lineno}:{whole_error.colno}: invalid JSON: "
                             f"{whole_error.msg}") from None
        for number, line in lines:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                raise GraphError(f"{path}:{number}:{error.colno}: invalid JSON: "
                                 f"{error.msg}") from None
            place = f"{path}:{number}"
            yield place, Graph.from_json(obj, where=place)
        return
    if isinstance(whole, list):
        for index, obj in enumerate(whole):
            place = f"{path}: graph {index}"
            yield place, Graph.from_json(obj, where=place)
    else:
        yield path, Graph.from_json(whole, where=path)
