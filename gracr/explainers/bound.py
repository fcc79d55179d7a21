"""Figure S8's bound (WOMBAT App. E.2): how well any explainer that scores an edge from its
two terminals' final-layer representations, as PGExplainer does (its MLP reads
`[z_i; z_j]`), could rank a molecule's atoms, when a zero representation cannot be told
from another.

WOMBAT's construction, per positive: score 1 for every ground-truth node whose last
message-passing layer's output is non-zero, and for every ground-truth node adjacent to
such a node (an edge with an active terminal can be scored as an oracle would); score 0
for every other node (an edge whose terminals are both zero is scored as unimportant);
the bound is the AUROC of these scores against the ground truth. It is loose: nothing
says PGExplainer's MLP gets the active edges right, and an edge of two zero terminals
need not be scored 0, only the same as every other such edge.

Here the ground truth is the node UPI and the representations are those PyG's
PGExplainer reads (`torch_geometric.utils.get_embeddings`: the output of the module's
last `MessagePassing` layer).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from gracr.explainers.base import Subject
from gracr.explainers.metric import ranking

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class TerminalBound:
    """One molecule's bound: the AUROC of the construction (None where the UPI holds
    every node or none), and how many of its nodes (and of its UPI's) have a non-zero
    final-layer representation."""

    auroc: float | None
    active: int
    active_in_upi: int
    nodes: int
    upi: int


def active_nodes(subject: Subject) -> BoolArray:
    """The nodes whose final-layer representation (the last `MessagePassing` layer's
    output, as PyG's PGExplainer reads it) has a non-zero entry."""
    from torch_geometric.utils import get_embeddings

    module = subject.module("surrogate")
    with torch.no_grad():
        last = get_embeddings(module, subject.x, subject.edge_index,
                              **subject.model_kwargs)[-1]
    return np.asarray((last != 0).any(dim=1).numpy(), dtype=np.bool_)


def terminal_scores(active: BoolArray, upi: BoolArray, edge_index: npt.ArrayLike
                    ) -> npt.NDArray[np.float64]:
    """The construction's node scores: 1 for a UPI node that is active or adjacent to an
    active UPI node (WOMBAT's "such a node"), 0 for every other node."""
    edges = np.asarray(edge_index)
    seeds = active & upi
    reached = seeds.copy()
    reached[edges[1][seeds[edges[0]]]] = True
    reached[edges[0][seeds[edges[1]]]] = True
    return (reached & upi).astype(np.float64)


def terminal_bound(subject: Subject, upi: BoolArray) -> TerminalBound:
    """Figure S8's bound on one positive `subject` with node ground truth `upi`."""
    active = active_nodes(subject)
    truth = np.asarray(upi, dtype=np.bool_)
    scores = terminal_scores(active, truth, subject.edge_index.numpy())
    return TerminalBound(ranking(scores, truth).auroc, int(active.sum()),
                         int((active & truth).sum()), int(truth.size), int(truth.sum()))
