"""The tissue study's attribution metrics (`gracr.explainers.metric`): every expectation is
worked out by hand in a comment, never by the code under test."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gracr.explainers.metric import (Curve, Output, Sample, between_class_share, decoy_mass,
                                deletion_curve, insertion_curve, ranking, ranking_at,
                                signed_rank_correlation, stratified)
from gracr.stats import Moments, Stat
from gracr.errors import GracrError


def additive(weights: list[float]) -> tuple[list[npt.NDArray[np.bool_]], Output]:
    """A toy model whose output is the sum of the kept nodes' weights, `kept @ w`; it also
    records the masks it was called with."""
    calls: list[npt.NDArray[np.bool_]] = []
    w = np.asarray(weights, dtype=float)

    def output(kept: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        calls.append(kept.copy())
        return np.asarray(kept @ w, dtype=np.float64)

    return calls, output


def classes(positives: int, negatives: int) -> list[Sample]:
    positive: list[Sample] = ["positive"]
    negative: list[Sample] = ["negative"]
    return positive * positives + negative * negatives


def close(stat: Stat | None, mean: float, std: float | None, n: int) -> bool:
    """`stat` is (mean, std, n) with ddof 1 (`STRATUM_DDOF`), up to rounding."""
    def same(a: float | None, b: float | None) -> bool:
        return a is None if b is None else a is not None and math.isclose(a, b)
    return (stat is not None and same(stat.mean, mean) and same(stat.std, std)
            and stat.n == n and stat.ddof == 1)


# ---------------------------------------------------- AP against the counterfactual set


def test_average_precision_against_the_counterfactual_set() -> None:
    # Ranked 0.9 (in), 0.8 (out), 0.1 (in): precision 1/1 at recall 1/2, then 2/3 at
    # recall 1: AP = (1/1 + 2/3) / 2 = 5/6.
    assert ranking([0.9, 0.8, 0.1], [1, 0, 1]).average_precision == pytest.approx(5 / 6)


def test_average_precision_keeps_the_sign_of_the_scores() -> None:
    # Ranked 2.0 (in), 0.0 (in), -0.5, -3.0: both members first, AP = 1. Ranking by |score|
    # would give 3 (out), 2 (in), 0.5 (out), 0 (in): (1/2 + 2/4) / 2 = 0.5.
    assert ranking([-0.5, 2.0, -3.0, 0.0], [0, 1, 0, 1]).average_precision == 1.0


def test_average_precision_of_an_empty_counterfactual_set_is_undefined() -> None:
    # A negative with no counterfactual set: nothing to rank first.
    assert ranking([0.3, 0.1], [0, 0]).average_precision is None


def test_average_precision_without_a_node_tasks_target() -> None:
    # Target 0 left out: 0.9 (in) above 0.1 and 0.8, AP = 1. With it, 5.0 (out) comes
    # first: (1/2) / 1 = 0.5.
    assert ranking_at("node", [5.0, 0.9, 0.1, 0.8], [0, 1, 0, 0], target=0) \
        .average_precision == 1.0
    assert ranking([5.0, 0.9, 0.1, 0.8], [0, 1, 0, 0]).average_precision == pytest.approx(0.5)


# ---------------------------------------------------------------- Spearman, signed


def test_a_reversed_ranking_correlates_minus_one() -> None:
    assert signed_rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_one_swap_in_four() -> None:
    # Ranks 1 2 4 3 against 1 2 3 4: Σd² = 2, ρ = 1 − 6·2 / (4·(16 − 1)) = 1 − 12/60 = 0.8.
    assert signed_rank_correlation([0.1, 0.2, 0.4, 0.3], [1, 2, 3, 4]) == pytest.approx(0.8)


def test_signs_are_kept() -> None:
    # Signed: -3 < -1 < 2 orders like -0.5 < 0 < 0.7, ρ = 1. By |score| the ranks would be
    # 3 1 2 against 1 2 3: Σd² = 4 + 1 + 1 = 6, ρ = 1 − 36/24 = -0.5.
    assert signed_rank_correlation([-3, -1, 2], [-0.5, 0.0, 0.7]) == pytest.approx(1.0)


def test_ties_take_their_average_rank() -> None:
    # Ranks 1.5 1.5 3 against 1 2 3; centred: (-.5, -.5, 1) and (-1, 0, 1); covariance
    # 0.5 + 0 + 1 = 1.5 over sqrt(1.5 · 2) = sqrt(3): ρ = sqrt(3)/2.
    assert signed_rank_correlation([1, 1, 2], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)


def test_a_constant_vector_has_no_rank_correlation() -> None:
    assert signed_rank_correlation([0.5, 0.5, 0.5], [1, 2, 3]) is None
    assert signed_rank_correlation([1, 2, 3], [0, 0, 0]) is None   # e.g. no support
    assert signed_rank_correlation([1.0], [2.0]) is None


def test_rank_correlation_over_the_players() -> None:
    # Without node 0: 1 2 3 against 3 2 1, ρ = -1. With it: ranks 4 1 2 3 against
    # 4 3 2 1, Σd² = 0 + 4 + 0 + 4 = 8, ρ = 1 − 48/60 = 0.2.
    scores, relevance = [9, 1, 2, 3], [5, 3, 2, 1]
    assert signed_rank_correlation(scores, relevance, players=[0, 1, 1, 1]) == \
        pytest.approx(-1.0)
    assert signed_rank_correlation(scores, relevance) == pytest.approx(0.2)


# ---------------------------------------------------------------- decoy mass


def test_decoy_mass_by_hand() -> None:
    # |scores| = 1 1 2 0, total 4, the decoy holds 1: 1/4.
    assert decoy_mass([1, -1, 2, 0], [0, 1, 0, 0]) == pytest.approx(0.25)


def test_decoy_mass_over_the_players() -> None:
    # Node 2 left out: total 1 + 1 + 0 = 2, the decoy holds 1: 1/2.
    assert decoy_mass([1, -1, 2, 0], [0, 1, 0, 0], players=[1, 1, 0, 1]) == pytest.approx(0.5)


def test_decoy_mass_of_a_null_attribution_is_undefined() -> None:
    assert decoy_mass([0, 0, 0], [1, 0, 0]) is None


# ---------------------------------------------------------------- deletion and insertion


def test_deletion_curve_on_an_additive_model() -> None:
    # w = 3 1 2, scores order the nodes 0, 2, 1. Removing them one by one leaves
    # 6, 3, 1, 0 at fractions 0, 1/3, 2/3, 1. AUC = 1/3 · ((6+3)/2 + (3+1)/2 + (1+0)/2)
    # = 1/3 · 7 = 7/3.
    calls, output = additive([3, 1, 2])
    curve = deletion_curve([0.9, 0.1, 0.5], output)
    assert curve.values == (6.0, 3.0, 1.0, 0.0)
    assert curve.fractions == pytest.approx((0, 1 / 3, 2 / 3, 1))
    assert curve.auc == pytest.approx(7 / 3)
    # One batched call with every kept-mask, top-ranked removed first.
    assert len(calls) == 1
    assert calls[0].tolist() == [[True, True, True], [False, True, True],
                                 [False, True, False], [False, False, False]]


def test_insertion_curve_on_the_same_model() -> None:
    # Adding 0, 2, 1 to the empty graph: 0, 3, 5, 6. AUC = 1/3 · ((0+3)/2 + (3+5)/2 +
    # (5+6)/2) = 1/3 · 11 = 11/3.
    _, output = additive([3, 1, 2])
    curve = insertion_curve([0.9, 0.1, 0.5], output)
    assert curve.values == (0.0, 3.0, 5.0, 6.0)
    assert curve.auc == pytest.approx(11 / 3)


def test_a_given_number_of_steps() -> None:
    # 4 nodes in 2 steps: remove 0, 2, 4 (⌊j·4/2⌋). w = 4 3 2 1 ranked as is: 10, 3, 0 at
    # 0, 1/2, 1. AUC = 1/2 · (10+3)/2 + 1/2 · (3+0)/2 = 3.25 + 0.75 = 4.
    _, output = additive([4, 3, 2, 1])
    curve = deletion_curve([4, 3, 2, 1], output, steps=2)
    assert curve.fractions == (0.0, 0.5, 1.0)
    assert curve.values == (10.0, 3.0, 0.0)
    assert curve.auc == pytest.approx(4.0)


def test_steps_that_do_not_divide_the_nodes() -> None:
    # 3 nodes in 2 steps: remove ⌊0⌋ = 0, ⌊3/2⌋ = 1, 3 at fractions 0, 1/3, 1. w = 3 1 2,
    # order 0, 2, 1: 6, 3, 0. AUC = 1/3 · (6+3)/2 + 2/3 · (3+0)/2 = 1.5 + 1 = 2.5.
    _, output = additive([3, 1, 2])
    curve = deletion_curve([0.9, 0.1, 0.5], output, steps=2)
    assert curve.fractions == pytest.approx((0, 1 / 3, 1))
    assert curve.values == (6.0, 3.0, 0.0)
    assert curve.auc == pytest.approx(2.5)


def test_more_steps_than_nodes_is_one_step_per_node() -> None:
    _, output = additive([3, 1, 2])
    assert deletion_curve([0.9, 0.1, 0.5], output, steps=20) == \
        deletion_curve([0.9, 0.1, 0.5], output)


def test_ties_go_in_node_order() -> None:
    # Scores 1 1 0: order 0, 1, 2. w = 1 2 4: 7, 6, 4, 0 (node 1 first would give 7, 5, ...).
    _, output = additive([1, 2, 4])
    assert deletion_curve([1, 1, 0], output).values == (7.0, 6.0, 4.0, 0.0)


def test_negative_scores_go_last() -> None:
    # Scores -1, 0.5, -0.2: order 1, 2, 0 (by |score| it would be 0 first). w = 1 2 4:
    # 7, 5, 1, 0.
    _, output = additive([1, 2, 4])
    assert deletion_curve([-1, 0.5, -0.2], output).values == \
        (7.0, 5.0, 1.0, 0.0)


def test_nodes_outside_the_players_stay() -> None:
    # Node 1 (a node task's target, w 10) is never removed or added, whatever its score.
    # Players 0 and 2, order 2, 0. Deletion: 13, 11, 10 at 0, 1/2, 1; AUC = 1/2 · 24/2 +
    # 1/2 · 21/2 = 11.25. Insertion from the target alone: 10, 12, 13; AUC = 1/2 · 22/2 +
    # 1/2 · 25/2 = 11.75.
    _, output = additive([1, 10, 2])
    scores, players = [0.5, 100.0, 0.9], [True, False, True]
    deletion = deletion_curve(scores, output, players=players)
    insertion = insertion_curve(scores, output, players=players)
    assert deletion == Curve((0.0, 0.5, 1.0), (13.0, 11.0, 10.0), 11.25)
    assert insertion == Curve((0.0, 0.5, 1.0), (10.0, 12.0, 13.0), 11.75)


def test_curve_errors() -> None:
    _, output = additive([1, 2])
    with pytest.raises(GracrError, match="players mask is empty"):
        deletion_curve([1, 2], output, players=[0, 0])
    with pytest.raises(GracrError, match="players mask has 3"):
        deletion_curve([1, 2], output, players=[1, 1, 1])
    with pytest.raises(GracrError, match="steps"):
        deletion_curve([1, 2], output, steps=0)
    with pytest.raises(GracrError, match="gave 1 values for 3 graphs"):
        deletion_curve([1, 2], lambda kept: np.zeros(1))
    with pytest.raises(GracrError, match="NaN"):
        insertion_curve([1, 2], lambda kept: np.full(len(kept), np.nan))
    with pytest.raises(GracrError, match="no node scores"):
        insertion_curve([], output)


positive_weights = st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(positive_weights.flatmap(lambda w: st.tuples(
    st.just(w), st.lists(st.floats(-10, 10, allow_nan=False), min_size=len(w),
                         max_size=len(w)))),
    st.one_of(st.none(), st.integers(1, 10)))
def test_the_true_ranking_is_the_best(weights_and_scores: tuple[list[float], list[float]],
                                      steps: int | None) -> None:
    # On an additive model with non-negative weights, ranking by the weights removes the
    # heaviest nodes first: at every step the output is the lowest any ranking can reach
    # (deletion) and adding them first the highest (insertion).
    weights, scores = weights_and_scores
    _, output = additive(weights)
    assert deletion_curve(weights, output, steps=steps).auc <= \
        deletion_curve(scores, output, steps=steps).auc + 1e-9
    assert insertion_curve(weights, output, steps=steps).auc >= \
        insertion_curve(scores, output, steps=steps).auc - 1e-9


# ---------------------------------------------------------------- by class


def test_stratified_by_hand() -> None:
    # Positives 1 3 (one None left out): mean 2, std sqrt((1 + 1)/1) = sqrt 2.
    # Negatives 2 4 6: mean 4, std sqrt((4 + 0 + 4)/2) = 2.
    # Pooled 1 3 2 4 6: mean 16/5 = 3.2, squares 4.84 .04 1.44 .64 7.84 = 14.8, std
    # sqrt(14.8/4) = sqrt 3.7.
    # Balanced at 25 % positives: mean .25·2 + .75·4 = 3.5; weights .25/2 = .125 and
    # .75/3 = .25; Σw(x − 3.5)² = .125·(6.25 + .25) + .25·(2.25 + .25 + 6.25) = .8125 +
    # 2.1875 = 3; std sqrt(3 · 5/4) = sqrt 3.75.
    report = stratified([1, 3, None, 2, 4, 6], classes(3, 3), positive_share=0.25)
    assert close(report.positive, 2.0, math.sqrt(2), 2)
    assert close(report.negative, 4.0, 2.0, 3)
    assert close(report.pooled, 3.2, math.sqrt(3.7), 5)
    assert close(report.balanced, 3.5, math.sqrt(3.75), 5)
    assert report.left_out == 1 and report.positive_share == 0.25


def test_balanced_at_the_samples_own_balance_is_pooled() -> None:
    # 2 positives of 5: share 0.4 weights every sample 1/5, as the pooled mean does.
    report = stratified([1, 3, 2, 4, 6], classes(2, 3), positive_share=0.4)
    assert report.balanced is not None and report.balanced.mean == pytest.approx(3.2)
    assert report.balanced.std == pytest.approx(math.sqrt(3.7))
    # Share 1: the positives alone (mean 2, std sqrt 2).
    alone = stratified([1, 3, 2, 4, 6], classes(2, 3), positive_share=1.0)
    assert close(alone.balanced, 2.0, math.sqrt(2), 2)


def test_a_missing_class_leaves_the_balanced_mean_undefined() -> None:
    report = stratified([1.0, 2.0], ["positive", "positive"], positive_share=0.5)
    assert report.negative is None and report.balanced is None
    assert close(report.positive, 1.5, math.sqrt(0.5), 2)


def test_one_sample_has_no_std() -> None:
    report = stratified([0.7, 0.2], ["positive", "negative"], positive_share=0.5)
    assert close(report.positive, 0.7, None, 1)
    # Balanced: .5·.7 + .5·.2 = .45; two samples of weight .5: Σw(x − .45)² = .0625,
    # times 2/1: .125.
    assert close(report.balanced, 0.45, math.sqrt(0.125), 2)


def test_stratified_errors() -> None:
    with pytest.raises(GracrError, match="no sample"):
        stratified([], [], positive_share=0.5)
    with pytest.raises(GracrError, match="2 metric values but 1 classes"):
        stratified([1, 2], ["positive"], positive_share=0.5)
    with pytest.raises(GracrError, match="unknown classes"):
        stratified([1], ["maybe"], positive_share=0.5)   # type: ignore[list-item]
    with pytest.raises(GracrError, match="share of positives"):
        stratified([1], ["positive"], positive_share=1.5)
    with pytest.raises(GracrError, match="NaN"):
        stratified([math.nan], ["positive"], positive_share=0.5)


def test_between_class_share_by_hand() -> None:
    both: list[Sample] = ["positive", "positive", "negative", "negative"]
    # Class means 1 and 3 hold every value: within 0, share 1.
    assert between_class_share([1, 1, 3, 3], both) == pytest.approx(1.0)
    # Both class means 2, the grand mean: between 0, share 0.
    assert between_class_share([1, 3, 1, 3], both) == 0.0
    # Mean 3, total (9 + 1 + 1 + 9) = 20; class means 1 and 5: between 2·4 + 2·4 = 16: 0.8.
    assert between_class_share([0, 2, 4, 6], both) == pytest.approx(0.8)


def test_between_class_share_with_unequal_classes_by_hand() -> None:
    # Positives [2, 4, 6] (mean 4), negatives [10] (mean 10); grand mean 22/4 = 5.5.
    # Total: 3.5² + 1.5² + 0.5² + 4.5² = 12.25 + 2.25 + 0.25 + 20.25 = 35.
    # Between: 3 · 1.5² + 1 · 4.5² = 6.75 + 20.25 = 27; share 27/35.
    mixed: list[Sample] = ["positive", "positive", "positive", "negative"]
    assert between_class_share([2, 4, 6, 10], mixed) == pytest.approx(27 / 35)
    # A paired difference of +0.3 on positives and −0.2 on negatives, with within-class
    # noise ±0.05: class means +0.3 and −0.2, grand mean +0.05; between 4 · 0.25² = 0.25,
    # within 4 · 0.05² = 0.01, share 0.25 / 0.26.
    split = [0.35, 0.25, -0.15, -0.25]
    assert between_class_share(split, ["positive", "positive", "negative", "negative"]) \
        == pytest.approx(0.25 / 0.26)


def test_between_class_share_leaves_out_undefined_values() -> None:
    assert between_class_share([1, None, 1, 3, 3], classes(3, 2)) == pytest.approx(1.0)
    assert between_class_share([2, 2, 2], ["positive", "negative", "negative"]) is None
    assert between_class_share([2, None], ["positive", "negative"]) is None


# ---------------------------------------------------------------- seeds


def test_seeds_are_summarised_as_the_report_does() -> None:
    # No helper of its own: `gracr.stats` (module docstring). Seeds 0.5 0.7 0.9: n 3, mean
    # 0.7, std sqrt((.04 + 0 + .04)/3) with ddof 0, sqrt(.08/2) with ddof 1.
    model_seeds = [0.5, 0.7, 0.9]
    for ddof, std in ((0, math.sqrt(0.08 / 3)), (1, math.sqrt(0.08 / 2))):
        for stat in (Stat.of(model_seeds, ddof), Moments.of(model_seeds).stat(ddof)):
            assert stat is not None and (stat.n, stat.ddof) == (3, ddof)
            assert stat.mean == pytest.approx(0.7) and stat.std == pytest.approx(std)
    # One seed has no sample std; with ddof 1 its standard error is std/sqrt(n).
    one = Stat.of([0.5], 1)
    assert one is not None and one.std is None and one.standard_error is None
    three = Stat.of(model_seeds, 1)
    assert three is not None and three.standard_error == pytest.approx(math.sqrt(0.04 / 3))


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("metric", [signed_rank_correlation, decoy_mass])
def test_bad_node_vectors(metric: Callable[[list[float], list[float]], float | None]) -> None:
    with pytest.raises(GracrError, match="no node scores"):
        metric([], [])
    with pytest.raises(GracrError, match="scores 3 nodes but"):
        metric([1, 2, 3], [1, 0])
    with pytest.raises(GracrError, match="NaN"):
        metric([1, math.nan], [1, 0])
