"""Warnings for correlations that rest on a degenerate or influence-driven score distribution,
and for a p-value and an interval that disagree about zero."""

from __future__ import annotations

import numpy as np

from comperbench.stats.vectorised import centred

MIN_DISTINCT_SHARE = 0.05
"""Below one distinct metric score per 20 units, the correlation mostly compares tied blocks."""

MAX_INFLUENCE_IN_STANDARD_ERRORS = 1.0
"""One unit moving Pearson's r by a whole standard error is one unit deciding the result (an
ordinary unit moves it by about a standard error over the square root of n)."""

MAX_VARIANCE_SHARE = 0.5
"""One unit holding over half the metric's sum of squares makes r mostly that unit's human score."""

SIGNIFICANCE_LEVEL = 0.05
"""The level at which a p-value and a 95% interval are read as agreeing about zero."""

_VANISHING_VARIANCE = 1e-12
"""A leave-one-out sum of squares at most this share of the full one counts as zero."""


def distinct_share(scores: np.ndarray) -> float:
    """Distinct finite values over finite values (NaN without any)."""
    finite = scores[np.isfinite(scores)]
    return np.unique(finite).size / finite.size if finite.size else np.nan


def largest_variance_share(scores: np.ndarray) -> float:
    """The largest share of the centred sum of squares that one value holds."""
    squares = centred(scores) ** 2
    return float(squares.max() / squares.sum())


def leave_one_out_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r without each unit in turn, in closed form from the centred sums (NaN where a
    side is constant without that unit)."""
    n = x.size
    xc, yc = centred(x), centred(y)
    # removing centred values v, w moves a centred sum of products by v * w * n / (n - 1)
    shrink = n / (n - 1)
    sxx = np.sum(xc * xc) - xc * xc * shrink
    syy = np.sum(yc * yc) - yc * yc * shrink
    sxy = np.sum(xc * yc) - xc * yc * shrink
    defined = (sxx > _VANISHING_VARIANCE * np.sum(xc * xc)) & (
        syy > _VANISHING_VARIANCE * np.sum(yc * yc)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(defined, sxy / np.sqrt(sxx * syy), np.nan)


def distribution_note(scores: np.ndarray, human: np.ndarray) -> str | None:
    """Why the metric's scores make a correlation fragile (few distinct values, one value holding
    most of their spread, or one unit whose removal moves Pearson's r by more than its standard
    error), or None."""
    keep = np.isfinite(scores) & np.isfinite(human)
    x, y = scores[keep], human[keep]
    if x.size < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    reasons = []
    share = distinct_share(x)
    if share < MIN_DISTINCT_SHARE:
        reasons.append(f"only {share:.1%} of the metric's scores are distinct")
    if (held := largest_variance_share(x)) > MAX_VARIANCE_SHARE:
        reasons.append(f"one score holds {held:.1%} of the metric's sum of squares")
    r = float(np.corrcoef(centred(x), centred(y))[0, 1])  # corrcoef centres only once
    without = leave_one_out_pearson(x, y)
    if np.isnan(without).any():
        reasons.append("without one unit the metric's scores are constant")
    else:
        unit = int(np.argmax(np.abs(without - r)))
        change = abs(without[unit] - r)
        standard_error = (1 - r * r) / np.sqrt(x.size - 1)
        if change > MAX_INFLUENCE_IN_STANDARD_ERRORS * standard_error:
            reasons.append(
                f"leaving out one unit moves Pearson's r by {change:.3f} "
                f"(more than its standard error {standard_error:.3f})"
            )
    return "; ".join(reasons) + ": one value may drive the result" if reasons else None


def p_interval_note(p_value: float, low: float, high: float) -> str | None:
    """A note when p < 0.05 and "the interval excludes 0" disagree, saying to trust the p-value:
    under no association its null distribution holds whatever the scores' shape, while a
    bootstrap interval assumes resamples vary as the sample would, which fails when few units
    drive the value."""
    if not np.isfinite(p_value) or not (np.isfinite(low) and np.isfinite(high)):
        return None
    significant = p_value < SIGNIFICANCE_LEVEL
    excludes_zero = low > 0 or high < 0
    if significant == excludes_zero:
        return None
    interval = "excludes" if excludes_zero else "includes"
    return (
        f"p = {p_value:.3g} but the interval {interval} 0: trust the p-value (its null "
        "distribution holds whatever the scores' shape; the bootstrap interval fails when few "
        "units drive the value)"
    )
