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

Every function here is pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
