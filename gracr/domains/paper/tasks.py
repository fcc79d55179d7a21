"""The graph generators of the paper's six GracrBench tasks (App. F).

Each task file in `gracr/formulas/` names its generator here (`generator =
"gracr.domains.paper.tasks:redundancy"`). Graph tasks draw a positive or a negative
candidate and name where the task's node predicate φ must fire (the exact-annotation
rule); node tasks draw whole graphs, whose labels are the formula's.

The random parts run in numba kernels (`gracr.data.generators`: the Barabási–Albert
background and its colours; `gracr.data.motifs`: anchors and planted motifs), each
seeded from the numpy `Generator` (three seeds per candidate), so a task's graphs are a
pure function of (task, seed) on any machine. Kernels work on colour indices; here
they are mapped to each task's colour names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gracr.bench.candidates import Candidate, Rng, target_sorted
from gracr.data.generators import barabasi_albert_edges, uniform_colours
from gracr.data.graph import Graph, IntArray
from gracr.data.motifs import plant_chains, plant_hub


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
    """The graph: colour indices named, planted `pairs` listed in both directions."""
    edges = background_edges.T
    if pairs is not None and len(pairs):
        edges = np.concatenate([edges, pairs, pairs[:, ::-1]], axis=0)
    return target_sorted(len(colours), [[names[c]] for c in colours], edges)


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
    return Candidate(_graph(_RED_BLUE_GREEN, colours, edges, pairs))


def majority(rng: Rng) -> Candidate:
    """Majority1Hop / Majority2Hop: BA(500), colours uniform over red, blue, green."""
    seeds = _Seeds.draw(rng)
    edges, colours = _background(seeds, 500, 3)
    return Candidate(_graph(_RED_BLUE_GREEN, colours, edges))
