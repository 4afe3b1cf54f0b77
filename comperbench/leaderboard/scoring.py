"""Correlations of a submission with human scores, with paired bootstrap replicates.

The statistics come from `comperbench.stats` (the same numbers `comperbench evaluate` prints).
Every metric on a benchmark is resampled with the same seeded index matrix (one per benchmark
level and aspect), so the stored replicates of two metrics are paired: rank ranges and tests
against the leader are computed from them at view time without rescoring anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from comperbench.leaderboard.items import cached_benchmark, stored_levels
from comperbench.leaderboard.submission import Coverage
from comperbench.stats.correlation import point_correlation
from comperbench.stats.resampling import (
    bootstrap_indices,
    counts_from_indices,
    percentile_interval,
)
from comperbench.stats.signature import Signature, benchmark_tag
from comperbench.stats.vectorised import (
    _pearson_from_sums,
    _weighted_ranks,
    weighted_correlations,
)

STATISTICS = ("pearson", "spearman", "kendall-b")
ITEM_STATISTICS = ("pearson", "spearman")
"""Kendall is not resampled at item level: beyond a few hundred items its bootstrap is a loop
over resamples that costs seconds per aspect. It is computed at system level (few systems)."""
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
    """How often each of n units is drawn in each bootstrap resample (n_resamples x n)."""
    counts = counts_from_indices(bootstrap_indices(n, n_resamples, seed), n)
    counts.setflags(write=False)
    return counts


@lru_cache(maxsize=8)
def _human_ranks(
    benchmark: str, level: str, aspect: str, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Resampled ranks of one aspect's human scores and their weighted sums, shared by all metrics."""
    human = cached_benchmark(benchmark, level).human_scores(aspect)
    y = human[~np.isnan(human)]
    w = resample_counts(len(y), n_resamples, seed)
    ranks = _weighted_ranks(y, w)
    weighted = w * ranks
    return ranks, weighted.sum(axis=1), (weighted * ranks).sum(axis=1)


class _ItemSpearman:
    """Item-level bootstrap Spearman of one metric against every aspect.

    `comperbench.stats.weighted_correlations` re-ranks both sides on each call; on a 10,000-item
    benchmark that is most of the 3 s budget, so the metric's resampled ranks are computed once
    per coverage and the human side once per aspect (cached), with the same stats primitives.
    """

    def __init__(self, coverage: Coverage, n_resamples: int, seed: int) -> None:
        self.coverage, self.n_resamples, self.seed = coverage, n_resamples, seed
        self._ranks: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, aspect: str, valid: np.ndarray) -> np.ndarray:
        key = valid.tobytes()
        w = resample_counts(int(valid.sum()), self.n_resamples, self.seed)
        if key not in self._ranks:
            ranks = _weighted_ranks(self.coverage.scores[valid], w)
            weighted = w * ranks
            self._ranks = {key: (weighted, (weighted * ranks).sum(axis=1))}
        wx, sxx = self._ranks[key]
        ry, sy, syy = _human_ranks(
            self.coverage.benchmark, self.coverage.level, aspect, self.n_resamples, self.seed
        )
        s = w.sum(axis=1)
        return _pearson_from_sums(s, wx.sum(axis=1), sy, sxx, syy, (wx * ry).sum(axis=1))


def _system_means(x: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=x, minlength=k) / np.bincount(codes, minlength=k)


def score_coverage(
    coverage: Coverage,
    statistics: tuple[str, ...] = STATISTICS,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> list[Correlation]:
    """Item- and system-level correlations of a full-coverage metric with every aspect.

    The system level of a benchmark is derived from its first stored level only, so a metric
    covering both the turn and the dialogue level of a benchmark gets one set of system rows.
    """
    if not coverage.full:
        raise ValueError(f"{coverage.benchmark}: only full-coverage scores are ranked")
    bench = cached_benchmark(coverage.benchmark, coverage.level)
    _, codes = np.unique(np.asarray(bench.table.column("system").to_pylist()), return_inverse=True)
    k = int(codes.max()) + 1 if len(codes) else 0
    tag = benchmark_tag(bench.name, bench.fingerprint)
    system_source = stored_levels(coverage.benchmark)[0]
    results = []
    item_spearman = _ItemSpearman(coverage, n_resamples, seed)
    for aspect in bench.metadata.aspect_names:
        human = bench.human_scores(aspect)
        valid = ~np.isnan(human)
        x, y = coverage.scores[valid], human[valid]
        present = np.unique(codes[valid])
        units = {coverage.level: (x, y)}
        if len(present) >= 3 and coverage.level == system_source:
            units["system"] = (
                _system_means(x, codes[valid], k)[present],
                _system_means(y, codes[valid], k)[present],
            )
        for level, (ux, uy) in units.items():
            if len(ux) < 3:
                continue
            w = resample_counts(len(ux), n_resamples, seed)
            chosen = [s for s in statistics if level == "system" or s in ITEM_STATISTICS]
            for statistic in chosen:
                value, p_value, _ = point_correlation(ux, uy, statistic)
                if level != "system" and statistic == "spearman":
                    reps = item_spearman(aspect, valid)
                else:
                    reps = weighted_correlations(ux[None, :], uy, w, statistic)[0]
                interval = percentile_interval(reps, CONFIDENCE)
                signature = Signature(
                    statistic=statistic,
                    level=level,
                    resampling="bootstrap-percentile",
                    n_resamples=n_resamples,
                    seed=seed,
                    benchmark=tag,
                    extra=(("aspect", aspect),),
                )
                results.append(
                    Correlation(
                        benchmark=bench.name,
                        level=level,
                        aspect=aspect,
                        statistic=statistic,
                        value=value,
                        p_value=p_value,
                        ci_low=interval.low,
                        ci_high=interval.high,
                        n=len(ux),
                        replicates=reps.astype(np.float32),
                        signature=str(signature),
                    )
                )
    return results


def paired_p(values: np.ndarray, replicates: np.ndarray, a: int, b: int) -> float:
    """p-value of "metric a correlates better than metric b" from their paired replicates.

    The test of `comperbench.stats.paired_bootstrap` on stored replicates: the deltas shifted to
    mean 0 at the observed delta d, p = (1 + #{d* - d >= d}) / (B + 1).
    """
    delta = float(values[a] - values[b])
    deltas = replicates[a].astype(float) - replicates[b].astype(float)
    deltas = deltas[np.isfinite(deltas)]
    if not np.isfinite(delta) or deltas.size == 0:
        return float("nan")
    return (1 + np.count_nonzero(deltas - delta >= delta)) / (deltas.size + 1)


@dataclass
class Standing:
    """A ranked metric's place: rank, 95% rank range, and its paired test against the leader."""

    rank: int
    rank_low: int
    rank_high: int
    p_vs_leader: float
    """Paired bootstrap p-value of 'the leader correlates better' (NaN for the leader)."""


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
    p = np.array([paired_p(values, replicates, leader, i) for i in range(m)])
    p[leader] = np.nan
    return [Standing(int(rank[i]), int(low[i]), int(high[i]), float(p[i])) for i in range(m)]
