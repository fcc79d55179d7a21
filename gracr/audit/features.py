"""The shortcut probes' inputs: what a classifier can read without the motif.

Each probe is a name and a function from `AuditData` to one row per instance (per node of
a node task, per graph of a graph task). Degrees are of the undirected graph the edge list
describes (an edge listed in both directions counts once; self loops never), because the
paper's figures count them so (App. B, Figs. 6–7).

Node probes: `degree` (the node's), `neighbour degree` (its neighbours' mean degree),
`k-hop degrees` (its degree and, for each distance 1..K, the histogram of the degrees of
the nodes at that distance), `counts` (label-free structure: nodes at distance 1..3,
triangles through the node) and `node features` (its colours, attributes and numeric
features alone, no edge). Graph probes: `mean degree`, `size` (nodes, edges), `degree
histogram`, `counts` (triangles, leaves, largest degree, independent cycles) and `node
features` (their mean over the graph).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from gracr.audit.data import AuditData, TaskKind
from gracr.data.graph import Graph
from gracr.errors import GracrError

FloatArray = npt.NDArray[np.float64]
# Distances are computed as a dense float64 matrix per graph: 5000 nodes take 200 MB.
MAX_NODES_PER_GRAPH = 5_000
HOPS = 2            # the k-hop histograms: distances 1..HOPS
DEGREE_BINS = 12    # degrees 0..10 and a last bin for 11 or more
COUNT_HOPS = 3


@dataclass(frozen=True)
class Probe:
    """A named view of the data a simple classifier is trained on."""

    name: str
    kind: TaskKind
    rows: Callable[[AuditData], FloatArray]


def adjacency(graph: Graph) -> sp.csr_matrix:
    """The undirected simple graph of the edge list: symmetric 0/1, no self loops."""
    if graph.num_nodes > MAX_NODES_PER_GRAPH:
        raise GracrError(f"a graph of {graph.num_nodes} nodes is over the audit's "
                         f"{MAX_NODES_PER_GRAPH} nodes per graph")
    keep = graph.sources != graph.targets
    ones = np.ones(int(keep.sum()), dtype=np.float64)
    matrix = sp.coo_matrix((ones, (graph.sources[keep], graph.targets[keep])),
                           shape=(graph.num_nodes, graph.num_nodes)).tocsr()
    matrix = ((matrix + matrix.T) > 0).astype(np.float64)
    return sp.csr_matrix(matrix)


def degrees(graph: Graph) -> FloatArray:
    return np.asarray(adjacency(graph).sum(axis=1), dtype=np.float64).ravel()


def neighbour_mean_degree(graph: Graph) -> FloatArray:
    """Each node's neighbours' mean degree (0 for a node with none)."""
    matrix = adjacency(graph)
    degree = np.asarray(matrix.sum(axis=1), dtype=np.float64).ravel()
    total = np.asarray(matrix @ degree, dtype=np.float64)
    mean: FloatArray = np.divide(total, degree, out=np.zeros_like(total), where=degree > 0)
    return mean


def _distances(graph: Graph) -> FloatArray:
    return np.asarray(shortest_path(adjacency(graph), unweighted=True, directed=False),
                      dtype=np.float64)


def _histogram(values: FloatArray) -> FloatArray:
    return np.bincount(np.minimum(values.astype(np.int64), DEGREE_BINS - 1),
                       minlength=DEGREE_BINS).astype(np.float64)


def _triangles(graph: Graph) -> FloatArray:
    matrix = adjacency(graph)
    return np.asarray((matrix @ matrix).multiply(matrix).sum(axis=1),
                      dtype=np.float64).ravel() / 2


def _k_hop_degrees(graph: Graph) -> FloatArray:
    degree = degrees(graph)
    distance = _distances(graph)
    rows = [degree[:, None]]
    for hop in range(1, HOPS + 1):
        rows.append(np.stack([_histogram(degree[distance[v] == hop])
                              for v in range(graph.num_nodes)]).reshape(graph.num_nodes, -1))
    return np.hstack(rows)


def _node_counts(graph: Graph) -> FloatArray:
    distance = _distances(graph)
    shells = [(distance == hop).sum(axis=1) for hop in range(1, COUNT_HOPS + 1)]
    return np.column_stack([*shells, _triangles(graph)]).astype(np.float64)


@dataclass(frozen=True)
class Vocabulary:
    """A dataset's colours and each attribute family's values (of the families it lets
    models read, `AuditData.families`): the columns of every graph's node inputs, the same
    for all its graphs."""

    palette: tuple[str, ...]
    families: tuple[tuple[str, tuple[str, ...]], ...]


def vocabulary_of(data: AuditData) -> Vocabulary:
    palette = sorted({c for graph in data.graphs if graph.colors is not None
                      for node in graph.colors for c in node})
    values: dict[str, set[str]] = {}
    for graph in data.graphs:
        for family, row in graph.attributes.items():
            if data.families is None or family in data.families:
                values.setdefault(family, set()).update(row)
    return Vocabulary(tuple(palette),
                      tuple((family, tuple(sorted(values[family]))) for family in sorted(values)))


def node_inputs(graph: Graph, vocabulary: Vocabulary) -> FloatArray:
    """A node's own inputs, no edge read: its colours (multi-hot) and each attribute
    family's value (one-hot) over the dataset's `vocabulary`, its numeric features; a
    constant column when it has none, as the synthetic benchmarks' nodes have."""
    columns: list[FloatArray] = []
    if vocabulary.palette:
        columns.append(np.stack([graph.color_mask(c) for c in vocabulary.palette], axis=1)
                       .astype(np.float64))
    for family, values in vocabulary.families:
        columns.append(np.stack([graph.attribute_mask(family, v) for v in values], axis=1)
                       .astype(np.float64))
    if graph.feature_values is not None and graph.feature_values.shape[1]:
        columns.append(graph.feature_values)
    if not columns:
        return np.ones((graph.num_nodes, 1), dtype=np.float64)
    return np.hstack(columns)


def _per_node(rows: Callable[[Graph], FloatArray]) -> Callable[[AuditData], FloatArray]:
    def stacked(data: AuditData) -> FloatArray:
        return np.vstack([rows(graph).reshape(graph.num_nodes, -1) for graph in data.graphs])
    return stacked


def _per_graph(row: Callable[[Graph], FloatArray]) -> Callable[[AuditData], FloatArray]:
    def stacked(data: AuditData) -> FloatArray:
        return np.vstack([row(graph).reshape(1, -1) for graph in data.graphs])
    return stacked


def _node_features(data: AuditData) -> FloatArray:
    vocabulary = vocabulary_of(data)
    return np.vstack([node_inputs(graph, vocabulary) for graph in data.graphs])


def _graph_features(data: AuditData) -> FloatArray:
    vocabulary = vocabulary_of(data)
    return np.vstack([node_inputs(graph, vocabulary).mean(axis=0, keepdims=True)
                      if graph.num_nodes else np.zeros((1, 1)) for graph in data.graphs])


def mean_degree(graph: Graph) -> float:
    return float(degrees(graph).mean()) if graph.num_nodes else 0.0


def _size(graph: Graph) -> FloatArray:
    return np.asarray([graph.num_nodes, adjacency(graph).nnz / 2], dtype=np.float64)


def _degree_histogram(graph: Graph) -> FloatArray:
    return _histogram(degrees(graph)) / max(graph.num_nodes, 1)


def _graph_counts(graph: Graph) -> FloatArray:
    degree = degrees(graph)
    components = connected_components(adjacency(graph), directed=False)[0]
    cycles = adjacency(graph).nnz / 2 - graph.num_nodes + components
    return np.asarray([_triangles(graph).sum() / 3, (degree == 1).sum(),
                       degree.max(initial=0), cycles], dtype=np.float64)


NODE_PROBES: tuple[Probe, ...] = (
    Probe("degree", "node", _per_node(degrees)),
    Probe("neighbour degree", "node", _per_node(neighbour_mean_degree)),
    Probe("k-hop degrees", "node", _per_node(_k_hop_degrees)),
    Probe("counts", "node", _per_node(_node_counts)),
    Probe("node features", "node", _node_features),
)
GRAPH_PROBES: tuple[Probe, ...] = (
    Probe("mean degree", "graph", _per_graph(lambda g: np.asarray([mean_degree(g)]))),
    Probe("size", "graph", _per_graph(_size)),
    Probe("degree histogram", "graph", _per_graph(_degree_histogram)),
    Probe("counts", "graph", _per_graph(_graph_counts)),
    Probe("node features", "graph", _graph_features),
)


def probes_for(kind: TaskKind) -> tuple[Probe, ...]:
    return NODE_PROBES if kind == "node" else GRAPH_PROBES


def probe_named(kind: TaskKind, name: str) -> Probe:
    for probe in probes_for(kind):
        if probe.name == name:
            return probe
    names = ", ".join(p.name for p in probes_for(kind))
    raise GracrError(f"no {kind} probe named '{name}' (the {kind} probes are {names})")
