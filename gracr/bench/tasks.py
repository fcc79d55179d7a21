"""The six GracrBench tasks of App. F: their formula files and their graph generators.

A generator draws one candidate graph from a numpy `Generator`. Graph tasks draw a
positive or a negative candidate and the dataset builder keeps it only if the
task's node predicate φ fires exactly where the annotation says (rejection
sampling, App. F); node tasks draw whole graphs, whose labels are the formula's.
The datasets do not depend on how the formula is compiled: every compile variant
of a task (demorgan/flat, expanded/direct, the alternative formula φ∨) is evaluated
on the same graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from gracr.dsl import ir
from gracr.dsl.parse import Program, parse
from gracr.runtime.generators import barabasi_albert_edges
from gracr.runtime.graph import Graph, IntArray

# Bump when a generator changes: stored datasets are keyed by it.
GENERATOR_VERSION = 2

Rng = np.random.Generator


@dataclass(frozen=True)
class Candidate:
    """A drawn graph and, for graph tasks, where φ must fire (`None` for node tasks)."""

    graph: Graph
    label: int | None
    annotated: frozenset[int] | None


class _Builder:
    """Grows an undirected coloured graph; every edge is listed in both directions."""

    def __init__(self, num_nodes: int, colors: list[str]) -> None:
        self.colors = list(colors)
        self.pairs: list[tuple[int, int]] = []
        assert len(self.colors) == num_nodes

    def add_node(self, color: str) -> int:
        self.colors.append(color)
        return len(self.colors) - 1

    def link(self, a: int, b: int) -> None:
        self.pairs.append((a, b))

    def graph(self, background_edges: IntArray) -> Graph:
        """The graph, its edges sorted by (target, source).

        The ROBDD's static variable order is the edge order (§4.3), and every
        modality counts the in-edges of a node: listing each node's in-edges together
        keeps the diagrams small (on Majority2Hop, hub neighbourhoods blow up under
        an interleaved order).
        """
        extra = np.asarray(self.pairs, dtype=np.int64).reshape(-1, 2)
        both = np.concatenate([extra, extra[:, ::-1]], axis=0) if len(extra) else extra
        edges = np.concatenate([background_edges.T, both], axis=0)
        edges = edges[np.lexsort((edges[:, 0], edges[:, 1]))]
        return Graph.from_edges(len(self.colors), [[c] for c in self.colors], edges)


def _background(rng: Rng, num_nodes: int, palette: tuple[str, ...]) -> tuple[_Builder, IntArray]:
    """A Barabási–Albert graph (attachment 2), each node a colour drawn uniformly."""
    edges = barabasi_albert_edges(num_nodes, 2, seed=int(rng.integers(2**31 - 1)))
    colors = [palette[i] for i in rng.integers(0, len(palette), size=num_nodes)]
    return _Builder(num_nodes, colors), edges


def _anchors(rng: Rng, builder: _Builder, background: int, count: int) -> list[int]:
    """`count` distinct background nodes, recoloured green so they are inert anchors."""
    chosen = [int(v) for v in rng.choice(background, size=count, replace=False)]
    for node in chosen:
        builder.colors[node] = "green"
    return chosen


def _red_cores(builder: _Builder, count: int) -> list[int]:
    """A path of `count` red cores, each carrying exactly two blue leaves."""
    cores: list[int] = []
    for _ in range(count):
        core = builder.add_node("red")
        for _ in range(2):
            builder.link(core, builder.add_node("blue"))
        if cores:
            builder.link(cores[-1], core)
        cores.append(core)
    return cores


def red_blue_leaf(rng: Rng, positive: bool) -> Candidate:
    """RedBlueLeaf: BA(20) in red/blue/green; positives get the 12-node chain motif,
    its endpoints linked to two background nodes recoloured green. φ must fire on
    the two interior cores of a positive graph and nowhere on a negative one."""
    builder, edges = _background(rng, 20, ("red", "blue", "green"))
    annotated: frozenset[int] = frozenset()
    if positive:
        cores = _red_cores(builder, 4)
        first, last = _anchors(rng, builder, 20, 2)
        builder.link(cores[0], first)
        builder.link(cores[-1], last)
        annotated = frozenset(cores[1:3])
    return Candidate(builder.graph(edges), int(positive), annotated)


def _black_hub(rng: Rng, members: list[tuple[str, int]], positive: bool) -> Candidate:
    """BA(30) in grey/silver; one black node joined to `count` new nodes of each
    `(colour, count)` and to 5 random background nodes."""
    builder, edges = _background(rng, 30, ("grey", "silver"))
    hub = builder.add_node("black")
    for color, count in members:
        for _ in range(count):
            builder.link(hub, builder.add_node(color))
    for node in rng.choice(30, size=5, replace=False):
        builder.link(hub, int(node))
    return Candidate(builder.graph(edges), int(positive), frozenset({hub}) if positive else frozenset())


def redundancy(rng: Rng, positive: bool) -> Candidate:
    """Redundancy: the black hub with 6 red neighbours (none in a negative graph)."""
    return _black_hub(rng, [("red", 6 if positive else 0)], positive)


def competing_redundancy(rng: Rng, positive: bool) -> Candidate:
    """CompetingRedundancy: the black hub with 1 red, 2 blue and 3 green neighbours; a
    negative graph starves every group, planting one member fewer than its threshold."""
    short = 0 if positive else 1
    return _black_hub(rng, [("red", 1 - short), ("blue", 2 - short), ("green", 3 - short)],
                      positive)


def red_blue_leaf_nc(rng: Rng) -> Candidate:
    """RedBlueLeaf-NC: BA(300) in red/blue/green with 50 planted units (a path of three
    red cores with two blue leaves each), each unit's endpoints tied to two background
    nodes recoloured green: 750 nodes."""
    builder, edges = _background(rng, 300, ("red", "blue", "green"))
    anchors = _anchors(rng, builder, 300, 100)
    for unit in range(50):
        cores = _red_cores(builder, 3)
        builder.link(cores[0], anchors[2 * unit])
        builder.link(cores[-1], anchors[2 * unit + 1])
    return Candidate(builder.graph(edges), None, None)


def majority(rng: Rng) -> Candidate:
    """Majority1Hop / Majority2Hop: BA(500), colours uniform over red, blue, green."""
    builder, edges = _background(rng, 500, ("red", "blue", "green"))
    return Candidate(builder.graph(edges), None, None)


@dataclass(frozen=True)
class Task:
    """A benchmark task: its formula files (main one first) and its generator."""

    name: str
    formula_files: tuple[str, ...]
    kind: ir.Kind
    draw_graph: Callable[[Rng, bool], Candidate] | None = None
    draw_nodes: Callable[[Rng], Candidate] | None = None

    @property
    def default_size(self) -> int:
        """1000 graphs (graph tasks) or 500 positive targets (node tasks), App. F."""
        return 1000 if self.kind is ir.Kind.GRAPH else 500

    def program(self, variant: int = 0) -> Program:
        return load_formula(self.formula_files[variant])

    def predicate(self) -> Program:
        """The node predicate φ under the graph task's `exists` (for rejection sampling)."""
        program = self.program()
        assert isinstance(program.classifier, ir.Exists)
        return Program(program.palette, program.classifier.arg, ir.Kind.NODE,
                       program.names, program.filename, program.source)


def formulas_folder() -> Path:
    """The `formulas/` folder: beside the package in a checkout, else packaged data."""
    checkout = Path(__file__).resolve().parents[2] / "formulas"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("gracr").joinpath("formulas")))


def load_formula(file_name: str) -> Program:
    path = formulas_folder() / file_name
    return parse(path.read_text(encoding="utf-8"), filename=f"formulas/{file_name}")


TASKS: dict[str, Task] = {
    task.name: task for task in [
        Task("RedBlueLeaf", ("RedBlueLeaf.gml", "RedBlueLeaf-or.gml"), ir.Kind.GRAPH,
             draw_graph=red_blue_leaf),
        Task("Redundancy", ("Redundancy.gml",), ir.Kind.GRAPH, draw_graph=redundancy),
        Task("CompetingRedundancy", ("CompetingRedundancy.gml",), ir.Kind.GRAPH,
             draw_graph=competing_redundancy),
        Task("RedBlueLeaf-NC", ("RedBlueLeaf-NC.gml",), ir.Kind.NODE, draw_nodes=red_blue_leaf_nc),
        Task("Majority1Hop", ("Majority1Hop.gml",), ir.Kind.NODE, draw_nodes=majority),
        Task("Majority2Hop", ("Majority2Hop.gml",), ir.Kind.NODE, draw_nodes=majority),
    ]
}
