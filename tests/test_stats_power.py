"""Sample size and power against hand values, scipy loops and statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.power import GofChisquarePower, TTestIndPower

from comperbench.stats import power


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


def test_normal_binomial_sample_size_hand_value() -> None:
    # (1.959964 * 0.5 + 0.841621 * sqrt(0.24))^2 / 0.1^2 = 193.85
    assert power.binomial_sample_size(0.5, 0.6, exact=False) == 194
    assert power.binomial_power(194, 0.5, 0.6, exact=False) == pytest.approx(0.8, abs=0.005)


def test_mcnemar_connor_hand_value() -> None:
    # (1.959964 sqrt(.3) + 0.841621 sqrt(.29))^2 / .1^2 = 233.09
    assert power.mcnemar_sample_size(0.2, 0.1) == 234
    assert power.mcnemar_power(234, 0.2, 0.1) == pytest.approx(0.8, abs=0.003)


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


def test_cochrans_q_power_equals_a_loop_over_statsmodels() -> None:
    p, n, sims = [0.3, 0.5, 0.6], 40, 200
    rng = np.random.default_rng(4)
    x = (rng.random((sims, n, 3)) < p).astype(int)
    expected = np.mean([cochrans_q(d).pvalue < 0.05 for d in x])
    assert power.cochrans_q_power(n, p, n_simulations=sims, seed=4) == pytest.approx(expected)


def test_cochrans_q_power_is_the_size_under_the_null() -> None:
    size = power.cochrans_q_power(50, [0.4, 0.4, 0.4], n_simulations=4000, seed=1)
    assert abs(size - 0.05) < 0.015
    n = power.cochrans_q_sample_size([0.3, 0.6], n_simulations=1000)
    assert power.cochrans_q_power(n, [0.3, 0.6], n_simulations=1000) >= 0.8


@pytest.mark.parametrize("exact", [True, False])
def test_binomial_without_an_effect_is_an_error(exact: bool) -> None:
    with pytest.raises(ValueError, match="no effect"):
        power.binomial_sample_size(0.5, 0.5, exact=exact)


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


@pytest.mark.parametrize(
    "argv",
    [
        ["power", "binomial", "--p0", "0.5", "--p1", "0.5"],
        ["power", "mcnemar", "--p10", ".2", "--p01", ".2"],
    ],
)
def test_power_cli_without_an_effect_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    assert main(argv) == 2
    assert "no effect to detect" in capsys.readouterr().err
