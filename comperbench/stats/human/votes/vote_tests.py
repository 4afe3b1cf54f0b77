"""Tests of A/B votes: sign (binomial) and McNemar for two systems, chi-square and
Cochran's Q for more, and the adjusted sign and McNemar tests of every pair.

Small samples are said out loud: the sign and McNemar tests are exact at any size; the bootstrap
test of a pair needs `MIN_BOOTSTRAP_UNITS` units (on fewer it is NaN: a resample of one item
only ever repeats it, and its p-value would be the bootstrap's floor 2 / (B + 1)), and the
chi-square needs expected counts that its approximation holds for (Cochran's rule)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.human.percentile import percentile_only
from comperbench.stats.human.votes.comparisons import Comparisons, canonical, pair_counts
from comperbench.stats.multiplicity import Correction, adjust
from comperbench.stats.resampling import (
    MIN_BOOTSTRAP_UNITS,
    bootstrap_indices,
    counts_from_indices,
    require_resamples,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

MIN_EXPECTED = 5.0
"""Cochran's rule for the chi-square: at most a fifth of the expected counts below this, none
below 1."""


def sign_test(wins_a: int, wins_b: int) -> float:
    """Exact two-sided sign (binomial) test of equal preference; ties are left out beforehand.

    Args:
        wins_a: wins of the first system.
        wins_b: wins of the second system.

    Returns:
        The p-value; NaN without decided comparisons.
    """
    n = wins_a + wins_b
    return float(sps.binomtest(wins_a, n, 0.5).pvalue) if n else np.nan


def mcnemar(
    selected_a: Sequence[bool], selected_b: Sequence[bool], exact: bool = True
) -> tuple[float, float]:
    """(statistic, p) for paired binary selections: exact binomial on the discordant pairs, or the
    chi-square with continuity correction (statistic = count of the smaller discordant cell when exact).

    Args:
        selected_a: whether the first system was selected, per context.
        selected_b: whether the second system was selected, per context.
        exact: the exact binomial test (else the chi-square).

    Returns:
        (statistic, p).
    """
    a, b = np.asarray(selected_a, bool), np.asarray(selected_b, bool)
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if exact:
        n = only_a + only_b
        p = float(sps.binomtest(min(only_a, only_b), n, 0.5).pvalue) if n else 1.0
        return float(min(only_a, only_b)), p
    if only_a + only_b == 0:
        return 0.0, 1.0
    stat = (abs(only_a - only_b) - 1) ** 2 / (only_a + only_b)
    return float(stat), float(sps.chi2.sf(stat, 1))


def chi_square(table: np.ndarray) -> tuple[float, float, int]:
    """(statistic, p, dof) of independence for a systems x outcomes count table (scipy). All-zero
    rows and columns (e.g. an outcome, such as a tie, that never occurs) carry no information and
    are dropped first (see `empty_lines`); the dof counts only the lines kept.

    Args:
        table: systems x outcomes counts.

    Returns:
        (statistic, p, dof).
    """
    counts = np.asarray(table, dtype=float)
    counts = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    if counts.ndim != 2 or min(counts.shape) < 2:
        raise ValueError(
            "chi-square needs at least two systems and two outcomes with non-zero counts; "
            f"the table has {counts.shape[0]} non-empty row(s) and "
            f"{counts.shape[1] if counts.ndim == 2 else 0} non-empty column(s)"
        )
    res = sps.chi2_contingency(counts, correction=False)
    return float(res.statistic), float(res.pvalue), int(res.dof)


def small_expected_reason(table: np.ndarray) -> str | None:
    """Why the chi-square approximation does not hold for a count table (Cochran's rule: no
    expected count below 1, at most a fifth below `MIN_EXPECTED`), or None. All-zero rows and
    columns are left out first, as `chi_square` does.

    Args:
        table: systems x outcomes counts.

    Returns:
        The reason, or None.
    """
    counts = np.asarray(table, dtype=float)
    counts = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    if counts.size == 0:
        return None
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    small = int(np.count_nonzero(expected < MIN_EXPECTED))
    if expected.min() >= 1 and small <= expected.size / 5:
        return None
    return (
        f"{small} of {expected.size} expected counts are below {MIN_EXPECTED:g} (smallest "
        f"{expected.min():.2g}): too few comparisons for the chi-square approximation; the "
        "exact sign tests of each pair stand"
    )


def empty_lines(table: np.ndarray) -> tuple[list[int], list[int]]:
    """(rows, columns) of a count table that are all zero, which `chi_square` drops.

    Args:
        table: a count table.

    Returns:
        (rows, columns) that are all zero.
    """
    counts = np.asarray(table, dtype=float)
    return (
        np.flatnonzero(counts.sum(axis=1) == 0).tolist(),
        np.flatnonzero(counts.sum(axis=0) == 0).tolist(),
    )


def cochrans_q(binary: np.ndarray) -> tuple[float, float, int]:
    """(Q, p, dof) for an items x systems 0/1 matrix: do the systems have equal success rates?

    Args:
        binary: items x systems 0/1.

    Returns:
        (Q, p, dof); NaNs where every item selects all or none.
    """
    x = np.asarray(binary, dtype=float)
    k = x.shape[1]
    col, row = x.sum(axis=0), x.sum(axis=1)
    total = x.sum()
    denom = k * total - np.sum(row * row)
    if denom == 0:
        return np.nan, np.nan, k - 1
    q = (k - 1) * (k * np.sum(col * col) - total * total) / denom
    return float(q), float(sps.chi2.sf(q, k - 1)), k - 1


@takes_resampling()
def unit_bootstrap_p(
    units: np.ndarray, outcome: np.ndarray, resampling: Resampling = DEFAULT_RESAMPLING
) -> float:
    """Two-sided bootstrap test of no preference between two systems, resampling units (items,
    turns) so that several votes on one unit stay together.

    The statistic is the mean outcome minus 0.5, and p = 2 min(P*(stat <= 0), P*(stat >= 0)),
    each share counted as (k + 1) / (B + 1), capped at 1 (the percentile interval inverted).

    Args:
        units: the unit of each vote.
        outcome: each vote's outcome (1 a wins, 0 b wins, 0.5 tie).
        resampling: bootstrap resamples (at least 1) and seed; percentile only.

    Returns:
        The p-value; NaN on fewer than `MIN_BOOTSTRAP_UNITS` units.
    """
    percentile_only(resampling, "unit_bootstrap_p")
    n_resamples, seed = resampling.resamples, resampling.seed
    require_resamples(n_resamples, "a bootstrap p-value")
    names, index = np.unique(units.astype(str), return_inverse=True)
    if names.size < MIN_BOOTSTRAP_UNITS:
        return np.nan
    sums = np.bincount(index, weights=outcome - 0.5, minlength=names.size)
    sizes = np.bincount(index, minlength=names.size).astype(float)
    W = counts_from_indices(bootstrap_indices(names.size, n_resamples, seed), names.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = (W @ sums) / (W @ sizes)
    below = (np.count_nonzero(stat <= 0) + 1) / (n_resamples + 1)
    above = (np.count_nonzero(stat >= 0) + 1) / (n_resamples + 1)
    return float(min(1.0, 2 * min(below, above)))


def _bootstrap_columns(
    c: Comparisons, pairs: pd.DataFrame, resampling: Resampling
) -> tuple[list[float], list[int]]:
    """Each pair's `unit_bootstrap_p` and its number of units."""
    canon = canonical(c)
    frame = pd.DataFrame(
        {"a": canon.a, "b": canon.b, "unit": canon.units, "outcome": canon.outcome}
    )
    groups = dict(list(frame.groupby(["a", "b"], sort=False)))
    found = [groups[(a, b)] for a, b in zip(pairs["system_a"], pairs["system_b"], strict=True)]
    p_values = [
        unit_bootstrap_p(g["unit"].to_numpy(), g["outcome"].to_numpy(), resampling) for g in found
    ]
    return p_values, [int(g["unit"].astype(str).nunique()) for g in found]


@takes_resampling()
def pair_tests(
    c: Comparisons,
    selected: pd.DataFrame | None = None,
    correction: Correction = "holm",
    resampling: Resampling = DEFAULT_RESAMPLING,
) -> pd.DataFrame:
    """Every pair of systems: wins, ties and the exact sign test of equal preference (ties left
    out); with units, also `unit_bootstrap_p`, which keeps the votes of one unit together (NaN
    on fewer than `MIN_BOOTSTRAP_UNITS` units; `bootstrap_units` counts them); with
    `selected` also McNemar's exact test on the two systems' selections. Each test is a family
    of its own, adjusted by `correction` into `*_adjusted`.

    Args:
        c: the comparisons.
        selected: contexts x systems 0/1 (`rating_votes.selections`), or None.
        correction: the multiplicity correction of each family of tests.
        resampling: resamples and seed of the bootstrap test (used with units).

    Returns:
        One row per pair of systems: its counts and tests.
    """
    pairs = pair_counts(c)
    sign = [sign_test(a, b) for a, b in zip(pairs["wins_a"], pairs["wins_b"], strict=True)]
    pairs["sign_p"] = np.asarray(sign, dtype=float)
    pairs["sign_p_adjusted"] = adjust(pairs["sign_p"].to_numpy(), correction)
    if c.units is not None:
        boot, units = _bootstrap_columns(c, pairs, resampling)
        pairs["bootstrap_units"] = units
        pairs["bootstrap_p"] = np.asarray(boot, dtype=float)
        pairs["bootstrap_p_adjusted"] = adjust(pairs["bootstrap_p"].to_numpy(), correction)
    if selected is not None and len(selected):
        known = set(selected.columns)
        mcnemar_p = [
            mcnemar(selected[a].astype(bool), selected[b].astype(bool))[1]
            if {a, b} <= known
            else np.nan
            for a, b in zip(pairs["system_a"], pairs["system_b"], strict=True)
        ]
        pairs["mcnemar_p"] = np.asarray(mcnemar_p, dtype=float)
        pairs["mcnemar_p_adjusted"] = adjust(pairs["mcnemar_p"].to_numpy(), correction)
    return pairs
