"""The plausibility metric of GracrBench (§5, App. E, App. H.1).

An explanation scores every directed edge of the whole graph. Each distinct score
value τ is a candidate threshold selecting the edges scored ≥ τ; the threshold with
the highest F1 against the UPI mask is kept, and its precision and recall are
reported. Equal scores therefore select every edge together (precision |UPI|/|E|,
as Table 2's 0.04 = 6/134 for an explainer that cannot tell edges apart).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.errors import GracrError


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
