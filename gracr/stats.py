"""Mean ± spread, the one way gracr summarises a sample: `Stat` (mean, standard deviation,
count, and the ddof it was computed with) and `Moments`, the sums a `Stat` is made from when
samples arrive in parts.

It sits at the bottom of the package so that every layer that summarises numbers uses it:
`gracr.explainers.metric` (per-sample metrics by class), the report engine
`gracr.bench.report` (seeds and times), and the domains' studies.

The ddof is stated at every call, because the published tables really differ:

- ddof=0 (numpy's default, the population std): the GracrBench tables (Tables 2, 3, 8-11,
  14, Figures 3 and 4, their CSV files), as every table of ours was published; the paper
  says "mean ± std over 5 seeds" and not which std, and with 5 seeds the two differ by
  √(5/4), so ours keep the convention they were published with. Times (Table 14) are
  pooled over instances the same way.
- ddof=1 (the sample std, Bessel's correction; none for one value): the tissue study
  (per-sample metrics by class, `gracr.explainers.metric.STRATUM_DDOF`; model and dataset
  seeds, `gracrc tissue-seeds`). It spreads over a few model seeds or dataset seeds, each an
  estimate of a population's spread, and its published tables were made that way.
- ddof=1, then divided by √n (`Stat.standard_error`): WOMBAT's ± column (the ranking table of
  `gracr.bench.report.ranking`), the standard error of the mean over instances, as WOMBAT
  reports it.

How far a mean can be trusted is `bootstrap_interval`, the one confidence interval the peer
studies print (WOMBAT's per-pattern means over molecules, the tissue study's over samples
and seeds): the percentile bootstrap of a mean, or of a weighted mean of group means with
each group resampled on its own (a class-balanced mean, a mean over seeds of per-seed
means). A share of successes that are all successes has no spread to resample;
`all_successes_lower_bound` says how low the rate behind n out of n can still be.

Every function here is pure (the bootstrap draws from its own seeded generator).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Stat:
    """The mean ± std of `n` values; `std` used `ddof` (`None` when `n <= ddof`: one value
    has no sample std)."""

    mean: float
    std: float | None
    n: int
    ddof: int

    @staticmethod
    def of(values: Sequence[float] | npt.NDArray[np.float64], ddof: int) -> Stat | None:
        """The mean and std (numpy's, with `ddof`) of `values`; `None` for no values."""
        array = np.asarray(values, dtype=float)
        if array.size == 0:
            return None
        std = float(array.std(ddof=ddof)) if array.size > ddof else None
        return Stat(float(array.mean()), std, int(array.size), ddof)

    @property
    def standard_error(self) -> float | None:
        """std/√n: the standard error of the mean (with ddof=1; `None` without a std)."""
        return None if self.std is None else self.std / math.sqrt(self.n)


@dataclass(frozen=True)
class Moments:
    """Count, mean and sum of squared deviations of a sample: what a `Stat` is made from when
    the sample comes in parts (a report's times, read per seed from `seeds.csv`). Two
    samples' moments merge into those of their union (Chan, Golub and LeVeque's pairwise
    update), so a `Stat` of merged parts equals the `Stat` of the whole, up to rounding."""

    n: int
    mean: float
    m2: float

    @staticmethod
    def of(values: Sequence[float]) -> Moments:
        if not values:
            return Moments(0, 0.0, 0.0)
        array = np.asarray(values, dtype=float)
        mean = float(array.mean())
        return Moments(len(values), mean, float(((array - mean) ** 2).sum()))

    def merge(self, other: Moments) -> Moments:
        if not other.n:
            return self
        if not self.n:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        return Moments(n, self.mean + delta * other.n / n,
                       self.m2 + other.m2 + delta * delta * self.n * other.n / n)

    def stat(self, ddof: int) -> Stat | None:
        """The sample's `Stat` (std with `ddof`), `None` for an empty sample."""
        if not self.n:
            return None
        std = math.sqrt(max(self.m2, 0.0) / (self.n - ddof)) if self.n > ddof else None
        return Stat(self.mean, std, self.n, ddof)


# A group's label (a model, seed, pattern or class).
Group = TypeVar("Group", bound=Hashable)

# The bootstrap's defaults: a 95 % interval from 2 000 resamples (the percentiles move by
# less than the tables' third decimal between seeds at the sample sizes the studies run),
# drawn from a fixed seed so that a report rewritten from the same records is the same.
BOOTSTRAP_CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
# Resampled values held in memory at once (resamples x values), so that a mean over ten
# thousand molecules is bootstrapped in slices rather than in one 160 MB array.
_BOOTSTRAP_CHUNK = 4_000_000


@dataclass(frozen=True)
class Interval:
    """A confidence interval [low, high] at `confidence` (0.95: 95 %)."""

    low: float
    high: float
    confidence: float

    def holds(self, value: float) -> bool:
        """Whether `value` lies inside the interval (ends included)."""
        return self.low <= value <= self.high


def bootstrap_interval(values: Sequence[float] | npt.NDArray[np.float64],
                       groups: Sequence[Hashable] | None = None,
                       weights: Mapping[Any, float] | None = None, *,
                       confidence: float = BOOTSTRAP_CONFIDENCE,
                       resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> Interval | None:
    """The percentile bootstrap interval of the mean of `values`; `None` for no values.

    With `groups` (one label per value) each group is resampled on its own, keeping its
    size, and the statistic is the weighted mean of the group means, Σ_g w_g · mean_g with
    `weights` (normalised to sum to 1; default: each group's share of the values, which is
    the plain mean). So a class-balanced mean resamples positives and negatives apart, and
    a mean over seeds of per-seed means resamples the samples within each seed: the
    interval is the sampling noise of the samples, not the spread between groups.

    Every resample's statistic is computed, and the interval is their (1 − confidence)/2
    and (1 + confidence)/2 quantiles (numpy's linear interpolation). Equal values give a
    zero-width interval: resampling cannot show what the sample never varied in. `None` when
    a group (or, without groups, the sample) has fewer than two values: one value resampled
    is itself, and its zero-width interval would claim a certainty nothing measured.
    """
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.size < 2:
        return None
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"a confidence must lie strictly between 0 and 1, not {confidence!r}")
    if resamples < 1:
        raise ValueError(f"the bootstrap needs at least one resample, not {resamples!r}")
    labels = [0] * array.size if groups is None else list(groups)
    if len(labels) != array.size:
        raise ValueError(f"{len(labels)} group labels for {array.size} values")
    members: dict[Hashable, npt.NDArray[np.int64]] = {}
    for label in dict.fromkeys(labels):
        members[label] = np.flatnonzero(np.array([other == label for other in labels]))
        if members[label].size < 2:
            return None
    if weights is None:
        shares = {label: index.size / array.size for label, index in members.items()}
    else:
        unknown = [label for label in members if label not in weights]
        if unknown:
            raise ValueError(f"no weight for group {unknown[0]!r}")
        total = sum(weights[label] for label in members)
        if total <= 0:
            raise ValueError("the groups' weights must sum to more than 0")
        shares = {label: weights[label] / total for label in members}
    generator = np.random.default_rng(seed)
    statistics = np.zeros(resamples)
    for label, index in members.items():
        rows = max(1, _BOOTSTRAP_CHUNK // index.size)
        for start in range(0, resamples, rows):
            count = min(rows, resamples - start)
            drawn = array[index][generator.integers(0, index.size, size=(count, index.size))]
            statistics[start:start + count] += shares[label] * drawn.mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(statistics, [tail, 1.0 - tail])
    return Interval(float(low), float(high), confidence)


def mean_of_means(per_group: Mapping[Group, Sequence[float | None]]
                  ) -> tuple[float, Interval | None] | None:
    """The mean over groups of each group's mean (`None` values left out, groups left
    empty dropped), every group weighted alike, with its `bootstrap_interval` (each group's
    values resampled on their own): a mean over models, seeds or patterns of a mean over
    samples or molecules. `None` when no group has a value."""
    values: list[float] = []
    labels: list[Group] = []
    for group, members in per_group.items():
        known = [float(v) for v in members if v is not None]
        values += known
        labels += [group] * len(known)
    if not values:
        return None
    groups = list(dict.fromkeys(labels))
    means = [float(np.mean([v for v, g in zip(values, labels) if g == group]))
             for group in groups]
    return (float(np.mean(means)),
            bootstrap_interval(values, labels, {group: 1.0 for group in groups}))


def all_successes_lower_bound(n: int, confidence: float = BOOTSTRAP_CONFIDENCE) -> float:
    """The one-sided lower confidence bound on a success rate after n successes in n
    trials (Clopper–Pearson's exact bound, (1 − confidence)^(1/n)): the lowest rate at which
    n out of n still happens with probability 1 − confidence. 30 of 30 perfect molecules
    leave the rate at ≥ 0.905 (95 %), 10 of 10 at ≥ 0.741; a bootstrap of n equal outcomes
    has no spread and cannot say this."""
    if n < 1:
        raise ValueError(f"a bound needs at least one trial, not {n!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"a confidence must lie strictly between 0 and 1, not {confidence!r}")
    return float((1.0 - confidence) ** (1.0 / n))
