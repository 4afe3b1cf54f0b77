"""Pearson of scores with a large common offset (1e12 + 1e-3 * noise): every path (point value,
bootstrap, PERM-BOTH, system means) equals the exact Pearson of the stored doubles, computed
with fractions (mpmath where a z-score needs a square root), and scipy's on the scores shifted
by their first value (an exact subtraction here); scores that differ by rounding only are
undefined, with the reason."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.influence import leave_one_out_pearson
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.metric_tests.significance import (
    _perm_both_pearson_all,
    perm_both,
    significance_matrix,
)
from comperbench.stats.resampling import swap_masks, zscore
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import pearson_resampler

OFFSET = 1e12
STEP = 2.0**-13
"""The spacing of doubles at 1e12."""


def _exact(x: np.ndarray, y: np.ndarray, counts: np.ndarray | None = None) -> float:
    """Pearson of the stored doubles (each drawn `counts` times) in exact rational arithmetic,
    rounded once: r = sign(sxy) sqrt(sxy^2 / (sxx syy))."""
    w = [1] * x.size if counts is None else [int(c) for c in counts]
    xs, ys = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    n = sum(w)
    mx = sum(c * v for c, v in zip(w, xs, strict=True)) / n
    my = sum(c * v for c, v in zip(w, ys, strict=True)) / n
    sxy = sum(c * (a - mx) * (b - my) for c, a, b in zip(w, xs, ys, strict=True))
    sxx = sum(c * (a - mx) ** 2 for c, a in zip(w, xs, strict=True))
    syy = sum(c * (b - my) ** 2 for c, b in zip(w, ys, strict=True))
    return float(np.sign(float(sxy)) * np.sqrt(float(sxy * sxy / (sxx * syy))))


def _scipy_shifted(x: np.ndarray, y: np.ndarray) -> float:
    """scipy's Pearson of the scores less OFFSET where they carry it (an exact subtraction:
    they lie within a factor 2 of it)."""
    shifted = []
    for v in (x, y):
        if v.min() > OFFSET / 2:
            assert np.array_equal((v - OFFSET) + OFFSET, v)
            v = v - OFFSET
        shifted.append(v)
    return float(sps.pearsonr(*shifted).statistic)


def _offset_scores(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    return OFFSET + 1e-3 * (human + rng.normal(size=n)), human


def test_four_scores_one_step_apart_by_hand() -> None:
    # 1e12 + (0, 1, 2, 4) steps against (0, 2, 1, 4): deviations (-7, -3, 1, 9) / 4 on both
    # sides but the middle two swapped: r = (49 - 3 - 3 + 81) / (49 + 9 + 1 + 81) = 31 / 35
    metric = OFFSET + STEP * np.array([0.0, 1, 2, 4])
    human = np.array([0.0, 2, 1, 4])
    assert _exact(metric, human) == pytest.approx(31 / 35, abs=1e-15)
    point = get_statistic("pearson").point(metric, human)
    assert point.reason is None and point.value == pytest.approx(31 / 35, abs=1e-12)


@pytest.mark.parametrize("human_offset", [0.0, OFFSET])
def test_point_value_is_exact(human_offset: float) -> None:
    metric, human = _offset_scores(300)
    human = human_offset + 1e-3 * human
    exact = _exact(metric, human)
    result = correlation_table({"m": metric}, human, resampling=Resampling(resamples=0))[0]
    assert result.reason is None
    assert result.value == pytest.approx(exact, abs=1e-12)
    assert _scipy_shifted(metric, human) == pytest.approx(exact, abs=1e-12)


def test_bootstrap_values_are_exact() -> None:
    metric, human = _offset_scores(200, seed=1)
    metric[0] = OFFSET + 1e3  # resamples without this item are computed about their own mean
    counts = np.random.default_rng(2).multinomial(200, np.full(200, 1 / 200), size=6)
    counts[:3, 1] += counts[:3, 0]
    counts[:3, 0] = 0
    values = pearson_resampler(metric[None, :], human)(counts.astype(float))[0]
    exact = [_exact(metric, human, row) for row in counts]
    np.testing.assert_allclose(values, exact, rtol=0, atol=1e-12)


def _exact_zscores(v: np.ndarray) -> list[mpmath.mpf]:
    values = [mpmath.mpf(float(t)) for t in v]
    mean = mpmath.fsum(values) / len(values)
    sd = mpmath.sqrt(mpmath.fsum((t - mean) ** 2 for t in values) / len(values))
    return [(t - mean) / sd for t in values]


def _mp_pearson(x: list[mpmath.mpf], y: np.ndarray) -> float:
    ys = [mpmath.mpf(float(t)) for t in y]
    mx, my = mpmath.fsum(x) / len(x), mpmath.fsum(ys) / len(ys)
    sxy = mpmath.fsum((a - mx) * (b - my) for a, b in zip(x, ys, strict=True))
    sxx = mpmath.fsum((a - mx) ** 2 for a in x)
    syy = mpmath.fsum((b - my) ** 2 for b in ys)
    return float(sxy / mpmath.sqrt(sxx * syy))


def test_perm_both_rows_and_delta_are_exact() -> None:
    rng = np.random.default_rng(3)
    human = OFFSET + 1e-3 * rng.normal(size=150)
    a = OFFSET + (human - OFFSET) + 1e-3 * rng.normal(size=150)
    b = OFFSET + (human - OFFSET) + 2e-3 * rng.normal(size=150)
    with mpmath.workdps(40):
        za, zb = _exact_zscores(a), _exact_zscores(b)
        np.testing.assert_allclose(zscore(a), [float(t) for t in za], rtol=0, atol=1e-12)
        swaps = swap_masks(150, 8, 0)
        rows = _perm_both_pearson_all(np.vstack([zscore(a), zscore(b)]), human, iter([swaps]))
        permuted_a = [[zb[i] if s else za[i] for i, s in enumerate(row)] for row in swaps]
        permuted_b = [[za[i] if s else zb[i] for i, s in enumerate(row)] for row in swaps]
        exact_a = [_mp_pearson(row, human) for row in permuted_a]
        exact_b = [_mp_pearson(row, human) for row in permuted_b]
        np.testing.assert_allclose(rows[0, 1][0], exact_a, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows[0, 1][1], exact_b, rtol=0, atol=1e-12)
        delta = perm_both(a, b, human, resampling=Resampling(resamples=20)).delta
        assert delta == pytest.approx(_mp_pearson(za, human) - _mp_pearson(zb, human), abs=1e-12)


def test_system_level_value_is_exact() -> None:
    rng = np.random.default_rng(4)
    systems = np.repeat(np.arange(6), 300)
    human = rng.normal(size=systems.size) + 0.2 * systems
    metric = OFFSET + 1e-3 * (human + rng.normal(size=systems.size))
    # the exact means of the stored doubles (a shift by the first score changes no Pearson)
    means = [
        [float(sum(Fraction(t) - Fraction(v[0]) for t in v[systems == s]) / 300) for s in range(6)]
        for v in (metric, human)
    ]
    exact = _exact(np.array(means[0]), np.array(means[1]))
    result = correlation_table(
        {"m": metric}, human, level="system", systems=systems, resampling=Resampling(resamples=0)
    )[0]
    assert result.reason is None and result.value == pytest.approx(exact, abs=1e-12)
    assert float(sps.pearsonr(*means).statistic) == pytest.approx(exact, abs=1e-12)


def test_leave_one_out_values_are_exact() -> None:
    metric, human = _offset_scores(120, seed=6)
    ours = leave_one_out_pearson(metric, human)
    for unit in (0, 57, 119):
        kept = np.arange(120) != unit
        assert ours[unit] == pytest.approx(_exact(metric[kept], human[kept]), abs=1e-12)
        assert ours[unit] == pytest.approx(_scipy_shifted(metric[kept], human[kept]), abs=1e-12)


def test_scores_that_differ_by_rounding_only_are_undefined() -> None:
    rng = np.random.default_rng(5)
    human = rng.normal(size=100)
    metric = OFFSET + 5e-5 * (human + rng.normal(size=100))  # three doubles, one step apart
    assert np.unique(metric).size == 3
    for name in ("pearson", "spearman"):
        point = get_statistic(name).point(metric, human)
        assert np.isnan(point.value) and point.reason is not None
        assert point.reason.startswith("metric scores are nearly constant")
        assert "below the floating-point resolution 0.000122 of their magnitude 1e+12" in (
            point.reason
        )
    result = correlation_table({"m": human}, metric, resampling=Resampling(resamples=50))[0]
    assert result.reason is not None and result.reason.startswith("human scores are nearly")
    assert result.ci is None
    other = human + rng.normal(size=100)
    assert np.isnan(perm_both(metric, other, human, resampling=Resampling(resamples=50)).delta)
    groups = np.arange(100) % 10
    for by in (None, groups):
        scores = {"m": metric, "o": other, "p": -other}
        tested = significance_matrix(scores, human, groups=by, resampling=Resampling(resamples=50))
        assert tested.metrics == ["o", "p"] and tested.undefined["m"] == point.reason
    grouped = correlation_table(
        {"m": metric}, human, groups=groups, resampling=Resampling(resamples=50)
    )[0]
    assert np.isnan(grouped.value) and grouped.reason == point.reason


def test_small_but_resolved_spread_stays_defined() -> None:
    # nine steps of 2.2e-16 at 1: a spread above the resolution, so a value (scipy's)
    metric = np.array([1.0, 1 + 1e-15, 1, 1 + 2e-15, 1])
    point = get_statistic("pearson").point(metric, np.arange(5.0))
    assert point.reason is None
    assert point.value == pytest.approx(_exact(metric, np.arange(5.0)), abs=1e-12)
