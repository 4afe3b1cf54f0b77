"""The human-evaluation statistics take `resampling=`; their old keywords (n_resamples=, seed=,
ci=, n_permutations=, n_simulations=) keep working for one release with a DeprecationWarning and
give the same numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from comperbench.common.errors import ComperbenchError
from comperbench.stats.human.judgments.issue_detection import detection, detection_table
from comperbench.stats.human.judgments.label_analysis import analyse_labels
from comperbench.stats.human.judgments.rating_analysis import analyse_ratings
from comperbench.stats.human.planning import power
from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.online_ratings import elo, replay_orders, trueskill_ratings
from comperbench.stats.human.votes.vote_agreement import vote_kappa
from comperbench.stats.human.votes.vote_analysis import analyse
from comperbench.stats.human.votes.vote_tests import pair_tests, unit_bootstrap_p
from comperbench.stats.settings import Resampling

GAMES = Comparisons.of(
    ["a", "a", "b", "c", "a", "b"] * 3,
    ["b", "c", "c", "a", "b", "c"] * 3,
    [1, 0.5, 0, 1, 1, 0.5] * 3,
    units=np.repeat(np.arange(6), 3),
)
NEW = Resampling(30, 4)


def _same_table(old: pd.DataFrame, new: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(old, new)


@pytest.mark.parametrize("rate", [bradley_terry, elo, trueskill_ratings])
def test_a_rating_takes_its_old_resample_keywords_with_a_warning(rate) -> None:
    with pytest.warns(DeprecationWarning, match=r"n_resamples=\.\.\.\) is deprecated"):
        old = rate(GAMES, n_resamples=30, seed=4)
    new = rate(GAMES, resampling=NEW)
    _same_table(old.table, new.table)
    assert old.signature == new.signature


@pytest.mark.parametrize("rate", [elo, trueskill_ratings])
def test_an_order_dependent_rating_takes_n_permutations_with_a_warning(rate) -> None:
    with pytest.warns(DeprecationWarning, match="permutations="):
        old = rate(GAMES, resampling=NEW, n_permutations=7)
    _same_table(old.table, rate(GAMES, resampling=NEW, permutations=7).table)


def test_an_old_positional_resample_count_is_a_one_line_error() -> None:
    with pytest.raises(ComperbenchError, match=r"bradley_terry\(\) takes resampling= .* not 30"):
        bradley_terry(GAMES, 30)


def test_an_old_keyword_replaces_its_field_of_the_resampling_given() -> None:
    with pytest.warns(DeprecationWarning):
        folded = bradley_terry(GAMES, resampling=Resampling(99, 4), n_resamples=30)
    assert folded.signature == bradley_terry(GAMES, resampling=NEW).signature


def test_a_bca_interval_is_refused_where_only_percentiles_are_computed() -> None:
    with pytest.raises(ComperbenchError, match="percentile bootstrap intervals only, not ci='bca'"):
        bradley_terry(GAMES, resampling=Resampling(30, ci="bca"))


def test_the_vote_tests_and_analysis_take_their_old_keywords() -> None:
    units, outcome = np.arange(30).astype(str), np.tile([1.0, 0.5, 0.0, 1.0, 1.0], 6)
    with pytest.warns(DeprecationWarning):
        assert unit_bootstrap_p(units, outcome, n_resamples=30, seed=4) == unit_bootstrap_p(
            units, outcome, NEW
        )
    with pytest.warns(DeprecationWarning):
        _same_table(pair_tests(GAMES, n_resamples=30, seed=4), pair_tests(GAMES, resampling=NEW))
    with pytest.warns(DeprecationWarning):
        old = analyse(GAMES, n_resamples=30, seed=4, n_permutations=5)
    new = analyse(GAMES, resampling=NEW, permutations=5)
    _same_table(old.pairs, new.pairs)
    assert new.resamples == 30
    with pytest.warns(DeprecationWarning, match="VoteAnalysis.resamples"):
        assert new.n_resamples == 30


def test_replay_orders_takes_its_old_keywords() -> None:
    with pytest.warns(DeprecationWarning):
        old = replay_orders(GAMES, n_permutations=3, n_resamples=4, seed=1)
    assert np.array_equal(old, replay_orders(GAMES, permutations=3, resamples=4, seed=1))


def _vote_rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": [f"i{k // 3}" for k in range(12)],
            "system_a": "p",
            "system_b": "q",
            "outcome": [1.0, 1.0, 0.0, 0.5, 0.5, 0.5, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            "annotator": [f"w{k % 3}" for k in range(12)],
        }
    )


def test_vote_kappa_takes_its_old_keywords() -> None:
    with pytest.warns(DeprecationWarning):
        old = vote_kappa(_vote_rows(), n_resamples=30, seed=4)
    new = vote_kappa(_vote_rows(), NEW)
    assert (old.value, old.ci) == (new.value, new.ci)


def _ratings() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "item_id": np.repeat([f"t{k}" for k in range(10)], 3),
            "system": np.repeat(["s", "t"] * 5, 3),
            "aspect": "engaging",
            "annotator": [f"w{k}" for k in range(3)] * 10,
            "value": rng.integers(1, 6, 30).astype(float),
        }
    )


def test_analyse_ratings_takes_its_old_keywords_ci_included() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"analyse_ratings\(ci=\.\.\.\) is deprecated; use resampling="
    ):
        old = analyse_ratings(_ratings(), "engaging", n_resamples=30, seed=4, ci="bca")
    new = analyse_ratings(_ratings(), "engaging", resampling=Resampling(30, 4, "bca"))
    assert [a.ci for a in old.agreement] == [a.ci for a in new.agreement]
    assert all(a.ci.method == "bca" for a in new.agreement)


def test_analyse_labels_keeps_bca_when_given_the_old_keywords() -> None:
    labels = _ratings().assign(value=lambda f: (f["value"] > 3).astype(float))
    systems, values = labels["system"].to_numpy(object), labels["value"].to_numpy()
    args = (systems, values, "engaging")
    with pytest.warns(DeprecationWarning):
        old = analyse_labels(*args, individual=labels, n_resamples=30, seed=4)
    new = analyse_labels(*args, individual=labels, resampling=Resampling(30, 4, "bca"))
    assert old.agreement.ci == new.agreement.ci and new.agreement.ci.method == "bca"


def test_issue_detection_takes_its_old_keywords() -> None:
    judge = {"x": np.array([1, 0, 1, 1, 0, 1.0]), "y": np.array([0, 0, 1, 1, 1, 0.0])}
    human = {"x": np.array([1, 0, 0, 1, 0, 1.0]), "y": np.array([0, 1, 1, 1, 0, 0.0])}
    with pytest.warns(DeprecationWarning):
        old = detection_table(judge, human, n_resamples=30, seed=4)
    assert old == detection_table(judge, human, resampling=NEW)
    with pytest.warns(DeprecationWarning):
        one = detection("x", judge["x"], human["x"], n_resamples=30, seed=4)
    assert one == old[0]


def test_the_monte_carlo_power_takes_n_simulations_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="simulations="):
        old = power.cochrans_q_power_mc(40, [0.3, 0.6], n_simulations=500, seed=2)
    new = power.cochrans_q_power_mc(40, [0.3, 0.6], simulations=500, seed=2)
    assert old == new and new.simulations == 500
    with pytest.warns(DeprecationWarning, match="MonteCarloPower.simulations"):
        assert new.n_simulations == 500
    with pytest.warns(DeprecationWarning):
        n = power.cochrans_q_sample_size([0.3, 0.6], method="monte-carlo", n_simulations=500)
    assert n == power.cochrans_q_sample_size([0.3, 0.6], method="monte-carlo", simulations=500)
