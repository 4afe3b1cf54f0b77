"""Adjusted p-values for a family of tests: Holm (1979) controls the family-wise error rate,
Benjamini-Hochberg (1995) the false discovery rate.

`adjust(p_values, method)` takes any array of p-values; NaN entries (tests that could not be
computed) stay NaN and are not counted in the family.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Correction = Literal["holm", "bh", "none"]
CORRECTIONS: tuple[Correction, ...] = ("holm", "bh", "none")
NAMES = {
    "holm": "Holm (family-wise error rate)",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "none": "no correction",
}


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m - i + 1), made
    non-decreasing in that order and capped at 1."""
    order = np.argsort(p, kind="stable")
    m = p.size
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def adjust(p_values: Sequence[float] | np.ndarray, method: Correction = "holm") -> np.ndarray:
    """Adjusted p-values of one family of tests (same shape as the input). `holm` (the
    default), `bh` (Benjamini-Hochberg, from scipy) or `none`; NaN stays NaN and is left out of
    the family size."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose from {', '.join(CORRECTIONS)}")
    p = np.asarray(p_values, dtype=float)
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise ValueError("p-values must lie between 0 and 1")
    out = p.copy()
    if method == "none" or not finite.any():
        return out
    kept = p[finite]
    if method == "holm":
        out[finite] = _holm(kept)
    else:
        from scipy import stats as sps  # on first use: a run without a correction need not

        out[finite] = sps.false_discovery_control(kept)
    return out


def adjust_matrix(p_values: np.ndarray, method: Correction = "holm") -> np.ndarray:
    """A square matrix of pairwise p-values adjusted as one family (its off-diagonal entries);
    the diagonal stays NaN."""
    p = np.asarray(p_values, dtype=float)
    off_diagonal = ~np.eye(p.shape[0], dtype=bool)
    adjusted = np.full_like(p, np.nan)
    adjusted[off_diagonal] = adjust(p[off_diagonal], method)
    return adjusted


def family_size(p_values: Sequence[float] | np.ndarray) -> int:
    """The number of tests a correction counts: the p-values that are not NaN."""
    return int(np.count_nonzero(~np.isnan(np.asarray(p_values, dtype=float))))


def describe(method: Correction, n_tests: int, what: str = "tests") -> str:
    """One line naming the correction and the family it was applied to."""
    if method == "none":
        return f"p-values not adjusted for multiple comparisons ({n_tests} {what})"
    return f"adjusted p: {NAMES[method]} over {n_tests} {what}"
