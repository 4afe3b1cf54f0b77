"""WMT20's Kendall-like tau: hand-counted pairs, pooled groups, resamples equal to the gathered
sample, and the pairwise permutation test that swaps its verdicts."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from comperbench.stats import correlate
from comperbench.stats.averaging import Averaging
from comperbench.stats.metric_correlation.statistics import (
    KENDALL_LIKE,
    OnScores,
    kendall_like_statistic,
)
from comperbench.stats.pair_ranking import kendall_like
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups


def by_hand(x: np.ndarray, y: np.ndarray, threshold: float) -> tuple[int, int]:
    """(concordant, discordant) over the pairs whose human scores differ by >= threshold, > 0."""
    con = dis = 0
    for i, j in combinations(range(len(y)), 2):
        if y[i] != y[j] and abs(y[i] - y[j]) >= threshold:
            if np.sign(x[i] - x[j]) == np.sign(y[i] - y[j]):
                con += 1
            else:
                dis += 1
    return con, dis


def test_metric_ties_count_against_the_metric_and_human_ties_not_at_all() -> None:
    y = np.array([1, 1, 2, 3.0])
    x = np.array([5, 6, 5, 7.0])  # (0, 2) is a metric tie on a human-ordered pair
    con, dis = by_hand(x, y, 0)
    assert (con, dis) == (3, 2)
    assert KENDALL_LIKE.value(x, y) == pytest.approx((con - dis) / (con + dis))


def test_groups_pool_their_pairs() -> None:
    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(6), [2, 3, 4, 5, 3, 2])
    y = rng.integers(1, 4, labels.size).astype(float)
    x = y + rng.normal(scale=1.0, size=labels.size)
    counts = [by_hand(x[labels == g], y[labels == g], 0) for g in range(6)]
    con, dis = map(sum, zip(*counts, strict=True))
    result = correlate(
        x, y, statistic="kendall-like", groups=labels, resampling=Resampling(resamples=0)
    )
    assert result.value == pytest.approx((con - dis) / (con + dis))


def test_item_resamples_equal_the_statistic_of_the_gathered_sample() -> None:
    rng = np.random.default_rng(4)
    y = rng.integers(1, 6, 25).astype(float)
    x = y + rng.normal(size=25)
    statistic = kendall_like_statistic(2)
    indices = bootstrap_indices(25, 30, 1)
    fast = statistic.resampled(x, y, counts_from_indices(indices, 25))[0]
    analytic = statistic.capability(OnScores).analytic
    gathered = [analytic(x[i], y[i])[0] for i in indices]
    np.testing.assert_allclose(fast, gathered, rtol=1e-12)


def test_group_resamples_pool_the_drawn_groups() -> None:
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(8), 4)
    y = rng.integers(1, 4, 32).astype(float)
    x = y + rng.normal(size=32)
    layout = Groups.of(labels)
    indices = bootstrap_indices(8, 20, 2)
    fast = KENDALL_LIKE.grouped_resampled(x, y, layout, counts_from_indices(indices, 8))[0]
    for value, drawn in zip(fast, indices, strict=True):
        counts = [by_hand(x[labels == g], y[labels == g], 0) for g in drawn]
        con, dis = map(sum, zip(*counts, strict=True))
        assert value == pytest.approx((con - dis) / (con + dis))


def test_no_judged_pair_is_undefined_and_a_negative_threshold_is_refused() -> None:
    y, x = np.array([1.0, 2, 3]), np.array([3.0, 1, 2])
    result = correlate(
        x, y, statistic=kendall_like_statistic(5), resampling=Resampling(resamples=0)
    )
    assert np.isnan(result.value)
    with pytest.raises(ValueError, match="threshold must be >= 0"):
        kendall_like_statistic(-1).value(x, y)


def test_averaging_options_are_refused_for_pooled_pairs() -> None:
    with pytest.raises(ValueError, match="pools its pairs"):
        KENDALL_LIKE.with_averaging(Averaging(weighting="items"))


def test_a_human_gap_equal_to_the_threshold_is_a_judgment() -> None:
    """Gaps 1, 3 and 2 at threshold 1: all three pairs are judged, the first concordant."""
    y, x = np.array([1.0, 2, 4]), np.array([1.0, 2, 0])
    assert by_hand(x, y, 1) == (1, 2)
    assert kendall_like_statistic(1).value(x, y) == pytest.approx(-1 / 3)
    W = np.array([[1, 1, 1], [2, 1, 1]])  # item 0 drawn twice: its pairs weigh 2, (1, 2) one
    np.testing.assert_allclose(kendall_like.resampled(x, y, W, 1.0), [[-1 / 3, -1 / 5]])
