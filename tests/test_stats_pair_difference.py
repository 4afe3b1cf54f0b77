"""Pair difference (Pearson of pair differences) against the correlation of explicitly listed
pair differences."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats import correlate
from comperbench.stats.metric_correlation.statistics import PAIR_DIFFERENCE_PEARSON as PDP
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups


def by_hand(x: np.ndarray, y: np.ndarray, labels: np.ndarray, drawn=None) -> float:
    """Pearson of the differences over every ordered pair of items within each drawn group."""
    dx, dy = [], []
    for g in np.unique(labels) if drawn is None else drawn:
        for i, j in permutations(np.flatnonzero(labels == g), 2):
            dx.append(x[i] - x[j])
            dy.append(y[i] - y[j])
    return float(sps.pearsonr(dx, dy)[0])


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(7), [2, 3, 4, 5, 3, 1, 4])
    y = rng.integers(1, 5, labels.size).astype(float)
    return labels, y, y + rng.normal(size=labels.size)


def test_pooled_pairs_equal_the_hand_listed_differences() -> None:
    labels, y, x = _data()
    assert correlate(
        x, y, statistic="pdp", groups=labels, resampling=Resampling(resamples=0)
    ).value == pytest.approx(by_hand(x, y, labels))


def test_one_group_is_pearson_and_a_group_offset_cancels() -> None:
    labels, y, x = _data(1)
    assert PDP.value(x, y) == pytest.approx(sps.pearsonr(x, y)[0])
    shifted = x + 10.0 * labels  # every item of a group moved by the same amount
    layout = Groups.of(labels)
    assert PDP.rows(shifted, y, layout)[0] == pytest.approx(PDP.rows(x, y, layout)[0])
    assert PDP.rows(x, y, layout)[0] != pytest.approx(sps.pearsonr(shifted, y)[0])


def test_group_resamples_equal_the_drawn_groups_by_hand() -> None:
    labels, y, x = _data(2)
    indices = bootstrap_indices(7, 15, 3)
    fast = PDP.grouped_resampled(x, y, Groups.of(labels), counts_from_indices(indices, 7))[0]
    expected = [by_hand(x, y, labels, drawn) for drawn in indices]
    np.testing.assert_allclose(fast, expected, rtol=1e-10)


def test_constant_human_scores_within_every_group_are_undefined() -> None:
    labels = np.repeat([0, 1], 3)
    y = np.array([1.0, 1, 1, 2, 2, 2])
    result = correlate(
        np.arange(6.0), y, statistic="pdp", groups=labels, resampling=Resampling(resamples=0)
    )
    assert np.isnan(result.value) and "undefined in every group" in result.reason
