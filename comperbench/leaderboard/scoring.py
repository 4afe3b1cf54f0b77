"""Correlations of a submission with human scores, with paired bootstrap replicates.

The statistics are the registered ones (`comperbench.stats.statistics`) reported by default; the
same numbers `comperbench evaluate` prints. Every metric on a benchmark is resampled with the same
seeded index matrix (one per benchmark level and aspect), so the stored replicates of two metrics
are paired: rank ranges and tests against the leader are computed from them at view time without
rescoring anything. A statistic whose item-level bootstrap is too costly (Kendall) is computed at
system level only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import stats as sps

from comperbench.leaderboard.items import (
    cached_benchmark,
    protocol_tag,
    scored_benchmark,
    stored_levels,
)
from comperbench.leaderboard.records import Correlation, Settings
from comperbench.leaderboard.submission import Coverage
from comperbench.stats.contexts import system_unit_matrix, undefined_reason
from comperbench.stats.resampling import (
    bootstrap_indices,
    counts_from_indices,
    percentile_interval,
)
from comperbench.stats.signature import benchmark_tag
from comperbench.stats.statistics import (
    Point,
    Statistic,
    get_statistic,
    registered_statistics,
)

N_RESAMPLES = 1000
SEED = 12345
CONFIDENCE = 0.95
RESAMPLING = "bootstrap-percentile"


def leaderboard_statistics() -> list[Statistic]:
    """The statistics the leaderboard scores and ranks by."""
    return [s for s in registered_statistics() if s.ranked]


def scored_at(statistic: Statistic, level: str) -> bool:
    """Whether the leaderboard scores `statistic` at `level` (item level only if affordable)."""
    return statistic.applies_to(level) and (level == "system" or statistic.item_resampling)


@lru_cache(maxsize=4)
def resample_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each of n units is drawn in each bootstrap resample (n_resamples x n)."""
    counts = counts_from_indices(bootstrap_indices(n, n_resamples, seed), n)
    counts.setflags(write=False)
    return counts


@lru_cache(maxsize=8)
def _human_side(
    benchmark: str, level: str, aspect: str, statistic: str, n_resamples: int, seed: int
) -> Any:
    """What one aspect's human scores contribute to every resample, shared by all metrics."""
    human = scored_benchmark(benchmark, level).human_scores(aspect)
    y = human[~np.isnan(human)]
    return get_statistic(statistic).side(y, resample_counts(len(y), n_resamples, seed))


class _MetricSides:
    """A metric's contribution to every item-level resample, per statistic, kept for the last
    set of items scored (aspects with the same missing human scores share it)."""

    def __init__(self, coverage: Coverage, n_resamples: int, seed: int) -> None:
        self.coverage, self.n_resamples, self.seed = coverage, n_resamples, seed
        self._sides: dict[str, tuple[bytes, Any]] = {}

    def replicates(self, statistic: Statistic, aspect: str, valid: np.ndarray) -> np.ndarray:
        key = valid.tobytes()
        w = resample_counts(int(valid.sum()), self.n_resamples, self.seed)
        if self._sides.get(statistic.name, (None,))[0] != key:
            self._sides[statistic.name] = (key, statistic.side(self.coverage.scores[valid], w))
        human = _human_side(
            self.coverage.benchmark,
            self.coverage.level,
            aspect,
            statistic.name,
            self.n_resamples,
            self.seed,
        )
        return statistic.paired(self._sides[statistic.name][1], human, w)


def _system_means(x: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=x, minlength=k) / np.bincount(codes, minlength=k)


def _units(
    coverage: Coverage, x: np.ndarray, y: np.ndarray, codes: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The item-level pairs and, on the benchmark's first stored level, the system means."""
    units = {coverage.level: (x, y)}
    present = np.unique(codes)
    if len(present) >= 3 and coverage.level == stored_levels(coverage.benchmark)[0]:
        k = int(codes.max()) + 1
        units["system"] = (_system_means(x, codes, k)[present], _system_means(y, codes, k)[present])
    return {level: pair for level, pair in units.items() if len(pair[0]) >= 3}


def _protocol_items(coverage: Coverage) -> Coverage:
    """The coverage restricted to the items of `scored_benchmark`, in its order."""
    full = cached_benchmark(coverage.benchmark, coverage.level)
    kept = scored_benchmark(coverage.benchmark, coverage.level)
    if len(kept) == len(full):
        return coverage
    systems = np.asarray(full.table.column("system").to_pylist())
    keep = ~np.isin(systems, kept.excluded_systems)
    return replace(coverage, scores=coverage.scores[keep])


@dataclass(frozen=True)
class _HumanContexts:
    """One aspect's systems x contexts matrix on the contexts every system answered with a human
    score, the seeded context resamples (after a first row of ones: the value) and the humans'
    side of them, shared by every metric."""

    systems: np.ndarray
    contexts: np.ndarray
    complete: np.ndarray
    human: np.ndarray
    W: np.ndarray
    side: Any


@lru_cache(maxsize=8)
def _human_contexts(
    benchmark: str, level: str, aspect: str, statistic: str, n_resamples: int, seed: int
) -> _HumanContexts:
    bench = scored_benchmark(benchmark, level)
    systems, contexts = (
        bench.table.column(c).to_numpy(zero_copy_only=False) for c in ("system", "dialogue_id")
    )
    _, human = system_unit_matrix(bench.human_scores(aspect), systems, contexts)
    complete = np.isfinite(human).all(axis=0)
    n = int(complete.sum())
    if n == 0:  # undefined for every metric (see `undefined_reason`): nothing to resample
        return _HumanContexts(
            systems, contexts, complete, human[:, complete], np.ones((1, 0)), None
        )
    W = np.vstack([np.ones((1, n)), resample_counts(n, n_resamples, seed)])
    side = get_statistic(statistic).context_side(human[:, complete], W)
    return _HumanContexts(systems, contexts, complete, human[:, complete], W, side)


def _over_contexts(
    coverage: Coverage, statistic: Statistic, aspect: str, n_resamples: int, seed: int
) -> tuple[Point, np.ndarray, int]:
    """A statistic over contexts: its point, its replicates over the benchmark's shared context
    resamples, and the number of contexts. A metric without a score in one of those contexts
    is not scored (its replicates would not be paired with the others')."""
    h = _human_contexts(
        coverage.benchmark, coverage.level, aspect, statistic.name, n_resamples, seed
    )
    metric = system_unit_matrix(coverage.scores, h.systems, h.contexts)[1][:, h.complete]
    reason = undefined_reason(metric, h.human)
    if reason is None and not np.isfinite(metric).all():
        missing = int((~np.isfinite(metric).all(axis=0)).sum())
        reason = f"no metric score for some system in {missing} of the shared contexts"
    if reason:
        return Point(np.nan, np.nan, None, reason), np.full(n_resamples, np.nan), h.human.shape[1]
    values = statistic.context_resampled(metric, h.human, h.W, h.side)
    return Point(float(values[0]), np.nan, None, None), values[1:], h.human.shape[1]


def score_coverage(
    coverage: Coverage,
    chosen: list[Statistic] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> list[Correlation]:
    """Item- and system-level correlations of a full-coverage metric with every aspect, on the
    items the benchmark's evaluation protocol keeps (see `items.scored_benchmark`).

    The system level of a benchmark is derived from its first stored level only, so a metric
    covering both the turn and the dialogue level of a benchmark gets one set of system rows.
    """
    if not coverage.full:
        raise ValueError(f"{coverage.benchmark}: only full-coverage scores are ranked")
    coverage = _protocol_items(coverage)
    bench = scored_benchmark(coverage.benchmark, coverage.level)
    protocol = protocol_tag(coverage.benchmark)
    _, codes = np.unique(np.asarray(bench.table.column("system").to_pylist()), return_inverse=True)
    tag = benchmark_tag(bench.name, bench.fingerprint) or ""
    sides = _MetricSides(coverage, n_resamples, seed)
    results = []
    for aspect in bench.metadata.aspect_names:
        human = bench.human_scores(aspect)
        valid = ~np.isnan(human)
        for level, (ux, uy) in _units(
            coverage, coverage.scores[valid], human[valid], codes[valid]
        ).items():
            w = resample_counts(len(ux), n_resamples, seed)
            for statistic in chosen or leaderboard_statistics():
                if not scored_at(statistic, level):
                    continue
                n = len(ux)
                if level == "system" and statistic.over_contexts is not None:
                    point, reps, n = _over_contexts(coverage, statistic, aspect, n_resamples, seed)
                elif level == "system":
                    point = statistic.point(ux, uy, "systems")
                    reps = statistic.resampled(ux, uy, w)[0]
                else:
                    point = statistic.point(ux, uy, "items")
                    reps = sides.replicates(statistic, aspect, valid)
                interval = percentile_interval(reps, CONFIDENCE)
                settings = Settings(
                    statistic.name, level, aspect, RESAMPLING, n_resamples, seed, tag, protocol
                )
                results.append(
                    Correlation(
                        benchmark=bench.name,
                        value=point.value,
                        p_value=point.p_value,
                        p_method=point.p_method,
                        reason=point.reason,
                        ci_low=interval.low,
                        ci_high=interval.high,
                        n=n,
                        replicates=reps.astype(np.float32),
                        settings=settings,
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
    """A ranked metric's place: rank, 95% rank range, and its paired test against the leader.

    Tied values share their rank (the best of the tied places, as 1, 1, 3) and, with identical
    replicates, their rank range."""

    rank: int
    rank_low: int
    rank_high: int
    p_vs_leader: float
    """Paired bootstrap p-value of 'the leader correlates better' (NaN for the leaders)."""
    leader: bool
    """Ranked first (several rows when their values tie)."""


def _best_places(values: np.ndarray) -> np.ndarray:
    """1 + how many values are strictly greater, along axis 0 (ties share the best place)."""
    return sps.rankdata(-values, method="min", axis=0).astype(int)


def standings(values: np.ndarray, replicates: np.ndarray) -> list[Standing | None]:
    """Ranks (1 = best) with bootstrap rank ranges and paired p-values against the leader.

    `values` holds each metric's point estimate, `replicates` its paired resamples (metrics x B).
    A metric whose value is undefined (NaN, e.g. constant scores) is not ranked (None) and is
    left out of every other metric's ranks and tests. Each tie with the first leader (in input
    order) is a leader too; the others are tested against the first leader.
    """
    out: list[Standing | None] = [None] * len(values)
    defined = np.flatnonzero(np.isfinite(values))
    if defined.size == 0:
        return out
    rank = _best_places(values[defined])
    filled = np.nan_to_num(replicates[defined].astype(float), nan=-np.inf)
    boot_ranks = _best_places(filled)
    low = np.percentile(boot_ranks, 2.5, axis=1, method="lower")
    high = np.percentile(boot_ranks, 97.5, axis=1, method="higher")
    first = defined[np.flatnonzero(rank == 1)[0]]
    for k, i in enumerate(defined):
        leader = bool(rank[k] == 1)
        p = np.nan if leader else paired_p(values, replicates, first, i)
        out[i] = Standing(int(rank[k]), int(low[k]), int(high[k]), float(p), leader)
    return out
