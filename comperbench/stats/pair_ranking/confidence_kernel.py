"""Compiled (numba) count of the sign-swap permutations whose system difference reaches the
observed one, from permuted sums in float32 checked in float64 where float32 cannot tell.

The module imports numba; `comperbench.stats.pair_ranking.soft_pairwise_accuracy` imports it
only when many resamples are counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_RUN = 64
"""Permutations counted at a time: a run with a close call is gone over again."""


@njit(cache=True)
def reached_counts(
    null: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    threshold: np.ndarray,
    W: np.ndarray,
    scores: np.ndarray,
    signs: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
) -> np.ndarray:
    """(resamples, pairs): the permutations k whose difference of permuted sums of systems
    left[p] and right[p] in resample r, summed in float64, reaches `threshold[r, p]`.

    `null` (resamples, systems, permutations) holds the permuted sums in float32, each within
    an error bound of its float64 sum: a float32 difference at or above `high[r, p]` reaches
    the threshold, one below `low[r, p]` does not, and one in between is summed again in
    float64 from the resample's unit weights `W`, `scores` (systems x units) and `signs`."""
    rows, pairs = threshold.shape
    n_permutations = null.shape[2]
    out = np.zeros((rows, pairs), np.int64)
    for r in range(rows):
        for p in range(pairs):
            a, b = null[r, left[p]], null[r, right[p]]
            lo, hi = low[r, p], high[r, p]
            for start in range(0, n_permutations, _RUN):  # a close call is looked for in its run
                stop = min(start + _RUN, n_permutations)
                sure = 0
                near = 0
                for k in range(start, stop):
                    difference = a[k] - b[k]
                    sure += difference >= hi
                    near += difference >= lo
                if near > sure:
                    sure += _reached_in_float64(
                        a[start:stop],
                        b[start:stop],
                        lo,
                        hi,
                        threshold[r, p],
                        W[r],
                        scores[left[p]],
                        scores[right[p]],
                        signs[start:stop],
                    )
                out[r, p] += sure
    return out


@njit(cache=True)
def _reached_in_float64(
    a: np.ndarray,
    b: np.ndarray,
    lo: float,
    hi: float,
    threshold: float,
    w: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    signs: np.ndarray,
) -> int:
    """Among the permutations whose float32 difference a - b lies in [lo, hi), those whose
    difference of permuted sums, summed in float64, reaches the threshold."""
    reached = 0
    for k in range(a.size):
        difference = a[k] - b[k]
        if difference >= lo and not difference >= hi:
            reached += _permuted_difference(w, first, second, signs[k]) >= threshold
    return reached


@njit(cache=True)
def _permuted_difference(
    w: np.ndarray, first: np.ndarray, second: np.ndarray, signs: np.ndarray
) -> float:
    """The sum of w * first * signs - w * second * signs in float64, in four interleaved
    partial sums (no chain of dependent additions) added in a fixed order."""
    n = w.size
    s0 = s1 = s2 = s3 = 0.0
    for u in range(0, n - 3, 4):
        s0 += w[u] * first[u] * signs[u] - w[u] * second[u] * signs[u]
        s1 += w[u + 1] * first[u + 1] * signs[u + 1] - w[u + 1] * second[u + 1] * signs[u + 1]
        s2 += w[u + 2] * first[u + 2] * signs[u + 2] - w[u + 2] * second[u + 2] * signs[u + 2]
        s3 += w[u + 3] * first[u + 3] * signs[u + 3] - w[u + 3] * second[u + 3] * signs[u + 3]
    for u in range(n - n % 4, n):
        s0 += w[u] * first[u] * signs[u] - w[u] * second[u] * signs[u]
    return (s0 + s1) + (s2 + s3)
