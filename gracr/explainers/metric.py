"""The plausibility metric of GracrBench (§5, App. E, App. H.1).

An explanation scores every directed edge of the whole graph. Each distinct score
value τ is a candidate threshold selecting the edges scored ≥ τ; the threshold with
the highest F1 against the UPI mask is kept, and its precision and recall are
reported. Equal scores therefore select every edge together (precision |UPI|/|E|,
as Table 2's 0.04 = 6/134 for an explainer that cannot tell edges apart).

At node level (`plausibility_at("node", ...)`) the same metric scores one score per node
against the node-level UPI (`gracr.ground_truth(..., over="nodes")`, deletion semantics).

WOMBAT's metrics (§3.3 of the WOMBAT paper) sit beside it: on a positive instance the
AUROC and average precision of the scores against the ground truth (`ranking_at`; the
AUROC is undefined, `None`, when every scored element is in the ground truth, and such
instances are left out of the macro average and counted), and on a negative instance
the IQR test (`uniform_attribution`): it passes when no score is an outlier, outside
[Q1 − 1.5·IQR, Q3 + 1.5·IQR]. Both use scikit-learn's `roc_auc_score` and
`average_precision_score` and numpy's default (linear) percentiles.

The tissue study's attribution metrics score one (signed) attribution per node, on any task:

- the average precision of the scores against the counterfactual set: `ranking` (or
  `ranking_at`, which leaves out a node classifier's target), with the set as the mask;
- `signed_rank_correlation`: Spearman's ρ between the scores and a signed relevance vector
  (Banzhaf or Shapley values), signs kept on both sides;
- `decoy_mass`: the share of the total |attribution| that lies on decoy cells;
- `deletion_curve` and `insertion_curve`: the model's pre-threshold output as the top-scored
  nodes are removed from the whole graph (lower area is better) or added to the empty one
  (higher area is better), and the area under each by the trapezoid rule;
- `stratified`: a per-sample metric's mean, std and count (a `gracr.stats.Stat`, with
  `STRATUM_DDOF`) over the positives, the negatives, both pooled, and both weighted by a
  split's class balance; `between_class_share`: the share of its variance that lies between
  the two classes (a one-way ANOVA);
- over seeds, nothing new: `gracr.stats.Stat.of(values, ddof)`, as every report summarises;
  the study applies it once to model seeds and once to dataset seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from gracr.errors import GracrError
from gracr.stats import Stat

# What an explanation scores and is scored on: its edges (the paper's benchmark) or its nodes.
Level = Literal["edge", "node"]
LEVELS: tuple[Level, ...] = ("edge", "node")
# Which instances are explained: the positive ones (scored against their ground truth) or
# the negative ones (the IQR test of uniformity, `uniform_attribution`).
Sample = Literal["positive", "negative"]
SAMPLES: tuple[Sample, ...] = ("positive", "negative")

# The tissue study's attribution metrics.
# Deletion and insertion curves: steps when none are asked for; None means one step per
# player (every node that may be removed), the finest curve there is.
CURVE_STEPS: int | None = None
# Class-stratified summaries: the std of a class, of the pooled samples and of the
# class-balanced mixture is the sample std (Bessel's correction), undefined below two values.
STRATUM_DDOF = 1


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


# ------------------------------------------------------------ the tissue study's metrics


def signed_rank_correlation(scores: npt.ArrayLike, relevance: npt.ArrayLike, *,
                            players: npt.ArrayLike | None = None) -> float | None:
    """Spearman's ρ between an explanation's node scores and a signed relevance vector
    (Banzhaf or Shapley values): how well the explanation orders the nodes from most
    helpful to the prediction to most harmful, as their values do.

    Signs are kept on both sides: the relevance puts a harmful node (negative value) below an
    irrelevant one (0), and an explanation that ranked by |score| would put it on top. Ties
    take their average rank (scipy's `spearmanr`). `players` (a bool mask, default every
    node) leaves out the other nodes, e.g. a node task's target. `None` when either vector
    is constant over the players, a single player included: ρ is then 0/0, undefined.
    """
    from scipy.stats import spearmanr

    score_array = _attribution(scores)
    relevance_array = _attribution(relevance, "relevance vector")
    _same_size(score_array, relevance_array, "relevance vector")
    kept = _players(players, score_array.size)
    score_array, relevance_array = score_array[kept], relevance_array[kept]
    if _constant(score_array) or _constant(relevance_array):
        return None
    rho = float(spearmanr(score_array, relevance_array).statistic)
    return min(1.0, max(-1.0, rho))   # a rounding error can land outside [-1, 1]


def decoy_mass(scores: npt.ArrayLike, decoy_mask: npt.ArrayLike, *,
               players: npt.ArrayLike | None = None) -> float | None:
    """The share of the total |attribution| that lies on decoys (cells the rule cannot see
    that look like the ones it counts): 0 is best, the share of decoys among the nodes is
    what a uniform attribution gets.

    Absolute values: a negative score on a decoy claims as much about it as a positive one.
    `players` (a bool mask, default every node) leaves out the other nodes, e.g. a node
    task's target. `None` when every score is 0: there is no attribution to share.
    """
    score_array = _attribution(scores)
    decoys = np.asarray(decoy_mask, dtype=np.bool_).reshape(-1)
    _same_size(score_array, decoys, "decoy mask")
    kept = _players(players, score_array.size)
    magnitude = np.abs(score_array[kept])
    total = float(magnitude.sum())
    if total == 0:
        return None
    return min(1.0, float(magnitude[decoys[kept]].sum()) / total)


# The model's pre-threshold output (a trained model's logit, a compiled model's output unit
# before its activation) on the graphs induced by K kept-masks over the N nodes, in one batch:
# bool[K, N] -> float[K].
Output = Callable[[npt.NDArray[np.bool_]], npt.ArrayLike]


@dataclass(frozen=True)
class Curve:
    """A deletion or insertion curve: the model's output (`values`) at each fraction of the
    players removed or added so far (`fractions`, from 0 to 1), and the area under it by the
    trapezoid rule (`auc`), which is the output averaged over the fractions."""

    fractions: tuple[float, ...]
    values: tuple[float, ...]
    auc: float


def deletion_curve(scores: npt.ArrayLike, output: Output, *, steps: int | None = CURVE_STEPS,
                   players: npt.ArrayLike | None = None) -> Curve:
    """The model's output as the players are removed from the whole graph, top-scored first.

    A faithful explanation names first the nodes the output rests on, so the output falls
    fast: the lower the area, the better. The order is by descending score, signed (a node
    scored as harmful goes last), ties in ascending node index (a stable sort). With m
    players and k = `steps` (None: k = m, one node per step; more than m: capped at m), step
    j = 0..k removes the first ⌊j·m/k⌋ players, so the first point is the whole graph and
    the last has no player left; the fractions are those counts over m. `players` (a bool
    mask, default every node) are the nodes that may be removed: the others, e.g. a node
    task's target, stay in every graph. `output` is called once, with all k + 1 masks.
    """
    return _curve(scores, output, steps, players, deletion=True)


def insertion_curve(scores: npt.ArrayLike, output: Output, *, steps: int | None = CURVE_STEPS,
                    players: npt.ArrayLike | None = None) -> Curve:
    """The model's output as the players are added to the empty graph, top-scored first.

    The mirror of `deletion_curve` (same order, steps and `players`): the first point has no
    player (only the nodes outside `players`), the last is the whole graph. A faithful
    explanation names first the nodes that build the output up: the higher the area, the
    better.
    """
    return _curve(scores, output, steps, players, deletion=False)


def _curve(scores: npt.ArrayLike, output: Output, steps: int | None,
           players: npt.ArrayLike | None, *, deletion: bool) -> Curve:
    score_array = _attribution(scores)
    player_mask = _players(players, score_array.size)
    candidates = np.flatnonzero(player_mask)          # ascending node index
    order = candidates[np.argsort(-score_array[candidates], kind="stable")]
    size = order.size
    if size == 0:
        raise GracrError("no node may be removed or added: the players mask is empty")
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int)
                              or steps < 1):
        raise GracrError(f"steps must be a positive whole number or None, not {steps!r}")
    k = size if steps is None else min(steps, size)
    counts = np.arange(k + 1) * size // k              # 0 = ⌊0·m/k⌋ < ... < ⌊k·m/k⌋ = m
    rank = np.full(score_array.size, size)            # the place of each player in the order
    rank[order] = np.arange(size)
    if deletion:
        kept = (rank[None, :] >= counts[:, None]) | ~player_mask[None, :]
    else:
        kept = (rank[None, :] < counts[:, None]) | ~player_mask[None, :]
    values = np.asarray(output(kept), dtype=np.float64).reshape(-1)
    if values.size != k + 1:
        raise GracrError(f"the model's output gave {values.size} values for {k + 1} graphs "
                         "(one float per kept-mask is expected)")
    if not np.all(np.isfinite(values)):
        raise GracrError("the model's output contains NaN or infinite values")
    fractions = counts / size
    auc = float(np.sum(np.diff(fractions) * (values[1:] + values[:-1]) / 2))
    return Curve(tuple(float(f) for f in fractions), tuple(float(v) for v in values), auc)


@dataclass(frozen=True)
class Stratified:
    """A per-sample metric over the positives, the negatives, all of them (`pooled`, the
    plain mean over samples) and both classes at a split's class balance (`balanced`, see
    `stratified`); each a `Stat` with `STRATUM_DDOF` (its std `None` below two samples), `None`
    without a sample; `left_out` counts the samples whose metric is undefined (`None`)."""

    positive: Stat | None
    negative: Stat | None
    pooled: Stat | None
    balanced: Stat | None
    positive_share: float
    left_out: int


def stratified(values: Sequence[float | None], classes: Sequence[Sample],
               positive_share: float) -> Stratified:
    """A per-sample metric by class, pooled, and at the class balance of a split.

    Positives and negatives can differ in kind (a positive has a counterfactual set, a
    negative often none), so a pooled mean depends on how many of each were explained.
    `balanced` removes that: its mean is the mean of the two class means weighted by the
    split's class proportions, `positive_share`·mean₊ + (1 − `positive_share`)·mean₋ (e.g.
    `positive_share` = the test split's share of positives). Its std is that of the samples
    reweighted to the same proportions (weight `positive_share`/n₊ on each positive and
    (1 − `positive_share`)/n₋ on each negative, with Bessel's n/(n − 1), n the samples of a
    class of non-zero share), so that at `positive_share` = n₊/(n₊ + n₋) it is exactly the
    pooled mean and std; it is undefined (`None`) when a class of non-zero share has no
    sample. Samples whose metric is `None` are left out of everything and counted.
    """
    present, positive = _by_class(values, classes)
    share = float(positive_share)
    if not 0.0 <= share <= 1.0:
        raise GracrError(f"the share of positives must lie in [0, 1], not {positive_share!r}")
    left_out = len(values) - present.size
    values_pos, values_neg = present[positive], present[~positive]
    weights = np.where(positive, share / max(values_pos.size, 1),
                       (1.0 - share) / max(values_neg.size, 1))
    balanced: Stat | None = None   # a class of non-zero share has no sample
    if (share == 0 or values_pos.size) and (share == 1 or values_neg.size):
        weighted = present[weights > 0]
        weights = weights[weights > 0]
        mean = float(np.sum(weights * weighted))
        n = weighted.size
        std = (math.sqrt(n / (n - STRATUM_DDOF) * float(np.sum(weights * (weighted - mean) ** 2)))
               if n > STRATUM_DDOF else None)
        balanced = Stat(mean, std, n, STRATUM_DDOF)
    return Stratified(Stat.of(values_pos, STRATUM_DDOF), Stat.of(values_neg, STRATUM_DDOF),
                      Stat.of(present, STRATUM_DDOF), balanced, share, left_out)


def between_class_share(values: Sequence[float | None],
                        classes: Sequence[Sample]) -> float | None:
    """The share of a per-sample quantity's variance that lies between the two classes: the
    between-class sum of squares over the total sum of squares (one-way ANOVA,
    Σ_c n_c (mean_c − mean)² / Σ_i (x_i − mean)²).

    Near 1, a pooled mean (say of a paired difference between two explainers) mostly reports
    how the classes differ, not how the samples do. Samples whose value is `None` are left
    out. `None` when fewer than two values remain or all are equal (no variance to share).
    """
    present, positive = _by_class(values, classes)
    if present.size < 2 or _constant(present):
        return None
    mean = present.mean()
    total = float(np.sum((present - mean) ** 2))
    between = sum(part.size * float((part.mean() - mean) ** 2)
                  for part in (present[positive], present[~positive]) if part.size)
    return min(1.0, between / total)


def _attribution(values: npt.ArrayLike, what: str = "explanation"
                 ) -> npt.NDArray[np.float64]:
    """One score per node, checked: at least one, all finite."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.size == 0:
        raise GracrError(f"the {what} has no node scores (an empty graph, or the explainer "
                         "returned nothing)")
    if not np.all(np.isfinite(array)):
        raise GracrError(f"the {what} contains NaN or infinite scores")
    return array


def _same_size(scores: npt.NDArray[np.float64], other: npt.NDArray[np.generic],
               what: str) -> None:
    if other.size != scores.size:
        raise GracrError(f"the explanation scores {scores.size} nodes but the {what} has "
                         f"{other.size}")


def _constant(values: npt.NDArray[np.float64]) -> bool:
    """Every value equal (none or one included): nothing to rank, no variance."""
    return values.size == 0 or bool(values.min() == values.max())


def _players(players: npt.ArrayLike | None, size: int) -> npt.NDArray[np.bool_]:
    """The nodes that are scored (and may be removed or added): `players`, default all."""
    if players is None:
        return np.ones(size, dtype=np.bool_)
    mask = np.asarray(players, dtype=np.bool_).reshape(-1)
    if mask.size != size:
        raise GracrError(f"the explanation scores {size} nodes but the players mask has "
                         f"{mask.size}")
    return mask


def _by_class(values: Sequence[float | None], classes: Sequence[Sample]
              ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The defined values, and which of them are positives."""
    if len(values) != len(classes):
        raise GracrError(f"{len(values)} metric values but {len(classes)} classes")
    if len(values) == 0:
        raise GracrError("no sample to summarise")
    unknown = sorted({str(c) for c in classes} - set(SAMPLES))
    if unknown:
        raise GracrError(f"unknown classes {unknown}: each sample is one of {list(SAMPLES)}")
    kept = [(float(v), c == "positive") for v, c in zip(values, classes) if v is not None]
    present = np.array([v for v, _ in kept], dtype=np.float64)
    if not np.all(np.isfinite(present)):
        raise GracrError("a metric value is NaN or infinite (an undefined one is None)")
    return present, np.array([p for _, p in kept], dtype=np.bool_)
