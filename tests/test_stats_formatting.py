"""The one `Stat` (`gracr.stats`) and the one number formatter (`gracr.bench.report.formatting`):
every expectation is worked out by hand in a comment."""

from __future__ import annotations

import math

import pytest

from gracr.bench.report.formatting import CSV, DAGGER, FINE, LATEX, PAPER, TABLE, NumberFormat
from gracr.stats import Moments, Stat


def test_the_ddof_is_the_callers() -> None:
    # 1 2 3 4: mean 2.5, squared deviations 2.25 .25 .25 2.25 = 5; std sqrt(5/4) with ddof 0,
    # sqrt(5/3) with ddof 1, whose standard error is sqrt(5/3)/2.
    population = Stat.of([1.0, 2.0, 3.0, 4.0], 0)
    sample = Stat.of([1.0, 2.0, 3.0, 4.0], 1)
    assert population == Stat(2.5, pytest.approx(math.sqrt(5 / 4)), 4, 0)
    assert sample == Stat(2.5, pytest.approx(math.sqrt(5 / 3)), 4, 1)
    assert sample.standard_error == pytest.approx(math.sqrt(5 / 3) / 2)
    assert Stat.of([], 0) is None
    # One value: a population std of 0, no sample std.
    assert Stat.of([0.7], 0) == Stat(0.7, 0.0, 1, 0)
    assert Stat.of([0.7], 1) == Stat(0.7, None, 1, 1)


def test_moments_merge_into_those_of_the_whole() -> None:
    # 1 2 | 3 4: each part mean 1.5 and 3.5, m2 0.5; merged: n 4, mean 2.5, m2 5 (as above).
    merged = Moments.of([1.0, 2.0]).merge(Moments.of([3.0, 4.0]))
    assert (merged.n, merged.mean, merged.m2) == (4, 2.5, pytest.approx(5.0))
    assert merged.merge(Moments.of([])) == merged == Moments.of([]).merge(merged)
    assert merged.stat(1) == Stat(2.5, pytest.approx(math.sqrt(5 / 3)), 4, 1)
    assert Moments.of([]).stat(0) is None


def test_each_table_writes_numbers_its_way() -> None:
    stat = Stat(0.125, 0.0625, 5, 0)
    assert PAPER.stat(stat) == "0.12 ± 0.06"            # round half to even: 0.125 -> 0.12
    assert PAPER.stat(stat, DAGGER) == "0.12 ± 0.06 †"
    assert PAPER.stat(None) == "-" and TABLE.stat(None) == "–"
    assert LATEX.stat(stat) == "0.12 \\pm 0.06"
    assert TABLE.stat(Stat(0.5, None, 1, 1)) == "0.500"  # no std: the mean alone
    assert PAPER.signed(0.05) == "+0.05" and PAPER.signed(-0.5) == "-0.50"
    assert CSV.number(1 / 3) == "0.333333" and CSV.number(None) == ""
    assert FINE.number(1.0) == "1.000000"
    assert NumberFormat(0, "–").percent(0.804) == "80%"
    assert TABLE.mean_pm(0.5, 0.25) == "0.500 ± 0.250"
