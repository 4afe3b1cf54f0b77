"""Correlations of a submission with human scores, with paired bootstrap replicates.

Every metric on a benchmark is resampled with the same seeded index matrix (one per benchmark
level and aspect), so the stored replicates of two metrics are paired: rank ranges and tests
against the leader are computed from them at view time without rescoring anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as sps

from comperbench import __version__
from comperbench.leaderboard.items import cached_benchmark
from comperbench.leaderboard.submission import Coverage

STATISTICS = ("pearson", "spearman", "kendall")
ITEM_STATISTICS = ("pearson", "spearman")
"""Kendall is not resampled at item level: no vectorised tau-b exists for long rows, and a
per-resample loop costs seconds per aspect. It is computed at system level (few systems)."""
N_RESAMPLES = 1000
SEED = 12345
CONFIDENCE = 0.95


@dataclass
class Correlation:
    """One correlation of one metric with one aspect at one level."""

    benchmark: str
    level: str
    aspect: str
    statistic: str
    value: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    replicates: np.ndarray
    signature: str


@lru_cache(maxsize=4)
def resample_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each of n items is drawn in each bootstrap resample (n_resamples x n).

    Built from one seeded index matrix; statistics weighted by these counts equal the
    statistics of the resampled vectors, without materialising them.
    """
    idx = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    keys = (np.arange(n_resamples)[:, None] * n + idx).ravel()
    counts = np.bincount(keys, minlength=n_resamples * n).reshape(n_resamples, n).astype(float)
    counts.setflags(write=False)
    return counts


def _weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of x and y (vectors or per-resample rows) under each row of weights `w`."""
    total = w.sum(axis=1)
    if x.ndim == 1:
        mx, my = (w @ x) / total, (w @ y) / total
        sxy = (w @ (x * y)) / total - mx * my
        sxx = (w @ (x * x)) / total - mx * mx
        syy = (w @ (y * y)) / total - my * my
    else:
        mx, my = (w * x).sum(axis=1) / total, (w * y).sum(axis=1) / total
        sxy = (w * x * y).sum(axis=1) / total - mx * my
        sxx = (w * x * x).sum(axis=1) / total - mx * mx
        syy = (w * y * y).sum(axis=1) / total - my * my
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    return np.where((sxx > 1e-12) & (syy > 1e-12), np.clip(r, -1.0, 1.0), np.nan)


def _weighted_ranks(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Average (tie-aware) rank of every item within each resample (rows of counts `w`)."""
    values, inverse = np.unique(x, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(values)))
    per_value = np.add.reduceat(w[:, order], starts, axis=1)
    before = np.cumsum(per_value, axis=1) - per_value
    return (before + (per_value + 1) / 2)[:, inverse]


def _rows_kendall(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall tau-b of every row pair by pairwise signs (O(n^2): for system level only)."""
    dx = np.sign(x[:, :, None] - x[:, None, :])
    dy = np.sign(y[:, :, None] - y[:, None, :])
    concordance = (dx * dy).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return concordance / np.sqrt((dx * dx).sum(axis=(1, 2)) * (dy * dy).sum(axis=(1, 2)))


def _item_replicates(statistic: str, w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if statistic == "pearson":
        return _weighted_pearson(w, x, y)
    return _weighted_pearson(w, _weighted_ranks(w, x), _weighted_ranks(w, y))


def _system_replicates(statistic: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Correlations over systems of per-resample system means (rows of x and y)."""
    if statistic == "kendall":
        return _rows_kendall(x, y)
    if statistic == "spearman":
        x, y = sps.rankdata(x, axis=1), sps.rankdata(y, axis=1)
    ones = np.ones_like(x)
    return _weighted_pearson(ones, x, y)


def _point(statistic: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    test = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}
    result = test[statistic](x, y)
    return float(result.statistic), float(result.pvalue)


def _system_means(w: np.ndarray, x: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """Per-system weighted means of x (rows of weights `w` -> rows of k means)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ (onehot * x[:, None])) / (w @ onehot)


def score_coverage(
    coverage: Coverage,
    statistics: tuple[str, ...] = STATISTICS,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> list[Correlation]:
    """Item- and system-level correlations of a full-coverage metric with every aspect."""
    if not coverage.full:
        raise ValueError(f"{coverage.benchmark}: only full-coverage scores are ranked")
    bench = cached_benchmark(coverage.benchmark, coverage.level)
    systems, codes = np.unique(
        np.asarray(bench.table.column("system").to_pylist()), return_inverse=True
    )
    tag = f"{bench.name}@{bench.fingerprint}"
    results = []
    for aspect in bench.metadata.aspect_names:
        human = bench.human_scores(aspect)
        valid = ~np.isnan(human)
        x, y, sys_codes = coverage.scores[valid], human[valid], codes[valid]
        n = len(x)
        if n < 3:
            continue
        w = resample_counts(n, n_resamples, seed)
        k = len(systems)
        onehot = np.eye(k)[sys_codes]
        levels = {coverage.level: None}
        if k >= 3:
            levels["system"] = (
                _system_means(np.ones((1, n)), x, onehot)[0],
                _system_means(np.ones((1, n)), y, onehot)[0],
                _system_means(w, x, onehot),
                _system_means(w, y, onehot),
            )
        for level, system in levels.items():
            if system is None:
                px, py = x, y
            else:
                px, py, sx, sy = system
            chosen = [s for s in statistics if level == "system" or s in ITEM_STATISTICS]
            for statistic in chosen:
                value, p_value = _point(statistic, px, py)
                reps = (
                    _item_replicates(statistic, w, x, y)
                    if system is None
                    else _system_replicates(statistic, sx, sy)
                )
                finite = reps[np.isfinite(reps)]
                tail = (1 - CONFIDENCE) / 2 * 100
                low, high = (
                    np.percentile(finite, [tail, 100 - tail]) if len(finite) else (np.nan, np.nan)
                )
                signature = (
                    f"stat:{statistic}|level:{level}|aspect:{aspect}|resample:bootstrap"
                    f"|n:{n_resamples}|seed:{seed}|ci:{CONFIDENCE:g}|bench:{tag}|version:{__version__}"
                )
                results.append(
                    Correlation(
                        benchmark=bench.name,
                        level=level,
                        aspect=aspect,
                        statistic=statistic,
                        value=value,
                        p_value=p_value,
                        ci_low=float(low),
                        ci_high=float(high),
                        n=len(px),
                        replicates=reps.astype(np.float32),
                        signature=signature,
                    )
                )
    return results


@dataclass
class Standing:
    """A ranked metric's place: rank, 95% rank range, and its paired test against the leader."""

    rank: int
    rank_low: int
    rank_high: int
    p_vs_leader: float
    """One-sided paired bootstrap p-value of 'the leader is not better' (NaN for the leader)."""


def standings(values: np.ndarray, replicates: np.ndarray) -> list[Standing]:
    """Ranks (1 = best) with bootstrap rank ranges and paired p-values against the leader.

    `values` holds each metric's point estimate, `replicates` its paired resamples (metrics x B).
    """
    m = len(values)
    if m == 0:
        return []
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(1, m + 1)
    filled = np.nan_to_num(replicates.astype(float), nan=-np.inf)
    boot_ranks = (-filled).argsort(axis=0, kind="stable").argsort(axis=0, kind="stable") + 1
    low = np.percentile(boot_ranks, 2.5, axis=1, method="lower")
    high = np.percentile(boot_ranks, 97.5, axis=1, method="higher")
    leader = order[0]
    diffs = filled[leader][None, :] - filled
    p = (np.count_nonzero(diffs <= 0, axis=1) + 1) / (filled.shape[1] + 1)
    p[leader] = np.nan
    return [Standing(int(rank[i]), int(low[i]), int(high[i]), float(p[i])) for i in range(m)]
