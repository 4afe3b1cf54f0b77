"""WMT20's "Kendall-like" tau on relative-ranking judgments (Mathur et al., WMT 2020).

Pairs of items (within a group: a context, or all systems) whose human scores differ by at least
a threshold are relative-ranking judgments (WMT20 took DA scores 25 points apart); the metric is
right on a pair when it orders the two items the same way and wrong otherwise, a metric tie
included: tau = (concordant - discordant) / (concordant + discordant). Over groups the pairs are
pooled, as WMT (and mt-metrics-eval's item average weighted by pairs) does, so a group counts in
proportion to its judgments. Pairs the humans tie never count, whatever the threshold; with no
counted pair the value is undefined (NaN), not 0.
"""

from __future__ import annotations

import numpy as np

from comperbench.stats.pair_ranking.pair_accuracy import ItemPairs
from comperbench.stats.vectorised import Groups

_CELLS = 20_000_000
"""Resample-by-pair cells scored per chunk."""


def _judged(y: np.ndarray, layout: Groups, threshold: float) -> tuple[ItemPairs, np.ndarray]:
    """The within-group pairs and which of them are judgments (human gap >= threshold, > 0)."""
    if threshold < 0:
        raise ValueError(f"the Kendall-like threshold must be >= 0, not {threshold:g}")
    pairs = ItemPairs.of(y, layout)
    return pairs, (pairs.human_gap >= threshold) & ~pairs.human_tie


def _signs(M: np.ndarray, pairs: ItemPairs, judged: np.ndarray) -> np.ndarray:
    """(rows, pairs): +1 where the metric agrees with a judgment, -1 where not, 0 off judgments."""
    agree = np.sign(M[:, pairs.left] - M[:, pairs.right]) == pairs.human_sign
    return np.where(agree, 1.0, -1.0) * judged


def _per_group(M: np.ndarray, y: np.ndarray, layout: Groups, threshold: float):
    pairs, judged = _judged(y, layout, threshold)
    M = np.atleast_2d(np.asarray(M, dtype=float))[:, layout.order]
    signs = _signs(M, pairs, judged)
    G = layout.sizes.size
    sums = np.stack([np.bincount(pairs.group, s, G) for s in signs]) if len(signs) else signs
    return sums, np.bincount(pairs.group, judged.astype(float), G)


def grouped(M: np.ndarray, y: np.ndarray, layout: Groups, threshold: float) -> np.ndarray:
    """(rows, groups): tau within each group (NaN in a group without judgments)."""
    sums, judgments = _per_group(M, y, layout, threshold)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(judgments > 0, sums / judgments, np.nan)


def grouped_resampled(
    M: np.ndarray,
    y: np.ndarray,
    layout: Groups,
    C: np.ndarray,
    weights: np.ndarray,
    threshold: float,
) -> np.ndarray:
    """(rows, resamples): tau over the judgments of the groups drawn (counts C), pooled."""
    sums, judgments = _per_group(M, y, layout, threshold)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sums @ C.T) / (judgments @ C.T)[None, :]


def point(x: np.ndarray, y: np.ndarray, threshold: float) -> tuple[float, float, None]:
    """tau over all pairs; no analytic p-value exists (NaN)."""
    value = grouped(x, y, Groups.single(np.asarray(y).size), threshold)[0, 0]
    return float(value), np.nan, None


def resampled(X: np.ndarray, y: np.ndarray, W: np.ndarray, threshold: float) -> np.ndarray:
    """(metrics, resamples): tau over every resample given as item counts W (a pair of items
    weighs the product of their counts; an item paired with itself is a human tie)."""
    pairs, judged = _judged(y, Groups.single(np.asarray(y).size), threshold)
    X = np.atleast_2d(np.asarray(X, dtype=float))
    signs = _signs(X, pairs, judged)
    out = np.empty((X.shape[0], W.shape[0]))
    step = max(1, _CELLS // max(pairs.left.size, 1))
    for start in range(0, W.shape[0], step):
        part = W[start : start + step]
        weight = part[:, pairs.left] * part[:, pairs.right]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, start : start + step] = (signs @ weight.T) / (weight @ judged)[None, :]
    return out


def pair_verdicts(
    x: np.ndarray, y: np.ndarray, layout: Groups, weights: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's verdict (+1, -1, or 0 off judgments) and its share 1 / judgments."""
    pairs, judged = _judged(y, layout, threshold)
    signs = _signs(np.asarray(x, dtype=float)[layout.order][None, :], pairs, judged)[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return signs, judged / judged.sum()
