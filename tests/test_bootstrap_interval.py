"""`gracr.stats.bootstrap_interval` and `all_successes_lower_bound` on hand-made data whose
answers are worked out by hand in each test (never by the code under test)."""

from __future__ import annotations

import pytest

from gracr.stats import all_successes_lower_bound, bootstrap_interval


def test_three_values_give_the_enumerated_quantiles() -> None:
    # Resampling [0, 3, 6] three times with replacement: the mean is the sum of three
    # draws from {0, 1, 2}, whose 27 equally likely outcomes give the sums 0..6 with
    # counts 1, 3, 6, 7, 6, 3, 1. P(mean ≤ 0) = 1/27 ≈ 0.037 < 0.05 ≤ P(mean ≤ 1) = 4/27,
    # and symmetrically at the top, so the 90 % percentile interval is [1, 5].
    interval = bootstrap_interval([0.0, 3.0, 6.0], confidence=0.9, resamples=20_000)
    assert interval is not None
    assert (interval.low, interval.high) == (1.0, 5.0)


def test_a_middle_interval_can_be_a_single_point() -> None:
    # Two values [0, 1]: the resampled mean is 0 (1/4), 0.5 (1/2) or 1 (1/4); the 30th and
    # 70th percentiles (a 40 % interval) both fall on 0.5.
    interval = bootstrap_interval([0.0, 1.0], confidence=0.4, resamples=20_000)
    assert interval is not None
    assert (interval.low, interval.high) == (0.5, 0.5)


def test_a_large_sample_matches_the_normal_interval() -> None:
    # 50 zeros and 50 ones: mean 0.5, population std 0.5, standard error 0.5/√100 = 0.05;
    # the 95 % normal interval is 0.5 ± 1.96 · 0.05 = [0.402, 0.598].
    interval = bootstrap_interval([0.0, 1.0] * 50)
    assert interval is not None
    assert interval.low == pytest.approx(0.402, abs=0.015)
    assert interval.high == pytest.approx(0.598, abs=0.015)
    assert interval.holds(0.5) and not interval.holds(0.3)


def test_groups_are_resampled_apart_and_weighted() -> None:
    # Positives all 1, negatives all 3: every resample within the classes keeps both class
    # means, so the class-balanced mean 0.5 · 1 + 0.5 · 3 = 2 has no spread...
    values, classes = [1.0, 1.0, 1.0, 3.0, 3.0], ["+", "+", "+", "-", "-"]
    balanced = bootstrap_interval(values, classes, {"+": 0.5, "-": 0.5})
    assert balanced is not None and (balanced.low, balanced.high) == (2.0, 2.0)
    # ... weighted 3:1 it is 0.75 · 1 + 0.25 · 3 = 1.5 (weights need not sum to 1) ...
    skewed = bootstrap_interval(values, classes, {"+": 3.0, "-": 1.0})
    assert skewed is not None and (skewed.low, skewed.high) == (1.5, 1.5)
    # ... while resampling the five together moves the share of 3s, and the mean with it.
    pooled = bootstrap_interval(values)
    assert pooled is not None and pooled.low < 1.8 < 2.2 < pooled.high


def test_equal_values_one_value_and_no_values() -> None:
    interval = bootstrap_interval([0.25] * 7)
    assert interval is not None and (interval.low, interval.high) == (0.25, 0.25)
    assert bootstrap_interval([]) is None
    # One value (or a group of one) has nothing to resample: no interval, not [x, x].
    assert bootstrap_interval([0.25]) is None
    assert bootstrap_interval([1.0, 2.0, 3.0], ["a", "a", "b"]) is None


def test_the_same_seed_gives_the_same_interval() -> None:
    values = [0.1, 0.4, 0.35, 0.8, 0.05, 0.6]
    assert bootstrap_interval(values) == bootstrap_interval(values)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        bootstrap_interval([1.0, 2.0], ["a"])
    with pytest.raises(ValueError):
        bootstrap_interval([1.0, 2.0, 3.0, 4.0], ["a", "a", "b", "b"], {"a": 1.0})
    with pytest.raises(ValueError):
        bootstrap_interval([1.0, 2.0], confidence=1.0)


def test_all_successes_lower_bound_by_hand() -> None:
    # n successes in n trials happen with probability p^n; the lowest p at which that is
    # still 5 %: p = 0.05^(1/n). n = 1: 0.05; n = 2: √0.05 = 0.2236; n = 30: 0.9050.
    assert all_successes_lower_bound(1) == pytest.approx(0.05)
    assert all_successes_lower_bound(2) == pytest.approx(0.2236, abs=1e-4)
    assert all_successes_lower_bound(30) == pytest.approx(0.9050, abs=1e-4)
    assert all_successes_lower_bound(10, confidence=0.9) == pytest.approx(0.1 ** 0.1)
