"""The six GracrBench tasks of App. F: their formula files and their graph generators.

A generator draws one candidate graph from a numpy `Generator`. Graph tasks draw a
positive or a negative candidate and the dataset builder keeps it only if the
task's node predicate φ fires exactly where the annotation says (rejection
sampling, App. F); node tasks draw whole graphs, whose labels are the formula's.
The datasets do not depend on how the formula is compiled: every compile variant
of a task (demorgan/flat, expanded/direct, the alternative formula φ∨) is evaluated
on the same graphs.

The random parts run in numba kernels (`gracr.data.generators`: the
Barabási–Albert background and its colours; `gracr.data.motifs`: anchors and
planted motifs), each seeded from the numpy `Generator` (three seeds per candidate),
so a task's graphs are a pure function of (task, seed) on any machine. Kernels work
on colour indices; here they are mapped to each task's colour names.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

import numpy as np

from gracr.compiler.desugar import uses_comparison
from gracr.dsl import ir
from gracr.dsl.parse import Program, parse
from gracr.data.generators import barabasi_albert_edges, uniform_colours
from gracr.data.graph import Graph, IntArray
from gracr.data.motifs import plant_chains, plant_hub

# Bump when a generator changes: stored datasets are keyed by it.
GENERATOR_VERSION = 3

Rng = np.random.Generator


@dataclass(frozen=True)
class Candidate:
    """A drawn graph and, for graph tasks, where φ must fire (`None` for node tasks)."""

    graph: Graph
    label: int | None
    annotated: frozenset[int] | None


@dataclass(frozen=True)
class _Seeds:
    """The three kernel seeds of one candidate, taken off the task's numpy Generator."""

    background: int
    colours: int
    motif: int

    @classmethod
    def draw(cls, rng: Rng) -> _Seeds:
        background, colours, motif = (int(s) for s in rng.integers(2**31 - 1, size=3))
        return cls(background, colours, motif)


def _background(seeds: _Seeds, num_nodes: int, num_colours: int) -> tuple[IntArray, IntArray]:
    """A Barabási–Albert graph (attachment 2) and a colour index per node, uniform over
    the first `num_colours` colours of the task's names."""
    edges = barabasi_albert_edges(num_nodes, 2, seed=seeds.background)
    return edges, uniform_colours(num_nodes, num_colours, seed=seeds.colours)


def _graph(names: tuple[str, ...], colours: IntArray, background_edges: IntArray,
           pairs: IntArray | None = None) -> Graph:
    """The graph: colour indices named, planted `pairs` listed in both directions, and
    the edges sorted by (target, source).

    The ROBDD's static variable order is the edge order (§4.3), and every modality
    counts the in-edges of a node: listing each node's in-edges together keeps the
    diagrams small (on Majority2Hop, hub neighbourhoods blow up under an interleaved
    order).
    """
    edges = background_edges.T
    if pairs is not None and len(pairs):
        edges = np.concatenate([edges, pairs, pairs[:, ::-1]], axis=0)
    edges = edges[np.lexsort((edges[:, 0], edges[:, 1]))]
    return Graph.from_edges(len(colours), [[names[c]] for c in colours], edges)


# Colour names by index; a background draws from the first `len(palette)` of them.
_RED, _BLUE, _GREEN = 0, 1, 2
_RED_BLUE_GREEN = ("red", "blue", "green")
_GREY, _SILVER, _BLACK, _HUB_RED, _HUB_BLUE, _HUB_GREEN = range(6)
_HUB_NAMES = ("grey", "silver", "black", "red", "blue", "green")


def red_blue_leaf(rng: Rng, positive: bool) -> Candidate:
    """RedBlueLeaf: BA(20) in red/blue/green; positives get the 12-node chain motif (four
    red cores, each with two blue leaves), its endpoints linked to two background nodes
    recoloured green. φ must fire on the two interior cores of a positive graph and
    nowhere on a negative one."""
    seeds = _Seeds.draw(rng)
    edges, colours = _background(seeds, 20, 3)
    if not positive:
        return Candidate(_graph(_RED_BLUE_GREEN, colours, edges), 0, frozenset())
    colours, pairs = plant_chains(colours, 1, 4, seeds.motif, core=_RED, leaf=_BLUE,
                                  anchor=_GREEN)
    cores = [20 + 3 * i for i in range(4)]
    return Candidate(_graph(_RED_BLUE_GREEN, colours, edges, pairs), 1, frozenset(cores[1:3]))


def _black_hub(rng: Rng, members: list[tuple[int, int]], positive: bool) -> Candidate:
    """BA(30) in grey/silver; one black node (node 30) joined to `count` new nodes of
    each `(colour, count)` and to 5 distinct random background nodes."""
    seeds = _Seeds.draw(rng)
    edges, colours = _background(seeds, 30, 2)
    colours, pairs = plant_hub(colours, _BLACK, members, 5, seeds.motif)
    graph = _graph(_HUB_NAMES, colours, edges, pairs)
    return Candidate(graph, int(positive), frozenset({30}) if positive else frozenset())


def redundancy(rng: Rng, positive: bool) -> Candidate:
    """Redundancy: the black hub with 6 red neighbours (none in a negative graph)."""
    return _black_hub(rng, [(_HUB_RED, 6 if positive else 0)], positive)


def competing_redundancy(rng: Rng, positive: bool) -> Candidate:
    """CompetingRedundancy: the black hub with 1 red, 2 blue and 3 green neighbours; a
    negative graph starves every group, planting one member fewer than its threshold."""
    short = 0 if positive else 1
    return _black_hub(rng, [(_HUB_RED, 1 - short), (_HUB_BLUE, 2 - short),
                            (_HUB_GREEN, 3 - short)], positive)


def red_blue_leaf_nc(rng: Rng) -> Candidate:
    """RedBlueLeaf-NC: BA(300) in red/blue/green with 50 planted units (a path of three
    red cores with two blue leaves each), each unit's endpoints tied to two background
    nodes recoloured green (100 distinct anchors): 750 nodes."""
    seeds = _Seeds.draw(rng)
    edges, colours = _background(seeds, 300, 3)
    colours, pairs = plant_chains(colours, 50, 3, seeds.motif, core=_RED, leaf=_BLUE,
                                  anchor=_GREEN)
    return Candidate(_graph(_RED_BLUE_GREEN, colours, edges, pairs), None, None)


def majority(rng: Rng) -> Candidate:
    """Majority1Hop / Majority2Hop: BA(500), colours uniform over red, blue, green."""
    seeds = _Seeds.draw(rng)
    edges, colours = _background(seeds, 500, 3)
    return Candidate(_graph(_RED_BLUE_GREEN, colours, edges), None, None)


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

    def size_of(self, graphs: int | None, targets: int | None) -> int | None:
        """The dataset size the command line asks of this task: `--graphs` for a graph task,
        `--targets` for a node task (`None`: the default size)."""
        return graphs if self.kind is ir.Kind.GRAPH else targets

    def variants(self) -> list[str]:
        """The variants that differ from `main` on this task (plus `main`)."""
        program = self.program()
        names = ["main", "flat"]
        if uses_comparison(program.classifier):
            names.append("direct")
        if len(self.formula_files) > 1:
            names.append("or")
        return names

    def predicate(self) -> Program:
        """The node predicate φ under the graph task's `exists` (for rejection sampling)."""
        program = self.program()
        assert isinstance(program.classifier, ir.Exists)
        return Program(program.palette, program.classifier.arg, ir.Kind.NODE,
                       program.names, program.filename, program.source)


@dataclass(frozen=True)
class Variant:
    """One way of compiling a task's classifier; every variant runs on the task's graphs.

    `main` is the paper's main setting (Tables 2, 3: the first formula file, De
    Morgan, the comparative expanded by Eq. 6). The ablations change one thing:
    `flat` the disjunction (Table 10), `direct` the comparative (Table 8), `or`
    the formula (RedBlueLeaf φ∨, Table 11).
    """

    name: str
    formula: int = 0
    disjunction: str = "demorgan"
    comparison: str = "expanded"


VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("main"), Variant("flat", disjunction="flat"),
    Variant("direct", comparison="direct"), Variant("or", formula=1)]}


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
