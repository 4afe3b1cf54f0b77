"""scipy.stats' Pearson, Spearman and Kendall values with their p-values, without scipy.stats.

Importing scipy.stats costs most of a short run, while the points need only scipy.special's
incomplete beta, Student t and normal distribution functions. Each function here performs
scipy's operations in scipy's order (scipy 1.17: `pearsonr`, `spearmanr`, `kendalltau`, two-sided),
so that its values are scipy's to the last bit; the tests compare them with scipy.stats on many
inputs. Non-finite scores, which scipy treats apart, are handed to scipy.stats itself.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import special


def _scipy_stats():  # type: ignore[no-untyped-def]
    """scipy.stats, imported when a case needs it."""
    from scipy import stats

    return stats


def _quiet(function_name: str, *args: object, **kwargs: object) -> tuple[float, float]:
    """scipy.stats' own function, without its warnings about (nearly) constant input (the
    callers say why a value is undefined)."""
    stats = _scipy_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        warnings.simplefilter("ignore", stats.NearConstantInputWarning)
        result = getattr(stats, function_name)(*args, **kwargs)
    return float(result.statistic), float(result.pvalue)


def _finite(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(np.isfinite(x).all() and np.isfinite(y).all())


def pearsonr(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """`scipy.stats.pearsonr(x, y)`'s statistic and p-value (1-d float arrays, at least 3)."""
    if not _finite(x, y) or x.size < 3:
        return _quiet("pearsonr", x, y)
    n = np.asarray(x.size, dtype=x.dtype)
    constant = bool(np.all(x == x[0:1]) or np.all(y == y[0:1]))
    xmean = np.mean(x, axis=-1, keepdims=True)
    ymean = np.mean(y, axis=-1, keepdims=True)
    xm, ym = x - xmean, y - ymean
    xmax = np.max(np.abs(xm), axis=-1, keepdims=True)
    ymax = np.max(np.abs(ym), axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normxm = xmax * np.linalg.norm(xm / xmax, ord=2, axis=-1, keepdims=True)
        normym = ymax * np.linalg.norm(ym / ymax, ord=2, axis=-1, keepdims=True)
        r = np.vecdot(xm / normxm, ym / normym, axis=-1)
    r = np.clip(r, -1.0, 1.0)
    if constant:
        r = np.asarray(np.nan)
    ab = np.asarray(n / 2 - 1, dtype=x.dtype)
    # scipy's beta distribution on [-1, 1]: sf((x - loc) / scale) with loc -1, scale 2
    p_value = 2 * special.betaincc(ab, ab, (np.abs(r) - -1) / 2)
    return float(r), float(p_value)


def average_ranks(v: np.ndarray) -> np.ndarray:
    """`scipy.stats.rankdata(v)`: 1-based ranks, ties given their average (exact half-integers)."""
    order = np.argsort(v, kind="stable")
    ordered = v[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, v.size])
    ranks = np.empty(v.size)
    ranks[order] = np.repeat(starts + (sizes + 1) / 2, sizes)
    return ranks


def spearmanr(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """`scipy.stats.spearmanr(x, y)`'s statistic and p-value (1-d float arrays, at least 3)."""
    if not _finite(x, y) or x.size < 3:
        return _quiet("spearmanr", x, y)
    if (x[0] == x).all() or (y[0] == y).all():
        return np.nan, np.nan
    ranked = np.column_stack((average_ranks(x), average_ranks(y)))
    rs = np.corrcoef(ranked, rowvar=False)
    dof = x.size - 2
    with np.errstate(divide="ignore"):
        t = rs * np.sqrt((dof / ((rs + 1.0) * (1.0 - rs))).clip(0))
    p_value = 2 * special.stdtr(dof, -np.abs(t))
    return float(rs[1, 0]), float(p_value[1, 0])


def _inversions(v: np.ndarray) -> int:
    """Pairs i < j with v[i] > v[j] (v: non-negative integers), counted while merging sorted
    runs of doubling width: at each width, every item of a right run against the left one."""
    n = v.size
    span = int(v.max()) + 1 if n else 1
    values = v.astype(np.int64)
    count, width = 0, 1
    while width < n:
        position = np.arange(n)
        block = position // (2 * width)
        keys = block * span + values
        left = (position // width) % 2 == 0
        left_keys = keys[left]  # sorted: runs are sorted, blocks ascending
        right_keys, right_block = keys[~left], block[~left]
        above = np.searchsorted(left_keys, right_block * span + span - 1, side="right")
        count += int((above - np.searchsorted(left_keys, right_keys, side="right")).sum())
        values = np.sort(keys) - block * span
        width *= 2
    return count


def _count_rank_tie(ranks: np.ndarray) -> tuple[int, int, int]:
    cnt = np.bincount(ranks).astype("int64", copy=False)
    cnt = cnt[cnt > 1]
    return (
        int((cnt * (cnt - 1) // 2).sum()),
        int((cnt * (cnt - 1.0) * (cnt - 2)).sum()),
        int((cnt * (cnt - 1.0) * (2 * cnt + 5)).sum()),
    )


def _kendall_p_exact(n: int, c: int) -> float:
    """scipy's exact two-sided p-value of Kendall's tau over n untied items with c concordant
    pairs (Kendall, Rank Correlation Methods, 1970)."""
    c = int(min(c, (n * (n - 1)) // 2 - c))
    if c == 0:
        prob = 2.0 / math.factorial(n) if n < 171 else 0.0
    elif c == 1:
        prob = 2.0 / math.factorial(n - 1) if n < 172 else 0.0
    elif 4 * c == n * (n - 1):
        prob = 1.0
    else:
        new = np.zeros(c + 1)
        new[0:2] = 1.0
        for j in range(3, n + 1):
            new = np.cumsum(new) if n < 171 else np.cumsum(new) / j
            if j <= c:
                new[j:] -= new[: c + 1 - j]
        prob = 2.0 * np.sum(new) / math.factorial(n) if n < 171 else np.sum(new)
    return float(np.clip(prob, 0, 1))


def kendalltau(x: np.ndarray, y: np.ndarray, variant: str = "b") -> tuple[float, float]:
    """`scipy.stats.kendalltau(x, y, variant=variant)`'s statistic and p-value (1-d float
    arrays, at least 3)."""
    if not _finite(x, y) or x.size < 3:
        return _quiet("kendalltau", x, y, variant=variant)
    size = x.size
    perm = np.argsort(y)  # sort on y and convert y to dense ranks
    x, y = x[perm], y[perm]
    y = np.r_[True, y[1:] != y[:-1]].cumsum(dtype=np.intp)
    perm = np.argsort(x, kind="mergesort")
    x, y = x[perm], y[perm]
    x = np.r_[True, x[1:] != x[:-1]].cumsum(dtype=np.intp)
    dis = _inversions(y)  # discordant pairs: within a tie of x, y ascends
    obs = np.r_[True, (x[1:] != x[:-1]) | (y[1:] != y[:-1]), True]
    cnt = np.diff(np.nonzero(obs)[0]).astype("int64", copy=False)
    ntie = int((cnt * (cnt - 1) // 2).sum())  # joint ties
    xtie, x0, x1 = _count_rank_tie(x)
    ytie, y0, y1 = _count_rank_tie(y)
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return np.nan, np.nan
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    if variant == "b":
        tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    else:
        minclasses = min(len(set(x)), len(set(y)))
        tau = 2 * con_minus_dis / (size**2 * (minclasses - 1) / minclasses)
    tau = np.minimum(1.0, max(-1.0, tau))
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        return float(tau), _kendall_p_exact(size, tot - dis)
    m = size * (size - 1.0)
    var = (
        (m * (2 * size + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (size - 2))
    )
    z = con_minus_dis / np.sqrt(var)
    return float(tau), float(2 * special.ndtr(-np.abs(z)))
