"""`comperbench human plan SETTING` against hand values, statsmodels and brute force."""

from __future__ import annotations

import json

import numpy as np
import pytest
from statsmodels.stats.power import GofChisquarePower, TTestIndPower
from statsmodels.stats.proportion import samplesize_proportions_2indep_onetail

from comperbench.cli import main
from comperbench.stats.human.planning import power as pw
from comperbench.stats.human.planning.plan import SETTINGS

# z_a = z_0.975 = 1.959964, z_b = z_0.8 = 0.841621 throughout


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["human", "plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("setting", "difference", "method", "n"),
    [
        # p1 = (1 + 0.2) / 2 = 0.6; fleiss: (z_a 0.5 + z_b sqrt(0.24))^2 / 0.01 = 193.85;
        # null-variance: (z_a + z_b)^2 0.25 / 0.01 = 196.22; alt-variance: ... 0.24 / 0.01 = 188.37
        ("ab", "0.2", "exact", 199),
        ("ab", "0.2", "fleiss", 194),
        ("ab", "0.2", "null-variance", 197),
        ("ab", "0.2", "alt-variance", 189),
        # p1 = 0.55: (z_a 0.5 + z_b sqrt(0.2475))^2 / 0.0025 = 782.53
        ("soba-pair", "0.1", "fleiss", 783),
        ("soba-pair", "0.1", "exact", 786),
    ],
)
def test_sign_test_settings(
    setting: str, difference: str, method: str, n: int, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = _plan(capsys, setting, "--difference", difference, "--method", method)
    assert plan["n"] == n and plan["power"] >= 0.8
    p1 = (1 + float(difference)) / 2
    assert plan["power"] == pytest.approx(pw.binomial_power(n, 0.5, p1, method=method))
    assert pw.binomial_power(n - 1, 0.5, p1, method=method) < 0.8


def test_exact_sign_test_is_the_first_n_reaching_the_power() -> None:
    n = SETTINGS["soba-pair"].plan(difference=0.1).n
    assert all(pw.binomial_power(m, 0.5, 0.55) < 0.8 for m in range(1, n))


def test_sata_pair_from_a_difference_and_from_discordant_proportions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # pA = 0.55, pB = 0.45: p10 = 0.55 * 0.55 = 0.3025, p01 = 0.45 * 0.45 = 0.2025;
    # psi = 0.505, delta = 0.1: (z_a sqrt(0.505) + z_b sqrt(0.495))^2 / 0.01 = 394.002
    plan = _plan(capsys, "sata-pair", "--difference", "0.1")
    assert plan["n"] == 395 and "p10 = 0.3025, p01 = 0.2025" in plan["parameters"]
    assert plan["power"] == pytest.approx(pw.mcnemar_power(395, 0.3025, 0.2025))
    # (z_a sqrt(.3) + z_b sqrt(.29))^2 / .1^2 = 233.09
    plan = _plan(capsys, "sata-pair", "--p10", "0.2", "--p01", "0.1")
    assert plan["n"] == 234 and plan["power"] == pytest.approx(0.8, abs=0.003)


def test_soba_k_equals_statsmodels(capsys: pytest.CaptureFixture[str]) -> None:
    # shares 0.35 and 3 x 0.2167: w^2 = (0.1^2 + 3 (0.1/3)^2) / 0.25 = 0.0533, w = 0.2309;
    # Cohen's table (df 3, power 0.8): lambda = 10.90, n = 10.90 / 0.0533 = 204.4
    plan = _plan(capsys, "soba-k", "--difference", "0.1")
    w = 0.4 / np.sqrt(3)
    ref = GofChisquarePower().solve_power(effect_size=w, alpha=0.05, power=0.8, n_bins=4)
    assert plan["n"] == int(np.ceil(ref)) == 205
    assert "Cohen's w = 0.2309" in plan["parameters"]
    ref_power = GofChisquarePower().power(effect_size=w, nobs=205, alpha=0.05, n_bins=4)
    assert plan["power"] == pytest.approx(ref_power)
    # k = 3, d = -0.1: shares 0.2333 and 2 x 0.3833, w = 0.1 * 3 / sqrt(2)
    plan = _plan(capsys, "soba-k", "--difference", "-0.1", "--k", "3")
    ref = GofChisquarePower().solve_power(
        effect_size=0.3 / np.sqrt(2), alpha=0.05, power=0.8, n_bins=3
    )
    assert plan["n"] == int(np.ceil(ref))


def test_sata_k_analytic_by_hand_and_statsmodels(capsys: pytest.CaptureFixture[str]) -> None:
    # p = 0.6, 0.5, 0.5, 0.5: sum p = 2.1, sum pq = 0.99, spread = 8.4 - 0.99 - 4.41 = 3;
    # sum (p - 0.525)^2 = 0.0075; lambda = n 12 0.0075 / 3 = 0.03 n; 10.90 / 0.03 = 363.4
    plan = _plan(capsys, "sata-k", "--difference", "0.1", "--rate", "0.5")
    ref = GofChisquarePower().solve_power(
        effect_size=np.sqrt(0.03), alpha=0.05, power=0.8, n_bins=4
    )
    assert plan["n"] == int(np.ceil(ref)) == 364
    assert plan["power"] == pytest.approx(pw.cochrans_q_power(364, [0.6, 0.5, 0.5, 0.5]))
    assert plan["power_se"] is None
    plan = _plan(capsys, "sata-k", "--p", "0.5,0.6,0.6")
    assert plan["n"] == 357 and "(noncentral chi-square approximation)" in plan["parameters"]


def test_sata_k_monte_carlo(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sata-k", "--p", "0.3,0.6", "--method", "monte-carlo", "--simulations", "2000"]
    plan = _plan(capsys, *argv)
    n = pw.cochrans_q_sample_size([0.3, 0.6], method="monte-carlo", simulations=2000)
    mc = pw.cochrans_q_power_mc(n, [0.3, 0.6], simulations=2000)
    assert (plan["n"], plan["power"], plan["power_se"]) == (n, mc.power, mc.se)
    assert main(["human", "plan", *argv]) == 0
    out = capsys.readouterr().out
    assert "(Monte Carlo, 2000 simulations, seed 0)" in out
    assert "(Monte Carlo standard error)" in out and " ± 0.0" in out


def test_sata_rate_against_an_expected_rate(capsys: pytest.CaptureFixture[str]) -> None:
    # H0 p = 0.8 against a true 0.9, one-sided exact test (as in test_stats_power)
    argv = ["sata-rate", "--difference", "0.1", "--expected", "0.8"]
    assert _plan(capsys, *argv, "--alternative", "greater")["n"] == 82
    # fleiss, two-sided: (z_a 0.4 + z_b 0.3)^2 / 0.01 = (0.783986 + 0.252486)^2 / 0.01 = 107.43
    assert _plan(capsys, *argv, "--method", "fleiss")["n"] == 108
    # a negative difference: p1 = 0.7
    plan = _plan(capsys, "sata-rate", "--difference", "-0.1", "--expected", "0.8")
    assert plan["n"] == pw.binomial_sample_size(0.8, 0.7)


def test_labels_by_hand_statsmodels_and_brute_force(capsys: pytest.CaptureFixture[str]) -> None:
    # rates 0.2, 0.3: pbar = 0.25, 2 pbar qbar = 0.375, p1 q1 + p2 q2 = 0.37;
    # (z_a sqrt(0.375) + z_b sqrt(0.37))^2 / 0.01 = (1.200227 + 0.511938)^2 / 0.01 = 293.15
    plan = _plan(capsys, "labels", "--difference", "0.1", "--rate", "0.2")
    assert plan["n"] == 294 and plan["unit"] == "labelled turns per system"
    assert plan["n"] == int(np.ceil(samplesize_proportions_2indep_onetail(0.1, 0.2, 0.8)))
    assert pw.two_proportion_power(294, 0.2, 0.3) >= 0.8 > pw.two_proportion_power(293, 0.2, 0.3)
    # statsmodels' NormalIndPower with proportion_effectsize is Cohen's arcsine h: another formula


def test_ratings_equal_statsmodels(capsys: pytest.CaptureFixture[str]) -> None:
    # Cohen's d = 0.5 / 2 = 0.25; normal approximation 2 (z_a + z_b)^2 / d^2 = 251.16, the
    # noncentral t asks a unit more
    plan = _plan(capsys, "ratings", "--difference", "0.5", "--sd", "2")
    ref = TTestIndPower().solve_power(effect_size=0.25, alpha=0.05, power=0.8, ratio=1.0)
    assert plan["n"] == int(np.ceil(ref)) == 253
    assert plan["unit"] == "items per system"
    assert _plan(capsys, "ratings", "--difference", "0.5", "--sd", "1")["n"] == 64


@pytest.mark.parametrize(
    "argv",
    [
        ["ab", "--difference", "0.2"],
        ["soba-pair", "--difference", "0.15", "--method", "null-variance"],
        ["sata-pair", "--difference", "0.2", "--rate", "0.3"],
        ["soba-k", "--difference", "0.1", "--k", "5"],
        ["sata-k", "--difference", "-0.15", "--rate", "0.4", "--k", "3"],
        ["sata-rate", "--difference", "-0.1", "--expected", "0.8", "--alternative", "less"],
        ["labels", "--difference", "-0.05", "--rate", "0.1"],
        ["ratings", "--difference", "0.3", "--sd", "1"],
    ],
)
def test_n_gives_the_power_and_n_needed_reaches_it(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    needed = _plan(capsys, *argv, "--power", "0.9")
    assert needed["power"] >= 0.9 and needed["target_power"] == 0.9
    at = _plan(capsys, *argv, "--n", str(needed["n"]))
    assert at["target_power"] is None and at["power"] == pytest.approx(needed["power"])
    below = _plan(capsys, *argv, "--n", str(needed["n"] - 1))
    assert below["power"] < 0.9
    assert main(["human", "plan", *argv, "--n", "50"]) == 0
    line = capsys.readouterr().out
    assert f"\nn = 50 {SETTINGS[argv[0]].unit}, power = " in line


def test_the_line_and_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["human", "plan", "soba-pair", "--difference", "0.1"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("soba-pair: sign test (binomial test of p = 0.5), difference 0.1")
    assert line.endswith("alpha=0.05:\nn needed = 786 turns, power = 0.801")
    assert _plan(capsys, "soba-pair", "--difference", "0.1") == {
        "setting": "soba-pair",
        "test": "sign test (binomial test of p = 0.5)",
        "parameters": "difference 0.1, p1 = (1 + d) / 2 = 0.55 against 0.5, exact",
        "unit": "turns",
        "alpha": 0.05,
        "target_power": 0.8,
        "n": 786,
        "power": pytest.approx(pw.binomial_power(786, 0.5, 0.55)),
        "power_se": None,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ab", "--difference", "0"], "difference 0: there is no effect to detect"),
        (["ratings", "--difference", "0", "--sd", "1"], "no effect to detect"),
        (["sata-pair", "--p10", ".2", "--p01", ".2"], "no effect to detect"),
        (["sata-k", "--p", "0.3,0.3"], "no effect to detect"),
        (["sata-k", "--p", "0.3,0.3", "--method", "monte-carlo"], "no effect to detect"),
        (
            ["labels", "--difference", "0.9", "--rate", "0.2"],
            "rate r + d = 1.1 must lie strictly between 0 and 1",
        ),
        (
            ["sata-rate", "--difference", "0.25", "--expected", "0.8"],
            "expected + d = 1.05 must lie strictly between 0 and 1",
        ),
        (["ab", "--difference", "-1"], "(1 + d) / 2 = 0 must lie strictly between 0 and 1"),
        (["sata-pair", "--difference", "0.2", "--rate", "0.95"], "r + d/2 = 1.05 must lie"),
        (["sata-k", "--p", "0.3,0.4", "--k", "3"], "k = 3 but 2 proportions"),
        (["sata-pair"], "give a difference (and a rate), or p10 and p01"),
        (["sata-pair", "--p10", "0.2"], "give both p10 and p01"),
        (["ratings", "--difference", "1", "--sd", "1", "--n", "1"], "n=1: the t-test needs"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["human", "plan", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("comperbench: error: ") and message in err


def test_help_names_each_test_formula_and_reference(capsys: pytest.CaptureFixture[str]) -> None:
    def help_text(setting: str) -> str:
        with pytest.raises(SystemExit):
            main(["human", "plan", setting, "--help"])
        return " ".join(capsys.readouterr().out.split())

    out = help_text("ab")
    for method in pw.BINOMIAL_METHODS:
        assert f"{method}: " in out
    assert "Fleiss, Levin & Paik 2003" in out and "Friedman, Furberg & DeMets 2015" in out
    assert "p1 = (1 + d) / 2" in out
    out = help_text("sata-pair")
    assert "p10 = pA (1 - pB)" in out and "Connor 1987" in out
    assert "Cohen 1988, ch. 7" in help_text("soba-k")
    assert "monte-carlo: " in help_text("sata-k")
    out = help_text("labels")
    assert "sqrt(2 pbar qbar)" in out and "without continuity correction" in out
    assert "Cohen's d = difference / sd" in help_text("ratings")


def test_the_top_level_power_command_is_gone(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["power", "binomial", "--p1", "0.6"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "comperbench: error: unknown command 'power': it is now `comperbench human plan`\n"
    )


# The interactive per-turn paper's Table 1: a win-rate difference of 0.1, alpha 0.05, power 0.8.
# Its pairwise SOBA cell is (1.96 + 0.84)^2 0.5 * 0.5 / 0.1^2 = 196 (p1 = 0.6 against 0.5);
# its single-model cell (1.96 + 0.84)^2 0.8 * 0.2 / 0.1^2 = 125.44, rounded up 126.
@pytest.mark.parametrize(
    ("argv", "n"),
    [
        (["soba-pair", "--difference", "0.1", "--reading", "paper", "--method", "tabled-z"], 196),
        (["ab", "--difference", "0.1", "--reading", "paper", "--method", "tabled-z"], 196),
        (["sata-rate", "--difference", "0.1", "--expected", "0.8", "--method", "tabled-z"], 126),
        (["sata-rate", "--difference", "-0.1", "--expected", "0.8", "--method", "tabled-z"], 126),
        # unrounded z: (z_a + z_b)^2 0.25 / 0.01 = 196.22
        (
            ["soba-pair", "--difference", "0.1", "--reading", "paper", "--method", "null-variance"],
            197,
        ),
        # the pair reading, d = p1 - p2: p1 = 0.55
        (["soba-pair", "--difference", "0.1", "--reading", "pair"], 786),
    ],
)
def test_table_1_of_the_interactive_paper(
    argv: list[str], n: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _plan(capsys, *argv)["n"] == n


def test_the_readings_differ_only_in_p1(capsys: pytest.CaptureFixture[str]) -> None:
    pair = _plan(capsys, "soba-pair", "--difference", "0.2", "--reading", "pair")
    paper = _plan(capsys, "soba-pair", "--difference", "0.1", "--reading", "paper")
    assert pair["n"] == paper["n"] == 199  # both p1 = 0.6
    assert "p1 = 0.5 + d = 0.6" in paper["parameters"]
    assert "p1 = (1 + d) / 2 = 0.6" in pair["parameters"]


def test_the_causes_of_the_other_table_1_cells() -> None:
    """The implied parameters named in the known differences give the published cells."""
    psi, delta = 0.8527, 0.1  # 0.853 in the cause
    p10, p01 = (psi + delta) / 2, (psi - delta) / 2
    assert pw.mcnemar_sample_size(p10, p01) == 667
    assert pw.chisquare_sample_size(0.1593, 4) == 430  # 0.159 in the cause
    # two systems 0.1 apart, selected independently: psi = pA (1 - pB) + (1 - pA) pB is at
    # most 0.505 (pA = 0.55), where McNemar needs 395 turns
    best = max(
        pw.mcnemar_sample_size(a * (1 - a + 0.1), (1 - a) * (a - 0.1))
        for a in np.arange(0.11, 0.99, 0.01)
    )
    assert best == 395


def test_help_gives_both_readings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["human", "plan", "soba-pair", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "d = p1 - p2" in text and "d = p1 - 0.5" in text and "196" in text
