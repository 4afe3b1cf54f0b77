"""Sample size and power against hand values, scipy loops and statsmodels."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.power import (
    GofChisquarePower,
    NormalIndPower,
    TTestIndPower,
    normal_power_het,
    normal_sample_size_one_tail,
)
from statsmodels.stats.proportion import samplesize_proportions_2indep_onetail

from comperbench.stats.human.planning import power


def test_exact_binomial_power_equals_a_loop_over_scipy() -> None:
    n, p0, p1 = 30, 0.5, 0.75
    expected = sum(
        sps.binom.pmf(k, n, p1) for k in range(n + 1) if sps.binomtest(k, n, p0).pvalue <= 0.05
    )
    assert power.binomial_power(n, p0, p1) == pytest.approx(expected)


def test_exact_binomial_sample_size_is_the_first_n_reaching_the_power() -> None:
    n = power.binomial_sample_size(0.5, 0.7)
    assert power.binomial_power(n, 0.5, 0.7) >= 0.8
    assert all(power.binomial_power(m, 0.5, 0.7) < 0.8 for m in range(1, n))


@pytest.mark.parametrize(
    ("method", "n"),
    # z = 1.959964, zb = 0.841621; fleiss: (z * 0.5 + zb * sqrt(0.24))^2 / 0.01 = 193.85;
    # null-variance: (z + zb)^2 0.25 / 0.01 = 196.22; alt-variance: (z + zb)^2 0.24 / 0.01 = 188.37
    [("exact", 199), ("fleiss", 194), ("null-variance", 197), ("alt-variance", 189)],
)
def test_binomial_sample_sizes_for_a_ten_point_difference(method: str, n: int) -> None:
    assert power.binomial_sample_size(0.5, 0.6, method=method) == n
    assert power.binomial_power(n, 0.5, 0.6, method=method) >= 0.8


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize(("p0", "p1"), [(0.5, 0.6), (0.8, 0.9), (0.3, 0.45)])
@pytest.mark.parametrize(
    ("method", "sds"),
    [
        ("fleiss", lambda p0, p1: (np.sqrt(p0 * (1 - p0)), np.sqrt(p1 * (1 - p1)))),
        ("null-variance", lambda p0, p1: (np.sqrt(p0 * (1 - p0)), None)),
        ("alt-variance", lambda p0, p1: (np.sqrt(p1 * (1 - p1)), None)),
    ],
)
def test_normal_binomial_methods_equal_statsmodels(
    method: str, sds: Callable, p0: float, p1: float, alternative: str
) -> None:
    std_null, std_alt = sds(p0, p1)
    tail_alpha = 0.025 if alternative == "two-sided" else 0.05
    ref = normal_sample_size_one_tail(p1 - p0, 0.8, tail_alpha, std_null, std_alt)
    n = power.binomial_sample_size(p0, p1, method=method, alternative=alternative)
    assert n == int(np.ceil(ref))
    side = "larger" if alternative == "greater" else alternative
    ref_power = normal_power_het(p1 - p0, n, 0.05, std_null, std_alt, alternative=side)
    got = power.binomial_power(n, p0, p1, method=method, alternative=alternative)
    assert got == pytest.approx(ref_power, rel=1e-12)


def test_null_variance_equals_normal_ind_power_for_one_sample() -> None:
    ref = NormalIndPower().solve_power(effect_size=0.1 / 0.5, alpha=0.05, power=0.8, ratio=0)
    assert power.binomial_sample_size(0.5, 0.6, method="null-variance") == int(np.ceil(ref))


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_exact_power_equals_a_loop_over_scipy(alternative: str) -> None:
    n, p0 = 40, 0.8
    p1 = 0.92 if alternative == "greater" else 0.6
    expected = sum(
        sps.binom.pmf(k, n, p1)
        for k in range(n + 1)
        if sps.binomtest(k, n, p0, alternative=alternative).pvalue <= 0.05
    )
    got = power.binomial_power(n, p0, p1, alternative=alternative)
    assert got == pytest.approx(expected)


def test_a_rate_against_an_expected_rate_of_0_8() -> None:
    # one system's rate: H0 p = 0.8 against a true 0.9, one-sided exact test
    n = power.binomial_sample_size(0.8, 0.9, alternative="greater")
    loop = [
        sum(
            sps.binom.pmf(k, m, 0.9)
            for k in range(m + 1)
            if sps.binomtest(k, m, 0.8, alternative="greater").pvalue <= 0.05
        )
        for m in (n - 1, n)
    ]
    assert loop[0] < 0.8 <= loop[1]
    assert n == 82
    with pytest.raises(ValueError, match=r"other side of p0=0\.8"):
        power.binomial_sample_size(0.8, 0.7, alternative="greater")


def test_mcnemar_connor_hand_value() -> None:
    # (1.959964 sqrt(.3) + 0.841621 sqrt(.29))^2 / .1^2 = 233.09
    assert power.mcnemar_sample_size(0.2, 0.1) == 234
    assert power.mcnemar_power(234, 0.2, 0.1) == pytest.approx(0.8, abs=0.003)


def test_two_proportion_hand_value_and_brute_force() -> None:
    # pbar = 0.25: (1.959964 sqrt(0.375) + 0.841621 sqrt(0.16 + 0.21))^2 / 0.1^2 = 293.15
    assert power.two_proportion_sample_size(0.2, 0.3) == 294
    assert power.two_proportion_sample_size(0.3, 0.2) == 294
    assert (
        power.two_proportion_power(294, 0.2, 0.3) >= 0.8 > power.two_proportion_power(293, 0.2, 0.3)
    )
    for p1, p2, target in [(0.1, 0.15, 0.8), (0.5, 0.6, 0.9), (0.7, 0.4, 0.8)]:
        n = power.two_proportion_sample_size(p1, p2, power=target)
        assert power.two_proportion_power(n, p1, p2) >= target
        assert power.two_proportion_power(n - 1, p1, p2) < target


@pytest.mark.parametrize(("p1", "p2"), [(0.2, 0.3), (0.1, 0.15), (0.6, 0.4)])
def test_two_proportion_equals_statsmodels_pooled_formula(p1: float, p2: float) -> None:
    # statsmodels' two-sample proportion size: std under H0 from the pooled proportion
    ref = samplesize_proportions_2indep_onetail(p1 - p2, p2, 0.8, alpha=0.05)
    assert power.two_proportion_sample_size(p1, p2) == int(np.ceil(ref))
    # its power adds the far tail, which the formula leaves out
    n = int(np.ceil(ref))
    pbar = (p1 + p2) / 2
    std_null = np.sqrt(2 * pbar * (1 - pbar))
    std_alt = np.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    one_tail = normal_power_het(abs(p1 - p2), n, 0.025, std_null, std_alt, alternative="larger")
    assert power.two_proportion_power(n, p1, p2) == pytest.approx(one_tail, rel=1e-12)


def test_two_proportions_without_an_effect_or_outside_zero_one_are_errors() -> None:
    with pytest.raises(ValueError, match="no effect"):
        power.two_proportion_sample_size(0.3, 0.3)
    with pytest.raises(ValueError, match=r"p2=1\.1 must be a proportion"):
        power.two_proportion_sample_size(0.3, 1.1)
    with pytest.raises(ValueError, match=r"p1=0 must be a proportion strictly between"):
        power.two_proportion_power(100, 0.0, 0.2)


@pytest.mark.parametrize(("w", "k", "n"), [(0.3, 2, 50), (0.2, 4, 200), (0.5, 6, 30)])
def test_chisquare_power_equals_statsmodels(w: float, k: int, n: int) -> None:
    ref = GofChisquarePower().power(effect_size=w, nobs=n, alpha=0.05, n_bins=k)
    assert power.chisquare_power(n, w, k) == pytest.approx(ref)


def test_chisquare_sample_size_and_effect_w() -> None:
    n = power.chisquare_sample_size(0.3, 3)
    assert power.chisquare_power(n, 0.3, 3) >= 0.8 > power.chisquare_power(n - 1, 0.3, 3)
    assert power.effect_w([0.5, 0.5]) == 0.0
    assert power.effect_w([0.7, 0.3]) == pytest.approx(np.sqrt(0.04 / 0.5 * 2))


@pytest.mark.parametrize(("d", "n"), [(0.5, 64), (0.2, 100), (0.8, 10)])
def test_ttest_power_equals_statsmodels(d: float, n: int) -> None:
    ref = TTestIndPower().power(effect_size=d, nobs1=n, alpha=0.05, ratio=1.0)
    assert power.ttest_power(n, d) == pytest.approx(ref, abs=1e-8)


def test_ttest_sample_size_equals_statsmodels_rounded_up() -> None:
    ref = TTestIndPower().solve_power(effect_size=0.5, alpha=0.05, power=0.8, ratio=1.0)
    assert power.ttest_sample_size(0.5) == int(np.ceil(ref)) == 64


def test_cochrans_q_monte_carlo_equals_a_loop_over_statsmodels() -> None:
    p, n, sims, seed = [0.3, 0.5, 0.6], 40, 1500, 4
    rejected = 0
    for i, stream in enumerate(np.random.SeedSequence(seed).spawn(2)):
        size = min(power.MC_CHUNK, sims - i * power.MC_CHUNK)
        x = (np.random.default_rng(stream).random((n, size, 3)) < p).astype(int)
        rejected += sum(cochrans_q(x[:, s, :]).pvalue < 0.05 for s in range(size))
    got = power.cochrans_q_power_mc(n, p, simulations=sims, seed=seed)
    assert got.power == pytest.approx(rejected / sims)
    assert got.se == pytest.approx(np.sqrt(got.power * (1 - got.power) / sims))


def test_cochrans_q_monte_carlo_size_under_the_null() -> None:
    size = power.cochrans_q_power_mc(50, [0.4, 0.4, 0.4], simulations=4000, seed=1)
    assert abs(size.power - 0.05) < 3 * size.se + 0.005


def test_cochrans_q_noncentrality_for_two_systems_is_mcnemars() -> None:
    # independent selections with p = 0.4, 0.5: p10 = 0.4 * 0.5, p01 = 0.6 * 0.5
    p10, p01 = 0.2, 0.3
    assert power.cochrans_q_noncentrality(100, [0.4, 0.5]) == pytest.approx(
        100 * (p10 - p01) ** 2 / (p10 + p01)
    )
    # one dof: n = (z_a + z_b)^2 psi / delta^2 = (1.959964 + 0.841621)^2 0.5 / 0.01 = 392.44
    assert power.cochrans_q_sample_size([0.4, 0.5]) == 393


def test_cochrans_q_noncentrality_by_hand() -> None:
    # k = 3, p = 0.5, 0.6, 0.6: sum p = 1.7, sum pq = 0.73, spread = 5.1 - 0.73 - 2.89 = 1.48;
    # sum (p - mean)^2 = 0.02 / 3; lambda = n 6 (0.02 / 3) / 1.48
    assert power.cochrans_q_noncentrality(357, [0.5, 0.6, 0.6]) == pytest.approx(
        357 * 6 * 0.02 / 3 / 1.48
    )


@pytest.mark.parametrize("p", [[0.5, 0.6, 0.6], [0.3, 0.4, 0.5], [0.2, 0.25, 0.3, 0.35]])
def test_cochrans_q_analytic_power(p: list[float]) -> None:
    n = power.cochrans_q_sample_size(p)
    assert power.cochrans_q_power(n, p) >= 0.8 > power.cochrans_q_power(n - 1, p)
    # the noncentral chi-square part equals statsmodels' chi-square power with w^2 = lambda / n
    w = np.sqrt(power.cochrans_q_noncentrality(n, p) / n)
    ref = GofChisquarePower().power(effect_size=w, nobs=n, alpha=0.05, n_bins=len(p))
    assert power.cochrans_q_power(n, p) == pytest.approx(ref)
    # and agrees with simulation: the simulated power at that n is 0.8 within a few points
    simulated = power.cochrans_q_power_mc(n, p, simulations=20_000, seed=3)
    assert abs(simulated.power - 0.8) < 4 * simulated.se + 0.01


def test_cochrans_q_monte_carlo_sample_size_is_seeded() -> None:
    p = [0.3, 0.6]
    n = power.cochrans_q_sample_size(p, method="monte-carlo", simulations=2000)
    assert n == power.cochrans_q_sample_size(p, method="monte-carlo", simulations=2000)
    at = power.cochrans_q_power_mc(n, p, simulations=2000)
    below = power.cochrans_q_power_mc(n - 1, p, simulations=2000)
    assert below.power < 0.8 <= at.power


@pytest.mark.parametrize("method", list(power.BINOMIAL_METHODS))
def test_binomial_without_an_effect_is_an_error(method: str) -> None:
    with pytest.raises(ValueError, match="no effect"):
        power.binomial_sample_size(0.5, 0.5, method=method)


def test_binomial_needing_too_many_units_fails_fast() -> None:
    with pytest.raises(ValueError, match="more than"):
        power.binomial_sample_size(0.5, 0.5 + 1e-4)


def test_mcnemar_without_an_effect_is_an_error() -> None:
    with pytest.raises(ValueError, match="no effect"):
        power.mcnemar_sample_size(0.2, 0.2)
    with pytest.raises(ValueError, match="exceed 1"):
        power.mcnemar_sample_size(0.7, 0.6)
    # no effect: the power is the chance of a (two-sided) false rejection in the effect's direction
    assert power.mcnemar_power(100, 0.2, 0.2) == pytest.approx(sps.norm.cdf(-1.959964), abs=1e-6)


def test_other_sample_sizes_without_an_effect_are_errors() -> None:
    with pytest.raises(ValueError, match="no effect"):
        power.chisquare_sample_size(0.0, 3)
    with pytest.raises(ValueError, match="no effect"):
        power.ttest_sample_size(0.0)
    with pytest.raises(ValueError, match="no effect"):
        power.cochrans_q_sample_size([0.3, 0.3, 0.3])


def test_cochrans_q_without_variation_is_an_error() -> None:
    assert power.cochrans_q_power(80, [0.4, 0.4, 0.4]) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="always or never selected"):
        power.cochrans_q_power(80, [1.0, 1.0])
    with pytest.raises(ValueError, match=r"p\[1\]=1\.5 must be a proportion"):
        power.cochrans_q_power(80, [0.2, 1.5])


def _scipy_stats_exact_power(n: int, p0: float, p1: float, alpha: float, alternative: str) -> float:
    """The exact power as computed with scipy.stats' binomial distribution."""
    k = np.arange(n + 1)
    pmf0 = sps.binom.pmf(k, n, p0)
    if alternative == "greater":
        pvals = sps.binom.sf(k - 1, n, p0)
    elif alternative == "less":
        pvals = sps.binom.cdf(k, n, p0)
    else:
        ordered = np.sort(pmf0)
        below = np.cumsum(ordered)
        pvals = below[np.searchsorted(ordered, pmf0 * (1 + 1e-7), side="right") - 1]
    return float(sps.binom.pmf(k[pvals <= alpha], n, p1).sum())


@pytest.mark.parametrize("n", [1, 2, 7, 30, 101, 786])
@pytest.mark.parametrize("p", [0.001, 0.3, 0.5, 0.55, 0.8, 0.999])
def test_the_binomial_without_scipy_stats_is_scipy_stats_bit_for_bit(n: int, p: float) -> None:
    k = np.arange(n + 1)
    assert np.array_equal(power._binom_pmf(k, n, p), sps.binom.pmf(k, n, p))
    assert np.array_equal(power._binom_sf(k - 1, n, p), sps.binom.sf(k - 1, n, p))
    assert np.array_equal(power._binom_cdf(k, n, p), sps.binom.cdf(k, n, p))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize(("n", "p0", "p1"), [(30, 0.5, 0.75), (786, 0.5, 0.55), (126, 0.8, 0.9)])
def test_exact_power_is_scipy_stats_bit_for_bit(
    n: int, p0: float, p1: float, alternative: str
) -> None:
    if (alternative == "less") == (p1 > p0):
        p1 = 2 * p0 - p1
    got = power.binomial_power(n, p0, p1, 0.05, "exact", alternative)
    assert got == _scipy_stats_exact_power(n, p0, p1, 0.05, alternative)


def test_the_normal_distribution_without_scipy_stats_is_scipy_stats_bit_for_bit() -> None:
    q = np.concatenate([[0.0, 1.0], np.linspace(1e-9, 1 - 1e-9, 2001)])
    x = np.concatenate([[-np.inf, np.inf], np.linspace(-40, 40, 4001)])
    assert np.array_equal(power.special.ndtri(q), sps.norm.ppf(q))
    assert np.array_equal(power.special.ndtr(x), sps.norm.cdf(x))
    z, zb = sps.norm.ppf(0.975), sps.norm.ppf(0.8)
    assert power.mcnemar_sample_size(0.3, 0.1) == int(
        np.ceil((z * np.sqrt(0.4) + zb * np.sqrt(0.4 - 0.2**2)) ** 2 / 0.2**2)
    )
