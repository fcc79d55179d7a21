"""Where a task's graphs come from: random backgrounds with planted motifs, a Python
generator, or a graph file (the `[graphs]` and `[[plant]]` tables of a task file; the
format is described in `gracr.bench.tasks`).

Where the format could be read two ways, our choices (also in
docs/benchmarking/task-files.md):

- `colors` gives each node one colour, drawn from the stated probabilities; when they sum
  below 1 the rest is "no colour". Without `colors` every palette colour is equally
  likely. `attributes` works the same per family, except that the probabilities must sum
  to 1 (a node has exactly one value of each declared family); `relations` the same per
  undirected edge (both directions share the relation). A motif's own colours, values and
  relations are kept as written.
- A Python generator is called as `function(rng, positive)` for graph tasks and
  `function(rng)` for node tasks (`rng` a `numpy.random.Generator`) and returns a `Graph`
  or a `Candidate`; a candidate that names `annotated` nodes is kept only if the task's
  node predicate φ fires exactly there (App. F's exact-annotation rule, which the paper's
  generators use), any other only when the formula's label is the one wanted.
- A graph file source takes its graphs as they are, in file order: labels by the formula,
  UPI computed; `--graphs N` takes the first N.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gracr.bench.candidates import Candidate, Rng, target_sorted
from gracr.data.generators import GRAPH_FAMILIES, check_seed
from gracr.data.graph import Graph


@dataclass(frozen=True)
class Between:
    """An integer drawn uniformly from `low..high` inclusive."""

    low: int
    high: int

    def draw(self, rng: Rng) -> int:
        return self.low if self.low == self.high else int(rng.integers(self.low, self.high + 1))


Odds = tuple[tuple[str, float], ...]


def _draw(odds: Odds, rng: Rng, size: int) -> list[str | None]:
    """`size` draws from `odds` (name, probability); the rest of the mass is `None`."""
    names = [name for name, _ in odds]
    probabilities = [p for _, p in odds]
    rest = max(0.0, 1.0 - sum(probabilities))
    chosen = rng.choice(len(names) + 1, size=size, p=np.asarray(probabilities + [rest])
                        / (sum(probabilities) + rest))
    return [names[i] if i < len(names) else None for i in chosen]


@dataclass(frozen=True)
class Plant:
    """`count` copies of `motif` per candidate, each tied to the background by `links`
    random edges (both directions)."""

    motif: Graph
    count: Between
    links: int


@dataclass(frozen=True)
class RandomGraphs:
    """Backgrounds of a random graph family, coloured (and typed) at random, with
    planted motifs."""

    family: str
    nodes: Between
    colors: Odds | None                     # None: the program has no palette
    attributes: tuple[tuple[str, Odds], ...]
    relations: Odds | None                  # None: the program declares no relations
    plants: tuple[Plant, ...]

    def draw(self, rng: Rng) -> Candidate:
        background = self.nodes.draw(rng)
        edges = GRAPH_FAMILIES[self.family](background, check_seed(int(rng.integers(2**31 - 1))))
        pairs = [(int(s), int(t)) for s, t in edges.T]
        colors = None if self.colors is None else \
            [[] if c is None else [c] for c in _draw(self.colors, rng, background)]
        attributes = {family: [str(v) for v in _draw(odds, rng, background)]
                      for family, odds in self.attributes}
        relation_of: dict[tuple[int, int], str] = {}
        total = background
        for plant in self.plants:
            motif = plant.motif
            for _ in range(plant.count.draw(rng)):
                start, total = total, total + motif.num_nodes
                if colors is not None and motif.colors is not None:
                    colors.extend(sorted(c) for c in motif.colors)
                for family in attributes:
                    attributes[family].extend(motif.attributes[family])
                for e, (s, t) in enumerate(zip(motif.sources, motif.targets)):
                    pair = (start + int(s), start + int(t))
                    pairs.append(pair)
                    if motif.relations is not None:
                        relation_of[pair] = motif.relations[e]
                for _ in range(plant.links):
                    inside = start + int(rng.integers(motif.num_nodes))
                    outside = int(rng.integers(background))
                    pairs.extend([(inside, outside), (outside, inside)])
        relations = None
        if self.relations is not None:
            undirected = sorted({(min(p), max(p)) for p in pairs if p not in relation_of})
            drawn = dict(zip(undirected, _draw(self.relations, rng, len(undirected))))
            relations = [relation_of[p] if p in relation_of else str(drawn[(min(p), max(p))])
                         for p in pairs]
        array = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return Candidate(target_sorted(total, colors, array, attributes or None, relations))


@dataclass(frozen=True)
class PythonGenerator:
    """A generator function named `module:function`."""

    reference: str
    function: Callable[..., Any] = field(compare=False, repr=False)


@dataclass(frozen=True)
class GraphFile:
    """Graphs taken as they are from a graph file."""

    path: Path
    graphs: tuple[Graph, ...] = field(compare=False, repr=False)


Source = RandomGraphs | PythonGenerator | GraphFile
