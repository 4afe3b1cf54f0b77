"""Bootstrap intervals against scipy's BCa on the same resamples."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy.stats._resampling import _bca_interval as scipy_bca

from comperbench.stats import resampling
from comperbench.stats.metric_correlation.correlation import correlate
from comperbench.stats.resampling import (
    bca_interval,
    bootstrap_count_chunks,
    bootstrap_indices,
    compact_counts,
    count_chunks_of,
    jackknife_weights,
    kept_swap_masks,
    swap_masks,
    swap_row_source,
)
from comperbench.stats.settings import Resampling


def _mean(sample: np.ndarray, axis: int = -1) -> np.ndarray:
    return sample.mean(axis=axis)


def _scipy_levels(
    data: tuple[np.ndarray, ...], statistic: Callable[..., np.ndarray], boot: np.ndarray
) -> tuple[float, float, float]:
    """scipy's BCa quantile levels (2.5%, 97.5%) and acceleration for these bootstrap values."""
    low, high, accel = scipy_bca(data, statistic, -1, 0.025, boot, None, np)
    return float(low), float(high), float(accel)


def test_bca_equals_scipy_on_the_same_resamples() -> None:
    """Skewed data: the jackknife gives a clear acceleration, which moves both ends."""
    x = np.random.default_rng(0).lognormal(sigma=1.2, size=40)
    boot = x[bootstrap_indices(40, 4000, 1)].mean(axis=1)
    W = jackknife_weights(40, 0)
    jack = (W @ x) / W.sum(axis=1)
    ours = bca_interval(float(x.mean()), boot, jack, 0.95)
    low, high, accel = _scipy_levels((x,), _mean, boot)
    assert accel > 0.03
    assert (ours.low, ours.high) == pytest.approx(tuple(np.quantile(boot, [low, high])), rel=1e-9)
    assert ours.n_valid == 4000 and ours.method == "bca"


def test_correlation_bca_equals_scipy_on_the_same_resamples() -> None:
    """Pearson's r at turn level: resamples from `bootstrap_indices`, jackknife over items."""
    rng = np.random.default_rng(3)
    human = rng.normal(size=30)
    metric = np.exp(human) + rng.normal(scale=0.5, size=30)

    def pearson(index: np.ndarray, axis: int = -1) -> np.ndarray:
        a, b = metric[index], human[index]
        a = a - a.mean(axis=axis, keepdims=True)
        b = b - b.mean(axis=axis, keepdims=True)
        return (a * b).sum(axis) / np.sqrt((a * a).sum(axis) * (b * b).sum(axis))

    indices = bootstrap_indices(30, 2000, 5)
    boot = pearson(indices)
    ours = correlate(
        metric,
        human,
        resampling=Resampling(resamples=2000, seed=5, ci="bca"),
    ).ci
    low, high, accel = _scipy_levels((np.arange(30),), pearson, boot)
    assert abs(accel) > 0.02
    assert ours is not None
    assert (ours.low, ours.high) == pytest.approx(tuple(np.quantile(boot, [low, high])), rel=1e-9)


def test_bca_counts_half_the_resamples_equal_to_the_estimate_below_it() -> None:
    """1 value below 2 and 3 equal: half are below, so z0 = 0; a symmetric jackknife gives no
    acceleration, and the ends are the plain 2.5% and 97.5% quantiles of [1, 2, 2, 2, 3]."""
    boot = np.array([1.0, 2, 2, 2, 3])
    interval = bca_interval(2.0, boot, np.array([-1.0, 0, 1]), 0.95)
    assert (interval.low, interval.high) == pytest.approx((1.1, 2.9))


@pytest.mark.parametrize("n_units", [1, 37, 300])
def test_compact_counts_give_the_drawn_chunks(n_units: int) -> None:
    """The kept integer matrix, cut again, is the float chunks as drawn: the same rows at the
    same boundaries (chunks of 2 KB: several of them)."""
    counts = compact_counts(n_units, 50, 7)
    assert counts.dtype == np.uint8 and counts.shape == (50, n_units)
    drawn = list(bootstrap_count_chunks(n_units, 50, 7, chunk_bytes=2048))
    again = list(count_chunks_of(counts, chunk_bytes=2048))
    assert [c.shape for c in again] == [c.shape for c in drawn] and len(drawn) > (n_units > 1)
    for a, b in zip(again, drawn, strict=True):
        assert a.dtype == b.dtype == np.float64
        np.testing.assert_array_equal(a, b)


def test_swap_masks_are_drawn_once_per_process_and_read_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = kept_swap_masks(40, 30, 5)
    np.testing.assert_array_equal(kept, swap_masks(40, 30, 5))
    assert kept_swap_masks(40, 30, 5) is kept and not kept.flags.writeable
    chunks = list(swap_row_source(40, 30, 5, chunk_bytes=8 * 40 * 7)(0, 30))
    assert len(chunks) == 5 and all(np.shares_memory(c, kept) for c in chunks)
    np.testing.assert_array_equal(np.vstack(chunks), kept)
    monkeypatch.setattr(resampling, "KEPT_SWAPS", 40 * 30 - 1)  # above it: drawn, not kept
    (whole,) = swap_row_source(40, 30, 5)(0, 30)
    np.testing.assert_array_equal(whole, kept)
    assert not np.shares_memory(whole, kept)
