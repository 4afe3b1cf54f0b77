"""Correlations of submissions with human scores, with paired bootstrap replicates.

The statistics are the registered ones (`comperbench.stats.metric_correlation.statistics`) reported by default; the
same numbers `comperbench evaluate` prints. Every metric on a benchmark is resampled with the same
seeded resamples (one stream per benchmark level and set of rated items), so the stored
replicates of two metrics are paired: rank ranges and tests against the leader are computed
from them at view time without rescoring anything. A statistic whose item-level bootstrap is too
costly (Kendall) is computed at system level only.

Item-level resamples are drawn and scored a block of rows at a time (memory grows with the
items, not items x resamples), for every metric of a benchmark level at once; what the human
scores contribute to a statistic over contexts is computed once per benchmark version and kept
on disk.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from comperbench import data
from comperbench.leaderboard.items import (
    LevelItems,
    items_path,
    protocol_tag,
    scored_items,
    stored_levels,
)
from comperbench.leaderboard.records import Correlation, Settings
from comperbench.leaderboard.submission import Coverage
from comperbench.loaders.base import code_digest
from comperbench.stats.metric_correlation.contexts import system_unit_matrix, undefined_reason
from comperbench.stats.metric_correlation.statistics import (
    OverContexts,
    Point,
    Statistic,
    get_statistic,
    registered_statistics,
)
from comperbench.stats.resampling import (
    bootstrap_count_chunks,
    bootstrap_indices,
    compact_counts,
    count_chunks_of,
    counts_from_indices,
    over_chunks,
    percentile_interval,
)
from comperbench.stats.settings import SETTINGS

N_RESAMPLES = SETTINGS.resamples
SEED = SETTINGS.seed
CONFIDENCE = SETTINGS.confidence
RESAMPLING = "bootstrap-percentile"
CHUNK_BYTES = 8 * 2**20
"""Item-level resample counts held at once (about 100 resamples of 10,000 items)."""
KEPT_COUNTS = 32 * 2**20
"""Most items x resamples whose counts are kept (in memory and in the cache folder, one byte or
two each) rather than drawn again for every submission."""
MIN_UNITS = 3
"""Fewest items or systems a correlation is computed on."""
SCORING_VERSION = 3
"""Version of how the leaderboard computes a stored row, kept with it: raised when a change
of this module alters stored numbers, so that `service.rescore` scores the stored
submissions again (2: the shared seed of `stats.settings`, 0, instead of 12345; 3: the
protocol of `comperbench evaluate`, a reference-free metric on every system, and a metric on
the items it scored)."""


def leaderboard_statistics() -> list[Statistic]:
    """The statistics the leaderboard scores and ranks by."""
    return [s for s in registered_statistics() if s.ranked]


def scored_at(statistic: Statistic, level: str) -> bool:
    """Whether the leaderboard scores `statistic` at `level` (item level only if affordable)."""
    return statistic.applies_to(level) and (level == "system" or statistic.item_resampling)


@lru_cache(maxsize=4)
def resample_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each of n units is drawn in each bootstrap resample (n_resamples x n), for
    few units (systems, contexts); items are resampled in chunks of rows."""
    counts = counts_from_indices(bootstrap_indices(n, n_resamples, seed), n)
    counts.setflags(write=False)
    return counts


def _item_replicates(
    X: np.ndarray,
    human: dict[str, np.ndarray],
    statistics: Sequence[Statistic],
    n_resamples: int,
    seed: int,
) -> dict[tuple[str, str], np.ndarray]:
    """(aspect, statistic) -> (metrics, resamples) replicates of every metric row of X at item
    level; aspects rated on the same items share one pass over the resamples."""
    by_items: dict[bytes, list[str]] = {}
    for aspect, y in human.items():
        valid = ~np.isnan(y)
        if valid.sum() >= MIN_UNITS:
            by_items.setdefault(valid.tobytes(), []).append(aspect)
    out: dict[tuple[str, str], np.ndarray] = {}
    for aspects in by_items.values():
        valid = ~np.isnan(human[aspects[0]])
        keys = [(a, s.name) for a in aspects for s in statistics]
        scorers = [s.resampler(X[:, valid], human[a][valid]) for a in aspects for s in statistics]
        chunks = _item_count_chunks(int(valid.sum()), n_resamples, seed)
        out.update(zip(keys, over_chunks(chunks, scorers), strict=True))
    return out


def _item_count_chunks(n: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The item-level resample counts in chunks of CHUNK_BYTES: drawn again above KEPT_COUNTS,
    else read from the kept matrix."""
    if n * n_resamples > KEPT_COUNTS:
        return bootstrap_count_chunks(n, n_resamples, seed, CHUNK_BYTES)
    return count_chunks_of(_kept_counts(n, n_resamples, seed), CHUNK_BYTES)


@lru_cache(maxsize=4)
def _kept_counts(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """`compact_counts`, read from the cache folder when drawn before (its digest verified)."""
    name = f"{n}-{n_resamples}-{seed}-{stats_code()[:16]}.npy"
    path = data.cache_dir() / "leaderboard" / "resample-counts" / name
    counts = _kept_array(path, lambda: compact_counts(n, n_resamples, seed))
    counts.setflags(write=False)
    return counts


def _kept_array(path: Path, computed: Callable[[], np.ndarray]) -> np.ndarray:
    """The array kept at `path` (written by `data.write_verified`, not altered since), else
    `computed()`, kept there."""
    kept = data.read_verified(path)
    if kept is not None:
        return np.load(io.BytesIO(kept), allow_pickle=False)
    array = np.asarray(computed())
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    data.write_verified(path, out.getvalue())
    return array


@cache
def stats_code() -> str:
    """Digest of the statistics' code: part of the key of the human sides kept on disk."""
    return code_digest(sorted((Path(__file__).parents[1] / "stats").rglob("*.py")))


@dataclass(frozen=True)
class _HumanContexts:
    """One aspect's systems x contexts matrix on the contexts every system answered with a human
    score, the seeded context resamples (after a first row of ones: the value) and the humans'
    side of them, shared by every metric."""

    complete: np.ndarray
    human: np.ndarray
    W: np.ndarray
    side: Any


def _context_side_path(
    items: LevelItems, aspect: str, statistic: Statistic, n_resamples: int, seed: int
) -> Path:
    key = repr(
        (
            items.level,
            aspect,
            items.excluded_systems,
            items.references_only,
            statistic.name,
            statistic.signature_extra,
            n_resamples,
            seed,
            stats_code(),
        )
    )
    folder = items_path(items.benchmark, items.level, items.fingerprint).parent / "context-sides"
    return folder / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.npy"


def _cached_context_side(
    items: LevelItems, aspect: str, statistic: Statistic, n_resamples: int, seed: int, W: np.ndarray
) -> np.ndarray:
    """The humans' side of `statistic` over contexts, read from disk when computed before (and
    not altered since: its digest is verified)."""
    path = _context_side_path(items, aspect, statistic, n_resamples, seed)

    def side() -> np.ndarray:
        _, human = system_unit_matrix(items.human_scores(aspect), items.systems, items.contexts)
        return np.asarray(statistic.context_side(human[:, np.isfinite(human).all(axis=0)], W))

    return _kept_array(path, side)  # a file altered since it was written is computed again


@lru_cache(maxsize=8)
def _human_contexts(
    benchmark: str,
    level: str,
    reference_free: bool,
    aspect: str,
    statistic: str,
    n_resamples: int,
    seed: int,
) -> _HumanContexts:
    items = scored_items(benchmark, level, reference_free)
    _, human = system_unit_matrix(items.human_scores(aspect), items.systems, items.contexts)
    complete = np.isfinite(human).all(axis=0)
    n = int(complete.sum())
    if n == 0:  # undefined for every metric (see `undefined_reason`): nothing to resample
        return _HumanContexts(complete, human[:, complete], np.ones((1, 0)), None)
    W = np.vstack([np.ones((1, n)), resample_counts(n, n_resamples, seed)])
    side = _cached_context_side(items, aspect, get_statistic(statistic), n_resamples, seed, W)
    return _HumanContexts(complete, human[:, complete], W, side)


def _system_means(x: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=x, minlength=k) / np.bincount(codes, minlength=k)


def _system_units(
    X: np.ndarray, y: np.ndarray, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each metric's and the humans' mean per system present, None for fewer than MIN_UNITS."""
    present = np.unique(codes)
    if len(present) < MIN_UNITS:
        return None
    k = int(codes.max()) + 1
    means = np.array([_system_means(x, codes, k)[present] for x in X]).reshape(len(X), -1)
    return means, _system_means(y, codes, k)[present]


class _LevelScoring:
    """The correlations of full-coverage metrics of one benchmark level that are correlated on
    the same items: those the benchmark's evaluation protocol keeps for their kind (reference-free
    or reference-based, `items.scored_items`) that every one of them scored, so that all are
    resampled on the same items. A statistic over contexts reads every kept item (a context
    missing a metric's score leaves it undefined, with the reason)."""

    def __init__(
        self,
        coverages: Sequence[Coverage],
        statistics: Sequence[Statistic],
        n_resamples: int,
        seed: int,
    ) -> None:
        first = coverages[0]
        benchmark, level = first.benchmark, first.level
        self.reference_free = first.reference_free
        self.all_items = scored_items(benchmark, level, self.reference_free)
        self.X_all = np.vstack([c.scores[self.all_items.positions] for c in coverages])
        scored = np.isfinite(self.X_all).all(axis=0)
        self.items = self.all_items if scored.all() else self.all_items.subset(scored)
        self.X = self.X_all[:, scored]
        self.codes = np.unique(self.items.systems, return_inverse=True)[1]
        self.n_resamples, self.seed = n_resamples, seed
        self.item_statistics = [s for s in statistics if scored_at(s, level)]
        self.system_statistics = (
            [s for s in statistics if scored_at(s, "system")]
            if level == stored_levels(benchmark)[0]
            else []
        )
        self.protocol = protocol_tag(benchmark, level, self.reference_free)
        self.context_sides: list[dict[tuple[str, bytes], Any]] = [{} for _ in coverages]

    def rows(self) -> list[list[Correlation]]:
        """Per metric: for each aspect, the item-level rows, then the system-level rows."""
        out: list[list[Correlation]] = [[] for _ in self.X]
        replicates = _item_replicates(
            self.X, self.items.human, self.item_statistics, self.n_resamples, self.seed
        )
        for aspect, human in self.items.human.items():
            valid = ~np.isnan(human)
            ux, uy = self.X[:, valid], human[valid]
            if len(uy) >= MIN_UNITS:
                for statistic in self.item_statistics:
                    reps = replicates[(aspect, statistic.name)]
                    for i, x in enumerate(ux):
                        point = statistic.point(x, uy, "items")
                        out[i].append(
                            self._row(statistic, self.items.level, aspect, point, reps[i], len(uy))
                        )
            system = _system_units(ux, uy, self.codes[valid])
            if system is not None:
                self._system_rows(aspect, *system, out)
        return out

    def _system_rows(
        self, aspect: str, sx: np.ndarray, sy: np.ndarray, out: list[list[Correlation]]
    ) -> None:
        w = resample_counts(len(sy), self.n_resamples, self.seed)
        for statistic in self.system_statistics:
            if statistic.supports("over_contexts"):
                for i in range(len(self.X)):
                    over = statistic.capability(OverContexts)
                    point, reps, n = self._over_contexts(i, statistic, over, aspect)
                    out[i].append(self._row(statistic, "system", aspect, point, reps, n))
                continue
            replicates = statistic.resampled(sx, sy, w)
            for i, x in enumerate(sx):
                point = statistic.point(x, sy, "systems")
                out[i].append(self._row(statistic, "system", aspect, point, replicates[i], len(sy)))

    def _over_contexts(
        self, metric: int, statistic: Statistic, over: OverContexts, aspect: str
    ) -> tuple[Point, np.ndarray, int]:
        """A statistic over contexts: its point, its replicates over the benchmark's shared
        context resamples, and the number of contexts. A metric without a score in one of those
        contexts is not scored (its replicates would not be paired with the others'). A metric's
        side is computed once for the aspects rated on the same contexts."""
        items, n_resamples = self.all_items, self.n_resamples
        h = _human_contexts(
            items.benchmark,
            items.level,
            self.reference_free,
            aspect,
            statistic.name,
            n_resamples,
            self.seed,
        )
        scores = system_unit_matrix(self.X_all[metric], items.systems, items.contexts)[1]
        scores = scores[:, h.complete]
        reason = undefined_reason(scores, h.human)
        if reason is None and not np.isfinite(scores).all():
            missing = int((~np.isfinite(scores).all(axis=0)).sum())
            reason = f"no metric score for some system in {missing} of the shared contexts"
        n = h.human.shape[1]
        if reason:
            return Point(np.nan, np.nan, None, reason), np.full(n_resamples, np.nan), n
        sides, key = self.context_sides[metric], (statistic.name, h.complete.tobytes())
        if key not in sides:
            sides[key] = statistic.context_side(scores, h.W)
        values = over.combine(sides[key], h.side)
        return Point(float(values[0]), np.nan, None, None), values[1:], n

    def _row(
        self,
        statistic: Statistic,
        level: str,
        aspect: str,
        point: Point,
        replicates: np.ndarray,
        n: int,
    ) -> Correlation:
        interval = percentile_interval(replicates, CONFIDENCE)
        settings = Settings(
            statistic.name,
            level,
            aspect,
            RESAMPLING,
            self.n_resamples,
            self.seed,
            self.items.tag,
            self.protocol,
        )
        return Correlation(
            benchmark=self.items.benchmark,
            value=point.value,
            p_value=point.p_value,
            p_method=point.p_method,
            reason=point.reason,
            ci_low=interval.low,
            ci_high=interval.high,
            n=n,
            replicates=replicates.astype(np.float32),
            settings=settings,
        )


def score_coverages(
    coverages: Sequence[Coverage],
    chosen: Sequence[Statistic] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> list[list[Correlation]]:
    """Item- and system-level correlations of each full-coverage metric with every aspect, on
    the items the benchmark's evaluation protocol keeps for its kind (see `items.scored_items`)
    that it scored; the metrics correlated on the same items are scored together, over the same
    resamples drawn once.

    The system level of a benchmark is derived from its first stored level only, so a metric
    covering both the turn and the dialogue level of a benchmark gets one set of system rows.
    """
    partial = [c for c in coverages if not c.full]
    if partial:
        raise ValueError(f"{partial[0].benchmark}: only full-coverage scores are ranked")
    statistics = list(chosen or leaderboard_statistics())
    levels: dict[tuple[str, str, bool, bytes], list[int]] = {}
    for i, c in enumerate(coverages):
        positions = scored_items(c.benchmark, c.level, c.reference_free).positions
        scored = np.isfinite(c.scores[positions]).tobytes()
        levels.setdefault((c.benchmark, c.level, c.reference_free, scored), []).append(i)
    out: list[list[Correlation]] = [[] for _ in coverages]
    for members in levels.values():
        scoring = _LevelScoring([coverages[i] for i in members], statistics, n_resamples, seed)
        for i, rows in zip(members, scoring.rows(), strict=True):
            out[i] = rows
    return out


def score_coverage(
    coverage: Coverage,
    chosen: Sequence[Statistic] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> list[Correlation]:
    """`score_coverages` of one coverage."""
    return score_coverages([coverage], chosen, n_resamples, seed)[0]


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


def best_places(values: np.ndarray) -> np.ndarray:
    """1 + how many values are strictly greater, along axis 0 (ties share the best place; -inf,
    an undefined replicate, ranks last). An undefined value (NaN) has no place: it is refused."""
    if np.isnan(values).any():
        raise ValueError("best_places: a value is NaN; leave undefined values out before ranking")
    if values.size == 0:
        return np.zeros(values.shape, dtype=int)
    columns = values.reshape(values.shape[0], -1)
    places = [np.searchsorted(np.sort(-c), -c, side="left") + 1 for c in columns.T]
    return np.stack(places, axis=1).reshape(values.shape)


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
    rank = best_places(values[defined])
    filled = np.nan_to_num(replicates[defined].astype(float), nan=-np.inf)
    boot_ranks = best_places(filled)
    low = np.percentile(boot_ranks, 2.5, axis=1, method="lower")
    high = np.percentile(boot_ranks, 97.5, axis=1, method="higher")
    first = defined[np.flatnonzero(rank == 1)[0]]
    for k, i in enumerate(defined):
        leader = bool(rank[k] == 1)
        p = np.nan if leader else paired_p(values, replicates, first, i)
        out[i] = Standing(int(rank[k]), int(low[k]), int(high[k]), float(p), leader)
    return out
