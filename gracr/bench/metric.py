"""The plausibility metric of GracrBench (§5, App. E, App. H.1).

An explanation scores every directed edge of the whole graph. Each distinct score
value τ is a candidate threshold selecting the edges scored ≥ τ; the threshold with
the highest F1 against the UPI mask is kept, and its precision and recall are
reported. Equal scores therefore select every edge together (precision |UPI|/|E|,
as Table 2's 0.04 = 6/134 for an explainer that cannot tell edges apart).

At node level (`plausibility_at("node", ...)`) the same metric scores one score per node
against the node-level UPI (`gracr.upi(..., over="nodes")`, deletion semantics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from gracr.errors import GracrError

# What an explanation scores and is scored on: its edges (the paper's benchmark) or its nodes.
Level = Literal["edge", "node"]
LEVELS: tuple[Level, ...] = ("edge", "node")


@dataclass(frozen=True)
class Plausibility:
    """The best-F1 point of one explanation: its precision, recall, F1 and threshold."""

    precision: float
    recall: float
    f1: float
    threshold: float


def plausibility(scores: npt.ArrayLike, upi_mask: npt.ArrayLike) -> Plausibility:
    """Precision and recall at the threshold maximising F1 against `upi_mask`.

    Ties between thresholds of equal F1 go to the higher threshold (the sparser
    explanation). The lowest threshold selects every edge, with recall 1, so on a
    positive target (non-empty UPI) the best F1 is always positive.
    """
    score_array = np.asarray(scores, dtype=np.float64).reshape(-1)
    truth = np.asarray(upi_mask, dtype=np.bool_).reshape(-1)
    if score_array.size == 0:
        raise GracrError("an explanation with no edge scores cannot be scored "
                         "(the graph has no edges, or the explainer returned nothing)")
    if score_array.shape != truth.shape:
        raise GracrError(f"the explanation scores {score_array.size} edges but the UPI mask "
                         f"has {truth.size}")
    if not np.all(np.isfinite(score_array)):
        raise GracrError("the explanation contains NaN or infinite scores")
    relevant = int(truth.sum())
    if relevant == 0:
        raise GracrError("the UPI mask is empty: only positive targets are scored (§5)")
    # Sort by decreasing score; at the last position of each run of equal scores,
    # the prefix is exactly the set selected by threshold = that score.
    order = np.argsort(-score_array, kind="stable")
    sorted_scores = score_array[order]
    hits = np.cumsum(truth[order])
    run_ends = np.flatnonzero(np.append(sorted_scores[1:] != sorted_scores[:-1], True))
    selected = run_ends + 1
    true_positives = hits[run_ends]
    precision = true_positives / selected
    recall = true_positives / relevant
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(true_positives > 0, 2 * precision * recall / (precision + recall), 0.0)
    best = int(np.argmax(f1))  # first maximum = highest threshold among equals
    return Plausibility(float(precision[best]), float(recall[best]), float(f1[best]),
                        float(sorted_scores[run_ends[best]]))


def plausibility_at(level: Level, scores: npt.ArrayLike, truth: npt.ArrayLike,
                    target: int | None = None) -> Plausibility:
    """`plausibility` of edge scores against the edge UPI, or of node scores against the
    node UPI.

    At node level the explained node of a node classifier (`target`) is left out of both:
    it is never deleted, so the node UPI never holds it and says nothing about it, and an
    explainer that credits the target with its own prediction is neither right nor wrong.
    """
    if level == "edge" or target is None:
        return plausibility(scores, truth)
    score_array = np.asarray(scores, dtype=np.float64).reshape(-1)
    truth_array = np.asarray(truth, dtype=np.bool_).reshape(-1)
    if score_array.shape != truth_array.shape:
        raise GracrError(f"the explanation scores {score_array.size} nodes but the node UPI "
                         f"mask has {truth_array.size}")
    others = np.arange(score_array.size) != target
    return plausibility(score_array[others], truth_array[others])
