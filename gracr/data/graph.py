"""Graphs: typed nodes (colours, attribute values, numeric features) and typed directed edges
(relations, numeric edge attributes), and their JSON form.

Its size (500–600 lines) is the one graph type and its one JSON reader: every key of the
graph object is checked here, with a message naming the place, before any array is built.

Edge `(s, t)` carries a message from `s` to `t`: a modality evaluated at `t` counts
`s` (PyG's `source_to_target` flow). Undirected graphs list both directions;
self-loops are ordinary edges; each list entry is one edge, and masks over edges
are indexed by position in this list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gracr.data.fields import shown_json
from gracr.data.json_text import JsonError, parse_json
from gracr.data.schema import Schema
from gracr.errors import GraphError, quoted
from gracr.limits import DEFAULT_MAX_BYTES, FLOAT32_MAX, format_bytes

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float32]
RealArray = npt.NDArray[np.float64]


# Keys a graph object may carry besides its own (`num_nodes`, `colors`, `attributes`,
# `edges`, `relations`, `target`): the dataset keys GracrBench writes. Anything else
# must start with `x-` (a user's own annotation), so that a misspelt key
# (`"colours"`) is an error rather than silently ignored.
GRAPH_KEYS = ("num_nodes", "colors", "attributes", "features", "pos", "edges", "relations",
              "edge_attr", "target")
DATASET_KEYS = ("label", "upi", "node_labels", "targets", "receptive_field", "motif_edges",
                "motif_nodes")
USER_KEY_PREFIX = "x-"


@dataclass(frozen=True, eq=False)
class Graph:
    """A graph with `num_nodes` nodes and directed edges.

    `sources[e], targets[e]` is edge `e`. `colors[v]` is node v's set of colours
    (`None`: the graph names no colours). `attributes[family][v]` is node v's value in
    an attribute family; `relations[e]` is edge e's relation (`None`: no relations).
    `feature_values[v]` holds node v's numeric features (JSON `"features"`, one list per
    node, in the order a program's `features` line declares them; float64) and
    `edge_attr[e]` edge e's numeric attributes (JSON `"edge_attr"`, PyG's `edge_attr`:
    what a trained model reads, e.g. a distance; no formula reads it). `pos[v]` is node
    v's position (JSON `"pos"`, one list per node, PyG's `pos`; e.g. a cell's (x, y) in
    µm): what spatial baselines and figures read; no formula reads it.
    `target` is the node a node classifier is asked about (optional).
    """

    num_nodes: int
    colors: tuple[frozenset[str], ...] | None
    sources: IntArray
    targets: IntArray
    target: int | None = None
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    relations: tuple[str, ...] | None = None
    feature_values: RealArray | None = None
    edge_attr: RealArray | None = None
    pos: RealArray | None = None

    @classmethod
    def from_edges(cls, num_nodes: int, colors: Sequence[Iterable[str]] | None,
                   edges: Iterable[tuple[int, int]] | IntArray,
                   target: int | None = None,
                   attributes: Mapping[str, Sequence[str]] | None = None,
                   relations: Sequence[str] | None = None,
                   features: npt.ArrayLike | None = None,
                   edge_attr: npt.ArrayLike | None = None,
                   pos: npt.ArrayLike | None = None) -> Graph:
        """Build a graph from Python values, checking them as `from_json` does."""
        pairs = np.asarray(list(edges) if not isinstance(edges, np.ndarray) else edges,
                           dtype=np.int64).reshape(-1, 2)
        color_sets = None if colors is None else tuple(frozenset(c) for c in colors)
        graph = cls(num_nodes, color_sets, np.ascontiguousarray(pairs[:, 0]),
                    np.ascontiguousarray(pairs[:, 1]), target,
                    {k: tuple(v) for k, v in (attributes or {}).items()},
                    None if relations is None else tuple(relations),
                    _rows(features, num_nodes), _rows(edge_attr, len(pairs)),
                    _rows(pos, num_nodes))
        graph.validate()
        return graph

    def validate(self, where: str = "graph") -> None:
        """Raise `GraphError` naming the first thing wrong with this graph."""
        if self.num_nodes < 0:
            raise GraphError(f"{where}: num_nodes must not be negative (got {self.num_nodes})")
        if self.colors is not None and len(self.colors) != self.num_nodes:
            raise GraphError(f"{where}: 'colors' has {len(self.colors)} entries but the graph "
                             f"has {self.num_nodes} nodes")
        for family, values in self.attributes.items():
            if len(values) != self.num_nodes:
                raise GraphError(f"{where}: 'attributes.{family}' has {len(values)} entries but "
                                 f"the graph has {self.num_nodes} nodes")
        if len(self.sources) != len(self.targets):
            raise GraphError(f"{where}: sources and targets differ in length")
        if self.relations is not None and len(self.relations) != len(self.sources):
            raise GraphError(f"{where}: 'relations' has {len(self.relations)} entries but the "
                             f"graph has {len(self.sources)} edges")
        for key, rows, count, unit in (("features", self.feature_values, self.num_nodes, "nodes"),
                                       ("edge_attr", self.edge_attr, len(self.sources), "edges"),
                                       ("pos", self.pos, self.num_nodes, "nodes")):
            if rows is not None and (rows.ndim != 2 or rows.shape[0] != count):
                raise GraphError(f"{where}: '{key}' has {rows.shape[0]} rows but the graph has "
                                 f"{count} {unit}")
            if rows is not None and not np.isfinite(rows).all():
                raise GraphError(f"{where}: '{key}' holds a value that is not a finite number")
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

    def max_in_degree(self) -> int:
        """The largest in-degree, from the edges alone (no array per node)."""
        if not self.num_edges:
            return 0
        return int(np.unique(self.targets, return_counts=True)[1].max())

    def require_budget(self, what: str, bytes_per_node: int, bytes_per_edge: int,
                       max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        """Raise `GraphError` if `what` would take more than `max_bytes` on this graph, at
        `bytes_per_node` and `bytes_per_edge`: checked before the arrays are allocated, so
        a graph that declares a billion nodes in a few bytes of JSON is refused at once."""
        size = self.num_nodes * bytes_per_node + self.num_edges * bytes_per_edge
        if size > max_bytes:
            raise GraphError(f"{what} would take {format_bytes(size)} on this graph "
                             f"({self.num_nodes} nodes, {self.num_edges} edges), over "
                             f"--max-weights-bytes {format_bytes(max_bytes)}")

    def node_colors(self, node: int) -> frozenset[str]:
        return frozenset() if self.colors is None else self.colors[node]

    def color_mask(self, color: str) -> BoolArray:
        if self.colors is None:
            return np.zeros(self.num_nodes, dtype=np.bool_)
        return np.fromiter((color in c for c in self.colors), dtype=np.bool_,
                           count=self.num_nodes)

    def attribute_mask(self, family: str, value: str) -> BoolArray:
        """Whether each node takes `value` in `family` (all false if the graph lacks it)."""
        values = self.attributes.get(family)
        if values is None:
            return np.zeros(self.num_nodes, dtype=np.bool_)
        return np.fromiter((v == value for v in values), dtype=np.bool_, count=self.num_nodes)

    def relation_mask(self, relations: Sequence[str] | None) -> BoolArray:
        """Whether each edge has one of `relations` (`None`: every edge)."""
        if relations is None:
            return np.ones(self.num_edges, dtype=np.bool_)
        if self.relations is None:
            return np.zeros(self.num_edges, dtype=np.bool_)
        wanted = set(relations)
        return np.fromiter((r in wanted for r in self.relations), dtype=np.bool_,
                           count=self.num_edges)

    # ------------------------------------------------------------ fitting a schema

    def check_schema(self, schema: Schema, where: str = "graph") -> None:
        """Raise `GraphError` unless the graph carries what `schema` declares, and only that.

        Colours must lie in the palette (`colors` is required when a palette is
        declared); every declared family needs one declared value per node; relations
        are required, and declared, when the schema declares relations.
        """
        self.check_nodes(schema, where)
        self.check_edges(schema, where)

    def check_nodes(self, schema: Schema, where: str = "graph") -> None:
        """The node half of `check_schema`: colours and attribute values (what `features`
        reads)."""
        if schema.palette and self.colors is None:
            raise GraphError(f"{where}: missing 'colors' (the program declares the colours "
                             f"{', '.join(schema.palette)}; a node with none is [])")
        self.check_palette(schema.palette, where)
        for family in schema.families:
            values = self.attributes.get(family.name)
            if values is None:
                raise GraphError(f"{where}: missing 'attributes.{family.name}' (the program "
                                 f"declares the attribute family '{family.name}')")
            allowed = set(family.values)
            for node, value in enumerate(values):
                if value not in allowed:
                    raise GraphError(f"{where}: node {node} has {family.name}={quoted(value)}, "
                                     f"which is not declared (the values are "
                                     f"{', '.join(family.values)})")
        if schema.features:
            if self.feature_values is None:
                raise GraphError(f"{where}: missing 'features' (the program declares the "
                                 f"numeric features {', '.join(schema.features)}; one list of "
                                 f"{len(schema.features)} numbers per node)")
            if self.feature_values.shape[1] != len(schema.features):
                raise GraphError(f"{where}: 'features' has {self.feature_values.shape[1]} "
                                 f"numbers per node, but the program declares "
                                 f"{len(schema.features)} ({', '.join(schema.features)})")
            # Every executor holds x in float32: past its range a feature would be inf,
            # and inf - inf (or inf * 0) NaN, in every column of the node and beyond.
            too_large = np.argwhere(np.abs(self.feature_values) > FLOAT32_MAX)
            if too_large.size:
                node, column = (int(i) for i in too_large[0])
                raise GraphError(f"{where}: node {node} has the numeric feature "
                                 f"'{schema.features[column]}' = "
                                 f"{self.feature_values[node, column]:.6g}, beyond float32, "
                                 f"which the network computes in (largest magnitude "
                                 f"{FLOAT32_MAX:.6g}): scale the features down")

    def check_edges(self, schema: Schema, where: str = "graph") -> None:
        """The edge half of `check_schema`: one declared relation per edge (what
        `edge_types` reads)."""
        if schema.relations:
            if self.relations is None:
                raise GraphError(f"{where}: missing 'relations' (the program declares the "
                                 f"relations {', '.join(schema.relations)}; one per edge)")
            allowed = set(schema.relations)
            for edge, relation in enumerate(self.relations):
                if relation not in allowed:
                    raise GraphError(f"{where}: edge {edge} has relation {quoted(relation)}, "
                                     f"which is not declared (the relations are "
                                     f"{', '.join(schema.relations)})")

    def check_palette(self, palette: Sequence[str], where: str = "graph") -> None:
        """Raise `GraphError` if a node carries a colour outside `palette`."""
        if self.colors is None:
            return
        allowed = set(palette)
        for node, node_colors in enumerate(self.colors):
            unknown = sorted(node_colors - allowed)
            if unknown:
                raise GraphError(f"{where}: node {node} has colour {quoted(unknown[0])}, "
                                 f"which is not in the palette ({', '.join(palette) or 'empty'})")

    def features(self, schema: Schema | Sequence[str], presence: bool = False,
                 where: str = "graph", max_bytes: int = DEFAULT_MAX_BYTES) -> FloatArray:
        """The feature matrix `x`: colours (multi-hot), then each family's one-hot block,
        then the numeric features, then the presence column if asked (see
        `gracr.data.schema`); refused (`require_budget`) when it would exceed `max_bytes`.

        A bare palette (a sequence of colour names) is a schema with only colours.
        """
        if not isinstance(schema, Schema):
            schema = Schema(palette=tuple(schema))
        width = schema.num_features + (1 if presence else 0)
        self.require_budget("its features", 4 * width, 0, max_bytes)
        self.check_nodes(schema, where)
        x = np.zeros((self.num_nodes, width), dtype=np.float32)
        for column, color in enumerate(schema.palette):
            x[:, column] = self.color_mask(color)
        column = len(schema.palette)
        for family in schema.families:
            index = {value: i for i, value in enumerate(family.values)}
            rows = np.fromiter((index[v] for v in self.attributes[family.name]),
                               dtype=np.int64, count=self.num_nodes)
            x[np.arange(self.num_nodes), column + rows] = 1.0
            column += len(family.values)
        if schema.features:
            assert self.feature_values is not None  # check_nodes
            x[:, column:column + len(schema.features)] = self.feature_values
            column += len(schema.features)
        if presence:
            x[:, column] = 1.0
        return x

    def edge_types(self, schema: Schema, where: str = "graph") -> IntArray:
        """Each edge's relation index in `schema.relations` (PyG's `edge_type`)."""
        if not schema.relations:
            return np.zeros(self.num_edges, dtype=np.int64)
        self.check_edges(schema, where)
        assert self.relations is not None
        index = {relation: i for i, relation in enumerate(schema.relations)}
        return np.fromiter((index[r] for r in self.relations), dtype=np.int64,
                           count=self.num_edges)

    # ------------------------------------------------------------ subgraphs

    def keep_edges(self, mask: BoolArray | Sequence[bool]) -> Graph:
        """The spanning subgraph with the edges where `mask` holds (all nodes kept)."""
        keep = np.asarray(mask, dtype=np.bool_)
        relations = (None if self.relations is None
                     else tuple(r for r, k in zip(self.relations, keep) if k))
        return Graph(self.num_nodes, self.colors, self.sources[keep], self.targets[keep],
                     self.target, self.attributes, relations, self.feature_values,
                     None if self.edge_attr is None else self.edge_attr[keep], self.pos)

    def keep_nodes(self, mask: BoolArray | Sequence[bool]) -> tuple[Graph, IntArray]:
        """The subgraph induced by the nodes where `mask` holds, renumbered in order, and
        the edge positions it keeps: deleting a node deletes every edge incident to it.

        The target must be kept; it is renumbered with the rest.
        """
        keep = np.asarray(mask, dtype=np.bool_)
        if self.target is not None and not keep[self.target]:
            raise ValueError("the target node cannot be removed")
        renumber = np.cumsum(keep) - 1
        kept_edges = np.flatnonzero(keep[self.sources] & keep[self.targets])
        nodes = np.flatnonzero(keep)
        colors = None if self.colors is None else tuple(self.colors[v] for v in nodes)
        attributes = {family: tuple(values[v] for v in nodes)
                      for family, values in self.attributes.items()}
        relations = (None if self.relations is None
                     else tuple(self.relations[e] for e in kept_edges))
        target = None if self.target is None else int(renumber[self.target])
        graph = Graph(int(keep.sum()), colors,
                      np.ascontiguousarray(renumber[self.sources[kept_edges]]),
                      np.ascontiguousarray(renumber[self.targets[kept_edges]]),
                      target, attributes, relations,
                      None if self.feature_values is None else self.feature_values[nodes],
                      None if self.edge_attr is None else self.edge_attr[kept_edges],
                      None if self.pos is None else self.pos[nodes])
        return graph, kept_edges

    def with_target(self, target: int | None) -> Graph:
        graph = Graph(self.num_nodes, self.colors, self.sources, self.targets, target,
                      self.attributes, self.relations, self.feature_values, self.edge_attr,
                      self.pos)
        graph.validate()
        return graph

    # ------------------------------------------------------------ JSON

    @classmethod
    def from_json(cls, obj: Any, where: str = "graph", schema: Schema | None = None) -> Graph:
        """Read the documented graph object; raise `GraphError` naming what is wrong.

        Every key and every list length is checked before any array is built. With a
        `schema`, the graph must also carry what it declares (`check_schema`).
        """
        if not isinstance(obj, dict):
            raise GraphError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        for key in obj:
            if key not in GRAPH_KEYS and key not in DATASET_KEYS and \
                    not str(key).startswith(USER_KEY_PREFIX):
                raise GraphError(
                    f"{where}: unknown key {shown_json(key)}; a graph has "
                    f"{', '.join(GRAPH_KEYS)} (datasets add {', '.join(DATASET_KEYS)}); "
                    f"a key of your own must start with '{USER_KEY_PREFIX}'")
        for key in ("num_nodes", "edges"):
            if key not in obj:
                raise GraphError(f"{where}: missing '{key}'")
        num_nodes = obj["num_nodes"]
        if not isinstance(num_nodes, int) or isinstance(num_nodes, bool) or num_nodes < 0:
            raise GraphError(f"{where}: 'num_nodes' must be a non-negative integer, "
                             f"got {shown_json(num_nodes)}")
        raw_edges = obj["edges"]
        if not isinstance(raw_edges, list):
            raise GraphError(f"{where}: 'edges' must be a list of [source, target] pairs")
        if schema is not None:
            required = [("colors", bool(schema.palette)), ("relations", bool(schema.relations)),
                        ("attributes", bool(schema.families)),
                        ("features", bool(schema.features))]
            for key, needed in required:
                if needed and key not in obj:
                    raise GraphError(f"{where}: missing '{key}' (the program declares "
                                     f"{_declared(schema, key)})")
        colors = _read_colors(obj, num_nodes, where)
        attributes = _read_attributes(obj, num_nodes, where)
        relations = _read_relations(obj, len(raw_edges), where)
        feature_values = _read_numbers(obj, "features", num_nodes, "node", where)
        edge_attr = _read_numbers(obj, "edge_attr", len(raw_edges), "edge", where)
        pos = _read_numbers(obj, "pos", num_nodes, "node", where)
        for index, edge in enumerate(raw_edges):
            if (not isinstance(edge, list) or len(edge) != 2 or
                    not all(isinstance(v, int) and not isinstance(v, bool) for v in edge)):
                raise GraphError(f"{where}: edge {index} must be a [source, target] pair of "
                                 f"integers, got {shown_json(edge)}")
            for name, end in zip(("source", "target"), edge):
                # Checked here, before the int64 array: 2**70 would not fit in it.
                if not 0 <= end < num_nodes:
                    raise GraphError(
                        f"{where}: edge {index} {shown_json(edge)} has {name} "
                        f"{shown_json(end)}, out of range for {num_nodes} nodes "
                        f"(nodes are 0..{num_nodes - 1})")
        target = obj.get("target")
        if target is not None and (not isinstance(target, int) or isinstance(target, bool)):
            raise GraphError(f"{where}: 'target' must be an integer node index, "
                             f"got {shown_json(target)}")
        pairs = np.asarray(raw_edges, dtype=np.int64).reshape(-1, 2)
        graph = cls(num_nodes, colors, np.ascontiguousarray(pairs[:, 0]),
                    np.ascontiguousarray(pairs[:, 1]), target, attributes, relations,
                    feature_values, edge_attr, pos)
        graph.validate(where)
        if schema is not None:
            graph.check_schema(schema, where)
        return graph

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"num_nodes": self.num_nodes}
        if self.colors is not None:
            obj["colors"] = [sorted(c) for c in self.colors]
        if self.attributes:
            obj["attributes"] = {family: list(values)
                                 for family, values in self.attributes.items()}
        if self.feature_values is not None:
            obj["features"] = self.feature_values.tolist()
        if self.pos is not None:
            obj["pos"] = self.pos.tolist()
        obj["edges"] = [list(e) for e in self.edges]
        if self.relations is not None:
            obj["relations"] = list(self.relations)
        if self.edge_attr is not None:
            obj["edge_attr"] = self.edge_attr.tolist()
        if self.target is not None:
            obj["target"] = self.target
        return obj


def _declared(schema: Schema, key: str) -> str:
    if key == "colors":
        return f"the colours {', '.join(schema.palette)}; a node with none is []"
    if key == "relations":
        return f"the relations {', '.join(schema.relations)}; one per edge"
    if key == "features":
        return (f"the numeric features {', '.join(schema.features)}; one list of "
                f"{len(schema.features)} numbers per node")
    return f"the attribute families {', '.join(schema.family_names)}; one value per node each"


def _read_colors(obj: dict[str, Any], num_nodes: int,
                 where: str) -> tuple[frozenset[str], ...] | None:
    if "colors" not in obj:
        return None
    raw_colors = obj["colors"]
    if not isinstance(raw_colors, list):
        raise GraphError(f"{where}: 'colors' must be a list with one entry per node")
    if len(raw_colors) != num_nodes:
        raise GraphError(f"{where}: 'colors' has {len(raw_colors)} entries but the graph has "
                         f"{num_nodes} nodes")
    colors: list[frozenset[str]] = []
    for node, entry in enumerate(raw_colors):
        if entry is None:
            entry = []
        elif isinstance(entry, str):
            entry = [entry]
        if not isinstance(entry, list) or not all(isinstance(c, str) for c in entry):
            raise GraphError(f"{where}: colors of node {node} must be a list of colour "
                             f"names, got {shown_json(entry)}")
        colors.append(frozenset(entry))
    return tuple(colors)


def _read_attributes(obj: dict[str, Any], num_nodes: int,
                     where: str) -> dict[str, tuple[str, ...]]:
    raw = obj.get("attributes", {})
    if not isinstance(raw, dict):
        raise GraphError(f"{where}: 'attributes' must be an object mapping each attribute "
                         "family to a list with one value per node")
    attributes: dict[str, tuple[str, ...]] = {}
    for family, values in raw.items():
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise GraphError(f"{where}: 'attributes.{family}' must be a list of value names, "
                             "one per node")
        if len(values) != num_nodes:
            raise GraphError(f"{where}: 'attributes.{family}' has {len(values)} entries but "
                             f"the graph has {num_nodes} nodes")
        attributes[family] = tuple(values)
    return attributes


def _rows(values: npt.ArrayLike | None, count: int) -> RealArray | None:
    """Numbers given one list per node (or edge) as a float64 `[count, k]` array."""
    if values is None:
        return None
    rows = np.asarray(values, dtype=np.float64)
    return rows.reshape(count, -1) if rows.size == 0 else rows


def _read_numbers(obj: dict[str, Any], key: str, count: int, unit: str,
                  where: str) -> RealArray | None:
    """`"features"` or `"pos"` (one list per node) or `"edge_attr"` (one list per edge): lists of
    equal length of finite numbers."""
    if key not in obj:
        return None
    raw = obj[key]
    if not isinstance(raw, list):
        raise GraphError(f"{where}: '{key}' must be a list with one list of numbers per {unit}")
    if len(raw) != count:
        raise GraphError(f"{where}: '{key}' has {len(raw)} entries but the graph has {count} "
                         f"{unit}s")
    width: int | None = None
    for index, row in enumerate(raw):
        if not isinstance(row, list) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in row):
            raise GraphError(f"{where}: '{key}' of {unit} {index} must be a list of numbers, "
                             f"got {shown_json(row)}")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise GraphError(f"{where}: '{key}' of {unit} {index} has {len(row)} numbers, "
                             f"{unit} 0 has {width}")
        if not all(math.isfinite(v) for v in row):
            raise GraphError(f"{where}: '{key}' of {unit} {index} holds a number that is not "
                             f"finite: {shown_json(row)}")
    rows = np.asarray(raw, dtype=np.float64)
    return rows.reshape(count, width or 0)


def _read_relations(obj: dict[str, Any], num_edges: int, where: str) -> tuple[str, ...] | None:
    if "relations" not in obj:
        return None
    raw = obj["relations"]
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        raise GraphError(f"{where}: 'relations' must be a list of relation names, one per edge")
    if len(raw) != num_edges:
        raise GraphError(f"{where}: 'relations' has {len(raw)} entries but the graph has "
                         f"{num_edges} edges")
    return tuple(raw)


def read_graphs(path: str, schema: Schema | None = None) -> Iterator[Graph]:
    """Graphs from a file holding one JSON object, a list of them, or JSON Lines.

    Errors name the file and the graph (or line) at fault.
    """
    for _, graph in read_placed_graphs(path, schema):
        yield graph


def read_placed_graphs(path: str, schema: Schema | None = None
                       ) -> Iterator[tuple[str, Graph]]:
    """Like `read_graphs`, each graph with its place (`file:line` or `file: graph i`)."""
    yield from placed_graphs_in(_graph_file_text(path), path, schema)


def read_placed_objects(path: str) -> Iterator[tuple[str, Any]]:
    """The JSON values of the graph file `path`, each with its place (`placed_objects_in`)."""
    yield from placed_objects_in(_graph_file_text(path), path)


def _graph_file_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise GraphError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise GraphError(f"{path}: not UTF-8 text (byte {error.start})") from None


def placed_graphs_in(text: str, path: str, schema: Schema | None = None
                     ) -> Iterator[tuple[str, Graph]]:
    """The graphs of the text of a graph file named `path` (`read_placed_graphs`)."""
    for place, obj in placed_objects_in(text, path):
        yield place, Graph.from_json(obj, where=place, schema=schema)


def placed_objects_in(text: str, path: str) -> Iterator[tuple[str, Any]]:
    """The JSON values of a graph file's text with their places (`file: graph i`, or
    `file:line` in JSON Lines): for readers of its dataset keys (`label`, `motif_edges`)."""
    try:
        whole = parse_json(text)
    except JsonError as whole_error:
        lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1)
                 if line.strip()]
        if len(lines) <= 1:
            raise GraphError(whole_error.at(path)) from None
        for number, line in lines:
            try:
                obj = parse_json(line)
            except JsonError as error:
                where = f"{path}:{number}" + (f":{error.column}" if error.line else "")
                raise GraphError(f"{where}: invalid JSON: {error.message}") from None
            yield f"{path}:{number}", obj
        return
    if isinstance(whole, list):
        for index, obj in enumerate(whole):
            yield f"{path}: graph {index}", obj
    else:
        yield path, whole
