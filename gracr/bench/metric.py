"""The plausibility metric of GracrBench (§5, App. E, App. H.1).

An explanation scores every directed edge of the whole graph. Each distinct score
value τ is a candidate threshold selecting the edges scored ≥ τ; the threshold with
the highest F1 against the UPI mask is kept, and its precision and recall are
reported. Equal scores therefore select every edge together (precision |UPI|/|E|,
as Table 2's 0.04 = 6/134 for an explainer that cannot tell edges apart).

At node level (`plausibility_at("node", ...)`) the same metric scores one score per node
against the node-level UPI (`gracr.upi(..., over="nodes")`, deletion semantics).

WOMBAT's metrics (§3.3 of the WOMBAT paper) sit beside it: on a positive instance the
AUROC and average precision of the scores against the ground truth (`ranking_at`; the
AUROC is undefined, `None`, when every scored element is in the ground truth, and such
instances are left out of the macro average and counted), and on a negative instance
the IQR test (`uniform_attribution`): it passes when no score is an outlier, outside
[Q1 − 1.5·IQR, Q3 + 1.5·IQR]. Both use scikit-learn's `roc_auc_score` and
`average_precision_score` and numpy's default (linear) percentiles.
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
# Which instances are explained: the positive ones (scored against their ground truth) or
# the negative ones (the IQR test of uniformity, `uniform_attribution`).
Sample = Literal["positive", "negative"]
SAMPLES: tuple[Sample, ...] = ("positive", "negative")


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


@dataclass(frozen=True)
class Ranking:
    """How well one explanation ranks the ground truth first: AUROC and average precision
    (`None` where undefined: no element outside the ground truth, so nothing to rank
    below it)."""

    auroc: float | None
    average_precision: float | None


def ranking(scores: npt.ArrayLike, truth: npt.ArrayLike) -> Ranking:
    """AUROC and average precision of `scores` against the bool mask `truth` (WOMBAT §3.3).

    Ties count half in the AUROC (scikit-learn's, the Mann-Whitney statistic); the average
    precision is scikit-learn's step-wise sum over the distinct score values. A mask that
    holds every element (or none) leaves both undefined.
    """
    from sklearn.metrics import average_precision_score, roc_auc_score

    score_array, truth_array = _checked(scores, truth)
    relevant = int(truth_array.sum())
    if relevant == 0 or relevant == truth_array.size:
        return Ranking(None, None)
    # scikit-learn's sums can land a rounding error above 1 (1.0000000000000002).
    return Ranking(min(1.0, float(roc_auc_score(truth_array, score_array))),
                   min(1.0, float(average_precision_score(truth_array, score_array))))


def ranking_at(level: Level, scores: npt.ArrayLike, truth: npt.ArrayLike,
               target: int | None = None) -> Ranking:
    """`ranking` at `level`, leaving out the explained node of a node classifier at node
    level, as `plausibility_at` does."""
    return ranking(*_without_target(level, scores, truth, target))


def uniform_attribution(scores: npt.ArrayLike) -> bool:
    """WOMBAT's test on a negative instance (§3.3 of the WOMBAT paper, after Proszewska
    et al. 2025): no score falls outside [Q1 − 1.5·IQR, Q3 + 1.5·IQR], IQR = Q3 − Q1."""
    score_array = np.asarray(scores, dtype=np.float64).reshape(-1)
    if score_array.size == 0:
        raise GracrError("an explanation with no scores cannot be tested")
    if not np.all(np.isfinite(score_array)):
        raise GracrError("the explanation contains NaN or infinite scores")
    first, third = np.percentile(score_array, [25.0, 75.0])
    spread = third - first
    return bool(np.all((score_array >= first - 1.5 * spread)
                       & (score_array <= third + 1.5 * spread)))


def _checked(scores: npt.ArrayLike, truth: npt.ArrayLike
             ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    score_array = np.asarray(scores, dtype=np.float64).reshape(-1)
    truth_array = np.asarray(truth, dtype=np.bool_).reshape(-1)
    if score_array.shape != truth_array.shape:
        raise GracrError(f"the explanation has {score_array.size} scores but the ground "
                         f"truth has {truth_array.size}")
    if not np.all(np.isfinite(score_array)):
        raise GracrError("the explanation contains NaN or infinite scores")
    return score_array, truth_array


def plausibility_at(level: Level, scores: npt.ArrayLike, truth: npt.ArrayLike,
                    target: int | None = None) -> Plausibility:
    """`plausibility` of edge scores against the edge UPI, or of node scores against the
    node UPI.

    At node level the explained node of a node classifier (`target`) is left out of both:
    it is never deleted, so the node UPI never holds it and says nothing about it, and an
    explainer that credits the target with its own prediction is neither right nor wrong.
    """
    return plausibility(*_without_target(level, scores, truth, target))


def _without_target(level: Level, scores: npt.ArrayLike, truth: npt.ArrayLike,
                    target: int | None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The scores and the ground truth that are scored: at node level without the
    explained node of a node classifier (`plausibility_at` says why)."""
    score_array = np.asarray(scores, dtype=np.float64).reshape(-1)
    truth_array = np.asarray(truth, dtype=np.bool_).reshape(-1)
    if level == "edge" or target is None:
        return score_array, truth_array
    if score_array.shape != truth_array.shape:
        raise GracrError(f"the explanation scores {score_array.size} nodes but the node UPI "
                         f"mask has {truth_array.size}")
    others = np.arange(score_array.size) != target
    return score_array[others], truth_array[others]
