"""Correlation kernels that score many resamples at once, one set per statistic.

`weighted_*` score bootstrap resamples given as count matrices (a statistic weighted by the
counts equals the statistic of the gathered resample); `*_resampler` do the work on the score
vectors alone (sorting) once and return a function of count matrices, for resamples scored chunk
by chunk. `group_*` score rows of (permuted) metric scores against fixed human scores within each
group. Kendall's tau is computed from the signs of item pairs when the pairs are few (small
samples, within-group pairs); resampled over more items, Kendall's and Spearman's sums come from
compiled kernels (`rank_kernels`, numba), because their O(n log n) per-row algorithms have no
vectorised numpy form. The registered statistics (`comperbench.stats.metric_correlation.statistics`) choose their
kernels from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

MAX_PAIRS = 5_000
"""Up to this many item pairs (100 items) resampled rank statistics are computed with numpy,
Kendall's from the signs of pairs; above, with compiled kernels (a single large group of
`group_kendall`: with a loop over scipy)."""
MIN_PAIRS = 3
"""Fewer pairs than this leave a correlation undefined (two points always correlate perfectly)."""
_CHUNK = 20_000_000
_TINY = 1e-12
_CANCELLED = 1e-6
"""A resample variance below this share of its one-pass sum of squares is computed again."""
_FENWICK_BYTES = 4 * 2**20
"""Memory of the Fenwick trees one call of the compiled Kendall kernel keeps for its resamples."""

Resampler = Callable[[np.ndarray], np.ndarray]
"""(W resamples x items counts) -> (metrics, resamples) values of score vectors fixed beforehand."""


@dataclass(frozen=True)
class Groups:
    """Items laid out group by group: `order` sorts items so that each group is contiguous."""

    order: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, labels: np.ndarray | list) -> Groups:
        _, inverse = np.unique(np.asarray(labels), return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        sizes = np.bincount(inverse)
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        return cls(order, starts, sizes)

    @classmethod
    def single(cls, n: int) -> Groups:
        return cls(np.arange(n), np.array([0]), np.array([n]))

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positions (in group order) i<j of every within-group pair, and where each group starts."""
        left, right, starts = [], [], []
        count = 0
        for start, size in zip(self.starts, self.sizes, strict=True):
            i, j = np.triu_indices(int(size), 1)
            left.append(i + start)
            right.append(j + start)
            starts.append(count)
            count += i.size
        return np.concatenate(left), np.concatenate(right), np.array(starts)

    @property
    def n_pairs(self) -> int:
        return int(np.sum(self.sizes * (self.sizes - 1) // 2))


def _pearson_from_sums(
    s: np.ndarray, sx: np.ndarray, sy: np.ndarray, sxx: np.ndarray, syy: np.ndarray, sxy: np.ndarray
) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        vx = sxx - sx * sx / s
        vy = syy - sy * sy / s
        cov = sxy - sx * sy / s
        r = cov / np.sqrt(vx * vy)
        # Relative to the raw sums of squares, so the check does not depend on the scale of the
        # scores (a constant vector leaves only rounding error in vx, of order 1e-16 * sxx).
        bad = (vx <= _TINY * sxx) | (vy <= _TINY * syy) | (s < 2)
    r = np.clip(r, -1.0, 1.0)
    r[bad] = np.nan
    return r


def unit_scaled(v: np.ndarray) -> np.ndarray:
    """v divided by the power of two at or below its largest absolute value along the last axis
    (Pearson does not change; the division is exact), so that sums and squares of scores near
    the ends of the float range neither overflow nor lose precision as subnormals; a row of
    zeros stays as it is."""
    return v / _power_of_two_below(np.abs(v).max(axis=-1, keepdims=True, initial=0.0))


def _power_of_two_below(largest: np.ndarray) -> np.ndarray:
    """2**e with 2**e <= largest < 2**(e + 1) (1 where largest is 0), finite for any finite
    largest."""
    return np.ldexp(1.0, np.frexp(np.where(largest > 0, largest, 1.0))[1] - 1)


def centred(v: np.ndarray) -> np.ndarray:
    """v minus its mean along the last axis, centred twice: the first mean is rounded to the
    spacing of the scores' magnitude, an error that is not small against a small spread (scores
    1e12 + 1e-3 * noise: a one-pass Pearson is wrong in the third digit), and the second pass
    removes what it left. (Scale scores near the end of the float range down first.)"""
    deviations = v - v.mean(axis=-1, keepdims=True)
    return deviations - deviations.mean(axis=-1, keepdims=True)


def below_resolution(v: np.ndarray) -> tuple[float, float] | None:
    """(standard deviation, spacing) when the standard deviation of v is below the spacing of
    doubles at its largest magnitude (its values differ by rounding only, and a correlation
    of them measures the rounding), else None."""
    largest = _power_of_two_below(np.abs(v).max(initial=0.0))
    scaled = v / largest
    spread = float(np.sqrt(np.mean(centred(scaled) ** 2)))
    spacing = float(np.spacing(np.abs(scaled).max(initial=0.0)))
    return (spread * largest, spacing * largest) if spread < spacing else None


def _drawn_constant(v: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(k,) whether every unit drawn in each count row of W has the same value in v."""
    drawn = W > 0
    return np.where(drawn, v, np.inf).min(axis=1) == np.where(drawn, v, -np.inf).max(axis=1)


def _scaled_deviations(v: np.ndarray, W: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(k, n) deviations of v from each count row's mean (centred twice), divided by the largest
    drawn one, so that their squares neither underflow nor overflow (as scipy's pearsonr does)."""
    deviations = v - (W @ v)[:, None] / s
    deviations -= (W * deviations).sum(axis=1, keepdims=True) / s  # centred twice (`centred`)
    largest = np.where(W > 0, np.abs(deviations), 0.0).max(axis=1, keepdims=True)
    return deviations / largest


def _centred_pearson(x: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(k,) Pearson of x and y under each count row of W, centred at each resample's own means;
    NaN only where the drawn values of x or of y are all equal (scipy's rule)."""
    s = W.sum(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        dx, dy = _scaled_deviations(x, W, s), _scaled_deviations(y, W, s)
        r = (W * dx * dy).sum(axis=1) / np.sqrt((W * dx * dx).sum(axis=1) * (W * dy * dy).sum(1))
    r = np.clip(r, -1.0, 1.0)
    r[_drawn_constant(x, W) | _drawn_constant(y, W) | (s[:, 0] < 2)] = np.nan
    return r


def pearson_resampler(X: np.ndarray, y: np.ndarray) -> Resampler:
    """Pearson of each metric row of X with y under count rows, the squares and products of
    the `centred` scores formed once. A resample whose variance is a tiny share of its sum of squares
    about the full sample's mean (the one-pass sums lost their digits to cancellation, e.g.
    scores near 0 but one far larger item not drawn) is computed again about its own means.
    Scores are scaled to at most 1 in absolute value first."""
    X, y = unit_scaled(X), unit_scaled(y)  # sums of scores near 1e308 would overflow
    Xc, yc = unit_scaled(centred(X)), unit_scaled(centred(y))
    n_metrics = X.shape[0]
    # every sum as a column of one matrix, so that one product reads the count rows once
    columns = np.column_stack([np.ones(y.size), yc, yc * yc, Xc.T, (Xc * Xc).T, (Xc * yc).T])

    def score(W: np.ndarray) -> np.ndarray:
        sums = W @ columns
        s, sy, syy = sums[:, 0], sums[:, 1], sums[:, 2]
        sx, sxx, sxy = (
            sums[:, 3 : 3 + n_metrics],
            sums[:, 3 + n_metrics : 3 + 2 * n_metrics],
            sums[:, 3 + 2 * n_metrics :],
        )
        r = _pearson_from_sums(s[:, None], sx, sy[:, None], sxx, syy[:, None], sxy)
        with np.errstate(invalid="ignore", divide="ignore"):
            lost = (sxx - sx * sx / s[:, None] <= _CANCELLED * sxx) | (
                syy - sy * sy / s <= _CANCELLED * syy
            )[:, None]
        lost |= ~np.isfinite(r)
        for m in np.flatnonzero(lost.any(axis=0)):
            rows = np.flatnonzero(lost[:, m])
            r[rows, m] = _centred_pearson(X[m], y, W[rows])
        return r.T

    return score


def weighted_pearson(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(m, k) Pearson of each metric row of X with y under each count row of W."""
    return pearson_resampler(X, y)(W)


def _compiled(n_items: int) -> bool:
    """Whether rank statistics over this many items use the compiled kernels."""
    return n_items * (n_items - 1) // 2 > MAX_PAIRS


def _transposed(W: np.ndarray) -> np.ndarray:
    """Counts as the compiled kernels take them: items x resamples, contiguous floats."""
    return np.ascontiguousarray(W.T, dtype=float)


@dataclass(frozen=True)
class TieGroups:
    """A score vector's stable sort `order`, where each run of equal values starts in it
    (`bounds`, ending with n) and the run (dense rank) `codes` of each item."""

    order: np.ndarray
    bounds: np.ndarray
    codes: np.ndarray

    @classmethod
    def of(cls, v: np.ndarray) -> TieGroups:
        order = np.argsort(v, kind="stable")
        sorted_v = v[order]
        new = np.r_[True, sorted_v[1:] != sorted_v[:-1]]
        codes = np.empty(v.size, dtype=np.int64)
        codes[order] = np.cumsum(new) - 1
        return cls(order, np.r_[np.flatnonzero(new), v.size], codes)


def _numpy_ranks(ties: TieGroups, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(groups, k) average rank of each tie group per resample, with the count-weighted sums of
    the items' ranks and of their squares (numpy, for small samples)."""
    counts = np.add.reduceat(W[:, ties.order], ties.bounds[:-1], axis=1)
    mid = np.cumsum(counts, axis=1) - (counts - 1) / 2
    ranks = mid[:, ties.codes]
    return mid.T, np.einsum("ij,ij->i", W, ranks), np.einsum("ij,ij,ij->i", W, ranks, ranks)


@dataclass(frozen=True)
class ResampledRanks:
    """One score vector's tie groups and their average ranks in every resample of a count
    matrix, with the count-weighted sum and sum of squares of the ranks: what Spearman needs of
    one side, computed once and reusable against any other vector resampled with the same
    counts."""

    ties: TieGroups
    mid: np.ndarray
    """(tie groups, resamples) average rank of each tie group."""
    total: np.ndarray
    squares: np.ndarray

    @classmethod
    def of(cls, v: np.ndarray, W: np.ndarray) -> ResampledRanks:
        return cls.of_ties(TieGroups.of(np.asarray(v, dtype=float)), W)

    @classmethod
    def of_ties(
        cls, ties: TieGroups, W: np.ndarray, WT: np.ndarray | None = None
    ) -> ResampledRanks:
        """From tie groups already found (`WT`: W transposed, if at hand)."""
        if not _compiled(ties.codes.size):
            return cls(ties, *_numpy_ranks(ties, W))
        from comperbench.stats.rank_kernels import tie_group_ranks

        WT = _transposed(W) if WT is None else WT
        return cls(ties, *tie_group_ranks(ties.order, ties.bounds, WT))


def _rank_cross(
    x: TieGroups, y: ResampledRanks, W: np.ndarray, WT: np.ndarray | None = None
) -> np.ndarray:
    """(3, k): count-weighted sums of x's ranks, their squares and their products with y's."""
    from comperbench.stats.rank_kernels import rank_sums

    WT = _transposed(W) if WT is None else WT
    return rank_sums(x.order, x.bounds, y.ties.codes, y.mid, WT)


def spearman_of_ranks(x: ResampledRanks, y: ResampledRanks, W: np.ndarray) -> np.ndarray:
    """(k,) Spearman of two vectors in each resample of W, from their resampled ranks."""
    if _compiled(W.shape[1]):
        cross = _rank_cross(x.ties, y, W)[2]
    else:
        cross = np.einsum("ij,ij,ij->i", W, x.mid.T[:, x.ties.codes], y.mid.T[:, y.ties.codes])
    return _pearson_from_sums(W.sum(axis=1), x.total, y.total, x.squares, y.squares, cross)


def spearman_resampler(X: np.ndarray, y: np.ndarray) -> Resampler:
    """Spearman of each metric row of X with y under count rows, the vectors sorted once."""
    metric_ties = [TieGroups.of(x) for x in X]
    human_ties = TieGroups.of(y)

    def score(W: np.ndarray) -> np.ndarray:
        if not _compiled(y.size):
            ry = ResampledRanks.of_ties(human_ties, W)
            return np.vstack(
                [spearman_of_ranks(ResampledRanks.of_ties(t, W), ry, W) for t in metric_ties]
            )
        WT = _transposed(W)
        ry = ResampledRanks.of_ties(human_ties, W, WT)
        s = W.sum(axis=1)
        rows = []
        for ties in metric_ties:
            total, squares, cross = _rank_cross(ties, ry, W, WT)
            rows.append(_pearson_from_sums(s, total, ry.total, squares, ry.squares, cross))
        return np.vstack(rows)

    return score


def weighted_spearman(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(m, k) Spearman of each metric row of X with y under each count row of W."""
    return spearman_resampler(X, y)(W)


def _pair_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums of `values` (last axis: pairs) over each group's pairs; 0 for a group without pairs."""
    n = values.shape[-1]
    empty = np.r_[starts[1:], n] == starts
    if empty.all():
        return np.zeros((*values.shape[:-1], starts.size))
    if empty[-1]:
        values = np.concatenate([values, np.zeros((*values.shape[:-1], 1))], axis=-1)
    sums = np.add.reduceat(values, starts, axis=-1)
    sums[..., empty] = 0.0
    return sums


def _kendall_from_pair_signs(
    sx: np.ndarray,
    sy: np.ndarray,
    ww: np.ndarray | None,
    pair_starts: np.ndarray,
    variant: str,
    total: np.ndarray | None = None,
    classes: np.ndarray | None = None,
) -> np.ndarray:
    """Per-group tau (rows x groups) from pair signs; `total`/`classes` are needed for tau-c."""
    both = sx * sy
    nx, ny = (sx != 0).astype(float), (sy != 0).astype(float)
    if ww is not None:
        both, nx, ny = both * ww, nx * ww, ny * ww
    both, nx, ny = np.broadcast_arrays(both, nx, ny)
    num = _pair_sums(both, pair_starts)
    dx = _pair_sums(nx, pair_starts)
    dy = _pair_sums(ny, pair_starts)
    if variant == "b":
        return _tau_b(num, dx, dy)
    assert total is not None and classes is not None
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = 2 * num / (total**2 * (classes - 1) / classes)
    return np.where((dx == 0) | (dy == 0), np.nan, tau)


def _distinct(values: np.ndarray, present: np.ndarray, groups: Groups) -> np.ndarray:
    """(rows, groups) number of distinct values among the present items of each group.

    values, present: (rows, n) in group order.
    """
    from scipy import sparse  # on first use: a warm run need not import it

    left, right, _ = groups.pairs
    n = values.shape[-1]
    tie = (values[..., left] == values[..., right]) & present[..., left] & present[..., right]
    pair = np.arange(left.size)
    incidence = sparse.csr_matrix(
        (np.ones(2 * left.size), (np.r_[left, right], np.r_[pair, pair])), shape=(n, left.size)
    )
    mult = present + (incidence @ tie.T.astype(float)).T
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(present, 1.0 / mult, 0.0)
    return np.add.reduceat(share, groups.starts, axis=-1)


def _few_items_kendall(X: np.ndarray, y: np.ndarray, variant: str) -> Resampler:
    """Kendall tau of each metric row of X with y under count rows, over up to MAX_PAIRS pairs:
    tau-b of finite scores under whole counts by matrix products (`_kendall_b_by_products`),
    the rest by the pair path."""
    if variant != "b" or not (np.isfinite(X).all() and np.isfinite(y).all()):
        return lambda W: _weighted_kendall_pairs(X, y, W, variant)
    by_products = _kendall_b_by_products(X, y)
    return lambda W: by_products(W) if _whole_counts(W) else _weighted_kendall_pairs(X, y, W, "b")


def _weighted_kendall_pairs(
    X: np.ndarray, y: np.ndarray, W: np.ndarray, variant: str
) -> np.ndarray:
    groups = Groups.single(y.size)
    left, right, pair_starts = groups.pairs
    sy = np.sign(y[left] - y[right])
    out = np.empty((X.shape[0], W.shape[0]))
    rows = max(1, _CHUNK // max(left.size, 1))
    for lo in range(0, W.shape[0], rows):
        w = W[lo : lo + rows]
        ww = w[:, left] * w[:, right]
        present = w > 0
        total = w.sum(axis=1, keepdims=True)
        cy = _distinct(np.broadcast_to(y, w.shape), present, groups) if variant == "c" else None
        for m, x in enumerate(X):
            sx = np.sign(x[left] - x[right])
            classes = None
            if variant == "c":
                cx = _distinct(np.broadcast_to(x, w.shape), present, groups)
                classes = np.minimum(cx, cy)
            tau = _kendall_from_pair_signs(sx, sy, ww, pair_starts, variant, total, classes)
            out[m, lo : lo + rows] = tau[:, 0]
    return out


def _whole_counts(W: np.ndarray) -> bool:
    """Whether every weighted sum over pairs is a sum of whole numbers below 2**53 (exact in any
    order): whole counts, and resamples small enough."""
    return bool(np.all(np.rint(W) == W)) and float(np.max(W.sum(axis=1), initial=0.0)) < 2**26


def _kendall_b_by_products(X: np.ndarray, y: np.ndarray) -> Resampler:
    """Tau-b of each metric row of X with y under whole count rows W, each sum over pairs
    i < j of w_i w_j s_ij taken as half of w A w over all i, j (A symmetric, zero diagonal) by
    matrix products: the very sums of the pair path (they are exact), without its
    resamples x pairs arrays. Nor does the sign of a zero differ: where tau is defined, a pair of
    drawn items is untied on both sides, so the pair sum is never -0.0. The matrices A are made
    once, for every chunk of resamples."""
    sy = np.sign(y[:, None] - y[None, :])
    y_untied = (sy != 0).astype(float)
    signs = [np.sign(x[:, None] - x[None, :]) for x in X]
    matrices = [(sx * sy, (sx != 0).astype(float)) for sx in signs]

    def score(W: np.ndarray) -> np.ndarray:
        def pair_sums(A: np.ndarray) -> np.ndarray:
            return np.einsum("ki,ki->k", W @ A, W) / 2

        dy = pair_sums(y_untied)
        return np.vstack(
            [_tau_b(pair_sums(both), pair_sums(x_untied), dy) for both, x_untied in matrices]
        )

    return score


def _tau_b(num: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(dx * dy)
    return np.where((dx == 0) | (dy == 0), np.nan, tau)


def kendall(x: np.ndarray, y: np.ndarray, variant: str) -> float:
    """scipy's Kendall tau-b / tau-c (NaN when undefined)."""
    if x.size < 2:
        return np.nan
    from scipy import stats as sps  # on first use: a warm run need not import it

    return float(sps.kendalltau(x, y, variant=variant).statistic)


@dataclass(frozen=True)
class _KendallLayout:
    """One metric and the human scores laid out for the compiled Kendall kernel: items sorted by
    the variable with more distinct values (`first`), the other one's dense ranks in the tree."""

    order: np.ndarray
    bounds: np.ndarray
    ranks: np.ndarray
    n_ranks: int
    human_first: bool

    @classmethod
    def of(cls, x: np.ndarray, y_codes: np.ndarray, y_distinct: int) -> _KendallLayout:
        _, x_codes = np.unique(x, return_inverse=True)
        x_distinct = int(x_codes.max()) + 1
        human_first = y_distinct > x_distinct
        first, second = (y_codes, x_codes) if human_first else (x_codes, y_codes)
        order = np.lexsort((second, first))
        sorted_first = first[order]
        bounds = np.r_[0, np.flatnonzero(sorted_first[1:] != sorted_first[:-1]) + 1, x.size]
        return cls(order, bounds, second, min(x_distinct, y_distinct), human_first)

    def sums(self, WT: np.ndarray) -> np.ndarray:
        """(6, k) kendall_sums, with the metric's tie rows before the human scores'."""
        from comperbench.stats.rank_kernels import kendall_sums

        lanes = int(np.clip(_FENWICK_BYTES // (24 * (self.n_ranks + 1)), 1, WT.shape[1]))
        out = kendall_sums(self.order, self.bounds, self.ranks, self.n_ranks, WT, lanes)
        return out[[0, 2, 1, 3, 5, 4]] if self.human_first else out


def _tau_from_sums(sums: np.ndarray, n: np.ndarray, variant: str) -> np.ndarray:
    """Kendall's tau from `kendall_sums` rows (metric first) and the resample sizes, with scipy's
    operations in scipy's order, so that the values are scipy's to the last bit."""
    score, x_ties, y_ties = sums[0], sums[1], sums[2]
    pairs = n * (n - 1) / 2
    undefined = (x_ties == pairs) | (y_ties == pairs)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            tau = score / np.sqrt(pairs - x_ties) / np.sqrt(pairs - y_ties)
        else:
            classes = np.minimum(sums[4], sums[5]).astype(np.int64)
            size = n.astype(np.int64)
            # Python integers: scipy divides the exact size**2 * (classes - 1) by classes.
            scale = [
                int(s) ** 2 * (int(c) - 1) / int(c) if c > 1 else np.nan
                for s, c in zip(size, classes, strict=True)
            ]
            tau = 2 * score / np.array(scale)
    return np.where(undefined, np.nan, np.clip(tau, -1.0, 1.0))


def kendall_resampler(X: np.ndarray, y: np.ndarray, variant: str) -> Resampler:
    """Kendall tau-b or tau-c (`variant` "b"/"c") of each metric row of X with y under count
    rows, the vectors laid out once."""
    if not _compiled(y.size):
        return _few_items_kendall(X, y, variant)
    _, y_codes = np.unique(y, return_inverse=True)
    layouts = [_KendallLayout.of(x, y_codes, int(y_codes.max()) + 1) for x in X]

    def score(W: np.ndarray) -> np.ndarray:
        WT = _transposed(W)
        n = W.sum(axis=1)
        return np.vstack([_tau_from_sums(layout.sums(WT), n, variant) for layout in layouts])

    return score


def weighted_kendall(X: np.ndarray, y: np.ndarray, W: np.ndarray, variant: str) -> np.ndarray:
    """(m, k) Kendall tau-b or tau-c (`variant` "b"/"c") of each row of X with y per count row."""
    return kendall_resampler(X, y, variant)(W)


def _rows_pearson(M: np.ndarray, y: np.ndarray, groups: Groups) -> np.ndarray:
    """(k, groups) Pearson per group; M and y already in group order."""
    st, size = groups.starts, groups.sizes.astype(float)
    sx = np.add.reduceat(M, st, axis=1)
    sxx = np.add.reduceat(M * M, st, axis=1)
    sxy = np.add.reduceat(M * y, st, axis=1)
    sy, syy = np.add.reduceat(y, st), np.add.reduceat(y * y, st)
    return _pearson_from_sums(size, sx, sy, sxx, syy, sxy)


def _rows_ranks(M: np.ndarray, groups: Groups) -> np.ndarray:
    """Average ranks within each group of every row (M in group order)."""
    from scipy import stats as sps  # on first use: a warm run need not import it

    if groups.starts.size == 1:
        return sps.rankdata(M, axis=-1)
    dense = sps.rankdata(M, method="dense", axis=-1)
    group_of = np.repeat(np.arange(groups.starts.size), groups.sizes)
    key = group_of * (M.shape[-1] + 1.0) + dense
    return sps.rankdata(key, axis=-1) - np.repeat(groups.starts, groups.sizes)


def _in_group_order(M: np.ndarray, y: np.ndarray, layout: Groups) -> tuple[np.ndarray, np.ndarray]:
    M = np.atleast_2d(np.asarray(M, dtype=float))[:, layout.order]
    return M, np.asarray(y, dtype=float)[layout.order]


def _grouped_pearson(M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
    """Pearson per group of rows already in group order (NaN in groups of < MIN_PAIRS items)."""
    if M.shape[-1] == 0:
        return np.full((M.shape[0], layout.starts.size), np.nan)
    Mc, yc = (
        _group_scaled(_group_centred(_group_scaled(v, layout), layout), layout) for v in (M, y)
    )
    values = _rows_pearson(Mc, yc, layout)
    values[:, layout.sizes < MIN_PAIRS] = np.nan
    values[_group_constant(M, layout) | _group_constant(y, layout)] = np.nan
    return values


def _group_centred(v: np.ndarray, layout: Groups) -> np.ndarray:
    """Values (last axis in group order) minus their group's mean."""
    means = np.add.reduceat(v, layout.starts, axis=-1) / layout.sizes
    return v - np.repeat(means, layout.sizes, axis=-1)


def _group_scaled(v: np.ndarray, layout: Groups) -> np.ndarray:
    """Values (last axis in group order) divided by the power of two at or below their group's
    largest absolute value (exact; a group's Pearson does not change), so that its sums neither
    overflow nor underflow."""
    largest = np.maximum.reduceat(np.abs(v), layout.starts, axis=-1)
    return v / np.repeat(_power_of_two_below(largest), layout.sizes, axis=-1)


def _group_constant(v: np.ndarray, layout: Groups) -> np.ndarray:
    """Whether all values of each group (last axis in group order) are equal."""
    low = np.minimum.reduceat(v, layout.starts, axis=-1)
    return low == np.maximum.reduceat(v, layout.starts, axis=-1)


def group_pearson(M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
    """(k, groups): Pearson of each row of M with y within each group (NaN where undefined)."""
    return _grouped_pearson(*_in_group_order(M, y, layout), layout)


def group_spearman(M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
    """(k, groups): Spearman of each row of M with y within each group (NaN where undefined)."""
    M, y = _in_group_order(M, y, layout)
    if M.shape[-1] == 0:
        return _grouped_pearson(M, y, layout)
    return _grouped_pearson(_rows_ranks(M, layout), _rows_ranks(y[None, :], layout)[0], layout)


def group_kendall(M: np.ndarray, y: np.ndarray, layout: Groups, variant: str) -> np.ndarray:
    """(k, groups): Kendall tau-b or tau-c of each row of M with y within each group.

    A single group of more than MAX_PAIRS pairs is scored by a loop over scipy.
    """
    if layout.starts.size == 1 and layout.n_pairs > MAX_PAIRS:
        y = np.asarray(y, dtype=float)
        return np.array([[kendall(row, y, variant)] for row in np.atleast_2d(M)])
    M, y = _in_group_order(M, y, layout)
    left, right, pair_starts = layout.pairs
    sy = np.sign(y[left] - y[right])
    out = np.empty((M.shape[0], layout.starts.size))
    rows = max(1, _CHUNK // max(left.size, 1))
    total = layout.sizes.astype(float)
    cy = _distinct(y[None, :], np.ones((1, y.size), bool), layout) if variant == "c" else None
    for lo in range(0, M.shape[0], rows):
        part = M[lo : lo + rows]
        sx = np.sign(part[:, left] - part[:, right])
        classes = None
        if variant == "c":
            classes = np.minimum(_distinct(part, np.ones(part.shape, bool), layout), cy)
        out[lo : lo + rows] = _kendall_from_pair_signs(
            sx, sy, None, pair_starts, variant, total, classes
        )
    out[:, layout.sizes < MIN_PAIRS] = np.nan
    return out
