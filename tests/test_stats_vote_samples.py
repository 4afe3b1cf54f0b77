"""Ratings of too few votes say so in the library's result (note, no rank range, no interval on a
single unit), which the command line prints as it is; no resample count below 1 is accepted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import choix
import numpy as np
import pytest
import trueskill

from comperbench.cli import main
from comperbench.human_io.vote_rows import comparisons_from_vote_rows, read_vote_rows
from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.online_ratings import elo, trueskill_ratings
from comperbench.stats.human.votes.system_ratings import Ratings
from comperbench.stats.human.votes.vote_tests import pair_tests
from comperbench.stats.settings import Resampling

ONE_VOTE = Comparisons.of(["A"], ["B"], [1.0])


def _uninformative(ratings: Ratings) -> None:
    assert not ratings.informative and not ratings.grouped
    assert ratings.table[["rank_low", "rank_high"]].isna().all().all()


def test_elo_of_one_vote_by_hand() -> None:
    ratings = elo(ONE_VOTE, resampling=Resampling(50), permutations=5)
    # k 32, both at 1000: the winner gains 32 * (1 - 1/2)
    assert ratings.table["rating"].to_dict() == {"A": 1016.0, "B": 984.0}
    _uninformative(ratings)
    assert ratings.table[["low", "high"]].isna().all().all()
    assert ratings.note == (
        "only 1 comparison resampled: every resample is the sample itself, so there is no "
        "interval and no rank range"
    )


def test_trueskill_of_one_vote_equals_the_package() -> None:
    env = trueskill.TrueSkill()
    won, lost = env.rate_1vs1(env.create_rating(), env.create_rating())
    ratings = trueskill_ratings(ONE_VOTE, resampling=Resampling(50), permutations=5)
    expected = {"A": won.mu - 3 * won.sigma, "B": lost.mu - 3 * lost.sigma}
    # to the package's own approximations of the normal distribution (about 1e-7)
    assert ratings.table["rating"].to_dict() == pytest.approx(expected, rel=1e-6)
    _uninformative(ratings)
    assert ratings.table[["low", "high"]].isna().all().all()
    assert ratings.note is not None and ratings.note.startswith("only 1 comparison resampled")


def test_bradley_terry_of_three_votes_by_hand_and_by_choix() -> None:
    c = Comparisons.of(["a", "a", "a"], ["b", "b", "b"], [1, 1, 0])
    ratings = bradley_terry(c, resampling=Resampling(200))
    # a beat b 2 of 3: strengths 2 : 1, so a - b = log 2, each log 2 / 2 from the mean
    assert ratings.table.at["a", "rating"] == pytest.approx(np.log(2) / 2, abs=1e-8)
    theta = choix.opt_pairwise(2, [(0, 1), (0, 1), (1, 0)], alpha=0.0)
    assert ratings.table["rating"].to_numpy() == pytest.approx(theta - theta.mean(), abs=1e-5)
    _uninformative(ratings)
    assert ratings.table["low"].notna().all()  # three units: an interval, flagged by the note
    assert ratings.note == (
        "only 3 comparisons resampled: a bootstrap interval over fewer than 10 is not "
        "informative, and no rank range is given"
    )


@pytest.mark.parametrize("rate", [bradley_terry, elo, trueskill_ratings])
def test_ten_units_are_enough(rate: Callable[..., Ratings]) -> None:
    def rated(n: int) -> Ratings:
        outcome = [1.0, 0.0] + [1.0, 0.0, 0.5] * ((n - 2) // 3) + [1.0] * ((n - 2) % 3)
        return rate(Comparisons.of(["a"] * n, ["b"] * n, outcome), resampling=Resampling(50))

    nine, ten = rated(9), rated(10)
    assert nine.note is not None and "only 9 comparisons resampled" in nine.note
    assert ten.note is None and ten.informative
    assert ten.table[["rank_low", "rank_high"]].notna().all().all()


def test_the_command_line_prints_the_librarys_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("item,system_a,system_b,outcome,annotator\n1,A,B,a,x\n2,A,B,b,x\n")
    c = comparisons_from_vote_rows(read_vote_rows(path))
    options = ["--resamples", "50", "--permutations", "5"]
    assert main(["human", "votes", "--file", str(path), *options]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name, rate in (("Elo", elo), ("TrueSkill", trueskill_ratings)):
        note = rate(c, resampling=Resampling(50), permutations=5).note
        assert note is not None and note.startswith("only 2 items resampled")
        assert f"note: {name}: {note}" in text
    assert text.count("only 2 items resampled") == 3  # Elo, TrueSkill and Bradley-Terry
    assert main(["human", "votes", "--file", str(path), *options, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    elo_payload = payload["ratings"]["Elo"]
    assert elo_payload["note"] == elo(c, resampling=Resampling(50), permutations=5).note
    assert elo_payload["informative"] is False


def test_no_interval_without_resamples() -> None:
    c = Comparisons.of(["a", "a", "b"], ["b", "b", "a"], [1, 1, 1], units=[1, 2, 3])
    expected = r"needs at least one bootstrap resample \(n_resamples=0\)"
    none = Resampling(0)
    with pytest.raises(ValueError, match=f"the bradley-terry rating's interval {expected}"):
        bradley_terry(c, resampling=none)
    with pytest.raises(ValueError, match=f"the elo rating's interval {expected}"):
        elo(c, resampling=none)
    with pytest.raises(ValueError, match=f"the trueskill rating's interval {expected}"):
        trueskill_ratings(c, resampling=none)
    with pytest.raises(ValueError, match=f"a bootstrap p-value {expected}"):
        pair_tests(c, resampling=none)
