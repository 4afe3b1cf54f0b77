"""Soft pairwise accuracy (Thompson et al., WMT 2024): how closely the metric's confidence that one
system beats another matches the humans' confidence.

For every pair of systems a paired permutation test over the shared units (contexts every system
answered) gives the p-value that system i beats system j, once from the human scores and once
from the metric's; soft pairwise accuracy is 1 minus the mean absolute difference of the two
p-values over all pairs (1 - pairwise confidence error). As in mt-metrics-eval's `pce`, one
matrix of sign swaps serves every pair and both score matrices, and a p-value is the share of
permutations whose difference reaches the observed one (b/k; `p_value="plus-one"` gives
(b+1)/(k+1), the default of this package's other permutation tests). The bootstrap resamples units and keeps
the swaps, so every resample is tested with the same permutations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from comperbench.stats.averaging import PValueCount
from comperbench.stats.blas import blas_threads
from comperbench.stats.resampling import (
    Interval,
    bootstrap_indices,
    counts_from_indices,
    exact_swaps,
    percentile_interval,
    swap_masks,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling
from comperbench.stats.signature import Signature

DEFAULT_PERMUTATIONS = 1000
_TOLERANCE = 1e-9
SMALL_PRODUCT = 2**28
"""Multiply-adds from which the permuted sums run on every BLAS thread (`stats.blas`): below
it, waking the others costs more CPU than they save (the values alone, one row of weights for a
stack of metrics, are such a product)."""
_NULL_CHUNK_FLOATS = 2 * 2**20
"""Permuted sums held at once (16 MB as float64, 8 MB as float32): a block of resamples x
systems x permutations; a submission's peak memory grows with it."""
COMPILED_COMPARISONS = 2**23
"""Resamples x pairs x permutations from which the permuted sums are float32 and counted by the
compiled kernel (`confidence_kernel`): below, numpy in float64 costs less than loading it."""


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    """The value, its interval, and what it was computed on."""

    value: float
    ci: Interval | None
    n_systems: int
    n_units: int
    """Units every system has both scores for (the others are dropped and counted)."""
    n_dropped: int
    human_p: np.ndarray
    """(systems, systems): p-value that the row system beats the column system (upper triangle)."""
    metric_p: np.ndarray
    signature: str


def pairwise_p_values(
    scores: np.ndarray,
    signs: np.ndarray,
    weights: np.ndarray | None = None,
    p_value: PValueCount = "fraction",
) -> np.ndarray:
    """(resamples, pairs) p-values that system i beats j (pairs i < j in `np.triu_indices`
    order) under each row of unit weights (one row of ones when None), from the sign swaps
    `signs` (permutations x units, +1 or -1); for a stack of score matrices (matrices, systems,
    units), one such array per matrix, from one matrix product for them all.

    As in mt-metrics-eval's `pce`, every system's permuted sum is computed once and a pair's
    null value is the difference of two of them (systems, not pairs, as matrix rows). A
    permuted difference reaches the observed one when it is below it by no more than 1e-9 of
    the two systems' summed absolute scores (the scale of their rounding), so that an exact tie
    counts whatever the order of the additions. Many resamples are counted from float32 sums
    by a compiled kernel (`COMPILED_COMPARISONS`), which sums again in float64 every
    difference that float32 leaves too close to call: the counts are those of float64."""
    stack = scores if scores.ndim == 3 else scores[None]
    m, S, n = stack.shape
    W = np.ones((1, n)) if weights is None else weights
    left, right = _stacked_pairs(m, S)
    flat = stack.reshape(m * S, n)
    per_system = W @ flat.T  # (resamples, systems of every matrix)
    seen = per_system[:, left] - per_system[:, right]
    magnitude = W @ np.abs(flat).T
    scale = magnitude[:, left] + magnitude[:, right]
    threshold = seen - _TOLERANCE * scale
    if len(W) * left.size * signs.shape[0] >= COMPILED_COMPARISONS:
        reached = _compiled_counts(stack, signs, W, threshold, scale)
    else:
        reached = _counts(flat, left, right, signs, W, threshold)
    extra = p_value == "plus-one"
    p = ((reached + extra) / (signs.shape[0] + extra)).reshape(len(W), m, -1).transpose(1, 0, 2)
    return p if scores.ndim == 3 else p[0]


def _stacked_pairs(n_matrices: int, n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows (in a stack of matrices of n_systems systems each) of the two systems of every
    pair i < j within a matrix, matrix by matrix, in `np.triu_indices` order."""
    left, right = np.triu_indices(n_systems, 1)
    offsets = n_systems * np.arange(n_matrices)[:, None]
    return (offsets + left).ravel(), (offsets + right).ravel()


def _counts(
    flat: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    signs: np.ndarray,
    W: np.ndarray,
    threshold: np.ndarray,
) -> np.ndarray:
    """(resamples, pairs) permutations whose float64 difference reaches the threshold, for the
    pairs of rows `left` and `right` of the systems' scores `flat` (`_stacked_pairs`)."""
    n = flat.shape[1]
    K = signs.shape[0]
    reached = np.empty(threshold.shape, dtype=np.int64)
    rows = max(1, _NULL_CHUNK_FLOATS // max(1, K * len(flat)))
    for start in range(0, len(W), rows):
        block = slice(start, start + rows)
        # resamples x systems side by side: one wide matrix product instead of one per resample
        weighted = (W[block, None, :] * flat).reshape(-1, n)
        null = _permuted_sums(weighted, signs).reshape(-1, len(flat), K)
        step = max(1, _NULL_CHUNK_FLOATS // (K * len(null)))  # pairs whose differences fit
        for first in range(0, left.size, step):
            pairs = slice(first, first + step)
            difference = null[:, left[pairs]] - null[:, right[pairs]]
            reached[block, pairs] = np.count_nonzero(
                difference >= threshold[block, pairs, None], axis=2
            )
    return reached


def _compiled_counts(
    stack: np.ndarray, signs: np.ndarray, W: np.ndarray, threshold: np.ndarray, scale: np.ndarray
) -> np.ndarray:
    """`_counts` from float32 permuted sums of the scores minus each unit's mean (the
    differences of systems are the same, their rounding smaller), scaled by a power of two
    below 1 (no overflow), whose differences are within `_float32_margin` of the exact ones:
    the compiled kernel sums again in float64 those that lie within it of the threshold."""
    from comperbench.stats.pair_ranking.confidence_kernel import reached_counts

    m, S, n = stack.shape
    K = signs.shape[0]
    left, right = _stacked_pairs(m, S)
    # each unit's scores shifted alike: the same differences, rounded less
    centred = (stack - stack.mean(axis=1, keepdims=True)).reshape(m * S, n)
    magnitude = W @ np.abs(centred).T
    centred_scale = magnitude[:, left] + magnitude[:, right]
    unit = 2.0 ** -np.frexp(centred_scale.max(initial=0.0))[1]
    scaled, margin = threshold * unit, _float32_margin(n, centred_scale * unit, scale * unit)
    low = np.nextafter((scaled - margin).astype(np.float32), np.float32(-np.inf))
    high = np.nextafter((scaled + margin).astype(np.float32), np.float32(np.inf))
    signs32, scores = signs.astype(np.float32), np.ascontiguousarray(stack.reshape(m * S, n))
    signs = np.ascontiguousarray(signs, dtype=float)
    reached = np.empty(threshold.shape, dtype=np.int64)
    rows = max(1, _NULL_CHUNK_FLOATS // max(1, K * m * S))
    for start in range(0, len(W), rows):
        block = slice(start, start + rows)
        weighted = np.multiply(W[block, None, :], centred * unit, dtype=np.float32)
        null = _permuted_sums(weighted.reshape(-1, n), signs32).reshape(-1, m * S, K)
        reached[block] = reached_counts(
            null,
            low[block],
            high[block],
            threshold[block],
            np.ascontiguousarray(W[block], dtype=float),
            scores,
            signs,
            left,
            right,
        )
    return reached


def _float32_margin(n_units: int, centred: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """A bound on how far a difference of two float32 permuted sums of `n_units` terms lies
    from the difference of float64 sums in any order, for the two systems' summed absolute
    weighted scores: `centred` (below 1) as summed in float32, `scale` as given. Per term
    three roundings (weight, score, product), then n - 1 additions and the subtraction, each
    off by at most 2^-24 of the magnitude or, for a number too small for float32's full
    precision, by 2^-150; three more cover the centring and the margin's own rounding; the
    float64 sums are off by at most (n + 2) 2^-53 of theirs."""
    return (
        (n_units + 6) * 2.0**-24 * centred
        + (n_units + 2) * 2.0**-53 * scale
        + 16 * (n_units + 1) * 2.0**-150
    )


def _permuted_sums(weighted: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """weighted @ signs.T, on every BLAS thread when the product is large, else on one."""
    large = weighted.size * signs.shape[0] >= SMALL_PRODUCT
    with blas_threads(None if large else 1):
        return weighted @ signs.T


@lru_cache(maxsize=4)
def shared_signs(n_units: int, n_permutations: int, seed: int) -> np.ndarray:
    """The sign swaps (+1 or -1, permutations x units) of `swap_masks`, drawn once and shared
    by every score matrix of as many units (read-only)."""
    signs = swap_masks(n_units, n_permutations, seed).astype(float)  # 1 where swapped
    signs *= -2.0
    signs += 1.0
    signs.flags.writeable = False
    return signs


def confidences(
    scores: np.ndarray,
    W: np.ndarray,
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    p_value: PValueCount = "fraction",
) -> np.ndarray:
    """(resamples, pairs): the p-value that system i beats j in each row of unit counts W (for a
    stack of score matrices, one such array per matrix: see `pairwise_p_values`), from
    `n_permutations` seeded sign swaps of the units (the same swaps for every score matrix of
    as many units, so that a metric and the humans are tested alike), or from all 2^units
    patterns when they are no more (`exact_swaps`: b / k, the observed pattern among them)."""
    n_units = scores.shape[-1]
    signs = shared_signs(n_units, n_permutations, seed)
    exact = exact_swaps(n_units, n_permutations)
    return pairwise_p_values(scores, signs, W, "fraction" if exact else p_value)


def agreement(metric_confidences: np.ndarray, human_confidences: np.ndarray) -> np.ndarray:
    """(resamples,): 1 minus the mean gap between the two confidences over the pairs."""
    return 1.0 - np.abs(metric_confidences - human_confidences).mean(axis=1)


def complete_units(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Units (columns) where every system has both scores, after checking the two matrices."""
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human scores must be systems x units matrices of one shape, got "
            f"{metric.shape} and {human.shape}"
        )
    if metric.shape[0] < 2:
        raise ValueError(f"soft pairwise accuracy needs at least 2 systems, got {metric.shape[0]}")
    return np.all(np.isfinite(metric) & np.isfinite(human), axis=0)


@takes_resampling()
def soft_pairwise_accuracy(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    resampling: Resampling = DEFAULT_RESAMPLING,
    p_value: PValueCount = "fraction",
    benchmark: str | None = None,
) -> SoftPairwiseAccuracy:
    """Soft pairwise accuracy of metric against human scores, with a percentile bootstrap
    interval over units and both p-value matrices.

    Args:
        metric: the metric's (systems, units) score matrix, NaN where a system has no score
            for a unit (such units are dropped).
        human: the humans' (systems, units) score matrix.
        n_permutations: sign swaps of the units behind each confidence.
        resampling: bootstrap resamples of the units (0: no interval) and the seed (of the
            swaps and of the bootstrap).
        p_value: how a confidence counts the swaps, "fraction" (b / k, WMT's) or "plus-one".
        benchmark: the benchmark's tag, named in the signature.

    Returns:
        The `SoftPairwiseAccuracy`.
    """
    n_resamples, seed = resampling.resamples, resampling.seed
    metric, human = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    complete = complete_units(metric, human)
    if not complete.any():
        raise ValueError("no unit has a metric and a human score for every system")
    metric, human = metric[:, complete], human[:, complete]
    n = metric.shape[1]
    options = {"n_permutations": n_permutations, "seed": seed, "p_value": p_value}
    human_p = confidences(human, np.ones((1, n)), **options)
    metric_p = confidences(metric, np.ones((1, n)), **options)
    ci = None
    if n_resamples:
        W = counts_from_indices(bootstrap_indices(n, n_resamples, seed), n)
        boot = agreement(confidences(metric, W, **options), confidences(human, W, **options))
        ci = percentile_interval(boot)
    return SoftPairwiseAccuracy(
        float(agreement(metric_p, human_p)[0]),
        ci,
        metric.shape[0],
        n,
        int((~complete).sum()),
        _square(human_p[0], metric.shape[0]),
        _square(metric_p[0], metric.shape[0]),
        _signature(n_permutations, n_resamples, seed, p_value, benchmark),
    )


def _square(upper: np.ndarray, S: int) -> np.ndarray:
    out = np.full((S, S), np.nan)
    out[np.triu_indices(S, 1)] = upper
    return out


def _signature(
    n_permutations: int, n_resamples: int, seed: int, p_value: PValueCount, benchmark: str | None
) -> str:
    return str(
        Signature(
            statistic="spa",
            level="system",
            resampling="bootstrap-percentile" if n_resamples else None,
            n_resamples=n_resamples or None,
            seed=seed,
            benchmark=benchmark,
            extra=(("permutations", str(n_permutations)),),
            p_method="(b+1)/(k+1)" if p_value == "plus-one" else "b/k",
        )
    )
