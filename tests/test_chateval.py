"""The ChatEval protocol's scores, ranking and vote agreement, against hand computations,
scipy and statsmodels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from comperbench.cli import main
from comperbench.human_io.vote_rows import vote_rows_table
from comperbench.stats.human.votes.chateval import ChatEvalScores
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.vote_agreement import annotator_correlations, vote_kappa
from comperbench.stats.settings import Resampling

# x-y: x wins 2, loses 0, ties 1; x-z: x wins 0, loses 1, ties 2; y-z: y wins 1; w-x: 2 ties
GAMES = Comparisons.of(
    ["x", "x", "x", "y", "y", "z", "x", "w", "x"],
    ["y", "y", "z", "z", "x", "x", "z", "x", "w"],
    [1, 0.5, 0.5, 1, 0, 1, 0.5, 0.5, 0.5],
)


def test_pair_scores_by_hand() -> None:
    pairs = ChatEvalScores.of(GAMES).pairs.set_index(["system", "opponent"])
    x_y = pairs.loc[("x", "y")]
    assert (x_y["wins"], x_y["losses"], x_y["ties"]) == (2, 0, 1)
    assert x_y["major"] == 1.0 and x_y["distinct"] == pytest.approx(2 / 3)
    assert x_y["distinct_tie"] == pytest.approx(1 / 3)
    z_x = pairs.loc[("z", "x")]
    assert (z_x["wins"], z_x["losses"], z_x["ties"]) == (1, 0, 2)
    assert (z_x["major"], z_x["distinct"]) == (1.0, pytest.approx(1 / 3))
    assert pairs.loc[("x", "z"), "major"] == 0.0
    # every vote of w-x a tie: Major undefined, Distinct(win) 0 and Distinct(tie) 1
    assert np.isnan(pairs.loc[("w", "x"), "major"]) and pairs.loc[("w", "x"), "distinct"] == 0
    assert pairs.loc[("x", "w"), "distinct_tie"] == 1.0
    assert len(pairs) == 8  # four pairs that met, both directions


def test_win_count_ranking_by_hand() -> None:
    ranking = ChatEvalScores.of(GAMES).ranking
    # x beats y, loses to z; y beats z, loses to x; z beats x, loses to y; w beats no one
    assert list(ranking.index) == ["x", "y", "z", "w"]
    assert ranking["won"].tolist() == [1, 1, 1, 0]
    assert ranking["rank"].tolist() == [1, 1, 1, 4]
    assert ranking.at["w", "all_ties"] == 1 and ranking.at["x", "all_ties"] == 1
    # x over all its votes: 2 wins (y), 1 loss (z), 5 ties (y once, z twice, w twice)
    assert ranking.at["x", "major"] == pytest.approx(2 / 3)
    assert ranking.at["x", "distinct"] == pytest.approx(2 / 8)
    assert ranking.at["x", "distinct_tie"] == pytest.approx(5 / 8)
    assert np.isnan(ranking.at["w", "major"])


def test_the_matrix_has_the_ranking_order_and_winners_as_rows() -> None:
    matrix = ChatEvalScores.of(GAMES).matrix("major")
    assert list(matrix.index) == list(matrix.columns) == ["x", "y", "z", "w"]
    assert matrix.at["x", "y"] == 1.0 and matrix.at["y", "x"] == 0.0
    assert np.isnan(matrix.at["y", "w"]) and np.isnan(matrix.at["x", "x"])


def _votes(rows: list[tuple[str, str, str, str, str]]) -> pd.DataFrame:
    fields = ("item", "system_a", "system_b", "outcome", "annotator")
    return vote_rows_table(
        [({"line": i + 2}, dict(zip(fields, r, strict=True))) for i, r in enumerate(rows)], "v"
    )


def test_fleiss_kappa_equals_statsmodels() -> None:
    rng = np.random.default_rng(3)
    labels = np.array(["a", "b", "tie"])
    votes = rng.choice(3, size=(40, 3), p=[0.5, 0.3, 0.2])
    votes[:15] = votes[:15, :1]  # some agreement
    rows = [
        (f"i{i}", "p", "q", labels[v], f"w{j}") for i in range(40) for j, v in enumerate(votes[i])
    ]
    result = vote_kappa(_votes(rows), resampling=Resampling(50))
    expected = fleiss_kappa(aggregate_raters(votes)[0])
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.n_items == 40 and result.ci is not None


def test_fleiss_kappa_reads_a_pair_in_either_order() -> None:
    forward = [
        ("i1", "p", "q", "a", "w1"),
        ("i1", "p", "q", "a", "w2"),
        ("i2", "p", "q", "b", "w1"),
    ]
    swapped = [
        ("i1", "q", "p", "b", "w1"),
        ("i1", "p", "q", "a", "w2"),
        ("i2", "q", "p", "a", "w1"),
    ]
    forward += [("i2", "p", "q", "tie", "w2")]
    swapped += [("i2", "p", "q", "tie", "w2")]
    first = vote_kappa(_votes(forward), resampling=Resampling(0)).value
    assert first == vote_kappa(_votes(swapped), resampling=Resampling(0)).value


def test_fleiss_kappa_is_undefined_without_two_votes_on_a_case() -> None:
    result = vote_kappa(_votes([("i1", "p", "q", "a", "w1")]), resampling=Resampling(0))
    assert result.reason == "no item has two ratings" and np.isnan(result.value)


def test_each_annotator_against_the_others_by_hand() -> None:
    rows = []
    w1 = ["a", "b", "a", "tie", "b"]
    w2 = ["a", "b", "tie", "b", "b"]
    w3 = ["b", "a", "a", "a", "tie"]
    for i, votes in enumerate(zip(w1, w2, w3, strict=True)):
        rows += [(f"i{i}", "p", "q", v, f"w{j + 1}") for j, v in enumerate(votes)]
    rows.append(("i9", "p", "q", "a", "w4"))  # alone on its item
    table = annotator_correlations(_votes(rows))
    value = {"a": 1.0, "tie": 0.5, "b": 0.0}
    own = [value[v] for v in w1]
    others = [(value[b] + value[c]) / 2 for b, c in zip(w2, w3, strict=True)]
    expected = sps.spearmanr(own, others)
    assert table.at["w1", "spearman"] == pytest.approx(expected.statistic)
    assert table.at["w1", "p"] == pytest.approx(expected.pvalue)
    assert table.at["w1", "shared"] == 5
    assert table.at["w4", "shared"] == 0 and "0 case(s) shared" in table.at["w4", "reason"]
    assert list(table.index[-1:]) == ["w4"]  # undefined last, the rest lowest first
    assert table["spearman"].dropna().is_monotonic_increasing


def test_a_constant_annotator_is_undefined_with_its_reason() -> None:
    rows = []
    for i, (v1, v2) in enumerate([("a", "a"), ("a", "b"), ("a", "tie")]):
        rows += [(f"i{i}", "p", "q", v1, "w1"), (f"i{i}", "p", "q", v2, "w2")]
    table = annotator_correlations(_votes(rows))
    assert table.at["w1", "reason"] == "their votes never vary"
    assert table.at["w2", "reason"] == "the others' mean never vary"


def test_human_votes_prints_the_chateval_analyses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = ["item,system_a,system_b,outcome,annotator"]
    for i, outcomes in enumerate(["aab", "aat", "bbt", "aaa"]):
        rows += [f"p{i},bot-a,bot-b,{o.replace('t', 'tie')},w{j}" for j, o in enumerate(outcomes)]
    Path("votes.csv").write_text("\n".join(rows) + "\n")
    argv = ["human", "votes", "--file", "votes.csv", "--resamples", "20", "--permutations", "5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ChatEval ranking by system win count" in out
    assert "Fleiss' kappa of the votes (a, b, tie) over 4 item pairs" in out
    assert "prompt validity (Pearson r of a prompt's mean vote" in out
    assert main([*argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    # bot-a: 7 wins, 3 losses, 2 ties
    [top] = [r for r in document["chateval"]["ranking"] if r["rank"] == 1]
    assert top["major"] == pytest.approx(0.7) and top["distinct"] == pytest.approx(7 / 12)
    assert len(document["annotators"]) == 3 and document["fleiss_kappa"]["n_items"] == 4
    # one pair of systems only: no prompt has the three pairs a correlation needs
    assert {r["reason"] for r in document["prompt_validity"]} == {"1 pair(s) (at least 3 needed)"}


def test_elo_and_trueskill_points_are_the_same_from_rows_and_from_counts() -> None:
    """The same votes one per row (items as units, rows shuffled) and counted per pair give the
    same point ratings: one expanded sequence, the same seeded orders."""
    from comperbench.human_io.vote_counts import comparisons_from_vote_counts
    from comperbench.stats.human.votes.comparisons import pair_counts
    from comperbench.stats.human.votes.online_ratings import elo, trueskill_ratings

    rng = np.random.default_rng(5)
    systems = np.array(["bot-a", "bot-b", "bot-c", "human"])
    first = rng.integers(0, 4, 300)
    second = (first + rng.integers(1, 4, 300)) % 4
    outcome = rng.choice([1.0, 0.0, 0.5], 300, p=[0.5, 0.3, 0.2])
    items = [f"i{k // 3}" for k in range(300)]
    rows = Comparisons.of(systems[first], systems[second], outcome, items, unit_kind="item")
    counts = comparisons_from_vote_counts(pair_counts(rows))
    shuffled = rng.permutation(300)
    rows = Comparisons.of(
        systems[first][shuffled],
        systems[second][shuffled],
        outcome[shuffled],
        np.asarray(items)[shuffled],
        unit_kind="item",
    )
    for rate in (elo, trueskill_ratings):
        from_rows = rate(rows, resampling=Resampling(10), permutations=30)
        from_counts = rate(counts, resampling=Resampling(10), permutations=30)
        assert from_rows.table["rating"].to_dict() == from_counts.table["rating"].to_dict()


def test_prompt_validity_by_hand() -> None:
    from comperbench.stats.human.votes.vote_agreement import prompt_validity

    # three prompts, pairs (p, q), (p, r), (q, r); one vote each, two on i1 (p, q)
    votes = {
        "i1": {("p", "q"): ["a", "tie"], ("p", "r"): ["a"], ("q", "r"): ["b"]},
        "i2": {("p", "q"): ["a"], ("p", "r"): ["a"], ("q", "r"): ["a"]},
        "i3": {("p", "q"): ["b"], ("p", "r"): ["tie"], ("q", "r"): ["a"]},
        "i4": {("p", "q"): ["a"]},
    }
    rows = []
    for item, pairs in votes.items():
        for (a, b), outcomes in pairs.items():
            rows += [(item, a, b, o, f"w{k}") for k, o in enumerate(outcomes)]
    table = prompt_validity(_votes(rows))
    value = {"a": 1.0, "tie": 0.5, "b": 0.0}
    mean = {
        (item, pair): np.mean([value[o] for o in outcomes])
        for item, pairs in votes.items()
        for pair, outcomes in pairs.items()
    }
    pairs = [("p", "q"), ("p", "r"), ("q", "r")]
    own = [mean[("i1", pair)] for pair in pairs]
    rest = [
        np.mean([mean[(other, pair)] for other in votes if other != "i1" and (other, pair) in mean])
        for pair in pairs
    ]
    expected = sps.pearsonr(own, rest)
    assert table.at["i1", "r"] == pytest.approx(expected.statistic)
    assert table.at["i1", "p"] == pytest.approx(expected.pvalue)
    assert table.at["i1", "pairs"] == 3
    assert (
        table.at["i4", "pairs"] == 1 and table.at["i4", "reason"] == "1 pair(s) (at least 3 needed)"
    )
    assert table["r"].dropna().is_monotonic_increasing
