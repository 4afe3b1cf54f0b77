"""Correlation of metric scores with human scores at turn, dialogue and system level.

`correlate` gives one metric's result; `correlation_table` gives several metrics at once and
shares one bootstrap index matrix between them. Missing scores (NaN) are dropped pairwise and
counted; an undefined correlation (constant input, too few pairs) is NaN with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as sps

from comperbench.stats.resampling import (
    CIMethod,
    Interval,
    bca_interval,
    bootstrap_indices,
    counts_from_indices,
    jackknife_weights,
    percentile_interval,
)
from comperbench.stats.signature import Signature
from comperbench.stats.vectorised import (
    MIN_PAIRS,
    Groups,
    group_values,
    weighted_correlations,
)

Method = Literal["pearson", "spearman", "kendall-b", "kendall-c"]
Level = Literal["turn", "dialogue", "system"]
METHODS: tuple[str, ...] = ("pearson", "spearman", "kendall-b", "kendall-c")
LEVELS: tuple[str, ...] = ("turn", "dialogue", "system")


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


def _check(method: str, level: str) -> None:
    if method not in METHODS:
        raise ValueError(
            f"unknown correlation method {method!r}; choose one of {', '.join(METHODS)}"
        )
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")


def undefined_reason(x: np.ndarray, y: np.ndarray) -> str | None:
    """Why a correlation of x and y is undefined, or None."""
    if x.size < MIN_PAIRS:
        return f"only {x.size} pair(s); at least {MIN_PAIRS} are needed"
    if np.all(x == x[0]):
        return "metric scores are constant"
    if np.all(y == y[0]):
        return "human scores are constant"
    return None


def point_correlation(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float, str | None]:
    """(value, p-value, reason) computed by scipy; NaN with a reason when undefined."""
    _check(method, "turn")
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    reason = undefined_reason(x, y)
    if reason:
        return np.nan, np.nan, reason
    if method == "pearson":
        res = sps.pearsonr(x, y)
    elif method == "spearman":
        res = sps.spearmanr(x, y)
    else:
        res = sps.kendalltau(x, y, variant=method.split("-")[1])
    return float(res.statistic), float(res.pvalue), None


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
    labels, inverse = np.unique(systems, return_inverse=True)
    counts = np.bincount(inverse)
    return labels, np.vstack([np.bincount(inverse, weights=v) / counts for v in values])


def correlation_table(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    method: Method = "pearson",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    n_resamples: int = 1000,
    ci: CIMethod | None = "percentile",
    confidence: float = 0.95,
    seed: int = 0,
    benchmark: str | None = None,
) -> list[CorrelationResult]:
    """Correlation of every metric with the human scores, one result per metric.

    level "turn" or "dialogue": correlation over items (with `groups`: within each group, e.g. a
    context, then averaged over the groups where it is defined); level "system": over the means
    per system (`systems` required) of the items where both scores exist. The bootstrap resamples
    items, groups or systems accordingly, with one index matrix shared by all metrics.
    """
    _check(method, level)
    names, X = _as_matrix(metric_scores)
    y = np.asarray(human_scores, dtype=float)
    if y.shape != (X.shape[1],):
        raise ValueError(f"{y.size} human scores for {X.shape[1]} metric scores")
    if level == "system" and systems is None:
        raise ValueError("system-level correlation needs the system of every item (systems=)")
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
    # Item-level resamples draw from all items, so every metric shares one index matrix; a
    # resample's items without a score are then left out, as in the point estimate.
    shared = None
    if ci and not grouped and level != "system":
        shared = counts_from_indices(bootstrap_indices(y.size, n_resamples, seed), y.size)
    results: dict[str, CorrelationResult] = {}
    for rows in by_mask.values():
        mask = masks[rows[0]]
        sub_labels = labels[mask] if labels is not None else None
        batch = _batch(
            X[rows][:, mask],
            y[mask],
            level,
            method,
            grouped,
            sub_labels,
            n_resamples,
            ci,
            confidence,
            seed,
            None if shared is None else shared[:, mask],
        )
        for row, (value, p, n, interval, reason) in zip(rows, batch, strict=True):
            sig = Signature(
                statistic=method + ("-grouped" if grouped else ""),
                level=level,
                resampling=f"bootstrap-{ci}" if ci else None,
                n_resamples=n_resamples if ci else None,
                seed=seed if ci else None,
                benchmark=benchmark,
            )
            results[names[row]] = CorrelationResult(
                metric=names[row],
                method=method,
                level=level,
                grouped=grouped,
                value=value,
                p_value=p,
                n=n,
                n_dropped=int(y.size - mask.sum()),
                ci=interval,
                reason=reason,
                signature=str(sig),
            )
    return [results[name] for name in names]


Row = tuple[float, float, int, Interval | None, str | None]


def _batch(
    X: np.ndarray,
    y: np.ndarray,
    level: str,
    method: str,
    grouped: bool,
    labels: np.ndarray | None,
    n_resamples: int,
    ci: CIMethod | None,
    confidence: float,
    seed: int,
    counts: np.ndarray | None = None,
) -> list[Row]:
    if grouped:
        assert labels is not None
        return _grouped_batch(X, y, labels, method, n_resamples, ci, confidence, seed)
    if level == "system":
        assert labels is not None
        _, means = _system_means(np.vstack([X, y[None, :]]), labels)
        X, y = means[:-1], means[-1]
    points = [point_correlation(x, y, method) for x in X]
    boot = jack = None
    if ci and y.size >= 1:
        W = counts
        if W is None:
            W = counts_from_indices(bootstrap_indices(y.size, n_resamples, seed), y.size)
        boot = weighted_correlations(X, y, W, method)
        if ci == "bca":
            jack = weighted_correlations(X, y, jackknife_weights(y.size, seed), method)
    out: list[Row] = []
    for m, (value, p, reason) in enumerate(points):
        interval = None
        if boot is not None and reason is None:
            interval = _interval(ci, value, boot[m], None if jack is None else jack[m], confidence)
        out.append((value, p, int(y.size), interval, reason))
    return out


def group_correlations(x: np.ndarray, y: np.ndarray, layout: Groups, method: str) -> np.ndarray:
    """Correlation within each group (NaN where undefined), groups in `layout` order."""
    return group_values(x, y, method, layout)[0]


def _grouped_batch(
    X: np.ndarray,
    y: np.ndarray,
    labels: np.ndarray,
    method: str,
    n_resamples: int,
    ci: CIMethod | None,
    confidence: float,
    seed: int,
) -> list[Row]:
    layout = Groups.of(labels)
    G = layout.starts.size
    per_group = group_values(X, y, method, layout)
    defined = np.isfinite(per_group)
    filled = np.where(defined, per_group, 0.0)
    C = counts_from_indices(bootstrap_indices(G, n_resamples, seed), G) if ci and G else None
    J = jackknife_weights(G, seed) if ci == "bca" and G else None
    out: list[Row] = []
    for m in range(X.shape[0]):
        n_defined = int(defined[m].sum())
        if n_defined == 0:
            out.append((np.nan, np.nan, 0, None, "the correlation is undefined in every group"))
            continue
        value = float(filled[m].sum() / n_defined)
        interval = None
        if C is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = (C @ filled[m]) / (C @ defined[m])
                jack = (J @ filled[m]) / (J @ defined[m]) if J is not None else None
            interval = _interval(ci, value, boot, jack, confidence)
        reason = "no analytic p-value for a mean of per-group correlations"
        out.append((value, np.nan, n_defined, interval, reason))
    return out


def correlate(
    metric_scores: Sequence[float] | np.ndarray,
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    method: Method = "pearson",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    n_resamples: int = 1000,
    ci: CIMethod | None = "percentile",
    confidence: float = 0.95,
    seed: int = 0,
    metric: str = "metric",
    benchmark: str | None = None,
) -> CorrelationResult:
    """One metric's correlation with the human scores (see `correlation_table`)."""
    return correlation_table(
        {metric: metric_scores},
        human_scores,
        level=level,
        method=method,
        groups=groups,
        systems=systems,
        n_resamples=n_resamples,
        ci=ci,
        confidence=confidence,
        seed=seed,
        benchmark=benchmark,
    )[0]
