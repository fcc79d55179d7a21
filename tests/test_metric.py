"""The plausibility metric (App. E, App. H.1): expectations worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gracr.explainers.metric import plausibility
from gracr.errors import GracrError


def test_perfect_ranking_selects_exactly_the_upi() -> None:
    score = plausibility([0.9, 0.1, 0.8, 0.2], [1, 0, 1, 0])
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)
    assert score.threshold == 0.8   # the lowest score still selecting only UPI edges


def test_tied_scores_are_selected_together() -> None:
    # tau = 1 selects edges 0 and 1: P 1/2, R 1, F1 2/3; tau = 0 selects all four:
    # P 1/4, R 1, F1 2/5. The best is tau = 1.
    score = plausibility([1, 1, 0, 0], [1, 0, 0, 0])
    assert score.precision == 0.5 and score.recall == 1.0
    assert math.isclose(score.f1, 2 / 3)
    assert score.threshold == 1.0


def test_all_equal_scores_select_every_edge() -> None:
    # Table 2's 0.04 = 6/134: an explainer that cannot tell edges apart.
    upi = np.zeros(134, dtype=bool)
    upi[:6] = True
    score = plausibility(np.full(134, 0.3), upi)
    assert math.isclose(score.precision, 6 / 134) and score.recall == 1.0
    assert math.isclose(score.f1, 2 * (6 / 134) / (6 / 134 + 1))


def test_a_single_prime_implicant_out_of_three() -> None:
    # UPI = 6 edges made of 3 PIs of 2 edges; the explainer scores one PI 1, all else 0.
    # tau = 1: P 1, R 2/6, F1 1/2; tau = 0: P 6/20, R 1, F1 0.6/1.3 = 0.4615.
    upi = np.zeros(20, dtype=bool)
    upi[:6] = True
    scores = np.zeros(20)
    scores[:2] = 1.0
    score = plausibility(scores, upi)
    assert score.precision == 1.0
    assert math.isclose(score.recall, 1 / 3)
    assert math.isclose(score.f1, 0.5)


def test_a_higher_threshold_wins_a_tie_in_f1() -> None:
    # tau = 3 selects {0}: P 1, R 1/2, F1 2/3; tau = 2: P 1/2, R 1/2, F1 1/2;
    # tau = 1: P 1/3, R 1/2, F1 2/5; tau = 0 selects all: P 1/2, R 1, F1 2/3.
    # tau = 3 and tau = 0 tie; the sparser explanation (tau = 3) is kept.
    score = plausibility([3, 2, 1, 0], [1, 0, 0, 1])
    assert math.isclose(score.f1, 2 / 3)
    assert (score.precision, score.recall, score.threshold) == (1.0, 0.5, 3.0)


def test_negative_scores_rank_like_any_others() -> None:
    score = plausibility([-0.1, -5.0, -0.2], [1, 0, 1])
    assert (score.precision, score.recall) == (1.0, 1.0)
    assert score.threshold == -0.2


@pytest.mark.parametrize("scores, upi, message", [
    ([], [], "no edge scores"),
    ([0.1, 0.2], [1, 0, 0], "scores 2 edges but the UPI mask has 3"),
    ([0.1, 0.2], [0, 0], "UPI mask is empty"),
    ([0.1, float("nan")], [1, 0], "NaN"),
])
def test_bad_input_is_a_clear_error(scores: list[float], upi: list[int], message: str) -> None:
    with pytest.raises(GracrError, match=message):
        plausibility(scores, upi)
