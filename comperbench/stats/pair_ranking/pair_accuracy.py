"""Pair accuracy (WMT's pairwise accuracy) with ties and tie calibration (Deutsch, Foster and
Freitag, EMNLP 2023).

Over every pair of items within a group, a metric is right when it orders the pair as the humans
do, or ties it where they tie it (`acc23`). Metric scores rarely tie, so tie calibration treats a
metric difference of at most epsilon as a tie and picks the epsilon that maximises the accuracy
averaged over groups (`acc-eq`); the chosen epsilon is reported with the value. Candidates are 0
and every pair's metric difference, and the smallest best epsilon wins, as in mt-metrics-eval.
tau23 (`tau-eq`) is 2 acc23 - 1 pair by pair, so the same epsilon maximises it.

Every candidate epsilon is scored at once: pairs sorted by their metric gap flip one by one from
"apart" to "tied", and a cumulative sum gives the accuracy after each flip, in O(P log P) for P
pairs. The same sweep runs for many rows (permutations) or many resamples at once: a bootstrap
resample weights each pair by the counts of its two items (an item drawn twice adds pairs tied in
both scores, which count as right) or by the count of its group, and is calibrated on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from comperbench.stats.vectorised import Groups

MAX_PAIRS = 2_000_000
"""More item pairs than this in one group are refused: score within contexts or systems."""
_CELLS = 20_000_000
"""Resample-by-pair cells scored per chunk."""
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class ItemPairs:
    """Every within-group pair of items (positions in group order) and the humans' verdict."""

    left: np.ndarray
    right: np.ndarray
    group: np.ndarray
    human_tie: np.ndarray
    human_sign: np.ndarray
    human_gap: np.ndarray
    per_group: np.ndarray
    """Pairs in each group."""

    @classmethod
    def of(cls, y: np.ndarray, layout: Groups) -> ItemPairs:
        """The pairs of `layout`'s groups, judged by the human scores y (in item order)."""
        per_group = layout.sizes * (layout.sizes - 1) // 2
        largest = int(per_group.max(initial=0))
        if largest > MAX_PAIRS:
            raise ValueError(
                f"pairwise accuracy over {largest:,} item pairs in one group is beyond "
                f"{MAX_PAIRS:,}: score it within contexts (grouped) or at system level, as WMT does"
            )
        left, right, _ = layout.pairs
        group = np.repeat(np.arange(layout.sizes.size), per_group)
        y = np.asarray(y, dtype=float)[layout.order]
        diff = y[left] - y[right]
        return cls(left, right, group, diff == 0, np.sign(diff), np.abs(diff), per_group)

    def verdicts(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each row of X (items in group order): each pair's metric gap, whether the metric
        is right at epsilon 0, and the change when the pair is tied (+1, 0 or -1)."""
        diff = X[:, self.left] - X[:, self.right]
        gap = np.abs(diff)
        right_apart = np.where(
            gap == 0, self.human_tie, ~self.human_tie & (np.sign(diff) == self.human_sign)
        )
        flip = self.human_tie.astype(float) - right_apart
        return gap, right_apart.astype(float), flip


def _best(gap: np.ndarray, base: np.ndarray, steps: np.ndarray, calibrate: bool) -> tuple:
    """Best accuracy and its epsilon per row: `base` (rows,) at epsilon 0 plus the cumulative
    `steps` (rows, pairs) of the pairs whose gap is at most epsilon; gap is (rows or 1, pairs)."""
    if not calibrate or gap.shape[-1] == 0:
        return base, np.zeros_like(base)
    order = np.argsort(gap, axis=-1, kind="stable")
    gaps = np.take_along_axis(gap, order, axis=-1)
    rows = steps.shape[0]
    gaps = np.broadcast_to(gaps, (rows, gaps.shape[-1])) if gaps.shape[0] == 1 else gaps
    order = np.broadcast_to(order, gaps.shape)
    values = base[:, None] + np.cumsum(np.take_along_axis(steps, order, axis=-1), axis=-1)
    last_of_run = np.ones(gaps.shape, dtype=bool)
    last_of_run[:, :-1] = gaps[:, 1:] != gaps[:, :-1]
    values = np.where(last_of_run, values, -np.inf)
    values = np.concatenate([base[:, None], values], axis=1)
    thresholds = np.concatenate([np.zeros((rows, 1)), gaps], axis=1)
    top = values.max(axis=1, keepdims=True)
    best = np.argmax(values >= top - _TOLERANCE, axis=1)
    pick = np.arange(rows)
    return values[pick, best], thresholds[pick, best]


def _group_weights(layout: Groups, weights: np.ndarray | None) -> np.ndarray:
    return np.ones(layout.sizes.size) if weights is None else np.asarray(weights, dtype=float)


def grouped_accuracy(
    M: np.ndarray, y: np.ndarray, layout: Groups, calibrate: bool, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, groups) accuracy of each row of M within each group (NaN in a group without
    pairs) at the row's own best epsilon for the mean over groups (weighted by `weights`, equal
    by default), and that epsilon (rows,)."""
    pairs = ItemPairs.of(y, layout)
    M = np.atleast_2d(np.asarray(M, dtype=float))[:, layout.order]
    gap, right, flip = pairs.verdicts(M)
    defined = pairs.per_group > 0
    share = _shares(pairs, _group_weights(layout, weights))
    base = right @ share
    _, epsilon = _best(gap, base, flip * share, calibrate)
    tied = gap <= epsilon[:, None]
    verdict = np.where(tied, pairs.human_tie, right)
    counts = np.stack([np.bincount(pairs.group, v, layout.sizes.size) for v in verdict])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined, counts / pairs.per_group, np.nan), epsilon


Weigh = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""(resamples' counts, pairs' verdicts at epsilon 0) -> (resamples,) accuracy at epsilon 0, and
(resamples, pairs) weight of each pair's flip."""


def _sweep_resamples(
    M: np.ndarray, pairs: ItemPairs, counts: np.ndarray, weigh: Weigh, calibrate: bool
) -> np.ndarray:
    """(rows, resamples): each row of M (items in group order) calibrated in each resample."""
    out = np.empty((M.shape[0], counts.shape[0]))
    step = max(1, _CELLS // max(pairs.left.size, 1))
    for m, x in enumerate(M):
        gap, right, flip = pairs.verdicts(x[None, :])
        for start in range(0, counts.shape[0], step):
            with np.errstate(invalid="ignore", divide="ignore"):
                base, share = weigh(counts[start : start + step], right[0])
            steps = share * flip[0]
            out[m, start : start + step] = _best(gap, base, steps, calibrate)[0]
    return out


def resampled_accuracy(X: np.ndarray, y: np.ndarray, W: np.ndarray, calibrate: bool) -> np.ndarray:
    """(metrics, resamples) accuracy over all item pairs of each resample given as item counts
    W, each resample calibrated on its own."""
    pairs = ItemPairs.of(y, Groups.single(np.asarray(y).size))

    def weigh(C: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        weight = C[:, pairs.left] * C[:, pairs.right]
        size = C.sum(axis=1)
        total = size * (size - 1) / 2
        both_tied = (C * (C - 1) / 2).sum(axis=1)  # an item drawn twice ties with itself
        return (weight @ right + both_tied) / total, weight / total[:, None]

    return _sweep_resamples(np.atleast_2d(np.asarray(X, dtype=float)), pairs, W, weigh, calibrate)


def resampled_group_accuracy(
    M: np.ndarray,
    y: np.ndarray,
    layout: Groups,
    C: np.ndarray,
    calibrate: bool,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """(rows, resamples) mean accuracy over the groups drawn in each resample (group counts C,
    groups weighted by `weights`), each resample calibrated on its own."""
    pairs = ItemPairs.of(y, layout)
    w = _group_weights(layout, weights)
    defined = (pairs.per_group > 0) * w

    def weigh(counts: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        drawn = counts @ defined
        share = counts[:, pairs.group] * w[pairs.group] / pairs.per_group[pairs.group]
        share /= drawn[:, None]
        return share @ right, share

    M = np.atleast_2d(np.asarray(M, dtype=float))[:, layout.order]
    return _sweep_resamples(M, pairs, C, weigh, calibrate)


def _scaled(accuracy: np.ndarray, tau: bool) -> np.ndarray:
    """acc23, or tau23 = 2 acc23 - 1 (right pairs count +1, wrong ones -1)."""
    return 2 * accuracy - 1 if tau else accuracy


def point(x: np.ndarray, y: np.ndarray, calibrate: bool, tau: bool) -> tuple[float, float, None]:
    """The value over all pairs; no analytic p-value exists (NaN)."""
    values, _ = grouped_accuracy(x, y, Groups.single(np.asarray(y).size), calibrate)
    return float(_scaled(values, tau)[0, 0]), np.nan, None


def resampled(
    X: np.ndarray, y: np.ndarray, W: np.ndarray, calibrate: bool, tau: bool
) -> np.ndarray:
    return _scaled(resampled_accuracy(X, y, W, calibrate), tau)


def grouped(M: np.ndarray, y: np.ndarray, layout: Groups, calibrate: bool, tau: bool) -> np.ndarray:
    return _scaled(grouped_accuracy(M, y, layout, calibrate)[0], tau)


def grouped_resampled(
    M: np.ndarray,
    y: np.ndarray,
    layout: Groups,
    C: np.ndarray,
    weights: np.ndarray,
    calibrate: bool,
    tau: bool,
) -> np.ndarray:
    return _scaled(resampled_group_accuracy(M, y, layout, C, calibrate, weights), tau)


def _shares(pairs: ItemPairs, w: np.ndarray) -> np.ndarray:
    """Each pair's share of the mean over groups: its group's weight over the group's pairs."""
    defined = pairs.per_group > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return w[pairs.group] / (pairs.per_group[pairs.group] * float(w[defined].sum()))


def pair_verdicts(
    x: np.ndarray, y: np.ndarray, layout: Groups, weights: np.ndarray, calibrate: bool, tau: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each within-group pair's verdict on x at x's own epsilon (1 right, 0 wrong; +1 or -1 for
    tau) and its share of the value."""
    pairs = ItemPairs.of(y, layout)
    gap, right, _ = pairs.verdicts(np.asarray(x, dtype=float)[layout.order][None, :])
    epsilon = grouped_accuracy(x, y, layout, calibrate, weights)[1][0] if calibrate else 0.0
    verdict = np.where(gap[0] <= epsilon, pairs.human_tie, right[0]).astype(float)
    return _scaled(verdict, tau), _shares(pairs, _group_weights(layout, weights))


def chosen_epsilon(
    x: np.ndarray, y: np.ndarray, layout: Groups, weights: np.ndarray
) -> dict[str, float]:
    """The tie threshold calibration chose for x (one epsilon over all groups)."""
    return {"epsilon": float(grouped_accuracy(x, y, layout, True, weights)[1][0])}
