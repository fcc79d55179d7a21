"""The paper's synthetic benchmarks rebuilt offline, each with its App. B training settings.

- BAShapes: PyG's `ExplainerDataset(BAGraph(300, 5), HouseMotif, 80 motifs)`, the original
  sizes (GNNExplainer): classes 0 (base), 1–3 (the house's top, middle, bottom).
- Tree-Cycles: `TreeGraph(depth 8)` (511 nodes) with 60 `CycleMotif(6)`s; Tree-Grid: the
  same tree with 80 `GridMotif`s (3 × 3). Classes 0 (tree) and 1 (motif), as the
  originals label them.
- BAMultiShapes (Azzolin et al. 2022, as PyG's `BAMultiShapesDataset` describes it): 1000
  graphs of 40 nodes, a Barabási–Albert base (one edge per new node) with some of the
  motifs house (5 nodes), wheel (a hub and a 5-cycle) and grid (3 × 3) attached, each by
  one edge to a random base node; class 1 holds exactly two of the three motifs, class 0
  none, one, or all three. 500 graphs per class, each class's motif sets taken in turn.

PyG's generators draw from torch's global generator and (`barabasi_albert_graph`) numpy's:
they run under `torch.random.fork_rng` and a saved-and-restored numpy state, both seeded
with the dataset seed, so a build is reproducible and leaves the caller's random state
alone. That BA generator draws each new node's 5 partners with replacement and may draw the
node itself, so a few base nodes of BAShapes have degree 3 or 4, as the house's do: degree
separates classes 0 and 1 almost, not fully, as it does in the original (Fig. 6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gracr.audit.data import AuditData
from gracr.audit.models import TrainSettings
from gracr.data.graph import Graph
from gracr.errors import GracrError

Edges = list[tuple[int, int]]


@dataclass(frozen=True)
class Builtin:
    """A built-in dataset: how it is built from a seed, App. B's training settings and
    depths (the section of App. B each comes from is in `gracr.audit.published`)."""

    name: str
    build: Callable[[int], AuditData]
    settings: TrainSettings
    depths: tuple[int, ...]


def _explainer_dataset(name: str, seed: int, tree: bool, motif: str, motifs: int,
                       binary: bool) -> AuditData:
    import torch
    from torch_geometric.datasets import ExplainerDataset
    from torch_geometric.datasets.graph_generator import BAGraph, TreeGraph
    from torch_geometric.datasets.motif_generator import CycleMotif, GridMotif, HouseMotif

    numpy_state = np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            np.random.seed(seed)
            base = TreeGraph(depth=8, undirected=True) if tree else BAGraph(num_nodes=300,
                                                                              num_edges=5)
            generator = {"house": HouseMotif, "grid": GridMotif}.get(motif)
            dataset = ExplainerDataset(base, generator() if generator else CycleMotif(6),
                                       num_motifs=motifs)
    finally:
        np.random.set_state(numpy_state)
    data = dataset[0]
    edges = data.edge_index.numpy().T
    graph = Graph.from_edges(int(data.num_nodes), None, edges)
    node_mask = data.node_mask.numpy() > 0
    labels = node_mask.astype(np.int64) if binary else data.y.numpy().astype(np.int64)
    return AuditData(name, "node", (graph,), (labels,), (data.edge_mask.numpy() > 0,),
                     (node_mask,), True)


def ba_shapes(seed: int = 0) -> AuditData:
    return _explainer_dataset("BAShapes", seed, False, "house", 80, binary=False)


def tree_cycles(seed: int = 0) -> AuditData:
    return _explainer_dataset("Tree-Cycles", seed, True, "cycle", 60, binary=True)


def tree_grid(seed: int = 0) -> AuditData:
    return _explainer_dataset("Tree-Grid", seed, True, "grid", 80, binary=True)


def _cycle(nodes: list[int]) -> Edges:
    return [(a, b) for a, b in zip(nodes, nodes[1:] + nodes[:1])]


HOUSE: tuple[int, Edges] = (5, _cycle([0, 1, 2, 3]) + [(0, 4), (1, 4)])
WHEEL: tuple[int, Edges] = (6, _cycle([1, 2, 3, 4, 5]) + [(0, v) for v in range(1, 6)])
GRID: tuple[int, Edges] = (9, [(3 * r + c, 3 * r + c + 1) for r in range(3) for c in range(2)]
                           + [(3 * r + c, 3 * r + c + 3) for r in range(2) for c in range(3)])
MOTIFS = {"house": HOUSE, "wheel": WHEEL, "grid": GRID}
MULTI_NODES = 40
CLASS_0_SETS: tuple[tuple[str, ...], ...] = ((), ("house",), ("wheel",), ("grid",),
                                             ("house", "wheel", "grid"))
CLASS_1_SETS: tuple[tuple[str, ...], ...] = (("house", "wheel"), ("house", "grid"),
                                             ("wheel", "grid"))


def barabasi_albert(nodes: int, rng: np.random.Generator) -> Edges:
    """A preferential-attachment tree: node i > 0 joins one earlier node, chosen with
    probability proportional to its degree (node 1 joins node 0)."""
    edges: Edges = []
    ends: list[int] = [0]     # each node once per edge end (node 0 seeded once)
    for node in range(1, nodes):
        other = ends[int(rng.integers(len(ends)))]
        edges.append((other, node))
        ends.extend((other, node))
    return edges


def multi_shapes_graph(motifs: tuple[str, ...], rng: np.random.Generator
                       ) -> tuple[Graph, np.ndarray, np.ndarray]:
    """One BAMultiShapes graph with `motifs` attached: the graph (both directions of each
    edge), its motif edge mask and motif node mask."""
    base = MULTI_NODES - sum(MOTIFS[m][0] for m in motifs)
    edges = barabasi_albert(base, rng)
    in_motif: list[bool] = [False] * len(edges)
    node_mask = [False] * base
    start = base
    for name in motifs:
        size, motif_edges = MOTIFS[name]
        edges.extend((start + a, start + b) for a, b in motif_edges)
        in_motif.extend([True] * len(motif_edges))
        edges.append((int(rng.integers(base)), start + int(rng.integers(size))))
        in_motif.append(False)
        node_mask.extend([True] * size)
        start += size
    both = edges + [(b, a) for a, b in edges]
    graph = Graph.from_edges(MULTI_NODES, None, both)
    return graph, np.asarray(in_motif + in_motif, dtype=np.bool_), np.asarray(node_mask)


def ba_multi_shapes(seed: int = 0, graphs: int = 1000) -> AuditData:
    rng = np.random.default_rng(seed)
    sets = [(CLASS_0_SETS[i % len(CLASS_0_SETS)], 0) for i in range(graphs // 2)] + \
        [(CLASS_1_SETS[i % len(CLASS_1_SETS)], 1) for i in range(graphs - graphs // 2)]
    order = rng.permutation(len(sets))
    built = [multi_shapes_graph(sets[i][0], rng) for i in order]
    return AuditData("BAMultiShapes", "graph", tuple(b[0] for b in built),
                     tuple(np.asarray([sets[i][1]], dtype=np.int64) for i in order),
                     tuple(b[1] for b in built), tuple(b[2] for b in built), True)


BUILTINS: dict[str, Builtin] = {b.name: b for b in (
    Builtin("BAShapes", ba_shapes, TrainSettings(layers=2, hidden=64, epochs=1000,
                                                 learning_rate=1e-3), (2,)),
    Builtin("BAMultiShapes", ba_multi_shapes,
            TrainSettings(layers=1, hidden=128, epochs=200, learning_rate=1e-3,
                          pooling="mean", mlp_head=True), (1,)),
    Builtin("Tree-Cycles", tree_cycles, TrainSettings(hidden=64, epochs=1500,
                                                      learning_rate=5e-3), (2, 3, 4)),
    Builtin("Tree-Grid", tree_grid, TrainSettings(hidden=64, epochs=1500,
                                                  learning_rate=5e-3), (2, 3, 4, 5)),
)}


def builtin_named(name: str) -> Builtin:
    for key, value in BUILTINS.items():
        if key.lower() == name.lower():
            return value
    raise GracrError(f"no built-in dataset '{name}' (they are {', '.join(BUILTINS)})")
