"""Seeded resampling with one index matrix for all resamples, and bootstrap intervals.

A resample is stored as a row of an index matrix (which units were drawn) and, for the
vectorised statistics, as a row of a count matrix (how often each unit was drawn): a statistic
weighted by the counts equals the statistic of the gathered resample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as sps

CIMethod = Literal["percentile", "bca"]
JACKKNIFE_BLOCKS = 1000
"""Above this many units the BCa acceleration uses a delete-one-block jackknife of this many blocks."""
MIN_BOOTSTRAP_UNITS = 10
"""Fewer resampled units than this make a bootstrap interval of a correlation uninformative.

A resample of n units holds at most 3 distinct units with probability 0.91 (n = 4), 0.58 (5),
0.25 (6), 0.08 (7), 0.02 (8), 0.004 (9) and below 0.001 from n = 10 on. On 3 or fewer distinct
points a correlation is +-1, undefined or one of a few coarse values, so below 10 units such
resamples set the 2.5% tails: intervals of 4-6 systems come out as [-1, 1] whatever the data.
"""


def bootstrap_note(n_units: int, unit: str) -> str | None:
    """Why a bootstrap interval over `n_units` resampled units is not informative, or None."""
    if n_units >= MIN_BOOTSTRAP_UNITS:
        return None
    return (
        f"only {n_units} {unit} resampled: a bootstrap interval over fewer than "
        f"{MIN_BOOTSTRAP_UNITS} is not informative"
    )


def bootstrap_indices(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_units) matrix of unit indices drawn with replacement."""
    if n_units < 1:
        raise ValueError("cannot resample an empty sample")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_units, size=(n_resamples, n_units), dtype=np.int32)


def counts_from_indices(indices: np.ndarray, n_units: int) -> np.ndarray:
    """(n_resamples, n_units) float matrix: how often each unit occurs in each row of `indices`."""
    k = indices.shape[0]
    flat = (indices + n_units * np.arange(k, dtype=np.int64)[:, None]).ravel()
    return np.bincount(flat, minlength=k * n_units).reshape(k, n_units).astype(float)


def swap_masks(n_items: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_items) boolean matrix, True where a paired permutation swaps the item."""
    rng = np.random.default_rng(seed)
    return rng.random((n_resamples, n_items)) < 0.5


def zscore(values: np.ndarray) -> np.ndarray:
    """Scores standardised over all their entries (only centred when constant), as PERM-BOTH
    does before it swaps two metrics' scores."""
    sd = values.std()
    return (values - values.mean()) / sd if sd > 0 else values - values.mean()


def jackknife_weights(n_units: int, seed: int, max_blocks: int = JACKKNIFE_BLOCKS) -> np.ndarray:
    """Rows of unit weights leaving out one unit (or one block of units above `max_blocks`)."""
    if n_units <= max_blocks:
        return 1.0 - np.eye(n_units)
    rng = np.random.default_rng(seed)
    block = rng.permutation(n_units) % max_blocks
    return (block[None, :] != np.arange(max_blocks)[:, None]).astype(float)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    method: str
    confidence: float
    n_valid: int
    """Resamples whose statistic was defined (not NaN)."""


def percentile_interval(boot: np.ndarray, confidence: float = 0.95) -> Interval:
    """The (1-c)/2 and (1+c)/2 quantiles of the defined bootstrap values."""
    valid = boot[np.isfinite(boot)]
    if valid.size == 0:
        return Interval(np.nan, np.nan, "percentile", confidence, 0)
    tail = (1 - confidence) / 2
    low, high = np.quantile(valid, [tail, 1 - tail])
    return Interval(float(low), float(high), "percentile", confidence, valid.size)


def bca_interval(
    estimate: float, boot: np.ndarray, jackknife: np.ndarray, confidence: float = 0.95
) -> Interval:
    """Bias-corrected and accelerated interval (Efron 1987) from bootstrap and jackknife values."""
    valid = boot[np.isfinite(boot)]
    jack = jackknife[np.isfinite(jackknife)]
    if valid.size == 0 or not np.isfinite(estimate) or jack.size < 2:
        return Interval(np.nan, np.nan, "bca", confidence, valid.size)
    below = (
        np.count_nonzero(valid < estimate) + 0.5 * np.count_nonzero(valid == estimate)
    ) / valid.size
    z0 = sps.norm.ppf(below)
    dev = jack.mean() - jack
    denom = 6.0 * np.sum(dev**2) ** 1.5
    accel = float(np.sum(dev**3) / denom) if denom > 0 else 0.0
    tail = (1 - confidence) / 2
    z = sps.norm.ppf([tail, 1 - tail])
    levels = sps.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    if not np.all(np.isfinite(levels)):
        return Interval(np.nan, np.nan, "bca", confidence, valid.size)
    low, high = np.quantile(valid, levels)
    return Interval(float(low), float(high), "bca", confidence, valid.size)
