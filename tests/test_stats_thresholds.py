"""Every threshold of the statistics at, just below and just above its boundary, so that a
comparison flipped (`>=` for `>`) or a constant moved by one changes an outcome here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from comperbench.stats.averaging import Averaging
from comperbench.stats.human.judgments.rating_analysis import system_means
from comperbench.stats.human.votes.vote_tests import MIN_EXPECTED, small_expected_reason
from comperbench.stats.metric_correlation.correlation import correlate
from comperbench.stats.metric_correlation.influence import distribution_note, p_interval_note
from comperbench.stats.resampling import (
    MIN_BOOTSTRAP_UNITS,
    bca_interval,
    bootstrap_note,
    resamples_note,
)
from comperbench.stats.settings import Resampling


def _expected(table: np.ndarray) -> np.ndarray:
    return sps.contingency.expected_freq(table)


def test_cochrans_rule_at_its_boundaries() -> None:
    assert MIN_EXPECTED == 5
    # every expected count exactly 5: none is below 5
    at_five = np.array([[5, 5], [5, 5]])
    assert (_expected(at_five) == 5).all() and small_expected_reason(at_five) is None
    # row totals 2, 10, 10, 10, 10 over two equal columns: expected 1, 1 and eight 5s: the
    # smallest exactly 1 and exactly a fifth (2 of 10) below 5, both allowed
    edge = np.array([[1, 1], [5, 5], [5, 5], [5, 5], [5, 5]])
    expected = _expected(edge)
    assert expected.min() == 1 and (expected < 5).sum() == 2 and expected.size == 10
    assert small_expected_reason(edge) is None
    # columns of 21 and 25 votes: the smallest expected count falls just below 1 (2 of 10
    # below 5, as allowed)
    below_one = np.array([[1, 1], [5, 6], [5, 6], [5, 6], [5, 6]])
    assert 0.9 < _expected(below_one).min() < 1 and (_expected(below_one) < 5).sum() == 2
    reason = small_expected_reason(below_one)
    assert reason is not None and reason.startswith("2 of 10 expected counts are below 5")
    # three of ten below 5 (none below 1): one more than a fifth
    three = np.array([[8, 6], [3, 8], [2, 8], [6, 7], [6, 1]])
    assert _expected(three).min() >= 1 and (_expected(three) < 5).sum() == 3
    reason = small_expected_reason(three)
    assert reason is not None and reason.startswith("3 of 10 expected counts are below 5")


@pytest.mark.parametrize(
    "n", [MIN_BOOTSTRAP_UNITS - 1, MIN_BOOTSTRAP_UNITS, MIN_BOOTSTRAP_UNITS + 1]
)
def test_an_item_interval_is_flagged_below_ten_items_only(n: int) -> None:
    assert MIN_BOOTSTRAP_UNITS == 10
    rng = np.random.default_rng(n)
    human = rng.normal(size=n)
    result = correlate(human + rng.normal(size=n), human, resampling=Resampling(resamples=100))
    assert result.ci is not None and result.ci.n_valid == 100
    assert (result.ci_note is not None) == (n < 10)
    assert (bootstrap_note(n, "items") is None) == (n >= 10)


def _ratings(items: int) -> pd.DataFrame:
    values = np.arange(items, dtype=float) % 3
    return pd.DataFrame(
        {"item_id": [f"i{k}" for k in range(items)], "system": "s", "value": values + 1}
    )


@pytest.mark.parametrize(
    ("items", "note"),
    [
        (1, "only 1 item: no interval"),
        (2, "only 2 items: an interval over fewer than 10 is not informative"),
        (9, "only 9 items: an interval over fewer than 10 is not informative"),
        (10, None),
        (11, None),
    ],
)
def test_a_system_mean_interval_needs_two_items_and_is_flagged_below_ten(
    items: int, note: str | None
) -> None:
    row = system_means(_ratings(items)).loc["s"]
    assert row["note"] == note
    assert np.isfinite(row["low"]) == (items >= 2)


def test_the_resamples_note_appears_as_soon_as_one_resample_is_undefined() -> None:
    assert resamples_note(1000, 1000) is None
    assert resamples_note(999, 1000) == (
        "interval over 999 of 1,000 resamples (the statistic is undefined on the others)"
    )


def test_bca_needs_two_defined_jackknife_values() -> None:
    boot = np.linspace(-1, 1, 201)
    assert np.isnan(bca_interval(0.0, boot, np.array([0.1, np.nan])).low)
    assert np.isfinite(bca_interval(0.0, boot, np.array([0.1, 0.2])).low)


def test_the_distribution_note_needs_four_units() -> None:
    # one score apart from the rest holds 2/3 of the sum of squares in three units, 3/4 in four
    assert distribution_note(np.array([0.0, 0, 1]), np.array([0.0, 1, 2])) is None
    note = distribution_note(np.array([0.0, 0, 0, 1]), np.array([0.0, 1, 2, 3]))
    assert note is not None and "one score holds 75.0% of the metric's sum of squares" in note


@pytest.mark.parametrize(
    ("p", "low", "high", "disagree"),
    [
        (0.01, -0.3, 0.0, True),  # an interval ending at 0 includes it
        (0.01, -0.3, -1e-9, False),
        (0.01, 0.0, 0.3, True),
        (0.01, 1e-9, 0.3, False),
        (0.05, -0.3, -0.1, True),  # p = 0.05 is not below 0.05
        (0.0499, -0.3, -0.1, False),
    ],
)
def test_p_and_interval_agree_exactly_up_to_their_boundaries(
    p: float, low: float, high: float, disagree: bool
) -> None:
    assert (p_interval_note(p, low, high) is not None) == disagree


def test_undefined_groups_count_as_zero_from_two_items_on() -> None:
    # a single item never counts; an undefined group of two counts as 0 under "zero"
    per_group, sizes = np.array([[0.5, np.nan, np.nan]]), np.array([3, 2, 1])
    zero = Averaging(undefined="zero")
    assert zero.counted(per_group, sizes).tolist() == [[True, True, False]]
    assert zero.mean(per_group, sizes)[0] == pytest.approx(0.25)
    assert Averaging().mean(per_group, sizes)[0] == pytest.approx(0.5)
