"""A/B votes and rates against hand values, scipy, statsmodels and trueskill."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import choix
import numpy as np
import pandas as pd
import pytest
import trueskill
from scipy import optimize
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from comperbench.stats.human.votes.bradley_terry import (
    _bt_counts,
    _bt_fit,
    bradley_terry,
    compared_groups,
)
from comperbench.stats.human.votes.comparisons import (
    Comparisons,
    canonical,
    majority,
    win_tie_loss,
    wmt_scores,
)
from comperbench.stats.human.votes.online_ratings import (
    elo,
    replay_orders,
    replay_sequence,
    trueskill_ratings,
)
from comperbench.stats.human.votes.system_ratings import Ratings, with_intervals
from comperbench.stats.human.votes.vote_tests import chi_square, cochrans_q, mcnemar, sign_test
from comperbench.stats.rates import pairwise_rate_tests, rates, two_proportion_z, wilson_interval
from comperbench.stats.settings import Resampling
from comperbench.stats.signature import Signature


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
    ours = bradley_terry(c, resampling=Resampling(100)).table
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
        bradley_terry(Comparisons.of(["p", "p"], ["q", "q"], [1, 1]), resampling=Resampling(10))


def test_trueskill_matches_the_package_and_known_values() -> None:
    c = Comparisons.of(["p"], ["q"], [1])
    table = trueskill_ratings(c, resampling=Resampling(5)).table
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


def test_ratings_without_units_resample_comparisons_and_sign_the_benchmark() -> None:
    c = _games(seed=5, n=60)
    ratings = bradley_terry(c, Resampling(20, 2), benchmark="usr-topical@abc123")
    assert "|unit:comparison|" in ratings.signature
    assert "|bench:usr-topical@abc123|" in ratings.signature
    for rate in (elo, trueskill_ratings):
        assert "|bench:b@f|" in rate(c, resampling=Resampling(5, 1), benchmark="b@f").signature


def test_judgments_carry_their_context() -> None:
    import pandas as pd

    from comperbench.stats.human.votes.rating_votes import as_comparisons, rating_votes

    ratings = pd.DataFrame(
        {
            "unit": ["u1", "u1", "u2", "u2", "u2"],
            "system": ["A", "B", "A", "B", "C"],
            "judge": ["j"] * 5,
            "value": [3.0, 1.0, 2.0, 2.0, 5.0],
        }
    )
    c = as_comparisons(rating_votes(ratings))
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


def _replayed(c: Comparisons, orders: np.ndarray, rate: Callable) -> np.ndarray:
    """Ratings of the plain (one game at a time) implementation along each row of `orders`."""
    out = []
    for row in orders:
        idx = row[row >= 0]
        ratings = rate(list(c.a[idx]), list(c.b[idx]), list(c.outcome[idx]))
        out.append([ratings.get(s, np.nan) for s in c.systems])
    return np.array(out)


def _plain_elo_base(a: list, b: list, o: list) -> dict:
    played = _plain_elo(a, b, o)
    return {s: played.get(s, 1000.0) for s in {*a, *b}}


@pytest.mark.parametrize("with_units", [False, True])
def test_elo_and_trueskill_are_median_and_quantiles_of_a_loop(with_units: bool) -> None:
    c = _games_in_contexts() if with_units else _games(seed=5, n=60)
    n_perm, k, seed = 9, 30, 3
    orders = replay_orders(replay_sequence(c), n_perm, k, seed)
    assert orders.shape[0] == n_perm + k
    for ratings, plain in (
        (elo(c, resampling=Resampling(k, seed), permutations=n_perm), _plain_elo_base),
        (trueskill_ratings(c, Resampling(k, seed), permutations=n_perm), _package_trueskill),
    ):
        replays = _replayed(replay_sequence(c), orders, plain)
        table = ratings.table.loc[c.systems]
        point = np.median(replays[:n_perm], axis=0)
        low, high = np.quantile(replays[n_perm:], [0.025, 0.975], axis=0)
        assert table["rating"].to_numpy() == pytest.approx(point, rel=1e-6)
        assert table["low"].to_numpy() == pytest.approx(low, rel=1e-6)
        assert table["high"].to_numpy() == pytest.approx(high, rel=1e-6)
        assert f"|unit:{'context' if with_units else 'comparison'}|" in ratings.signature
        assert f"|point:median-of-{n_perm}-permutations|" in ratings.signature


def test_replay_orders_permute_all_and_resample_whole_contexts() -> None:
    c = canonical(_games_in_contexts())
    orders = replay_orders(c, 4, 10, seed=1)
    for row in orders[:4]:  # a permutation of every comparison, then padding
        assert sorted(row[: c.a.size]) == list(range(c.a.size))
        assert (row[c.a.size :] == -1).all()
    labels = c.units.astype(str)
    for row in orders[4:]:  # whole contexts: each drawn context with all of its comparisons
        idx = row[row >= 0]
        drawn = Counter(labels[idx])
        sizes = Counter(labels)
        assert all(count % sizes[u] == 0 for u, count in drawn.items())
        assert (row[idx.size :] == -1).all()


def test_elo_of_repeated_and_single_games_by_hand() -> None:
    # one game: +16 / -16 whatever the order; p beats q twice: 1016, then 32 (1 - e(32))
    single = elo(Comparisons.of(["p"], ["q"], [1]), resampling=Resampling(10)).table
    assert (single.at["p", "rating"], single.at["q", "rating"]) == (1016.0, 984.0)
    twice = elo(Comparisons.of(["p", "p"], ["q", "q"], [1, 1]), resampling=Resampling(10)).table
    e = 1 / (1 + 10 ** (-32 / 400))
    assert twice.at["p", "rating"] == pytest.approx(1016 + 32 * (1 - e))


def test_elo_of_two_orders_is_their_median() -> None:
    # a win then a draw, or a draw then a win: two final ratings; the point is their median over
    # the permutations drawn, so one of them or their mean, and the same in any input order
    e = 1 / (1 + 10 ** (-32 / 400))
    win_draw, draw_win = 1016 + 32 * (0.5 - e), 1016.0
    given = elo(Comparisons.of(["p", "p"], ["q", "q"], [1, 0.5]), resampling=Resampling(10)).table
    # the same two games, listed the other way round and written from q's side
    swapped = elo(Comparisons.of(["q", "q"], ["p", "p"], [0.5, 0]), resampling=Resampling(10)).table
    p = given.at["p", "rating"]
    assert p in (pytest.approx(win_draw), pytest.approx(draw_win), (win_draw + draw_win) / 2)
    assert given.equals(swapped)


def _reorderings(c: Comparisons) -> list[Comparisons]:
    """The same comparisons reversed, shuffled, and with every comparison written from its
    other side (systems swapped, outcome flipped)."""
    units = None if c.units is None else list(c.units)
    out = [
        Comparisons.of(
            c.a[::-1], c.b[::-1], c.outcome[::-1], None if units is None else units[::-1]
        )
    ]
    for seed in (1, 2):
        idx = np.random.default_rng(seed).permutation(c.a.size)
        out.append(
            Comparisons.of(
                c.a[idx], c.b[idx], c.outcome[idx], None if units is None else c.units[idx]
            )
        )
    out.append(Comparisons.of(c.b, c.a, 1 - c.outcome, c.units))
    return out


@pytest.mark.parametrize("with_units", [False, True])
def test_ratings_do_not_depend_on_the_order_given(with_units: bool) -> None:
    c = _games_in_contexts() if with_units else _games(seed=7, n=120)
    for rate in (
        lambda x: bradley_terry(x, Resampling(50, 4)),
        lambda x: elo(x, resampling=Resampling(50, 4), permutations=25),
        lambda x: trueskill_ratings(x, Resampling(50, 4), permutations=25),
    ):
        expected = rate(c).table
        for other in _reorderings(c):
            got = rate(other).table
            pd.testing.assert_frame_equal(got, expected, check_exact=True)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("n", [12, 40, 300])
def test_every_rating_lies_in_its_own_interval(seed: int, n: int) -> None:
    """Every sample, even of 12 games, has strongly connected wins: each method rates all
    three systems with a defined interval."""
    c = _games(seed=seed, n=n)
    for rate in (
        lambda x: bradley_terry(x, Resampling(200, seed)),
        lambda x: elo(x, resampling=Resampling(200, seed), permutations=100),
        lambda x: trueskill_ratings(x, Resampling(200, seed), permutations=100),
    ):
        table = rate(c).table
        assert sorted(table.index) == ["x", "y", "z"] and table["low"].notna().all()
        assert table["inside"].all()
        assert ((table["low"] <= table["rating"]) & (table["rating"] <= table["high"])).all()


def test_rank_ranges_run_from_the_2_5th_to_the_97_5th_percentile() -> None:
    """40 resamples: p first in 38, q first in one and z in one. The 2.5% rank is the lowest of
    the 40 ranks (the 5% one would be the second lowest), the 97.5% rank the highest."""
    boot = np.array([[3.0, 2.0, 1.0]] * 38 + [[2.0, 3.0, 1.0], [1.0, 2.0, 3.0]])
    systems = np.array(["p", "q", "z"])
    table = with_intervals(systems, np.array([3.0, 2.0, 1.0]), boot, Signature("bt")).table
    assert table.loc[["p", "q", "z"], ["rank_low", "rank_high"]].to_numpy().tolist() == [
        [1, 3],
        [1, 2],
        [1, 3],
    ]


def test_a_rating_outside_its_interval_is_named() -> None:
    table = pd.DataFrame(
        {"rating": [2.0, 0.0], "low": [0.0, -1.0], "high": [1.0, 1.0], "inside": [False, True]},
        index=pd.Index(["p", "q"], name="system"),
    )
    assert Ratings(table, "sig").outside == ["p"]


def test_bradley_terry_equals_choix() -> None:
    # a tie is half a win each way: doubling every game keeps the MLE, so ties become one win each
    c = _games(seed=8, n=200)
    ia, ib = c.indices()
    data = []
    for i, j, o in zip(ia, ib, c.outcome, strict=True):
        data += [(i, j), (i, j)] if o == 1 else [(j, i), (j, i)] if o == 0 else [(i, j), (j, i)]
    theta = choix.opt_pairwise(c.systems.size, data, alpha=0.0)
    theta = theta - theta.mean()
    ours = bradley_terry(c, resampling=Resampling(10)).table.loc[c.systems, "rating"].to_numpy()
    assert ours == pytest.approx(theta, abs=1e-5)


def test_bradley_terry_is_undefined_where_the_wins_are_not_strongly_connected() -> None:
    # every system wins and loses, all are compared, but no chain of wins leads from {r, s}
    # back to {p, q}: the likelihood grows without bound as the two pairs drift apart
    c = Comparisons.of(
        ["p", "q", "r", "s", "p", "q"], ["q", "p", "s", "r", "r", "s"], [1, 1, 1, 1, 1, 1]
    )
    with pytest.raises(ValueError, match="no chain of wins leads from r to p") as raised:
        bradley_terry(c, resampling=Resampling(20))
    assert "never wins or never loses" not in str(raised.value)
    wins, games = _bt_counts(canonical(c), np.ones((1, 6)))
    groups = compared_groups(games[0])
    assert groups.tolist() == [0, 0, 0, 0]
    assert np.isnan(_bt_fit(wins, games, groups)).all()  # NaN, not the +-4.2 an iteration stops at
    # one win of s over p closes the cycle: the MLE exists and equals choix's
    closed = Comparisons.of([*c.a, "s"], [*c.b, "p"], [*c.outcome, 1])
    ours = bradley_terry(closed, resampling=Resampling(20)).table.loc[closed.systems, "rating"]
    ia, ib = closed.indices()
    data = [(i, j) if o == 1 else (j, i) for i, j, o in zip(ia, ib, closed.outcome, strict=True)]
    theta = choix.opt_pairwise(4, data, alpha=0.0)
    assert ours.to_numpy() == pytest.approx(theta - theta.mean(), abs=1e-5)


def test_bradley_terry_ranks_groups_never_compared_within_themselves() -> None:
    # a and b met only each other, c and d only each other: two groups, each with its MLE;
    # every game twice, so that 14 comparisons are resampled (the MLE does not change)
    a, b = ["a", "a", "a", "c", "c", "c", "c"], ["b"] * 3 + ["d"] * 4
    c = Comparisons.of(a * 2, b * 2, [1, 1, 0, 1, 0, 0, 0] * 2)
    ratings = bradley_terry(c, resampling=Resampling(200))
    table = ratings.table
    assert table["group"].to_dict() == {"a": 1, "b": 1, "d": 2, "c": 2}
    # within a group of two, the log-odds of the wins: a beat b 2 of 3, d beat c 3 of 4
    assert table.at["a", "rating"] == pytest.approx(np.log(2) / 2, abs=1e-6)
    assert table.at["d", "rating"] == pytest.approx(np.log(3) / 2, abs=1e-6)
    assert table["rank"].to_dict() == {"a": 1, "b": 2, "d": 1, "c": 2}
    assert set(table["rank_high"]) <= {1, 2}
    assert ratings.note is not None and "group 1: a, b; group 2: c, d" in ratings.note
    connected = bradley_terry(_games(), resampling=Resampling(20))
    assert connected.note is None and (connected.table["group"] == 1).all()


NEVER_COMPARED = Comparisons.of(["a", "a", "c"], ["b", "b", "d"], [1, 1, 1])
"""a beat b twice, c beat d once; neither a nor b ever met c or d."""


def _ranked_apart(ratings: Ratings) -> pd.DataFrame:
    """Two groups ranked apart; three comparisons are too few for rank ranges."""
    table = ratings.table
    assert table["group"].to_dict() == {"a": 1, "b": 1, "c": 2, "d": 2}
    assert table["rank"].to_dict() == {"a": 1, "b": 2, "c": 1, "d": 2}
    assert table[["rank_low", "rank_high"]].isna().all().all() and not ratings.informative
    assert ratings.grouped and ratings.note is not None
    assert "group 1: a, b; group 2: c, d" in ratings.note
    assert "only 3 comparisons resampled" in ratings.note
    return table


@pytest.mark.parametrize("rate", [elo, trueskill_ratings])
def test_groups_are_ranked_apart_in_the_rank_ranges(rate: Callable[..., Ratings]) -> None:
    four_times = Comparisons.of(
        *(list(v) * 4 for v in (NEVER_COMPARED.a, NEVER_COMPARED.b)), [1] * 12
    )
    ratings = rate(four_times, resampling=Resampling(50), permutations=20)
    assert ratings.informative and ratings.grouped
    assert set(ratings.table["rank_low"]) | set(ratings.table["rank_high"]) <= {1, 2}


def test_elo_ranks_groups_never_compared_within_themselves() -> None:
    table = _ranked_apart(elo(NEVER_COMPARED, resampling=Resampling(50), permutations=20))
    # by hand (k 32, base 1000): c 1016 after one win; a 1016, then one more win over b at 984
    second = 32 * (1 - 1 / (1 + 10 ** ((984 - 1016) / 400)))
    expected = {"a": 1016 + second, "b": 984 - second, "c": 1016, "d": 984}
    assert table["rating"].to_dict() == pytest.approx(expected, abs=1e-9)
    # a rates above c and b below d, yet neither pair is ranked: they never met
    assert (table.at["a", "rank"], table.at["c", "rank"]) == (1, 1)


def test_trueskill_ranks_groups_never_compared_within_themselves() -> None:
    table = _ranked_apart(
        trueskill_ratings(NEVER_COMPARED, resampling=Resampling(50), permutations=20)
    )
    expected = _package_trueskill(*(list(v) for v in (NEVER_COMPARED.a, NEVER_COMPARED.b)), [1] * 3)
    assert table["rating"].to_dict() == pytest.approx(expected)  # the package's own update
    assert table.at["a", "rating"] > table.at["c", "rating"] > table.at["b", "rating"]
    connected = trueskill_ratings(_games(n=60), resampling=Resampling(20), permutations=5)
    assert connected.note is None and (connected.table["group"] == 1).all()
