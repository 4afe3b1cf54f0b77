"""Pair difference: the Pearson correlation of pair differences (DiIanni and Deutsch, EMNLP 2025).

Within each group (a context, answered by several systems) every ordered pair of items gives a
metric difference and a human difference; the statistic is the Pearson correlation of the two
differences pooled over all groups. Both orders of a pair enter, so the mean difference is 0 and
the value does not depend on which item of a pair comes first. Since the sum over ordered pairs
of (x_i - x_j)(y_i - y_j) is 2 n^2 cov(x, y), the statistic is computed from per-group
(co)variances in O(n): it is Pearson's r on one group, and over groups the covariances and
variances pooled with weight n_g^2, so a group counts by its number of pairs and an offset the
metric gives every item of a group (a segment bias) cancels.
"""

from __future__ import annotations

import numpy as np

from comperbench.stats.vectorised import Groups


def _pair_sums(M: np.ndarray, y: np.ndarray, layout: Groups) -> tuple[np.ndarray, ...]:
    """Per group, sum over ordered pairs / 2 of dx dy, dx^2 and dy^2: (rows, groups) twice and
    (groups,) once."""
    M = np.atleast_2d(np.asarray(M, dtype=float))[:, layout.order]
    y = np.asarray(y, dtype=float)[layout.order]
    sizes = layout.sizes.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_mean = np.add.reduceat(M, layout.starts, axis=1) / sizes
        y_mean = np.add.reduceat(y, layout.starts) / sizes
    dx = M - np.repeat(x_mean, layout.sizes, axis=1)
    dy = y - np.repeat(y_mean, layout.sizes)
    sxy = sizes * np.add.reduceat(dx * dy, layout.starts, axis=1)
    sxx = sizes * np.add.reduceat(dx * dx, layout.starts, axis=1)
    syy = sizes * np.add.reduceat(dy * dy, layout.starts)
    return sxy, sxx, syy


def grouped_resampled(
    M: np.ndarray, y: np.ndarray, layout: Groups, C: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """(rows, resamples): the correlation of the pooled pairwise differences of the groups
    drawn in each row of counts C (NaN where either side has no spread)."""
    if np.asarray(y).size == 0:
        return np.full((np.atleast_2d(M).shape[0], C.shape[0]), np.nan)
    sxy, sxx, syy = _pair_sums(M, y, layout)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (sxy @ C.T) / np.sqrt((sxx @ C.T) * (syy @ C.T)[None, :])
    return np.where((sxx @ C.T > 0) & (syy @ C.T > 0)[None, :], value, np.nan)
