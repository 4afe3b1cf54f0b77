"""Pearson of scores near the end of the float range: computed as for the same scores scaled down
(Pearson does not change with scale), never an overflow turned into NaN or a wrong number."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.settings import Resampling

HUGE = np.array([1e308] * 359 + [1.0])
HUMAN = np.random.default_rng(0).normal(size=HUGE.size)
SCALED = np.array([1.0] * 359 + [1e-308])


def test_point_value_of_huge_scores() -> None:
    expected = sps.pearsonr((HUGE == 1.0).astype(float), HUMAN).statistic  # x is two-valued
    with np.errstate(over="raise", invalid="raise"):
        point = get_statistic("pearson").point(HUGE, HUMAN)
    assert point.reason is None
    assert point.value == pytest.approx(-expected, abs=1e-12)


def test_bootstrap_of_huge_scores_matches_scaled_scores() -> None:
    huge, scaled = (
        correlation_table({"m": x}, HUMAN, resampling=Resampling(resamples=200))[0]
        for x in (HUGE, SCALED)
    )
    assert huge.reason is None and huge.value == pytest.approx(scaled.value, abs=1e-12)
    assert huge.ci.n_valid == scaled.ci.n_valid > 0
    assert huge.ci.low == pytest.approx(scaled.ci.low, abs=1e-9)
    assert huge.ci.high == pytest.approx(scaled.ci.high, abs=1e-9)


def test_grouped_pearson_of_huge_scores_matches_scaled_scores() -> None:
    groups = np.repeat(np.arange(36), 10)
    with np.errstate(over="raise", invalid="raise"):
        huge = correlation_table(
            {"m": HUGE}, HUMAN, groups=groups, resampling=Resampling(resamples=0)
        )[0]
    scaled = correlation_table(
        {"m": SCALED * 1e300}, HUMAN, groups=groups, resampling=Resampling(resamples=0)
    )[0]
    assert np.isfinite(huge.value) and huge.value == pytest.approx(scaled.value, abs=1e-12)
