"""Vote counts, the pair tests and the whole analysis of votes; rates against an expected rate."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from comperbench.common.errors import DataFormatError
from comperbench.human_io.vote_counts import comparisons_from_vote_counts, read_vote_counts
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.vote_analysis import analyse
from comperbench.stats.human.votes.vote_tests import pair_tests
from comperbench.stats.rates import pairwise_rate_tests, rate_test, rate_tests, rates
from comperbench.stats.settings import Resampling

VOTES = "system_a,system_b,wins_a,wins_b,ties\nA,B,30,12,8\nA,C,25,20,5\nC,B,22,18,10\n"


def _write(tmp_path: Path, text: str, name: str = "votes.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _individual_votes() -> Comparisons:
    """The votes of `VOTES` one by one, in a shuffled order."""
    a, b, o = [], [], []
    counts = [("A", "B", 30, 12, 8), ("A", "C", 25, 20, 5), ("C", "B", 22, 18, 10)]
    for x, y, wins_x, wins_y, ties in counts:
        for outcome, count in ((1.0, wins_x), (0.0, wins_y), (0.5, ties)):
            a += [x] * count
            b += [y] * count
            o += [outcome] * count
    idx = np.random.default_rng(3).permutation(len(a))
    return Comparisons.of(np.array(a)[idx], np.array(b)[idx], np.array(o)[idx])


def test_read_votes_expands_the_counts(tmp_path: Path) -> None:
    votes = read_vote_counts(_write(tmp_path, VOTES))
    assert votes.to_dict("records")[2] == {
        "system_a": "C",
        "system_b": "B",
        "wins_a": 22,
        "wins_b": 18,
        "ties": 10,
    }
    c = comparisons_from_vote_counts(votes)
    assert c.a.size == 150 and c.units is None
    as_a = (c.a == "C") & (c.b == "B")
    assert [int(np.sum(c.outcome[as_a] == v)) for v in (1.0, 0.0, 0.5)] == [22, 18, 10]


def test_votes_give_the_same_analysis_as_the_individual_votes(tmp_path: Path) -> None:
    from_counts = analyse(
        comparisons_from_vote_counts(read_vote_counts(_write(tmp_path, VOTES))),
        resampling=Resampling(60),
        expected=0.5,
    )
    one_by_one = analyse(_individual_votes(), resampling=Resampling(60), expected=0.5)
    pd.testing.assert_frame_equal(from_counts.win_tie_loss, one_by_one.win_tie_loss)
    pd.testing.assert_frame_equal(from_counts.pairs, one_by_one.pairs)
    pd.testing.assert_frame_equal(from_counts.expected, one_by_one.expected)
    assert from_counts.ratings.keys() == {"Bradley-Terry", "Elo", "TrueSkill"}
    for name, rated in from_counts.ratings.items():
        pd.testing.assert_frame_equal(rated.table, one_by_one.ratings[name].table)
    assert from_counts.chi_square == one_by_one.chi_square
    assert from_counts.wmt is None and from_counts.cochran is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"votes\.csv: empty file"),
        ("system_a,system_b,wins_a,wins_b,ties\n", r"votes\.csv: no vote rows"),
        ("system_a,system_b,wins_a,ties\nA,B,1,2\n", r"line 1: missing column\(s\) wins_b"),
        (VOTES + "B,D,-1,2,0\n", r"line 5, field 'wins_a': '-1' is negative"),
        (VOTES + "B,D,1,2.5,0\n", r"line 5, field 'wins_b': '2.5' is fractional"),
        (VOTES + "B,D,1,2,many\n", r"line 5, field 'ties': 'many' is not a number"),
        (VOTES + "B,D,1,2,\n", r"line 5, field 'ties': missing count"),
        (VOTES + "D,D,1,2,0\n", r"line 5, field 'system_b': system 'D' is paired with itself"),
        (VOTES + "B,A,1,2,0\n", r"line 5, field 'system_b': the pair 'B' / 'A' is given again"),
        (VOTES + ",D,1,2,0\n", r"line 5, field 'system_a': missing system name"),
        ("system_a,system_b,wins_a,wins_b,ties\nA,B,0,0,0\n", "no votes: every count is 0"),
    ],
)
def test_bad_vote_files_are_located(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(DataFormatError, match=message):
        read_vote_counts(_write(tmp_path, text))


def test_whole_number_counts_may_be_written_as_decimals(tmp_path: Path) -> None:
    votes = read_vote_counts(
        _write(tmp_path, "system_a,system_b,wins_a,wins_b,ties\nA,B,3.0,1,0\n")
    )
    assert votes.at[0, "wins_a"] == 3


def test_vote_frames_are_checked_by_record() -> None:
    frame = pd.DataFrame(
        {"system_a": ["A", "A"], "system_b": ["B", "C"], "wins_a": [3, 1], "wins_b": [1, -2]}
    )
    with pytest.raises(DataFormatError, match=r"missing column\(s\) ties"):
        comparisons_from_vote_counts(frame)
    frame["ties"] = [0, 0]
    with pytest.raises(DataFormatError, match=r"record 1, field 'wins_b': '-2' is negative"):
        comparisons_from_vote_counts(frame)


def _selections(seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = (rng.random((50, 3)) < [0.6, 0.3, 0.4]).astype(int)
    return pd.DataFrame(x, columns=["A", "B", "C"])


def test_pair_tests_equal_scipy_statsmodels_and_holm() -> None:
    c, picked = _individual_votes(), _selections()
    pairs = pair_tests(c, picked)
    assert pairs[["system_a", "system_b"]].values.tolist() == [["A", "B"], ["A", "C"], ["B", "C"]]
    # C beat B 22 times, B beat C 18 times: written from B's side
    assert pairs.loc[2, ["wins_a", "wins_b", "ties"]].tolist() == [18, 22, 10]
    for _, r in pairs.iterrows():
        n = r["wins_a"] + r["wins_b"]
        assert r["sign_p"] == pytest.approx(sps.binomtest(r["wins_a"], n, 0.5).pvalue)
        a, b = picked[r["system_a"]], picked[r["system_b"]]
        table = pd.crosstab(a, b).to_numpy()
        assert r["mcnemar_p"] == pytest.approx(sm_mcnemar(table, exact=True).pvalue)
    for column in ("sign_p", "mcnemar_p"):
        holm = multipletests(pairs[column], method="holm")[1]
        assert pairs[f"{column}_adjusted"].to_numpy() == pytest.approx(holm)


def test_analyse_runs_every_test_and_names_what_is_undefined() -> None:
    result = analyse(
        _individual_votes(), selected=_selections(), resampling=Resampling(40), correction="bh"
    )
    assert result.cochran is not None and result.cochran.n == 50 and result.cochran.dof == 2
    assert result.chi_square is not None and result.chi_square.n == 300
    assert result.correction == "bh" and result.expected is None
    bh = multipletests(result.pairs["sign_p"], method="fdr_bh")[1]
    assert result.pairs["sign_p_adjusted"].to_numpy() == pytest.approx(bh)
    never_loses = Comparisons.of(["p", "p", "q"] * 10, ["q", "r", "r"] * 10, [1] * 30)
    result = analyse(never_loses, resampling=Resampling(20))
    assert "never wins or never loses" in result.undefined["Bradley-Terry"]
    assert set(result.ratings) == {"Elo", "TrueSkill"}
    assert result.dropped_outcomes == ["ties"]
    # once each: expected counts of 1 are too few for the chi-square
    once = analyse(
        Comparisons.of(["p", "p", "q"], ["q", "r", "r"], [1, 1, 1]), resampling=Resampling(20)
    )
    assert once.chi_square is None and "expected counts" in once.undefined["chi-square"]


def test_rate_test_equals_scipy_and_a_hand_value() -> None:
    # 9 of 10 against 0.5: P(X >= 9) + P(X <= 1) = 2 * 11 / 1024
    assert rate_test(9, 10, 0.5)[0] == pytest.approx(22 / 1024)
    p, low, high = rate_test(70, 100, 0.8, "less")
    ref = sps.binomtest(70, 100, 0.8, alternative="less")
    assert p == pytest.approx(ref.pvalue) and low == 0.0
    assert high == pytest.approx(ref.proportion_ci(method="exact").high)
    assert np.isnan(rate_test(0, 0, 0.8)[0])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        rate_test(3, 10, 1.0)


def test_rate_tests_adjust_the_family_of_systems() -> None:
    successes = pd.Series({"x": 70, "y": 88, "z": 60})
    n = pd.Series({"x": 100, "y": 100, "z": 90})
    tests = rate_tests(successes, n, 0.8)
    raw = [sps.binomtest(int(successes[s]), int(n[s]), 0.8).pvalue for s in n.index]
    assert tests["p_value"].to_numpy() == pytest.approx(raw)
    assert tests["p_adjusted"].to_numpy() == pytest.approx(multipletests(raw, method="holm")[1])
    assert tests.at["z", "rate"] == pytest.approx(60 / 90)


def test_pairwise_rate_tests_are_holm_adjusted() -> None:
    rng = np.random.default_rng(0)
    systems = np.repeat(list("abcdef"), 40)
    labels = (rng.random(240) < np.repeat([0.2, 0.3, 0.5, 0.5, 0.6, 0.8], 40)).astype(float)
    tests = pairwise_rate_tests(rates(systems, labels))
    assert len(tests) == len(list(combinations("abcdef", 2))) == 15
    holm = multipletests(tests["p_value"], method="holm")[1]
    assert tests["p_adjusted"].to_numpy() == pytest.approx(holm)
    assert (tests["p_adjusted"] >= tests["p_value"]).all()


def test_analyse_needs_resamples_and_permutations() -> None:
    with pytest.raises(ValueError, match="at least one bootstrap resample and one permutation"):
        analyse(_individual_votes(), resampling=Resampling(0))
    with pytest.raises(ValueError, match="at least one bootstrap resample and one permutation"):
        analyse(_individual_votes(), permutations=0)


def test_unit_bootstrap_p_keeps_a_units_votes_together() -> None:
    from comperbench.stats.human.votes.vote_tests import unit_bootstrap_p
    from comperbench.stats.resampling import bootstrap_indices

    rng = np.random.default_rng(3)
    units = np.repeat(np.arange(40), 3)  # three votes on each of 40 items
    outcome = rng.choice([0.0, 0.5, 1.0], size=units.size, p=[0.35, 0.2, 0.45])
    got = unit_bootstrap_p(units.astype(str), outcome, resampling=Resampling(500, 7))
    # the same resamples gathered item by item, in a plain loop
    names = np.unique(units.astype(str))
    index = bootstrap_indices(names.size, 500, 7)
    by_item = {name: outcome[units.astype(str) == name] for name in names}
    stats = np.array(
        [np.concatenate([by_item[names[i]] for i in row]).mean() - 0.5 for row in index]
    )
    below = (np.sum(stats <= 0) + 1) / 501
    above = (np.sum(stats >= 0) + 1) / 501
    assert got == pytest.approx(min(1.0, 2 * min(below, above)))


def test_unit_bootstrap_p_hand_values() -> None:
    from comperbench.stats.human.votes.vote_tests import unit_bootstrap_p

    # every item prefers a: no resample reaches 0, so p is the floor 2 / (B + 1)
    assert unit_bootstrap_p(
        np.arange(30).astype(str), np.ones(30), Resampling(99, 0)
    ) == pytest.approx(0.02)
    # all ties: every resample is exactly 0, p capped at 1
    assert unit_bootstrap_p(np.arange(30).astype(str), np.full(30, 0.5), Resampling(99, 0)) == 1.0


def test_one_vote_per_unit_bootstrap_p_is_close_to_the_sign_test() -> None:
    from comperbench.stats.human.votes.vote_tests import unit_bootstrap_p

    outcome = np.r_[np.ones(70), np.zeros(50)]
    p = unit_bootstrap_p(np.arange(120).astype(str), outcome, Resampling(4000, 1))
    assert p == pytest.approx(sps.binomtest(70, 120, 0.5).pvalue, abs=0.03)


def test_pair_tests_have_a_bootstrap_column_only_with_units() -> None:
    c = Comparisons.of(["a", "a", "b"], ["b", "c", "c"], [1.0, 0.0, 0.5], units=["i", "i", "j"])
    assert "bootstrap_p" in pair_tests(c, resampling=Resampling(50))
    plain = Comparisons.of(["a", "a", "b"], ["b", "c", "c"], [1.0, 0.0, 0.5])
    assert "bootstrap_p" not in pair_tests(plain, resampling=Resampling(50))


def test_the_bootstrap_test_needs_ten_units() -> None:
    from comperbench.stats.human.votes.vote_tests import unit_bootstrap_p

    assert np.isnan(unit_bootstrap_p(np.arange(9).astype(str), np.ones(9), Resampling(99, 0)))
    # ten items all preferring a: the floor 2 / (B + 1), as the sign test's 2 / 2^10 is small
    assert unit_bootstrap_p(
        np.arange(10).astype(str), np.ones(10), Resampling(99, 0)
    ) == pytest.approx(0.02)
    # many votes on few items are still few items
    assert np.isnan(
        unit_bootstrap_p(np.repeat(np.arange(3), 20).astype(str), np.ones(60), Resampling(99, 0))
    )


def test_the_chi_square_needs_cochrans_expected_counts() -> None:
    from comperbench.stats.human.votes.vote_tests import small_expected_reason

    # expected counts of [[1, 0], [0, 1]] are all 0.5
    reason = small_expected_reason(np.array([[1, 0], [0, 1]]))
    assert reason is not None and reason.startswith("4 of 4 expected counts are below 5")
    # [[12, 8], [8, 12]]: every expected count is 10
    assert small_expected_reason(np.array([[12, 8], [8, 12]])) is None
    # one of six expected counts below 5 (4.8, none below 1) is within the fifth Cochran allows
    table = np.array([[40, 30, 2], [40, 30, 8]])
    expected = sps.contingency.expected_freq(table)
    assert (expected < 5).sum() == 1 and expected.min() >= 1
    assert small_expected_reason(table) is None
    # a column that never occurs is left out, as chi_square leaves it out
    assert small_expected_reason(np.array([[12, 8, 0], [8, 12, 0]])) is None
