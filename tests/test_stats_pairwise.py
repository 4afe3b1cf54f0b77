"""Pairwise evaluation and rates against hand values, scipy, statsmodels and trueskill."""

from __future__ import annotations

import numpy as np
import pytest
import trueskill
from scipy import optimize
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from comperbench.stats.pairwise import (
    Comparisons,
    bradley_terry,
    chi_square,
    cochrans_q,
    elo,
    majority,
    mcnemar,
    sign_test,
    trueskill_ratings,
    win_tie_loss,
    wmt_scores,
)
from comperbench.stats.rates import pairwise_rate_tests, rates, two_proportion_z, wilson_interval
from comperbench.stats.resampling import bootstrap_indices


def _games(seed: int = 0, n: int = 300) -> Comparisons:
    rng = np.random.default_rng(seed)
    strength = {"x": 1.0, "y": 0.0, "z": -0.7}
    names = list(strength)
    a, b, o = [], [], []
    for _ in range(n):
        i, j = rng.choice(3, 2, replace=False)
        p = 1 / (1 + np.exp(strength[names[j]] - strength[names[i]]))
        u = rng.random()
        a.append(names[i])
        b.append(names[j])
        o.append(0.5 if abs(u - p) < 0.05 else float(u < p))
    return Comparisons.of(a, b, o)


def test_win_tie_loss_hand_counts() -> None:
    c = Comparisons.of(["p", "p", "q", "r"], ["q", "r", "r", "p"], [1, 0.5, 0, 0])
    t = win_tie_loss(c)
    assert t.loc["p"].tolist()[:4] == [2, 1, 0, 3]
    assert t.loc["r"].tolist()[:4] == [1, 1, 1, 3]
    assert t.at["p", "win_rate"] == 1.0 and t.at["r", "score"] == pytest.approx(0.5)


def test_majority_vote_per_item() -> None:
    c = majority(
        ["i", "i", "i", "j", "j"],
        ["p", "p", "q", "p", "q"],
        ["q", "q", "p", "q", "p"],
        [1, 1, 1, 1, 1],
    )
    # item i: p wins twice, q wins once -> p; item j: one each -> tie
    assert sorted(zip(c.a, c.b, c.outcome, strict=True)) == [("p", "q", 0.5), ("p", "q", 1.0)]


def test_bradley_terry_equals_direct_likelihood_maximisation() -> None:
    c = _games()
    ours = bradley_terry(c, n_resamples=100).table
    ia, ib = c.indices()

    def nll(theta: np.ndarray) -> float:
        t = np.r_[0.0, theta]
        d = t[ia] - t[ib]
        return -np.sum(c.outcome * -np.logaddexp(0, -d) + (1 - c.outcome) * -np.logaddexp(0, d))

    fit = optimize.minimize(nll, np.zeros(2), method="BFGS")
    theta = np.r_[0.0, fit.x]
    theta -= theta.mean()
    for s, v in zip(c.systems, theta, strict=True):
        assert ours.at[s, "rating"] == pytest.approx(v, abs=1e-5)
    assert list(ours.index) == ["x", "y", "z"]
    assert (ours["low"] <= ours["rating"]).all() and (ours["rating"] <= ours["high"]).all()
    assert ours.at["x", "rank_low"] == 1


def test_bradley_terry_undefined_when_a_system_never_loses() -> None:
    with pytest.raises(ValueError, match="never wins or never loses"):
        bradley_terry(Comparisons.of(["p", "p"], ["q", "q"], [1, 1]), n_resamples=10)


def test_elo_hand_computed() -> None:
    r = elo(Comparisons.of(["p", "p"], ["q", "q"], [1, 0.5]), n_resamples=10).table
    # game 1: +16 / -16; game 2: expected(p) = 1/(1+10^(-32/400)), draw moves p by 32(0.5 - e)
    e = 1 / (1 + 10 ** (-32 / 400))
    assert r.at["p", "rating"] == pytest.approx(1016 + 32 * (0.5 - e))
    assert r.at["q", "rating"] == pytest.approx(984 - 32 * (0.5 - e))


def test_trueskill_matches_the_package_and_known_values() -> None:
    c = Comparisons.of(["p"], ["q"], [1])
    table = trueskill_ratings(c, n_resamples=5).table
    winner, loser = trueskill.rate_1vs1(trueskill.Rating(), trueskill.Rating())
    assert winner.mu == pytest.approx(29.396, abs=1e-3)  # the package's documented 1-vs-1 result
    assert table.at["p", "rating"] == pytest.approx(winner.mu - 3 * winner.sigma)
    assert table.at["q", "rating"] == pytest.approx(loser.mu - 3 * loser.sigma)


def _package_trueskill(a: list[str], b: list[str], outcome: list[float]) -> dict[str, float]:
    env = trueskill.TrueSkill()
    r = {s: env.create_rating() for s in sorted({*a, *b})}
    for x, y, o in zip(a, b, outcome, strict=True):
        if o == 0:
            r[y], r[x] = trueskill.rate_1vs1(r[y], r[x], env=env)
        else:
            r[x], r[y] = trueskill.rate_1vs1(r[x], r[y], drawn=o == 0.5, env=env)
    return {s: v.mu - 3 * v.sigma for s, v in r.items()}


def test_vectorised_trueskill_equals_the_package_game_by_game() -> None:
    c = _games(seed=4, n=200)
    assert np.sum(c.outcome == 0.5) > 5  # draws are exercised
    table = trueskill_ratings(c, n_resamples=3).table
    expected = _package_trueskill(list(c.a), list(c.b), list(c.outcome))
    for system, rating in expected.items():
        assert table.at[system, "rating"] == pytest.approx(rating, rel=1e-6)


def test_trueskill_and_elo_intervals_equal_a_loop_over_resamples() -> None:
    c = _games(seed=5, n=60)
    ts, el = trueskill_ratings(c, n_resamples=20, seed=2), elo(c, n_resamples=20, seed=2)
    ts_boot, elo_boot = [], []
    for idx in bootstrap_indices(c.a.size, 20, 2):
        a, b, o = list(c.a[idx]), list(c.b[idx]), list(c.outcome[idx])
        ts_boot.append([_package_trueskill(a, b, o)[s] for s in c.systems])
        elo_boot.append(elo(Comparisons.of(a, b, o), n_resamples=1).table.loc[c.systems, "rating"])
    for ratings, boot in ((ts, np.array(ts_boot)), (el, np.array(elo_boot))):
        low = ratings.table.loc[c.systems, "low"].to_numpy()
        assert low == pytest.approx(np.quantile(boot, 0.025, axis=0), rel=1e-6)


def test_wmt_major_and_distinct_by_hand() -> None:
    # item 1: p beats q twice, q beats p once (majority p); item 2: p-q tie and q wins (majority q);
    # item 3: two ties between p and r (majority tie, left out of the > others score)
    items = ["1", "1", "1", "2", "2", "3", "3"]
    a = ["p", "p", "q", "p", "q", "p", "r"]
    b = ["q", "q", "p", "q", "p", "r", "p"]
    o = [1, 1, 1, 0.5, 1, 0.5, 0.5]
    table = wmt_scores(items, a, b, o)
    # distinct: p wins 2 and loses 2 (item 1's third judgment, item 2's second); ties left out
    assert (table.at["p", "distinct"], table.at["p", "distinct_n"]) == (0.5, 4)
    assert (table.at["q", "distinct"], table.at["q", "distinct_n"]) == (0.5, 4)
    # major: item 1 -> p wins, item 2 -> q wins (its judgments average 0.25 for p), item 3 -> tie
    assert (table.at["p", "major"], table.at["p", "major_n"]) == (0.5, 2)
    assert np.isnan(table.at["r", "major"]) and table.at["r", "major_n"] == 0


def test_sign_test_hand_value() -> None:
    assert sign_test(9, 1) == pytest.approx(22 / 1024)


@pytest.mark.parametrize("exact", [True, False])
def test_mcnemar_equals_statsmodels(exact: bool) -> None:
    rng = np.random.default_rng(2)
    a, b = rng.random(80) < 0.6, rng.random(80) < 0.4
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    ref = sm_mcnemar(table, exact=exact, correction=True)
    stat, p = mcnemar(a, b, exact=exact)
    assert (stat, p) == pytest.approx((ref.statistic, ref.pvalue))


def test_chi_square_hand_value() -> None:
    # expected counts are all 10: statistic = (5^2 + 5^2 + 5^2 + 5^2) / 10 = 10
    stat, p, dof = chi_square(np.array([[15, 5], [5, 15]]))
    assert (stat, dof) == (pytest.approx(10.0), 1) and p == pytest.approx(sps.chi2.sf(10, 1))


def test_cochrans_q_equals_statsmodels() -> None:
    rng = np.random.default_rng(5)
    x = (rng.random((60, 4)) < [0.3, 0.5, 0.5, 0.7]).astype(int)
    ref = sm_cochrans_q(x)
    assert cochrans_q(x)[:2] == pytest.approx((ref.statistic, ref.pvalue))


def test_bad_comparisons_are_located() -> None:
    with pytest.raises(ValueError, match=r"comparison 1: outcome 2\.0 is not"):
        Comparisons.of(["p", "p"], ["q", "q"], [1, 2])


def test_wilson_equals_statsmodels() -> None:
    for s, n in [(0, 10), (3, 10), (10, 10), (57, 200)]:
        assert wilson_interval(s, n) == pytest.approx(proportion_confint(s, n, method="wilson"))


def test_two_proportion_z_equals_statsmodels() -> None:
    z, p = two_proportion_z(30, 100, 45, 110)
    ref = proportions_ztest([30, 45], [100, 110])
    assert (z, p) == pytest.approx(ref)


def test_rates_table_and_pairwise_tests() -> None:
    table = rates(["a", "a", "a", "b", "b"], [1, 0, np.nan, 1, 1])
    assert table.loc["a", ["n", "count"]].tolist() == [2, 1] and table.at["b", "rate"] == 1.0
    assert len(pairwise_rate_tests(table)) == 1
    with pytest.raises(ValueError, match=r"system 'a' is 2\.0"):
        rates(["a"], [2])


def _plain_elo(a: list, b: list, o: list, k: float = 32.0) -> dict:
    r: dict = {}
    for x, y, out in zip(a, b, o, strict=True):
        rx, ry = r.get(x, 1000.0), r.get(y, 1000.0)
        expected = 1 / (1 + 10 ** ((ry - rx) / 400))
        r[x], r[y] = rx + k * (out - expected), ry - k * (out - expected)
    return r


def _games_in_contexts(seed: int = 6) -> Comparisons:
    """Contexts of 1 to 6 comparisons each, listed in an interleaved order."""
    rng = np.random.default_rng(seed)
    base = _games(seed=seed, n=90)
    sizes = rng.integers(1, 7, size=40)
    units = np.repeat([f"ctx{i:02d}" for i in range(40)], sizes)[:90]
    units = np.r_[units, ["ctx39"] * (90 - units.size)]
    units = units[rng.permutation(90)]
    return Comparisons.of(list(base.a), list(base.b), list(base.outcome), units=units)


def test_ratings_bootstrap_resamples_contexts_like_a_loop() -> None:
    c = _games_in_contexts()
    k, seed = 30, 3
    labels = np.unique(c.units.astype(str))
    members = [np.flatnonzero(c.units == u) for u in labels]
    bt_boot, elo_boot, ts_boot = [], [], []
    for drawn in bootstrap_indices(labels.size, k, seed):
        idx = np.concatenate([members[g] for g in drawn])
        a, b, o = list(c.a[idx]), list(c.b[idx]), list(c.outcome[idx])
        bt = bradley_terry(Comparisons.of(a, b, o), n_resamples=1).table
        bt_boot.append(bt.loc[c.systems, "rating"].to_numpy())
        plain = _plain_elo(a, b, o)
        elo_boot.append([plain[s] for s in c.systems])
        package = _package_trueskill(a, b, o)
        ts_boot.append([package[s] for s in c.systems])
    results = (
        (bradley_terry(c, k, seed), bt_boot),
        (elo(c, n_resamples=k, seed=seed), elo_boot),
        (trueskill_ratings(c, k, seed), ts_boot),
    )
    for ratings, boot in results:
        table = ratings.table.loc[c.systems]
        q = np.quantile(np.array(boot), [0.025, 0.5, 0.975], axis=0)
        assert table["low"].to_numpy() == pytest.approx(q[0], rel=1e-6, abs=1e-9)
        assert table["median"].to_numpy() == pytest.approx(q[1], rel=1e-6, abs=1e-9)
        assert table["high"].to_numpy() == pytest.approx(q[2], rel=1e-6, abs=1e-9)
        assert "|unit:context|" in ratings.signature
    # the point ratings are those of the comparisons in their given order
    plain = _plain_elo(list(c.a), list(c.b), list(c.outcome))
    point = elo(c, n_resamples=2).table.loc[c.systems, "rating"].to_numpy()
    assert point == pytest.approx([plain[s] for s in c.systems])


def test_ratings_without_units_resample_comparisons_and_sign_the_benchmark() -> None:
    c = _games(seed=5, n=60)
    ratings = bradley_terry(c, 20, 2, benchmark="usr-topical@abc123")
    assert "|unit:comparison|" in ratings.signature
    assert "|bench:usr-topical@abc123|" in ratings.signature
    for rate in (elo, trueskill_ratings):
        assert "|bench:b@f|" in rate(c, n_resamples=5, seed=1, benchmark="b@f").signature


def test_judgments_carry_their_context() -> None:
    import pandas as pd

    from comperbench.stats.judgments import as_comparisons, pairwise_judgments

    ratings = pd.DataFrame(
        {
            "unit": ["u1", "u1", "u2", "u2", "u2"],
            "system": ["A", "B", "A", "B", "C"],
            "judge": ["j"] * 5,
            "value": [3.0, 1.0, 2.0, 2.0, 5.0],
        }
    )
    c = as_comparisons(pairwise_judgments(ratings))
    assert c.units is not None and list(c.units) == ["u1", "u2", "u2", "u2"]
    assert c.unit_name == "context"


def test_chi_square_drops_empty_outcomes() -> None:
    # no ties: the tie column is all zero; the result is the test on wins x losses
    table = np.array([[10, 0, 5], [4, 0, 11], [7, 0, 7]])
    expected = sps.chi2_contingency(table[:, [0, 2]], correction=False)
    statistic, p, dof = chi_square(table)
    assert (statistic, p, dof) == pytest.approx((expected.statistic, expected.pvalue, 2))
    # 2 x 2 by hand: expected counts 7.5 each, chi2 = 4 * 2.5^2 / 7.5
    assert chi_square(np.array([[10, 0, 5], [5, 0, 10], [0, 0, 0]]))[0] == pytest.approx(10 / 3)
    with pytest.raises(ValueError, match="at least two systems and two outcomes"):
        chi_square(np.array([[3, 0, 0], [4, 0, 0]]))
