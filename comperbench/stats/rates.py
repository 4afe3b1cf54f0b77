"""Rates of binary labels per system: Wilson intervals, two-proportion z-tests between systems,
and the exact binomial test of one system's rate against an expected rate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from comperbench.stats.multiplicity import Correction, adjust

if TYPE_CHECKING:
    import pandas as pd

Alternative = Literal["two-sided", "greater", "less"]


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (NaN for n = 0)."""
    from scipy import stats as sps  # on first use: importing this module need not load it

    if n == 0:
        return np.nan, np.nan
    z = sps.norm.ppf(1 - (1 - confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def two_proportion_z(s1: int, n1: int, s2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) of H0: equal proportions, with the pooled variance."""
    from scipy import stats as sps  # on first use: importing this module need not load it

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
    import pandas as pd

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
    columns = ["system", "n", "count", "rate", "low", "high"]
    return pd.DataFrame(out, columns=columns).set_index("system")


def pairwise_rate_tests(table: pd.DataFrame, correction: Correction = "holm") -> pd.DataFrame:
    """Two-proportion z-test of every pair of systems of a `rates` table; `p_adjusted` corrects
    the family of all pairs (`correction`, Holm by default)."""
    import pandas as pd

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
    frame = pd.DataFrame(rows, columns=["system_a", "system_b", "z", "p_value"])
    frame["p_adjusted"] = adjust(frame["p_value"].to_numpy(), correction)
    return frame


def rate_test(
    successes: int, n: int, expected: float, alternative: Alternative = "two-sided"
) -> tuple[float, float, float]:
    """Exact binomial test (scipy) of one rate against an `expected` rate: (p-value, and the
    Clopper-Pearson 95% interval matching the alternative). NaN when n = 0."""
    from scipy import stats as sps  # on first use: importing this module need not load it

    if not 0 < expected < 1:
        raise ValueError(f"expected rate {expected:g} must lie strictly between 0 and 1")
    if n == 0:
        return np.nan, np.nan, np.nan
    result = sps.binomtest(successes, n, expected, alternative=alternative)
    ci = result.proportion_ci(0.95, method="exact")
    return float(result.pvalue), float(ci.low), float(ci.high)


def rate_tests(
    successes: pd.Series,
    n: pd.Series,
    expected: float,
    alternative: Alternative = "two-sided",
    correction: Correction = "holm",
) -> pd.DataFrame:
    """`rate_test` of every system (the index of `successes` and `n`) against the same expected
    rate; `p_adjusted` corrects the family of systems."""
    import pandas as pd

    rows = [rate_test(int(successes[s]), int(n[s]), expected, alternative) for s in n.index]
    frame = pd.DataFrame(rows, index=n.index, columns=["p_value", "exact_low", "exact_high"])
    frame.insert(0, "rate", successes / n.where(n > 0))
    frame.insert(0, "n", n.astype(int))
    frame.insert(0, "successes", successes.astype(int))
    frame["p_adjusted"] = adjust(frame["p_value"].to_numpy(), correction)
    return frame
