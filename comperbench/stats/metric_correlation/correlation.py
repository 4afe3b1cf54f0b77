"""Correlation of metric scores with human scores at turn, dialogue and system level.

`correlate` gives one metric's result; `correlation_table` gives several metrics at once and
shares one bootstrap index matrix between them. The statistic is a registered `Statistic` (or its
name, see `comperbench.stats.metric_correlation.statistics`). Missing scores (NaN) are dropped pairwise and counted;
an undefined correlation (constant input, too few pairs) is NaN with its reason. Up to
`EXACT_MAX_N` units the p-value is exact over all orderings; an interval over fewer than
`MIN_BOOTSTRAP_UNITS` resampled units carries a note that it is not informative.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from comperbench.common.deprecation import renamed_keywords
from comperbench.stats.averaging import Averaging
from comperbench.stats.metric_correlation.contexts import SystemContexts, undefined_reason
from comperbench.stats.metric_correlation.statistics import (
    LEVELS,
    Point,
    Statistic,
    get_statistic,
    rounding_reason,
)
from comperbench.stats.resampling import (
    CIMethod,
    Interval,
    bca_interval,
    bootstrap_count_chunks,
    bootstrap_indices,
    bootstrap_note,
    counts_from_indices,
    jackknife_chunks,
    jackknife_weights,
    over_chunks,
    percentile_interval,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling
from comperbench.stats.signature import Signature, Tagged, signed_benchmark
from comperbench.stats.vectorised import Groups

Level = Literal["turn", "dialogue", "system"]
StatisticLike = str | Statistic
"""A registered statistic's name or a `Statistic` object."""


@dataclass(frozen=True)
class CorrelationResult:
    """One correlation with its p-value, sample size, interval and signature."""

    metric: str
    method: str
    level: str
    grouped: bool
    value: float
    p_value: float
    n: int
    """Units the value was computed on: item pairs, or groups (grouped), or systems."""
    n_dropped: int
    """Items dropped because the human or the metric score was missing."""
    ci: Interval | None
    reason: str | None
    """Why `value` (or, for grouped values, the p-value) is NaN; None when it is defined."""
    signature: str
    p_method: str | None = None
    """How the p-value was computed: "exact-permutation" (all n! orderings, n <= 8), or the
    analytic method ("normal-theory", "asymptotic", scipy's "exact" for Kendall); None if NaN."""
    ci_note: str | None = None
    """Set when the interval rests on too few resampled units to mean anything, or on fewer
    resamples than drawn (the statistic undefined on the others; `ci.n_valid` counts them)."""
    chosen: Mapping[str, float] = field(default_factory=dict)
    """What the statistic chose from the data, e.g. acc-eq's tie threshold {"epsilon": ...}."""
    contexts: int | None = None
    """Contexts every system answered, on which a statistic over contexts (soft pairwise
    accuracy) was computed and resampled; None for the other statistics."""


def resolve(statistic: StatisticLike, level: str, averaging: Averaging | None = None) -> Statistic:
    """The statistic, checked to apply at `level`, its groups combined as `averaging` says.

    Args:
        statistic: a registered statistic's name or a `Statistic`.
        level: "turn", "dialogue" or "system".
        averaging: how per-group values are combined; None keeps the statistic's own.

    Returns:
        The `Statistic`.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    found = get_statistic(statistic)
    if not found.applies_to(level):
        raise ValueError(f"{found.name} does not apply at {level} level")
    return found if averaging is None else found.with_averaging(averaging)


def _averaging(resampling: Resampling, grouped: bool) -> Averaging | None:
    """The conventions' averaging of grouped values, None (the statistic's own) when the values
    are not grouped or the conventions keep the default averaging."""
    averaging = resampling.conventions.averaging
    return averaging if grouped and averaging != Averaging() else None


@renamed_keywords(method="statistic")
def point_correlation(x: np.ndarray, y: np.ndarray, statistic: StatisticLike) -> Point:
    """Value, p-value (exact up to 8 pairs, else analytic), its method and why it is undefined.

    Args:
        x: the metric's scores.
        y: the human scores.
        statistic: a registered statistic's name or a `Statistic`.

    Returns:
        The `Point`.
    """
    return get_statistic(statistic).point(x, y)


def _as_matrix(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
) -> tuple[list[str], np.ndarray]:
    names = list(metric_scores)
    if not names:
        raise ValueError("no metric scores given")
    rows = [np.asarray(metric_scores[n], dtype=float) for n in names]
    sizes = {r.shape for r in rows}
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise ValueError(f"metric score vectors must be 1-d and of equal length, got {sizes}")
    return names, np.vstack(rows)


def _interval(
    ci: CIMethod | None, estimate: float, boot: np.ndarray, jack: np.ndarray | None, conf: float
) -> Interval | None:
    if ci is None:
        return None
    if ci == "bca":
        assert jack is not None
        return bca_interval(estimate, boot, jack, conf)
    return percentile_interval(boot, conf)


def _system_means(values: np.ndarray, systems: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The systems and each row's system means less the row's first value: a shift that changes
    no statistic of the means, but keeps the digits that a large common offset (scores
    1e12 + 1e-3 * noise) would round away from the means themselves."""
    labels, inverse = np.unique(systems, return_inverse=True)
    counts = np.bincount(inverse)
    shifted = values - values[:, :1]
    return labels, np.vstack([np.bincount(inverse, weights=v) / counts for v in shifted])


def _unit(level: str, grouped: bool) -> str:
    return "groups" if grouped else "systems" if level == "system" else "items"


@takes_resampling(method="statistic")
def correlation_table(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    statistic: StatisticLike = "pearson",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
    benchmark: str | Tagged | None = None,
) -> list[CorrelationResult]:
    """Correlation of every metric with the human scores, one result per metric.

    The bootstrap resamples items, groups, systems or contexts as the level says, with one
    index matrix shared by all metrics. The arrays are taken as given, so a benchmark's
    evaluation protocol is not applied here (`comperbench.evaluate` applies it).

    Args:
        metric_scores: each metric's scores, one per item (NaN where missing).
        human_scores: the human score of every item.
        level: "turn" or "dialogue": over items (with `groups`: within each group, e.g. a
            context, then averaged over the groups where it is defined); "system": over the
            means per system (`systems` required) of the items where both scores exist, or,
            for a statistic over contexts (soft pairwise accuracy), over the systems x
            contexts matrices (`groups` names each item's context).
        statistic: a registered statistic's name or a `Statistic`.
        groups: each item's group (context), or None.
        systems: each item's system (system level).
        resampling: resamples (0: no interval), seed, interval method, and the conventions
            whose averaging combines per-group values (comperbench's: the statistic's own).
        confidence: the interval's confidence.
        benchmark: a Benchmark, or its tag, named in every signature.

    Returns:
        One `CorrelationResult` per metric, in the order of `metric_scores`.
    """
    return correlation_tables(
        metric_scores,
        human_scores,
        level=level,
        statistics=[statistic],
        groups=groups,
        systems=systems,
        resampling=resampling,
        confidence=confidence,
        benchmark=benchmark,
    )[0]


@takes_resampling(methods="statistics")
def correlation_tables(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
    human_scores: Sequence[float] | np.ndarray,
    *,
    statistics: Sequence[StatisticLike],
    level: Level = "turn",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
    benchmark: str | Tagged | None = None,
) -> list[list[CorrelationResult]]:
    """`correlation_table` of each of several statistics, with one stream of bootstrap counts
    drawn for all statistics that resample items.

    Args:
        metric_scores: as for `correlation_table`.
        human_scores: as for `correlation_table`.
        statistics: the statistics (names or `Statistic`s), one table each.
        level: as for `correlation_table`.
        groups: as for `correlation_table`.
        systems: as for `correlation_table`.
        resampling: as for `correlation_table`.
        confidence: as for `correlation_table`.
        benchmark: as for `correlation_table`.

    Returns:
        One table (a result per metric) per statistic, in the order of `statistics`.
    """
    benchmark = signed_benchmark(benchmark)
    averaging = _averaging(resampling, groups is not None and level != "system")
    resolved = [resolve(statistic, level, averaging) for statistic in statistics]
    names, X = _as_matrix(metric_scores)
    y = np.asarray(human_scores, dtype=float)
    if y.shape != (X.shape[1],):
        raise ValueError(f"{y.size} human scores for {X.shape[1]} metric scores")
    if level == "system" and systems is None:
        raise ValueError("system-level correlation needs the system of every item (systems=)")
    settings = [
        _Settings(
            s, level, False, resampling.resamples, resampling.interval, confidence, resampling.seed
        )
        for s in resolved
    ]
    tables: dict[int, list[CorrelationResult]] = {}
    on_items = []
    for index, setting in enumerate(settings):
        if not setting.statistic.supports("over_contexts"):
            on_items.append(index)
            continue
        if groups is None:
            raise ValueError(f"{setting.statistic.name} needs the context of every item (groups=)")
        matrices = SystemContexts.of(X, y, np.asarray(systems), np.asarray(groups))
        tables[index] = [
            _result(name, computed, setting, dropped, benchmark)
            for name, (computed, dropped) in zip(
                names, _context_batch(matrices, setting), strict=True
            )
        ]
    if on_items:
        item_settings = [settings[index] for index in on_items]
        computed = _item_tables(names, X, y, groups, systems, item_settings, benchmark)
        tables.update(zip(on_items, computed, strict=True))
    return [tables[index] for index in range(len(settings))]


def _item_tables(
    names: list[str],
    X: np.ndarray,
    y: np.ndarray,
    groups: Sequence[object] | np.ndarray | None,
    systems: Sequence[object] | np.ndarray | None,
    all_settings: list[_Settings],
    benchmark: str | None,
) -> list[list[CorrelationResult]]:
    """The results of statistics over items, groups or systems, metrics with the same items
    batched, the item bootstrap drawn once for every statistic and batch."""
    level = all_settings[0].level
    grouped = groups is not None and level != "system"
    labels = None
    if grouped:
        labels = np.asarray(groups)
    elif level == "system":
        labels = np.asarray(systems)
    if labels is not None and labels.shape != y.shape:
        raise ValueError(f"{labels.size} group/system labels for {y.size} items")
    masks = np.isfinite(X) & np.isfinite(y)
    by_mask: dict[bytes, list[int]] = {}
    for row, mask in enumerate(masks):
        by_mask.setdefault(np.packbits(mask).tobytes(), []).append(row)
    batches = [(rows, masks[rows[0]]) for rows in by_mask.values()]
    all_settings = [replace(settings, grouped=grouped) for settings in all_settings]
    boots: list[list[np.ndarray | None]] = [[None] * len(batches) for _ in all_settings]
    first = all_settings[0]
    if first.ci and not grouped and level != "system" and y.size:
        boots = _shared_bootstrap(X, y, batches, all_settings)
    tables = []
    for settings, statistic_boots in zip(all_settings, boots, strict=True):
        results: dict[str, CorrelationResult] = {}
        for (rows, mask), boot in zip(batches, statistic_boots, strict=True):
            sub_labels = labels[mask] if labels is not None else None
            batch = _batch(X[rows][:, mask], y[mask], sub_labels, settings, boot)
            for row, computed in zip(rows, batch, strict=True):
                results[names[row]] = _result(
                    names[row], computed, settings, int(y.size - mask.sum()), benchmark
                )
        tables.append([results[name] for name in names])
    return tables


@dataclass(frozen=True)
class _Settings:
    statistic: Statistic
    level: str
    grouped: bool
    n_resamples: int
    ci: CIMethod | None
    confidence: float
    seed: int

    @property
    def unit(self) -> str:
        return _unit(self.level, self.grouped)


@dataclass(frozen=True)
class _Computed:
    point: Point
    n: int
    interval: Interval | None
    chosen: Mapping[str, float] = field(default_factory=dict)
    contexts: int | None = None
    """Contexts the value rests on and resamples (statistics over contexts only)."""


def _result(
    metric: str, computed: _Computed, settings: _Settings, n_dropped: int, benchmark: str | None
) -> CorrelationResult:
    ci, point = settings.ci, computed.point
    sig = Signature(
        statistic=settings.statistic.signature_name(settings.grouped),
        level=settings.level,
        resampling=f"bootstrap-{ci}" if ci else None,
        n_resamples=settings.n_resamples if ci else None,
        seed=settings.seed if ci else None,
        p_method=point.p_method,
        benchmark=benchmark,
        extra=settings.statistic.signature_extra,
    )
    resampled, unit = computed.n, settings.unit
    if computed.contexts is not None:
        resampled, unit = computed.contexts, "contexts"
    note = None
    if computed.interval is not None:
        notes = (bootstrap_note(resampled, unit), computed.interval.note)
        note = "; ".join(n for n in notes if n) or None
    return CorrelationResult(
        metric=metric,
        method=settings.statistic.name,
        level=settings.level,
        grouped=settings.grouped,
        value=point.value,
        p_value=point.p_value,
        n=computed.n,
        n_dropped=n_dropped,
        ci=computed.interval,
        reason=point.reason,
        signature=str(sig),
        p_method=point.p_method,
        ci_note=note,
        chosen=computed.chosen,
        contexts=computed.contexts,
    )


def _shared_bootstrap(
    X: np.ndarray,
    y: np.ndarray,
    batches: list[tuple[list[int], np.ndarray]],
    all_settings: list[_Settings],
) -> list[list[np.ndarray | None]]:
    """Per statistic, per batch of metric rows with the same items: their (metrics, resamples)
    bootstrap values.

    Item-level resamples draw from all items, so every statistic and batch shares one stream of
    count chunks; a resample's items without a score are then left out (once per batch, for
    every statistic), as in the point estimate.
    """
    scores = []
    for rows, mask in batches:
        resamplers = [s.statistic.resampler(X[rows][:, mask], y[mask]) for s in all_settings]
        columns = slice(None) if mask.all() else mask

        def score(W: np.ndarray, resamplers=resamplers, columns=columns) -> np.ndarray:
            drawn = W[:, columns]
            return np.stack([resample(drawn) for resample in resamplers])

        scores.append(score)
    first = all_settings[0]
    chunks = bootstrap_count_chunks(y.size, first.n_resamples, first.seed)
    by_batch = over_chunks(chunks, scores)
    return [[boot[index] for boot in by_batch] for index in range(len(all_settings))]


def _batch(
    X: np.ndarray,
    y: np.ndarray,
    labels: np.ndarray | None,
    settings: _Settings,
    boot: np.ndarray | None = None,
) -> list[_Computed]:
    """Values, p-values and intervals of metric rows on the same items (`boot`: their bootstrap
    values, when drawn along with other batches')."""
    if settings.grouped:
        assert labels is not None
        return _grouped_batch(X, y, labels, settings)
    if settings.level == "system":
        assert labels is not None
        _, means = _system_means(np.vstack([X, y[None, :]]), labels)
        X, y = means[:-1], means[-1]
    statistic, ci, seed = settings.statistic, settings.ci, settings.seed
    points = [statistic.point(x, y, settings.unit) for x in X]
    jack = None
    if ci and any(p.reason is None for p in points):
        score = statistic.resampler(X, y)
        if boot is None:
            chunks = bootstrap_count_chunks(y.size, settings.n_resamples, seed)
            boot = over_chunks(chunks, [score])[0]
        if ci == "bca":
            jack = over_chunks(jackknife_chunks(y.size, seed), [score])[0]
    out = []
    for m, point in enumerate(points):
        interval = None
        if boot is not None and point.reason is None:
            jack_m = None if jack is None else jack[m]
            interval = _interval(ci, point.value, boot[m], jack_m, settings.confidence)
        chosen = statistic.chosen(X[m], y) if point.reason is None else {}
        out.append(_Computed(point, int(y.size), interval, chosen))
    return out


_GROUPED_P = "no analytic p-value for a value over groups"


def _grouped_batch(
    X: np.ndarray, y: np.ndarray, labels: np.ndarray, settings: _Settings
) -> list[_Computed]:
    if y.size == 0:
        undefined = Point(np.nan, np.nan, None, "no item has both scores")
        return [_Computed(undefined, 0, None) for _ in X]
    ci, seed, statistic = settings.ci, settings.seed, settings.statistic
    layout = Groups.of(labels)
    G = layout.starts.size
    values, counted = statistic.averaged(X, y, layout)
    boot = jack = None
    if ci:
        C = counts_from_indices(bootstrap_indices(G, settings.n_resamples, seed), G)
        boot = statistic.grouped_resampled(X, y, layout, C)
        if ci == "bca":
            jack = statistic.grouped_resampled(X, y, layout, jackknife_weights(G, seed))
    out = []
    for m in range(X.shape[0]):
        value = float(values[m])
        reason = rounding_reason(X[m], y)
        if reason or not np.isfinite(value):
            reason = reason or "the correlation is undefined in every group"
            out.append(_Computed(Point(np.nan, np.nan, None, reason), 0, None))
            continue
        interval = None
        if boot is not None:
            jack_m = None if jack is None else jack[m]
            interval = _interval(ci, value, boot[m], jack_m, settings.confidence)
        point = Point(value, np.nan, None, _GROUPED_P)
        chosen = statistic.chosen(X[m], y, layout)
        out.append(_Computed(point, int(counted[m]), interval, chosen))
    return out


_CONTEXTS_P = "no analytic p-value for a statistic over contexts"


def _context_batch(data: SystemContexts, settings: _Settings) -> list[tuple[_Computed, int]]:
    """Each metric's value over the contexts every system answered, with its interval over
    resampled contexts, and the items its dropped contexts leave out. Metrics with the same
    complete contexts share the human side and the resamples, and their sides and the humans'
    are computed together (one stack of matrices)."""
    out: list[tuple[_Computed, int]] = [None] * data.metrics.shape[0]  # type: ignore[list-item]
    shared: dict[bytes, tuple[np.ndarray, list[int]]] = {}
    for m in range(data.metrics.shape[0]):
        complete = data.complete(m)
        contexts, dropped = int(complete.sum()), int(data.items[~complete].sum())
        reason = undefined_reason(data.metrics[m][:, complete], data.human[:, complete])
        if reason:
            undefined = _Computed(Point(np.nan, np.nan, None, reason), 0, None, contexts=contexts)
            out[m] = (undefined, dropped)
            continue
        shared.setdefault(complete.tobytes(), (complete, []))[1].append(m)
    for complete, members in shared.values():
        contexts, dropped = int(complete.sum()), int(data.items[~complete].sum())
        W = _context_weights(contexts, settings)
        stack = np.concatenate(
            [data.human[None, :, complete], data.metrics[members][:, :, complete]]
        )
        human_side, *sides = settings.statistic.context_side(stack, W)
        for m, side in zip(members, sides, strict=True):
            values = settings.statistic.context_values(side, human_side)
            out[m] = (_context_result(values, data.systems.size, contexts, settings), dropped)
    return out


def _context_result(
    values: np.ndarray, n_systems: int, contexts: int, settings: _Settings
) -> _Computed:
    """The value (first of `values`) and its interval from the resamples after it."""
    point = Point(float(values[0]), np.nan, None, _CONTEXTS_P)
    interval = None
    if settings.ci:
        boot = values[1 : 1 + settings.n_resamples]
        jack = values[1 + settings.n_resamples :] if settings.ci == "bca" else None
        interval = _interval(settings.ci, point.value, boot, jack, settings.confidence)
    return _Computed(point, n_systems, interval, contexts=contexts)


def _context_weights(n_contexts: int, settings: _Settings) -> np.ndarray:
    """Rows of context counts: all ones (the value), then the bootstrap's, then the jackknife's."""
    rows = [np.ones((1, n_contexts))]
    if settings.ci:
        drawn = bootstrap_indices(n_contexts, settings.n_resamples, settings.seed)
        rows.append(counts_from_indices(drawn, n_contexts))
        if settings.ci == "bca":
            rows.append(jackknife_weights(n_contexts, settings.seed))
    return np.vstack(rows)


@takes_resampling(method="statistic")
def correlate(
    metric_scores: Sequence[float] | np.ndarray,
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    statistic: StatisticLike = "pearson",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
    metric: str = "metric",
    benchmark: str | Tagged | None = None,
) -> CorrelationResult:
    """One metric's correlation with the human scores.

    Args:
        metric_scores: the metric's score of every item (NaN where missing).
        human_scores: the human score of every item.
        level: as for `correlation_table`.
        statistic: a registered statistic's name or a `Statistic`.
        groups: as for `correlation_table`.
        systems: as for `correlation_table`.
        resampling: as for `correlation_table`.
        confidence: the interval's confidence.
        metric: the metric's name in the result.
        benchmark: a Benchmark, or its tag, named in the signature.

    Returns:
        The metric's `CorrelationResult`.
    """
    return correlation_table(
        {metric: metric_scores},
        human_scores,
        level=level,
        statistic=statistic,
        groups=groups,
        systems=systems,
        resampling=resampling,
        confidence=confidence,
        benchmark=benchmark,
    )[0]
