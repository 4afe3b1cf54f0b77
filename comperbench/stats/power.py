"""Sample size and power for the tests human evaluations use.

Each test has `power(n, ...)` and `sample_size(...)` (the smallest n reaching the target power).
Two-sided tests throughout. Cochran's Q has no closed form: its power is estimated by seeded
Monte Carlo with independent responses across systems (state the seed with the result).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats as sps

MAX_N = 1_000_000


def _smallest_n(power: Callable[[int], float], target: float, start: int = 2) -> int:
    """Smallest n >= start with power(n) >= target, by doubling then bisection (for power
    curves that increase with n)."""
    hi = start
    while power(hi) < target:
        hi *= 2
        if hi > MAX_N:
            raise ValueError(f"more than {MAX_N} units would be needed")
    lo = max(start, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if power(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return hi


def _proportion(name: str, value: float, open_interval: bool = False) -> None:
    bad = not (0 < value < 1) if open_interval else not (0 <= value <= 1)
    if bad or not np.isfinite(value):
        where = "strictly between 0 and 1" if open_interval else "between 0 and 1"
        raise ValueError(f"{name}={value:g} must be a proportion {where}")


def _check_binomial(p0: float, p1: float) -> None:
    _proportion("p0", p0, open_interval=True)
    _proportion("p1", p1)
    if p1 == p0:
        raise ValueError(
            f"p1 equals p0 ({p0:g}): there is no effect to detect, so no sample size reaches "
            "the target power"
        )


def _check_mcnemar(p10: float, p01: float) -> None:
    _proportion("p10", p10)
    _proportion("p01", p01)
    if p10 + p01 > 1:
        raise ValueError(f"the discordant proportions p10 + p01 = {p10 + p01:g} exceed 1")
    if p10 == p01:
        raise ValueError(
            f"p10 equals p01 ({p10:g}): there is no effect to detect, so no number of pairs "
            "reaches the target power"
        )


def binomial_power(n: int, p0: float, p1: float, alpha: float = 0.05, exact: bool = True) -> float:
    """Power of the one-sample binomial test of H0: p = p0 when the true proportion is p1."""
    if exact:
        k = np.arange(n + 1)
        pmf0 = sps.binom.pmf(k, n, p0)
        # scipy's two-sided rule: outcomes no more likely than the observed one
        ordered = np.sort(pmf0)
        below = np.cumsum(ordered)
        pvals = below[np.searchsorted(ordered, pmf0 * (1 + 1e-7), side="right") - 1]
        return float(sps.binom.pmf(k[pvals <= alpha], n, p1).sum())
    z = sps.norm.ppf(1 - alpha / 2)
    se0, se1 = np.sqrt(p0 * (1 - p0) / n), np.sqrt(p1 * (1 - p1) / n)
    return float(sps.norm.cdf((p1 - p0 - z * se0) / se1) + sps.norm.cdf((p0 - p1 - z * se0) / se1))


def binomial_sample_size(
    p0: float, p1: float, alpha: float = 0.05, power: float = 0.8, exact: bool = True
) -> int:
    """n for the one-sample binomial test (exact: the smallest n whose exact power reaches
    `power`, by a scan because the exact power curve is saw-toothed; normal: the closed-form
    approximation rounded up)."""
    _check_binomial(p0, p1)
    if exact:
        approx = binomial_sample_size(p0, p1, alpha, power, exact=False)
        if approx > MAX_N:
            raise ValueError(f"more than {MAX_N} units would be needed (about {approx})")
        for n in range(1, MAX_N):
            if binomial_power(n, p0, p1, alpha, True) >= power:
                return n
        raise ValueError(f"more than {MAX_N} units would be needed")
    za, zb = sps.norm.ppf(1 - alpha / 2), sps.norm.ppf(power)
    root = za * np.sqrt(p0 * (1 - p0)) + zb * np.sqrt(p1 * (1 - p1))
    return int(np.ceil((root / (p1 - p0)) ** 2))


def mcnemar_sample_size(p10: float, p01: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Pairs needed for McNemar's test (Connor 1987) given the two discordant proportions."""
    _check_mcnemar(p10, p01)
    psi, delta = p10 + p01, p10 - p01
    za, zb = sps.norm.ppf(1 - alpha / 2), sps.norm.ppf(power)
    return int(np.ceil((za * np.sqrt(psi) + zb * np.sqrt(psi - delta**2)) ** 2 / delta**2))


def mcnemar_power(n: int, p10: float, p01: float, alpha: float = 0.05) -> float:
    """Power of McNemar's test with n pairs (Connor 1987)."""
    _proportion("p10", p10)
    _proportion("p01", p01)
    if p10 + p01 <= 0 or p10 + p01 > 1:
        raise ValueError(f"the discordant proportions p10 + p01 = {p10 + p01:g} must be in (0, 1]")
    psi, delta = p10 + p01, p10 - p01
    za = sps.norm.ppf(1 - alpha / 2)
    return float(
        sps.norm.cdf((abs(delta) * np.sqrt(n) - za * np.sqrt(psi)) / np.sqrt(psi - delta**2))
    )


def chisquare_power(n: int, effect_w: float, k: int, alpha: float = 0.05) -> float:
    """Power of a chi-square test with k - 1 degrees of freedom for Cohen's effect size w."""
    df = k - 1
    crit = sps.chi2.ppf(1 - alpha, df)
    return float(sps.ncx2.sf(crit, df, n * effect_w**2))


def chisquare_sample_size(effect_w: float, k: int, alpha: float = 0.05, power: float = 0.8) -> int:
    if not effect_w > 0:
        raise ValueError(f"Cohen's w={effect_w:g}: there is no effect to detect (w must be > 0)")
    return _smallest_n(lambda n: chisquare_power(n, effect_w, k, alpha), power)


def effect_w(p: Sequence[float], p0: Sequence[float] | None = None) -> float:
    """Cohen's w of outcome proportions p against p0 (uniform by default)."""
    p = np.asarray(p, dtype=float)
    q = np.full_like(p, 1 / p.size) if p0 is None else np.asarray(p0, dtype=float)
    return float(np.sqrt(np.sum((p - q) ** 2 / q)))


def ttest_power(n_per_group: int, effect_d: float, alpha: float = 0.05) -> float:
    """Power of the two-sided two-sample t-test (equal groups) for Cohen's d (noncentral t)."""
    df = 2 * n_per_group - 2
    nc = effect_d * np.sqrt(n_per_group / 2)
    crit = sps.t.ppf(1 - alpha / 2, df)
    return float(sps.nct.sf(crit, df, nc) + sps.nct.cdf(-crit, df, nc))


def ttest_sample_size(effect_d: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units per group for the two-sample t-test."""
    if effect_d == 0 or not np.isfinite(effect_d):
        raise ValueError(f"Cohen's d={effect_d:g}: there is no effect to detect (d must be != 0)")
    return _smallest_n(lambda n: ttest_power(n, effect_d, alpha), power)


def cochrans_q_power(
    n: int, p: Sequence[float], alpha: float = 0.05, n_simulations: int = 2000, seed: int = 0
) -> float:
    """Monte Carlo power of Cochran's Q for n items and per-system success proportions p,
    responses drawn independently (items whose responses vary carry the test)."""
    p = np.asarray(p, dtype=float)
    k = p.size
    rng = np.random.default_rng(seed)
    x = (rng.random((n_simulations, n, k)) < p).astype(float)
    col, row = x.sum(axis=1), x.sum(axis=2)
    total = row.sum(axis=1)
    denom = k * total - (row * row).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = (k - 1) * (k * (col * col).sum(axis=1) - total**2) / denom
    reject = np.where(denom > 0, sps.chi2.sf(q, k - 1) < alpha, False)
    return float(reject.mean())


def cochrans_q_sample_size(
    p: Sequence[float],
    alpha: float = 0.05,
    power: float = 0.8,
    n_simulations: int = 2000,
    seed: int = 0,
) -> int:
    if len(set(p)) < 2:
        raise ValueError(
            "all systems have the same success proportion: there is no effect to detect"
        )
    return _smallest_n(lambda n: cochrans_q_power(n, p, alpha, n_simulations, seed), power)
