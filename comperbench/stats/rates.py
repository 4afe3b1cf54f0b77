"""Rates of binary behaviour labels per system: Wilson intervals and two-proportion z-tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (NaN for n = 0)."""
    if n == 0:
        return np.nan, np.nan
    z = sps.norm.ppf(1 - (1 - confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def two_proportion_z(s1: int, n1: int, s2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) of H0: equal proportions, with the pooled variance."""
    pooled = (s1 + s2) / (n1 + n2)
    se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return np.nan, np.nan
    z = (s1 / n1 - s2 / n2) / se
    return float(z), float(2 * sps.norm.sf(abs(z)))


def rates(
    systems: Sequence[str] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per system: n, count, rate and Wilson interval of a 0/1 label (missing labels dropped)."""
    frame = pd.DataFrame({"system": np.asarray(systems), "label": np.asarray(labels, dtype=float)})
    frame = frame.dropna(subset=["label"])
    bad = ~frame["label"].isin([0.0, 1.0])
    if bad.any():
        row = frame[bad].iloc[0]
        raise ValueError(f"label of system {row['system']!r} is {row['label']}, expected 0 or 1")
    out = []
    for system, group in frame.groupby("system", sort=True):
        n, count = len(group), int(group["label"].sum())
        low, high = wilson_interval(count, n, confidence)
        out.append(
            {"system": system, "n": n, "count": count, "rate": count / n, "low": low, "high": high}
        )
    return pd.DataFrame(out).set_index("system")


def pairwise_rate_tests(table: pd.DataFrame) -> pd.DataFrame:
    """Two-proportion z-test of every pair of systems of a `rates` table."""
    rows = []
    names = list(table.index)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            z, p = two_proportion_z(
                int(table.at[a, "count"]),
                int(table.at[a, "n"]),
                int(table.at[b, "count"]),
                int(table.at[b, "n"]),
            )
            rows.append({"system_a": a, "system_b": b, "z": z, "p_value": p})
    return pd.DataFrame(rows)
