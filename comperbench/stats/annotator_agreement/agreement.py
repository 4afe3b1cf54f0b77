"""Inter-annotator agreement from the individual ratings: Krippendorff's alpha, Fleiss' kappa,
mean pairwise Cohen's kappa, each with a bootstrap interval over items.

Raters: when every rating carries an annotator id, the ids are the raters. When ids are missing
(FED, DSTC9, ...), the k-th rating of an item is treated as rater k. This matters only for
Cohen's kappa (rater pairs) and assumes that rating positions are exchangeable; alpha and
Fleiss' kappa use the ratings of each item as an unordered set and need no ids.
Values are categories in their natural order (ordinal), numbers (interval), or labels (nominal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from comperbench.stats.resampling import (
    CIMethod,
    Interval,
    bca_interval,
    bootstrap_indices,
    counts_from_indices,
    jackknife_weights,
    percentile_interval,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling
from comperbench.stats.signature import Signature

if TYPE_CHECKING:
    import pandas as pd

Statistic = Literal["alpha-nominal", "alpha-ordinal", "alpha-interval", "fleiss", "cohen"]
STATISTICS: tuple[str, ...] = (
    "alpha-nominal",
    "alpha-ordinal",
    "alpha-interval",
    "fleiss",
    "cohen",
)
BY_ID = "annotator ids"
BY_POSITION = "k-th rating of an item as rater k (no annotator ids)"


@dataclass(frozen=True)
class RatingTable:
    """Ratings of one aspect as an items x categories count table, plus rater labels."""

    item_ids: np.ndarray
    categories: np.ndarray
    counts: np.ndarray
    """(items, categories): how many ratings of each item fall in each category."""
    raters: np.ndarray
    """(items, raters) category index of each rater's rating, -1 where the rater did not rate."""
    rater_assignment: str
    repeated: str | None = None
    """Set when an annotator rated an item more than once: rater pairs are then ambiguous."""

    @classmethod
    def from_ratings(cls, ratings: pd.DataFrame, aspect: str) -> RatingTable:
        rows = ratings[ratings["aspect"] == aspect]
        if rows.empty:
            raise ValueError(f"no ratings of aspect {aspect!r}")
        values = rows["value"].to_numpy(dtype=float)
        if not np.all(np.isfinite(values)):
            bad = rows.iloc[int(np.flatnonzero(~np.isfinite(values))[0])]
            raise ValueError(
                f"rating of item {bad['item_id']!r}, aspect {aspect!r} is not a number"
            )
        categories, value_index = np.unique(values, return_inverse=True)
        item_ids, item_index = np.unique(rows["item_id"].to_numpy(), return_inverse=True)
        counts = np.zeros((item_ids.size, categories.size))
        np.add.at(counts, (item_index, value_index), 1)
        annotators = rows["annotator"]
        if annotators.notna().all():
            labels, rater_index = np.unique(annotators.astype(str).to_numpy(), return_inverse=True)
            assignment = BY_ID
            n_raters = labels.size
        else:
            order = np.argsort(item_index, kind="stable")
            position = np.empty_like(item_index)
            starts = np.r_[0, np.flatnonzero(np.diff(item_index[order])) + 1]
            sizes = np.diff(np.r_[starts, order.size])
            position[order] = np.arange(order.size) - np.repeat(starts, sizes)
            rater_index, assignment, n_raters = position, BY_POSITION, int(sizes.max())
            labels = np.arange(n_raters)
        raters = np.full((item_ids.size, n_raters), -1)
        cell = item_index * n_raters + rater_index
        twice = np.flatnonzero(np.bincount(cell, minlength=raters.size) > 1)
        repeated = None
        if twice.size:
            item, rater = divmod(int(twice[0]), n_raters)
            repeated = (
                f"{twice.size} (item, annotator) pairs have more than one rating, e.g. annotator "
                f"{labels[rater]!r} on item {item_ids[item]!r}"
            )
        raters[item_index, rater_index] = value_index
        return cls(item_ids, categories, counts, raters, assignment, repeated)


def _delta2(level: str, categories: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """(..., V, V) squared distances between categories (Krippendorff 2011)."""
    V = categories.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(V), (*marginals.shape[:-1], V, V))
    if level == "interval":
        d = categories[:, None] - categories[None, :]
        return np.broadcast_to(d * d, (*marginals.shape[:-1], V, V))
    cum = np.cumsum(marginals, axis=-1)
    lo = np.minimum.outer(np.arange(V), np.arange(V))
    hi = np.maximum.outer(np.arange(V), np.arange(V))
    between = cum[..., hi] - np.where(lo > 0, cum[..., np.maximum(lo - 1, 0)], 0.0)
    d = between - (marginals[..., lo] + marginals[..., hi]) / 2
    return d * d


def _alpha(coincidence: np.ndarray, categories: np.ndarray, level: str) -> np.ndarray:
    """Alpha from (..., V, V) coincidence matrices."""
    marginals = coincidence.sum(axis=-1)
    n = marginals.sum(axis=-1)
    d2 = _delta2(level, categories, marginals)
    observed = (coincidence * d2).sum(axis=(-1, -2))
    expected = (marginals[..., :, None] * marginals[..., None, :] * d2).sum(axis=(-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - (n - 1) * observed / expected


def _unit_coincidences(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-item coincidence matrices (flattened) of the pairable items (2+ ratings)."""
    m = counts.sum(axis=1)
    pairable = m >= 2
    c = counts[pairable]
    per_unit = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(c.shape[1])) / (
        m[pairable] - 1
    )[:, None, None]
    return per_unit.reshape(c.shape[0], -1), pairable


def krippendorff_alpha(
    table: RatingTable, level: str, weights: np.ndarray | None = None
) -> np.ndarray:
    """Alpha at a measurement level; `weights` (k, items) gives one value per resample."""
    per_unit, pairable = _unit_coincidences(table.counts)
    V = table.categories.size
    w = np.ones((1, table.counts.shape[0])) if weights is None else weights
    coincidence = (w[:, pairable] @ per_unit).reshape(-1, V, V)
    return _alpha(coincidence, table.categories, level)


def fleiss_kappa(table: RatingTable, weights: np.ndarray | None = None) -> np.ndarray:
    """Fleiss' kappa, generalised to items with different numbers of ratings (items with one
    rating are left out): mean per-item agreement against chance from the pooled proportions."""
    m = table.counts.sum(axis=1)
    keep = m >= 2
    c, m = table.counts[keep], m[keep]
    per_item = ((c * c).sum(axis=1) - m) / (m * (m - 1))
    w = np.ones((1, keep.size)) if weights is None else weights
    w = w[:, keep]
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN: a resample without such items
        agree = (w @ per_item) / w.sum(axis=1)
        shares = (w @ c) / (w @ m)[:, None]
        chance = (shares * shares).sum(axis=1)
        return (agree - chance) / (1 - chance)


def _rater_pairs(table: RatingTable) -> list[tuple[int, int, np.ndarray]]:
    pairs = []
    rated = table.raters >= 0
    for a in range(table.raters.shape[1]):
        for b in range(a + 1, table.raters.shape[1]):
            common = np.flatnonzero(rated[:, a] & rated[:, b])
            if common.size >= 2:
                pairs.append((a, b, common))
    return pairs


def mean_cohen_kappa(table: RatingTable, weights: np.ndarray | None = None) -> np.ndarray:
    """Unweighted mean over rater pairs (2+ common items) of Cohen's kappa on their common items;
    pairs whose kappa is undefined in a resample (one category only) are left out of its mean."""
    V = table.categories.size
    w = np.ones((1, table.raters.shape[0])) if weights is None else weights
    total = np.zeros(w.shape[0])
    defined = np.zeros(w.shape[0])
    for a, b, common in _rater_pairs(table):
        cell = table.raters[common, a] * V + table.raters[common, b]
        onehot = np.zeros((common.size, V * V))
        onehot[np.arange(common.size), cell] = 1
        confusion = (w[:, common] @ onehot).reshape(-1, V, V)
        n = confusion.sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            observed = np.trace(confusion, axis1=1, axis2=2) / n
            expected = (confusion.sum(axis=2) * confusion.sum(axis=1)).sum(axis=1) / (n * n)
            kappa = (observed - expected) / (1 - expected)
        ok = np.isfinite(kappa)
        total += np.where(ok, kappa, 0.0)
        defined += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined > 0, total / defined, np.nan)


def _compute(table: RatingTable, statistic: str, weights: np.ndarray | None) -> np.ndarray:
    if statistic.startswith("alpha-"):
        return krippendorff_alpha(table, statistic.removeprefix("alpha-"), weights)
    if statistic == "fleiss":
        return fleiss_kappa(table, weights)
    if statistic == "cohen":
        return mean_cohen_kappa(table, weights)
    raise ValueError(
        f"unknown agreement statistic {statistic!r}; choose one of {', '.join(STATISTICS)}"
    )


def _interval(
    table: RatingTable,
    statistic: str,
    value: float,
    W: np.ndarray,
    ci: CIMethod,
    confidence: float,
    seed: int,
) -> Interval:
    boot = _compute(table, statistic, W)
    if ci == "percentile":
        return percentile_interval(boot, confidence)
    jack = _compute(table, statistic, jackknife_weights(table.counts.shape[0], seed))
    return bca_interval(value, boot, jack, confidence)


@dataclass(frozen=True)
class AgreementResult:
    statistic: str
    aspect: str
    value: float
    ci: Interval | None
    n_items: int
    """Items with at least two ratings."""
    n_ratings: int
    rater_assignment: str
    reason: str | None
    signature: str


@takes_resampling()
def agreement(
    ratings: pd.DataFrame,
    aspect: str,
    statistics: tuple[str, ...] = STATISTICS,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
    benchmark: str | None = None,
) -> list[AgreementResult]:
    """Agreement of one aspect's ratings, with percentile or BCa bootstrap intervals from one
    item index matrix shared by all statistics (BCa's acceleration from the delete-one-item
    jackknife).

    Args:
        ratings: columns item_id, aspect, annotator, value.
        aspect: the aspect whose ratings are compared.
        statistics: the agreement statistics ("krippendorff", "fleiss", "cohen", ...).
        resampling: resamples over items (0: no interval), seed and interval method.
        confidence: the interval's confidence.
        benchmark: the benchmark's tag, named in the signatures.

    Returns:
        One `AgreementResult` per statistic.
    """
    n_resamples, seed, ci = resampling.resamples, resampling.seed, resampling.ci
    table = RatingTable.from_ratings(ratings, aspect)
    n_items = int((table.counts.sum(axis=1) >= 2).sum())
    W = None
    if n_resamples and n_items:
        W = counts_from_indices(
            bootstrap_indices(table.counts.shape[0], n_resamples, seed), table.counts.shape[0]
        )
    out = []
    for statistic in statistics:
        ambiguous = statistic == "cohen" and table.repeated is not None
        defined = not ambiguous and n_items > 0
        value = float(_compute(table, statistic, None)[0]) if defined else np.nan
        reason = None
        if n_items == 0:
            reason = "no item has two ratings"
        elif statistic == "cohen" and table.repeated:
            reason = f"Cohen's kappa needs one rating per annotator and item: {table.repeated}"
        elif not np.isfinite(value):
            reason = "undefined: the ratings use a single category"
        bounds = None
        if W is not None and reason is None:
            bounds = _interval(table, statistic, value, W, ci, confidence, seed)
        sig = Signature(
            statistic=statistic,
            level="item",
            resampling=f"bootstrap-{ci}" if bounds else None,
            n_resamples=n_resamples if bounds else None,
            seed=seed if bounds else None,
            benchmark=benchmark,
            extra=(("raters", "ids" if table.rater_assignment == BY_ID else "position"),),
        )
        out.append(
            AgreementResult(
                statistic=statistic,
                aspect=aspect,
                value=value,
                ci=bounds,
                n_items=n_items,
                n_ratings=int(table.counts.sum()),
                rater_assignment=table.rater_assignment,
                reason=reason,
                signature=str(sig),
            )
        )
    return out
