"""Sample size and power for the tests human evaluations use.

Each test has `power(n, ...)` and `sample_size(...)` (the smallest n reaching the target power).
Two-sided tests unless an `alternative` is given. Cochran's Q has no closed-form power: it is
approximated by a noncentral chi-square (by default) or estimated by seeded Monte Carlo with its
standard error, both with independent responses across systems.

The normal and binomial distributions come from `scipy.special` (`ndtr`, `ndtri` and the
binomial ufuncs behind `scipy.stats.binom`, with its handling of the support), the same numbers
as `scipy.stats` without importing it, so that `comperbench human plan ab` answers fast; the
chi-square and t distributions import `scipy.stats` when used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from scipy import special
from scipy.special import _ufuncs as binom_ufuncs

from comperbench.common.deprecation import deprecated, renamed_keywords

if TYPE_CHECKING:
    from scipy import stats

MAX_N = 1_000_000

BinomialMethod = Literal["exact", "fleiss", "null-variance", "alt-variance", "tabled-z"]
Alternative = Literal["two-sided", "greater", "less"]
BINOMIAL_METHODS: dict[str, str] = {
    "exact": "exact binomial test (scipy's rule for two-sided p-values), smallest n by a scan",
    "fleiss": "normal approximation, n = (z_a sqrt(p0 q0) + z_b sqrt(p1 q1))^2 / (p1 - p0)^2: "
    "the variance under the null for the critical value, under the alternative for the power "
    "(the clinical-trial formula of Fleiss, Levin & Paik 2003, ch. 4, and Friedman, Furberg & "
    "DeMets 2015, ch. 8, here for one sample; statsmodels normal_sample_size_one_tail with "
    "std_null, std_alternative)",
    "null-variance": "normal approximation, n = (z_a + z_b)^2 p0 q0 / (p1 - p0)^2: the variance "
    "under the null in both terms (statsmodels NormalIndPower, ratio 0, effect size "
    "(p1 - p0) / sqrt(p0 q0))",
    "alt-variance": "normal approximation, n = (z_a + z_b)^2 p1 q1 / (p1 - p0)^2: the variance "
    "under the alternative in both terms (the Wald test, whose statistic divides by the "
    "estimated rate's standard error)",
    "tabled-z": "null-variance with z_a and z_b rounded to two decimals as printed in tables "
    "(1.96 and 0.84 at alpha 0.05 two-sided and power 0.8): the arithmetic that gives the "
    "interactive per-turn paper's Table 1 (196 turns for a win rate of 0.6 against 0.5, 126 for "
    "0.9 or 0.7 against 0.8)",
}
"""z_a = z_{1-alpha/2} (two-sided) or z_{1-alpha} (one-sided), z_b = z_{power}, q = 1 - p."""


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


def _check_binomial(p0: float, p1: float, method: str, alternative: str) -> None:
    if method not in BINOMIAL_METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(BINOMIAL_METHODS)}")
    _proportion("p0", p0, open_interval=True)
    _proportion("p1", p1, open_interval=method == "alt-variance")
    if p1 == p0:
        raise ValueError(
            f"p1 equals p0 ({p0:g}): there is no effect to detect, so no sample size reaches "
            "the target power"
        )
    if (alternative == "greater" and p1 < p0) or (alternative == "less" and p1 > p0):
        raise ValueError(
            f"p1={p1:g} lies on the other side of p0={p0:g} than the alternative "
            f"{alternative!r}: the test has no power against it"
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


def _binom_pmf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """`scipy.stats.binom.pmf(k, n, p)` for k in 0..n."""
    return np.clip(binom_ufuncs._binom_pmf(k, n, p), 0, 1)


def _binom_sf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """`scipy.stats.binom.sf(k, n, p)`: 1 below the support, 0 from n on."""
    out = np.where(k < 0, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    out[inside] = np.clip(binom_ufuncs._binom_sf(np.floor(k[inside]), n, p), 0, 1)
    return out


def _binom_cdf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """`scipy.stats.binom.cdf(k, n, p)`: 0 below the support, 1 from n on."""
    out = np.where(k >= n, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    out[inside] = np.clip(binom_ufuncs._binom_cdf(np.floor(k[inside]), n, p), 0, 1)
    return out


def _stats() -> stats:
    """`scipy.stats`, imported on first use (the plans of most settings need none of it)."""
    from scipy import stats

    return stats


def _exact_binomial_power(n: int, p0: float, p1: float, alpha: float, alternative: str) -> float:
    k = np.arange(n + 1)
    pmf0 = _binom_pmf(k, n, p0)
    if alternative == "greater":
        pvals = _binom_sf(k - 1, n, p0)
    elif alternative == "less":
        pvals = _binom_cdf(k, n, p0)
    else:  # scipy's two-sided rule: outcomes no more likely than the observed one
        ordered = np.sort(pmf0)
        below = np.cumsum(ordered)
        pvals = below[np.searchsorted(ordered, pmf0 * (1 + 1e-7), side="right") - 1]
    return float(_binom_pmf(k[pvals <= alpha], n, p1).sum())


def _z(quantile: float, method: str) -> float:
    """The normal quantile, rounded to two decimals for `tabled-z`."""
    z = float(special.ndtri(quantile))
    return round(z, 2) if method == "tabled-z" else z


def _z_alpha(alpha: float, alternative: str, method: str = "") -> float:
    return _z(1 - alpha / 2 if alternative == "two-sided" else 1 - alpha, method)


def _binomial_sds(p0: float, p1: float, method: str) -> tuple[float, float]:
    """Standard deviations of one response under the critical value and under the power term."""
    null, alt = np.sqrt(p0 * (1 - p0)), np.sqrt(p1 * (1 - p1))
    sds = {"fleiss": (null, alt), "null-variance": (null, null), "alt-variance": (alt, alt)}
    return sds.get(method, (null, null))


def binomial_power(
    n: int,
    p0: float,
    p1: float,
    alpha: float = 0.05,
    method: BinomialMethod = "exact",
    alternative: Alternative = "two-sided",
) -> float:
    """Power of the one-sample binomial test of H0: p = p0 (e.g. one system's win or
    select-all-that-apply rate against an expected rate) when the true rate is p1; `method` is
    one of `BINOMIAL_METHODS`.

    Args:
        n: the trials.
        p0: the rate under H0.
        p1: the true rate.
        alpha: the significance level.
        method: one of `BINOMIAL_METHODS`.
        alternative: two-sided, greater or less.

    Returns:
        The power.
    """
    _check_binomial(p0, p1, method, alternative)
    if method == "exact":
        return _exact_binomial_power(n, p0, p1, alpha, alternative)
    sd0, sd1 = _binomial_sds(p0, p1, method)
    z, shift = _z_alpha(alpha, alternative, method), (p1 - p0) * np.sqrt(n)
    above = special.ndtr((shift - z * sd0) / sd1)
    below = special.ndtr((-shift - z * sd0) / sd1)
    return float({"greater": above, "less": below}.get(alternative, above + below))


def binomial_sample_size(
    p0: float,
    p1: float,
    alpha: float = 0.05,
    power: float = 0.8,
    method: BinomialMethod = "exact",
    alternative: Alternative = "two-sided",
) -> int:
    """n for the one-sample binomial test. Normal methods: the closed form
    ((z_alpha sd0 + z_beta sd1) / (p1 - p0))^2 rounded up, with the standard deviations of
    `BINOMIAL_METHODS`. Exact: the smallest n whose exact power reaches `power`, by a scan (the
    exact power curve is saw-toothed, so a slightly larger n can fall short again).

    Args:
        p0: the rate under H0.
        p1: the true rate.
        alpha: the significance level.
        power: the target power.
        method: one of `BINOMIAL_METHODS`.
        alternative: two-sided, greater or less.

    Returns:
        The smallest n.
    """
    _check_binomial(p0, p1, method, alternative)
    if method == "exact":
        approx = binomial_sample_size(p0, p1, alpha, power, "fleiss", alternative)
        if approx > MAX_N:
            raise ValueError(f"more than {MAX_N} units would be needed (about {approx})")
        for n in range(1, MAX_N):
            if _exact_binomial_power(n, p0, p1, alpha, alternative) >= power:
                return n
        raise ValueError(f"more than {MAX_N} units would be needed")
    sd0, sd1 = _binomial_sds(p0, p1, method)
    root = _z_alpha(alpha, alternative, method) * sd0 + _z(power, method) * sd1
    return _ceil((root / (p1 - p0)) ** 2)


def _ceil(n: float) -> int:
    """n rounded up, a float's error above a whole number (196.00000000000006) not counted."""
    return int(np.ceil(n - 1e-9))


def mcnemar_sample_size(p10: float, p01: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Pairs needed for McNemar's test (Connor 1987) given the two discordant proportions.

    Args:
        p10: the share of pairs only the first is selected in.
        p01: the share only the second is selected in.
        alpha: the significance level.
        power: the target power.

    Returns:
        The pairs needed.
    """
    _check_mcnemar(p10, p01)
    psi, delta = p10 + p01, p10 - p01
    za, zb = special.ndtri(1 - alpha / 2), special.ndtri(power)
    return int(np.ceil((za * np.sqrt(psi) + zb * np.sqrt(psi - delta**2)) ** 2 / delta**2))


def mcnemar_power(n: int, p10: float, p01: float, alpha: float = 0.05) -> float:
    """Power of McNemar's test with n pairs (Connor 1987).

    Args:
        n: the pairs.
        p10: the share of pairs only the first is selected in.
        p01: the share only the second is selected in.
        alpha: the significance level.

    Returns:
        The power.
    """
    _proportion("p10", p10)
    _proportion("p01", p01)
    if p10 + p01 <= 0 or p10 + p01 > 1:
        raise ValueError(f"the discordant proportions p10 + p01 = {p10 + p01:g} must be in (0, 1]")
    psi, delta = p10 + p01, p10 - p01
    za = special.ndtri(1 - alpha / 2)
    return float(
        special.ndtr((abs(delta) * np.sqrt(n) - za * np.sqrt(psi)) / np.sqrt(psi - delta**2))
    )


def _check_two_proportions(p1: float, p2: float) -> None:
    _proportion("p1", p1, open_interval=True)
    _proportion("p2", p2, open_interval=True)


def two_proportion_sample_size(
    p1: float, p2: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Units per group for the two-sided two-proportion z-test (pooled variance):
    n = (z_a sqrt(2 pbar qbar) + z_b sqrt(p1 q1 + p2 q2))^2 / (p1 - p2)^2 rounded up, with
    pbar = (p1 + p2) / 2 (Fleiss, Levin & Paik 2003, ch. 4, without continuity correction).

    Args:
        p1: the first group's proportion.
        p2: the second group's proportion.
        alpha: the significance level.
        power: the target power.

    Returns:
        The units per group.
    """
    _check_two_proportions(p1, p2)
    if p1 == p2:
        raise ValueError(
            f"p1 equals p2 ({p1:g}): there is no effect to detect, so no sample size reaches "
            "the target power"
        )
    null, alt = _two_proportion_sds(p1, p2)
    root = special.ndtri(1 - alpha / 2) * null + special.ndtri(power) * alt
    return int(np.ceil((root / (p1 - p2)) ** 2))


def two_proportion_power(n: int, p1: float, p2: float, alpha: float = 0.05) -> float:
    """Power of the two-sided two-proportion z-test with n units per group:
    Phi((|p1 - p2| sqrt(n) - z_a sqrt(2 pbar qbar)) / sqrt(p1 q1 + p2 q2)), the far tail left
    out as in `two_proportion_sample_size`.

    Args:
        n: the units per group.
        p1: the first group's proportion.
        p2: the second group's proportion.
        alpha: the significance level.

    Returns:
        The power.
    """
    _check_two_proportions(p1, p2)
    null, alt = _two_proportion_sds(p1, p2)
    za = special.ndtri(1 - alpha / 2)
    return float(special.ndtr((abs(p1 - p2) * np.sqrt(n) - za * null) / alt))


def _two_proportion_sds(p1: float, p2: float) -> tuple[float, float]:
    """sqrt(2 pbar qbar) under the null and sqrt(p1 q1 + p2 q2) under the alternative."""
    pbar = (p1 + p2) / 2
    return float(np.sqrt(2 * pbar * (1 - pbar))), float(np.sqrt(p1 * (1 - p1) + p2 * (1 - p2)))


def chisquare_power(n: int, effect_w: float, k: int, alpha: float = 0.05) -> float:
    """Power of a chi-square test with k - 1 degrees of freedom for Cohen's effect size w.

    Args:
        n: the observations.
        effect_w: Cohen's w.
        k: the categories.
        alpha: the significance level.

    Returns:
        The power.
    """
    df = k - 1
    crit = _stats().chi2.ppf(1 - alpha, df)
    return float(_stats().ncx2.sf(crit, df, n * effect_w**2))


def chisquare_sample_size(effect_w: float, k: int, alpha: float = 0.05, power: float = 0.8) -> int:
    """Observations needed for a chi-square test with k - 1 degrees of freedom for Cohen's w.

    Args:
        effect_w: Cohen's w (> 0).
        k: the categories.
        alpha: the significance level.
        power: the target power.

    Returns:
        The smallest n.
    """
    if not effect_w > 0:
        raise ValueError(f"Cohen's w={effect_w:g}: there is no effect to detect (w must be > 0)")
    return _smallest_n(lambda n: chisquare_power(n, effect_w, k, alpha), power)


def effect_w(p: Sequence[float], p0: Sequence[float] | None = None) -> float:
    """Cohen's w of outcome proportions p against p0 (uniform by default).

    Args:
        p: the outcome proportions.
        p0: the proportions under H0, or None (uniform).

    Returns:
        Cohen's w.
    """
    p = np.asarray(p, dtype=float)
    q = np.full_like(p, 1 / p.size) if p0 is None else np.asarray(p0, dtype=float)
    return float(np.sqrt(np.sum((p - q) ** 2 / q)))


def ttest_power(n_per_group: int, effect_d: float, alpha: float = 0.05) -> float:
    """Power of the two-sided two-sample t-test (equal groups) for Cohen's d (noncentral t).

    Args:
        n_per_group: the units per group.
        effect_d: Cohen's d.
        alpha: the significance level.

    Returns:
        The power.
    """
    df = 2 * n_per_group - 2
    nc = effect_d * np.sqrt(n_per_group / 2)
    crit = _stats().t.ppf(1 - alpha / 2, df)
    return float(_stats().nct.sf(crit, df, nc) + _stats().nct.cdf(-crit, df, nc))


def ttest_sample_size(effect_d: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units per group for the two-sample t-test.

    Args:
        effect_d: Cohen's d (not 0).
        alpha: the significance level.
        power: the target power.

    Returns:
        The units per group.
    """
    if effect_d == 0 or not np.isfinite(effect_d):
        raise ValueError(f"Cohen's d={effect_d:g}: there is no effect to detect (d must be != 0)")
    return _smallest_n(lambda n: ttest_power(n, effect_d, alpha), power)


def _check_cochran(p: np.ndarray, effect: bool = False) -> None:
    """Proportions of at least two systems; with `effect`, not all equal."""
    if p.size < 2:
        raise ValueError("Cochran's Q compares at least two systems")
    for j, value in enumerate(p):
        _proportion(f"p[{j}]", float(value))
    if effect and np.ptp(p) == 0:
        raise ValueError(
            "all systems have the same success proportion: there is no effect to detect"
        )


def cochrans_q_noncentrality(n: int, p: Sequence[float]) -> float:
    """Q of the expected table: n items, system j selected with probability p_j independently,
    i.e. lambda = n k (k-1) sum (p_j - mean p)^2 / (k sum p_j - sum p_j q_j - (sum p_j)^2), the
    chi-square statistic of the expected counts as noncentrality (Cohen 1988, ch. 7). For two
    systems it is McNemar's n delta^2 / psi (delta = p10 - p01, psi = p10 + p01).

    Args:
        n: the items.
        p: each system's success proportion.

    Returns:
        The noncentrality lambda.
    """
    p = np.asarray(p, dtype=float)
    k = p.size
    spread = k * p.sum() - np.sum(p * (1 - p)) - p.sum() ** 2
    if spread <= 0:
        raise ValueError("every system is always or never selected: Cochran's Q is undefined")
    return float(n * k * (k - 1) * np.sum((p - p.mean()) ** 2) / spread)


def cochrans_q_power(n: int, p: Sequence[float], alpha: float = 0.05) -> float:
    """Power of Cochran's Q for n items and per-system success proportions p, responses
    independent across systems: the noncentral chi-square approximation with k - 1 degrees of
    freedom and `cochrans_q_noncentrality`.

    Args:
        n: the items.
        p: each system's success proportion.
        alpha: the significance level.

    Returns:
        The power.
    """
    p = np.asarray(p, dtype=float)
    _check_cochran(p)
    df = p.size - 1
    crit = _stats().chi2.ppf(1 - alpha, df)
    return float(_stats().ncx2.sf(crit, df, cochrans_q_noncentrality(n, p)))


@dataclass(frozen=True)
class MonteCarloPower:
    power: float
    se: float
    """Monte Carlo standard error of `power`: sqrt(power (1 - power) / simulations)."""
    simulations: int
    seed: int

    @property
    def n_simulations(self) -> int:
        """Deprecated: `simulations`."""
        deprecated("MonteCarloPower.n_simulations", "MonteCarloPower.simulations")
        return self.simulations


MC_CHUNK = 1000


@renamed_keywords(n_simulations="simulations")
def cochrans_q_power_mc(
    n: int,
    p: Sequence[float],
    alpha: float = 0.05,
    simulations: int = 10_000,
    seed: int = 0,
) -> MonteCarloPower:
    """Monte Carlo power of Cochran's Q for n items and per-system success proportions p,
    responses drawn independently. Simulations run in chunks of `MC_CHUNK`, each from its own
    seeded stream, items first, so a larger n extends the same draws (common random numbers
    keep the power curve in n smooth).

    Args:
        n: the items.
        p: each system's success proportion.
        alpha: the significance level.
        simulations: the simulated evaluations.
        seed: seed of the simulations.

    Returns:
        The power with its Monte Carlo standard error.
    """
    p = np.asarray(p, dtype=float)
    _check_cochran(p)
    k = p.size
    streams = np.random.SeedSequence(seed).spawn(-(-simulations // MC_CHUNK))
    rejected = 0
    for i, stream in enumerate(streams):
        size = min(MC_CHUNK, simulations - i * MC_CHUNK)
        x = (np.random.default_rng(stream).random((n, size, k)) < p).astype(float)
        col, row = x.sum(axis=0), x.sum(axis=2)
        total = row.sum(axis=0)
        denom = k * total - (row * row).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = (k - 1) * (k * (col * col).sum(axis=1) - total**2) / denom
        rejected += int(np.sum(np.where(denom > 0, _stats().chi2.sf(q, k - 1) < alpha, False)))
    estimate = rejected / simulations
    se = float(np.sqrt(estimate * (1 - estimate) / simulations))
    return MonteCarloPower(estimate, se, simulations, seed)


@renamed_keywords(n_simulations="simulations")
def cochrans_q_sample_size(
    p: Sequence[float],
    alpha: float = 0.05,
    power: float = 0.8,
    method: Literal["analytic", "monte-carlo"] = "analytic",
    simulations: int = 10_000,
    seed: int = 0,
) -> int:
    """Items needed for Cochran's Q: by the noncentral chi-square approximation (`analytic`) or
    the smallest n whose Monte Carlo power reaches `power` (state its standard error with it).

    Args:
        p: each system's success proportion.
        alpha: the significance level.
        power: the target power.
        method: `analytic` or `monte-carlo`.
        simulations: the simulated evaluations per n (monte-carlo).
        seed: seed of the simulations (monte-carlo).

    Returns:
        The items needed.
    """
    p = np.asarray(p, dtype=float)
    _check_cochran(p, effect=True)
    if method == "analytic":
        return _smallest_n(lambda n: cochrans_q_power(n, p, alpha), power)
    return _smallest_n(lambda n: cochrans_q_power_mc(n, p, alpha, simulations, seed).power, power)
