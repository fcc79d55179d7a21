"""Perturbation outside the motif (App. B, Figs. 8–9): does a model's answer depend on
edges the assumed ground truth says are irrelevant?

For each instance the model classifies correctly and whose class is not 0 (a motif's
instance: class 0 is the background of the synthetic benchmarks, explained by no motif),
every edge strictly outside the motif (`AuditData.outside_motif`) but inside the model's
receptive field (`gracr.bdd.upi.layers_receptive_field` of its depth) is removed, one at a
time (an edge listed in both directions is removed in both), and with `nodes` every node
outside the motif the field touches (never a node task's own node); the instance flips when
some removal changes its answer. The share is flipped / instances. A model whose receptive field
lies inside the motif (a compiled model of the rule, given its own ground truth) has
nothing to remove: its share is 0 by construction.

A node's answer is computed on the subgraph induced by the nodes its receptive field
touches: a model of depth L reads nothing farther than L hops, so the answer is the same,
and the removals run on small graphs in batches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from gracr.audit.data import AuditData
from gracr.bdd.upi import layers_receptive_field
from gracr.data.graph import Graph

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
BATCH = 256


class AuditModel(Protocol):
    """A classifier an audit can perturb: `depth` message-passing layers (its receptive
    field), `predict` a class per node of each graph (node task) or one per graph."""

    @property
    def depth(self) -> int: ...

    def predict(self, graphs: Sequence[Graph]) -> list[IntArray]: ...


@dataclass(frozen=True)
class Flip:
    """An instance whose answer changed: graph, node (None: the graph), what was removed
    (an undirected edge's two ends, or one node), the answers before and after."""

    graph: int
    node: int | None
    removed: tuple[int, ...]
    before: int
    after: int


def removal_text(removed: tuple[int, ...]) -> str:
    return f"edge {removed[0]}–{removed[1]}" if len(removed) == 2 else f"node {removed[0]}"


@dataclass(frozen=True)
class Perturbation:
    instances: int          # correctly classified motif instances examined
    flipped: int
    depth: int              # the model's layers: the receptive field perturbed
    removals: int           # single removals tried, over all instances
    examples: tuple[Flip, ...]

    @property
    def share(self) -> float:
        return self.flipped / self.instances if self.instances else 0.0


def removable(graph: Graph, field: BoolArray, outside: BoolArray) -> list[BoolArray]:
    """One keep-mask per undirected edge with a direction in `field`, both directions
    outside the motif: every edge kept but that one's directions."""
    pairs: dict[tuple[int, int], list[int]] = {}
    for e, (s, t) in enumerate(zip(graph.sources.tolist(), graph.targets.tolist())):
        pairs.setdefault((min(s, t), max(s, t)), []).append(e)
    masks = []
    for key in sorted(pairs):
        edges = pairs[key]
        if any(field[e] for e in edges) and all(outside[e] for e in edges):
            keep = np.ones(graph.num_edges, dtype=np.bool_)
            keep[edges] = False
            masks.append(keep)
    return masks


def correct_motif_instances(data: AuditData, answers: list[IntArray]
                            ) -> list[tuple[int, int | None]]:
    """The instances `answers` classify correctly whose class is not 0, as (graph, node;
    None for a graph task's graph)."""
    found: list[tuple[int, int | None]] = []
    for g, (labels, answer) in enumerate(zip(data.labels, answers)):
        correct = (labels == answer) & (labels != 0)
        if data.kind == "graph":
            if correct[0]:
                found.append((g, None))
        else:
            found.extend((g, int(v)) for v in np.flatnonzero(correct))
    return found


def _candidates(local: Graph, at: int, field: BoolArray, outside: BoolArray,
                outside_nodes: BoolArray, ends: IntArray, nodes: IntArray,
                remove_nodes: bool) -> list[tuple[tuple[int, ...], Graph, int]]:
    """Each single removal as (what is removed, in the full graph's numbering: an edge's
    two ends or one node; the graph after it; where the instance's node is in it)."""
    found: list[tuple[tuple[int, ...], Graph, int]] = []
    for keep in removable(local, field, outside):
        gone = int(np.flatnonzero(~keep)[0])
        pair = sorted((int(ends[0, gone]), int(ends[1, gone])))
        found.append(((pair[0], pair[1]), local.keep_edges(keep), at))
    if remove_nodes:
        touched = np.zeros(local.num_nodes, dtype=np.bool_)
        touched[local.sources[field]] = True
        touched[local.targets[field]] = True
        if local.target is not None:
            touched[local.target] = False   # a node task's own node stays
        for v in np.flatnonzero(touched & outside_nodes):
            keep = np.ones(local.num_nodes, dtype=np.bool_)
            keep[v] = False
            after, _ = local.keep_nodes(keep)
            found.append(((int(nodes[v]),), after,
                          at if after.target is None else after.target))
    return found


def outside_motif(data: AuditData, model: AuditModel, limit: int | None = None,
                  seed: int = 0, examples: int = 3, nodes: bool = False,
                  tick: Callable[[], None] = lambda: None) -> Perturbation:
    """The share of correctly classified motif instances (at most `limit`, a seeded
    sample) whose answer flips when one edge (with `nodes`, or one node) outside the motif
    is removed."""
    answers = model.predict(data.graphs)
    instances = correct_motif_instances(data, answers)
    if limit is not None and len(instances) > limit:
        chosen = np.random.default_rng(seed).choice(len(instances), limit, replace=False)
        instances = [instances[i] for i in sorted(chosen)]
    flipped, removals = 0, 0
    shown: list[Flip] = []
    for g, node in instances:
        graph = data.graphs[g]
        before = int(answers[g][0 if node is None else node])
        field = layers_receptive_field(graph, node, model.depth)
        if node is None:
            local, at = graph, 0
            kept, near = np.arange(graph.num_edges), np.arange(graph.num_nodes)
        else:
            mask = np.zeros(graph.num_nodes, dtype=np.bool_)
            mask[graph.sources[field]] = True
            mask[node] = True
            local, kept = graph.with_target(node).keep_nodes(mask)
            near = np.flatnonzero(mask)
            assert local.target is not None
            at = local.target
        ends = np.stack([graph.sources[kept], graph.targets[kept]])
        candidates = _candidates(local, at, field[kept], data.outside_motif(g)[kept],
                                 data.outside_motif_nodes(g)[near], ends, near, nodes)
        removals += len(candidates)
        flip: Flip | None = None
        for start in range(0, len(candidates), BATCH):
            chunk = candidates[start:start + BATCH]
            after = model.predict([c[1] for c in chunk])
            changed = [i for i, (a, c) in enumerate(zip(after, chunk)) if int(a[c[2]]) != before]
            if changed:
                i = changed[0]
                flip = Flip(g, node, chunk[i][0], before, int(after[i][chunk[i][2]]))
                break
        if flip is not None:
            flipped += 1
            if len(shown) < examples:
                shown.append(flip)
        tick()
    return Perturbation(len(instances), flipped, model.depth, removals, tuple(shown))
