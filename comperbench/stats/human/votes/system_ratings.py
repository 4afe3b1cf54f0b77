"""Ratings of systems from A/B comparisons, with bootstrap percentile intervals and rank
ranges, and the signature shared by every rating method."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import connected_components

from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.resampling import bootstrap_note
from comperbench.stats.settings import Resampling
from comperbench.stats.signature import Signature


@dataclass(frozen=True)
class Ratings:
    """Ratings of systems with percentile intervals and 95% rank ranges from the bootstrap."""

    table: pd.DataFrame
    """Index system; columns rating, low, high, inside (the rating lies in [low, high]), rank,
    rank_low, rank_high; sorted by rating."""
    signature: str
    note: str | None = None
    """What the reader must know to read the table (groups ranked apart, too few units for an
    informative interval), or None."""
    informative: bool = True
    """Whether the intervals rest on enough resampled units (`MIN_BOOTSTRAP_UNITS`) to mean
    anything; when not, `note` says so, the rank ranges are left out (NaN) and, on a single
    unit, the intervals too."""

    @property
    def grouped(self) -> bool:
        """Whether the systems fall into groups never compared with each other, each ranked
        within itself (the `group` column)."""
        return "group" in self.table and self.table["group"].nunique() > 1

    @property
    def outside(self) -> list[str]:
        """Systems whose rating falls outside their own interval (a biased or too coarse
        bootstrap distribution: the interval should not be read as the rating's uncertainty)."""
        outside = ~self.table["inside"] & self.table["low"].notna()
        return [str(s) for s in self.table.index[outside]]


def _ranks(values: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """Rank (1 = highest) of each column of each row of `values` within its group."""
    if groups is None:
        return (-values).argsort(axis=-1).argsort(axis=-1) + 1
    ranks = np.empty(values.shape, dtype=int)
    for group in np.unique(groups):
        columns = groups == group
        ranks[..., columns] = _ranks(values[..., columns], None)
    return ranks


def with_intervals(
    systems: np.ndarray,
    point: np.ndarray,
    boot: np.ndarray,
    signature: Signature,
    groups: np.ndarray | None = None,
) -> Ratings:
    """`Ratings` of `point` with 95% percentile intervals and rank ranges over the rows of
    `boot` (one resample a row) that are finite throughout; with `groups` (a number per
    system, in a `group` column), systems are ranked within their group only.

    Args:
        systems: the systems rated.
        point: each system's rating.
        boot: resamples x systems ratings.
        signature: the ratings' signature.
        groups: each system's group, or None (one group).

    Returns:
        The ratings, highest first (within each group).
    """
    valid = boot[np.all(np.isfinite(boot), axis=1)]
    low = high = rank_low = rank_high = np.full(point.shape, np.nan)
    if len(valid):
        ranks = _ranks(valid, groups)
        low = np.quantile(valid, 0.025, axis=0)
        high = np.quantile(valid, 0.975, axis=0)
        rank_low = np.quantile(ranks, 0.025, axis=0, method="lower")
        rank_high = np.quantile(ranks, 0.975, axis=0, method="higher")
    table = pd.DataFrame(
        {
            "rating": point,
            "low": low,
            "high": high,
            "inside": (low <= point) & (point <= high),
            "rank": _ranks(point, groups),
            "rank_low": rank_low,
            "rank_high": rank_high,
        },
        index=pd.Index(systems, name="system"),
    )
    if groups is None:
        return Ratings(table.sort_values("rating", ascending=False), str(signature))
    table["group"] = groups
    ordered = table.sort_values(["group", "rating"], ascending=[True, False])
    return Ratings(ordered, str(signature))


def compared_groups(games: np.ndarray) -> np.ndarray:
    """(S,) group of each system in an (S, S) games table: systems compared with one another,
    directly or through others, share a group (numbered from 0 in order of their first system).

    Args:
        games: (S, S) games between each pair of systems.

    Returns:
        (S,) group of each system.
    """
    return connected_components(games > 0, directed=False)[1]


def comparison_groups(c: Comparisons) -> np.ndarray:
    """(S,) `compared_groups` of the systems of `c`.

    Args:
        c: the comparisons.

    Returns:
        (S,) group of each system of `c`.
    """
    ia, ib = c.indices()
    games = np.zeros((c.systems.size, c.systems.size))
    games[ia, ib] = games[ib, ia] = 1
    return compared_groups(games)


def groups_note(systems: np.ndarray, groups: np.ndarray) -> str | None:
    """Names the groups never compared with each other, or None for one group.

    Args:
        systems: the systems.
        groups: each system's group.

    Returns:
        The note, or None.
    """
    if groups.max() == 0:
        return None
    listed = "; ".join(
        f"group {g + 1}: {', '.join(str(s) for s in systems[groups == g])}"
        for g in range(int(groups.max()) + 1)
    )
    return (
        f"systems never compared with each other, directly or through others, are rated and "
        f"ranked within their group only ({listed}): ratings of different groups do not compare"
    )


def small_sample_note(c: Comparisons) -> str | None:
    """Why a bootstrap over the units of `c` gives no informative interval, or None.

    Args:
        c: the comparisons.

    Returns:
        The note, or None.
    """
    _, n_units = c.unit_inverse()
    if n_units < 2:
        return (
            f"only {n_units} {c.unit_name} resampled: every resample is the sample itself, so "
            "there is no interval and no rank range"
        )
    note = bootstrap_note(n_units, f"{c.unit_name}s")
    return None if note is None else f"{note}, and no rank range is given"


def grouped_ratings(
    c: Comparisons,
    point: np.ndarray,
    boot: np.ndarray,
    signature: Signature,
    groups: np.ndarray,
) -> Ratings:
    """`with_intervals` of the systems of `c` ranked within the `compared_groups` `groups`
    (numbered from 1 in the `group` column), with the note naming them when there are several
    (a rating of one group is never ranked against, or compared with, one of another) and the
    `small_sample_note` when the units of `c` are too few for an informative interval.

    Args:
        c: the comparisons.
        point: each system's rating.
        boot: resamples x systems ratings.
        signature: the ratings' signature.
        groups: each system's `compared_groups` group.

    Returns:
        The ratings with their notes.
    """
    rated = with_intervals(c.systems, point, boot, signature, groups + 1)
    table, small = rated.table, small_sample_note(c)
    if small is not None:
        table = table.assign(rank_low=np.nan, rank_high=np.nan)
        if c.unit_inverse()[1] < 2:
            table = table.assign(low=np.nan, high=np.nan, inside=False)
    notes = [n for n in (groups_note(c.systems, groups), small) if n]
    return Ratings(table, rated.signature, "; ".join(notes) or None, small is None)


def rating_signature(
    statistic: str,
    c: Comparisons,
    resampling: Resampling,
    benchmark: str | None,
    extra: tuple[tuple[str, str], ...],
) -> Signature:
    """The signature of a rating of `c` by bootstrap percentiles over its units.

    Args:
        statistic: the rating's name.
        c: the comparisons rated.
        resampling: the resamples and seed of the intervals.
        benchmark: the benchmark's name, or None.
        extra: the rating's own settings, (name, value) pairs.

    Returns:
        The signature.
    """
    return Signature(
        statistic,
        "system",
        "bootstrap-percentile",
        resampling.resamples,
        resampling.seed,
        benchmark=benchmark,
        extra=(("unit", c.unit_name), *extra),
    )
