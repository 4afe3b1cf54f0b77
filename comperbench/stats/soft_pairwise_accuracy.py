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

import numpy as np

from comperbench.stats.averaging import PValueCount
from comperbench.stats.resampling import (
    Interval,
    bootstrap_indices,
    counts_from_indices,
    percentile_interval,
    swap_masks,
)
from comperbench.stats.signature import Signature

DEFAULT_PERMUTATIONS = 1000
_TOLERANCE = 1e-9


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
    `signs` (permutations x units, +1 or -1)."""
    S = scores.shape[0]
    W = np.ones((1, scores.shape[1])) if weights is None else weights
    left, right = np.triu_indices(S, 1)
    diffs = scores[left] - scores[right]  # (pairs, units)
    observed = W @ diffs.T  # (resamples, pairs)
    out = np.empty_like(observed)
    for r, w in enumerate(W):
        null = (signs * w) @ diffs.T  # (permutations, pairs)
        reached = np.count_nonzero(null >= observed[r] - _TOLERANCE * np.abs(observed[r]), axis=0)
        extra = p_value == "plus-one"
        out[r] = (reached + extra) / (signs.shape[0] + extra)
    return out


def _complete_units(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human scores must be systems x units matrices of one shape, got "
            f"{metric.shape} and {human.shape}"
        )
    if metric.shape[0] < 2:
        raise ValueError(f"soft pairwise accuracy needs at least 2 systems, got {metric.shape[0]}")
    complete = np.all(np.isfinite(metric) & np.isfinite(human), axis=0)
    if not complete.any():
        raise ValueError("no unit has a metric and a human score for every system")
    return complete


def soft_pairwise_accuracy(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    n_resamples: int = 1000,
    seed: int = 0,
    p_value: PValueCount = "fraction",
    benchmark: str | None = None,
) -> SoftPairwiseAccuracy:
    """Soft pairwise accuracy of metric against human scores, both (systems, units) matrices
    (NaN where a system has no score for a unit: such units are dropped), with a percentile
    bootstrap interval over units (none when `n_resamples` is 0)."""
    metric, human = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    complete = _complete_units(metric, human)
    metric, human = metric[:, complete], human[:, complete]
    n = metric.shape[1]
    signs = np.where(swap_masks(n, n_permutations, seed), -1.0, 1.0)
    human_p = pairwise_p_values(human, signs, p_value=p_value)[0]
    metric_p = pairwise_p_values(metric, signs, p_value=p_value)[0]
    value = 1.0 - float(np.mean(np.abs(human_p - metric_p)))
    ci = None
    if n_resamples:
        W = counts_from_indices(bootstrap_indices(n, n_resamples, seed), n)
        boot_h = pairwise_p_values(human, signs, W, p_value)
        boot_m = pairwise_p_values(metric, signs, W, p_value)
        ci = percentile_interval(1.0 - np.abs(boot_h - boot_m).mean(axis=1))
    return SoftPairwiseAccuracy(
        value,
        ci,
        metric.shape[0],
        n,
        int((~complete).sum()),
        _square(human_p, metric.shape[0]),
        _square(metric_p, metric.shape[0]),
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
            statistic="soft-pairwise-accuracy",
            level="system",
            resampling="bootstrap-percentile" if n_resamples else None,
            n_resamples=n_resamples or None,
            seed=seed,
            benchmark=benchmark,
            extra=(("permutations", str(n_permutations)),),
            p_method="(b+1)/(k+1)" if p_value == "plus-one" else "b/k",
        )
    )


def system_unit_matrix(
    values: np.ndarray, systems: np.ndarray, units: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(system labels, (systems, units) matrix) of item values: the mean where a system has
    several items in a unit, NaN where it has none."""
    system_labels, s = np.unique(np.asarray(systems), return_inverse=True)
    _, u = np.unique(np.asarray(units), return_inverse=True)
    shape = (system_labels.size, int(u.max()) + 1 if u.size else 0)
    values = np.asarray(values, dtype=float)
    known = np.isfinite(values)
    sums = np.zeros(shape)
    counts = np.zeros(shape)
    np.add.at(sums, (s[known], u[known]), values[known])
    np.add.at(counts, (s[known], u[known]), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return system_labels, np.where(counts > 0, sums / counts, np.nan)
