"""Preferences and selections derived from shared-context ratings; `comperbench human votes | labels` on benchmarks."""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from comperbench import load_benchmark
from comperbench.cli import main
from comperbench.common.textutil import interval
from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.online_ratings import elo, trueskill_ratings
from comperbench.stats.human.votes.rating_votes import (
    MEAN_JUDGE,
    as_comparisons,
    rating_votes,
    selections,
)
from comperbench.stats.settings import Resampling


def test_judgments_by_hand() -> None:
    ratings = pd.DataFrame(
        {
            "unit": ["c1"] * 6 + ["c2"] * 2,
            "system": ["x", "y", "z", "x", "y", "z", "x", "y"],
            "judge": ["j1", "j1", "j1", "j2", "j2", "j2", None, None],
            "value": [3, 1, 3, 1, 2, np.nan, 2, 4],
        }
    )
    got = rating_votes(ratings)
    rows = set(got.itertuples(index=False, name=None))
    assert rows == {
        ("c1", "j1", "x", "y", 1.0),
        ("c1", "j1", "x", "z", 0.5),
        ("c1", "j1", "y", "z", 0.0),
        ("c1", "j2", "x", "y", 0.0),  # j2 rated z with no value: no pair with z
        ("c2", MEAN_JUDGE, "x", "y", 0.0),
    }


def test_selections_keep_complete_contexts_and_every_best() -> None:
    ratings = pd.DataFrame(
        {
            "unit": ["c1", "c1", "c1", "c2", "c2", "c2", "c3", "c3"],
            "system": ["x", "y", "z"] * 2 + ["x", "y"],
            "judge": None,
            "value": [3, 3, 1, 1, 2, 0, 5, 1],
        }
    )
    picked = selections(ratings)
    assert list(picked.index) == ["c1", "c2"]  # c3 lacks z
    assert picked.loc["c1"].tolist() == [1, 1, 0]
    assert picked.loc["c2"].tolist() == [0, 1, 0]


def test_pairwise_wins_equal_a_plain_count_over_the_ratings(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    ratings = bench.ratings()
    ratings = ratings[ratings["aspect"] == "overall"]
    units = dict(zip(bench.item_ids, bench.table.column("dialogue_id").to_pylist(), strict=True))
    wins: Counter[str] = Counter()
    wins_pair: Counter[tuple[str, str]] = Counter()
    ties = 0
    for (_, _), group in ratings.groupby([ratings["item_id"].map(units), "annotator"]):
        values = dict(zip(group["system"], group["value"], strict=True))
        for a, b in combinations(sorted(values), 2):
            if values[a] > values[b]:
                wins[a] += 1
                wins_pair[(a, b)] += 1
            elif values[b] > values[a]:
                wins[b] += 1
            else:
                ties += 1
    assert main(["human", "votes", "--benchmark", "usr-topical", "--resamples", "50"]) == 0
    out = capsys.readouterr().out.replace("|\n  ", "|")  # signatures whole again
    assert f"{ties} ties" in out
    top = "New Human Generated"
    first_row = next(line for line in out.splitlines() if line.startswith(top))  # win/tie/loss
    assert int(first_row.split()[3]) == wins[top]
    for header in ("Bradley-Terry", "Elo", "TrueSkill", "Cochran's Q"):
        assert header in out
    assert "stat:trueskill|level:system|resample:bootstrap-percentile|n:50" in out
    assert "|point:median-of-1000-permutations|" in out
    # every pair of the 6 systems has a sign test, Holm-adjusted as one family
    pair = next(
        line for line in out.splitlines() if line.startswith(f"  {top}  ") and "Orig" in line
    )
    cells = re.split(r"\s{2,}", pair.strip())
    assert cells[:3] == [
        top,
        "Original Ground Truth",
        str(wins_pair[(top, "Original Ground Truth")]),
    ]
    assert "adjusted p: Holm (family-wise error rate) over 15 sign tests" in out


def test_pairwise_needs_shared_contexts(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["human", "votes", "--benchmark", "fed-turn"]) == 2
    assert "no context of fed-turn was answered by two or more systems" in capsys.readouterr().err


def test_rates_of_a_binary_aspect_with_wilson_intervals(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    understandable = bench.human_scores("understandable")
    argmax = np.asarray(bench.table.column("system").to_pylist()) == "Argmax Decoding"
    count = int(np.sum(understandable[argmax] > 0.5))
    assert (
        main(["human", "labels", "--benchmark", "usr-topical", "--aspect", "understandable"]) == 0
    )
    out = capsys.readouterr().out
    low, high = proportion_confint(count, int(argmax.sum()), method="wilson")
    line = next(line for line in out.splitlines() if line.startswith("Argmax Decoding  "))
    assert f"{count}" in line and interval(low, high) in line
    assert "two-proportion z-tests" in out and "chi-square, systems x label" in out


def test_rates_refuse_a_non_binary_aspect(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["human", "labels", "--benchmark", "usr-topical", "--aspect", "overall"]) == 2
    assert "labels need a 0-1 (binary) aspect" in capsys.readouterr().err


def test_an_undefined_rating_is_named_and_the_others_still_shown(
    data_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.stats.human.votes import vote_analysis

    def never_loses(*args: object, **kwargs: object) -> None:
        raise ValueError(
            "Bradley-Terry: a system never wins or never loses; the MLE does not exist"
        )

    monkeypatch.setattr(vote_analysis, "bradley_terry", never_loses)
    assert main(["human", "votes", "--benchmark", "usr-persona", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "note: Bradley-Terry is undefined here: Bradley-Terry: a system never wins" in out
    assert "Elo  " in out and "TrueSkill  " in out
    assert "Bradley-Terry  95% CI" not in out


def test_pairwise_and_agreement_without_a_system(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop = ["--exclude-system", "Original Ground Truth"]
    assert main(["human", "votes", "--benchmark", "usr-topical", "--resamples", "20", *drop]) == 0
    out = capsys.readouterr().out
    # 60 contexts x 10 pairs of the 5 remaining systems x 3 annotators
    assert "usr-topical (without Original Ground Truth), aspect overall: 1800 preferences" in out
    assert "5 systems" in out and "Original Ground Truth  " not in out
    assert main(["agreement", "--benchmark", "usr-topical", "--resamples", "20", *drop]) == 0
    out = capsys.readouterr().out
    assert "usr-topical (without Original Ground Truth) (turn level)" in out
    assert "~without:original-ground-truth" in out


def _real_comparisons(data_root: Path, name: str) -> Comparisons:
    bench = load_benchmark(name, data_dir=data_root)
    return as_comparisons(rating_votes(bench.unit_ratings(bench.metadata.default_aspect)))


@pytest.mark.parametrize(
    "name", ["usr-topical", "usr-persona", "grade-convai2", "dailydialog-gupta"]
)
def test_real_ratings_lie_in_their_intervals_and_ignore_the_order(
    data_root: Path, name: str
) -> None:
    c = _real_comparisons(data_root, name)
    reversed_ = Comparisons.of(c.a[::-1], c.b[::-1], c.outcome[::-1], c.units[::-1])
    for seed in (0, 1, 2):
        for rate in (
            lambda x, s=seed: bradley_terry(x, Resampling(100, s)),
            lambda x, s=seed: elo(x, resampling=Resampling(100, s), permutations=100),
            lambda x, s=seed: trueskill_ratings(x, Resampling(100, s), permutations=100),
        ):
            table = rate(c).table
            assert table["inside"].all(), (name, seed, table)
            assert ((table["low"] <= table["rating"]) & (table["rating"] <= table["high"])).all()
            if seed == 0:
                pd.testing.assert_frame_equal(rate(reversed_).table, table, check_exact=True)


VOTES = "system_a,system_b,wins_a,wins_b,ties\nA,B,30,12,8\nA,C,25,20,5\nC,B,22,18,10\n"


def test_pairwise_from_vote_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # a short file name, so that the summary line is not wrapped
    path = Path("votes.csv")
    path.write_text(VOTES)
    argv = ["human", "votes", "--file", str(path), "--resamples", "50", "--permutations", "50"]
    assert main([*argv, "--expected", "0.5"]) == 0
    out = capsys.readouterr().out
    assert f"{path}: 150 votes on 3 pairs of 3 systems; 23 ties" in out
    first = next(line for line in out.splitlines() if line.startswith("A  "))
    assert first.split()[1:5] == ["55", "13", "32", "0.632"]  # wins, ties, losses, win rate
    assert "|unit:comparison|" in out and "WMT" not in out
    assert "adjusted p: Holm (family-wise error rate) over 3 sign tests" in out
    assert "win rate (ties left out) against the expected rate 0.5" in out
    assert main([*argv, "--correction", "none"]) == 0
    out = capsys.readouterr().out
    assert "p Holm" not in out and "not adjusted for multiple comparisons (3 sign tests)" in out


def test_pairwise_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "votes.csv"
    path.write_text(VOTES)
    argv = ["human", "votes", "--file", str(path), "--resamples", "30", "--permutations", "20"]
    assert main([*argv, "--json", "--correction", "bh"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["comparisons"] == 150 and payload["correction"] == "bh"
    assert [r["system"] for r in payload["win_tie_loss"]] == ["A", "B", "C"]
    assert payload["ratings"]["Elo"]["signature"].startswith("stat:elo|")
    assert {"rating", "low", "high", "inside"} <= set(payload["ratings"]["Elo"]["table"][0])
    assert payload["pairs"][0]["sign_p_adjusted"] >= payload["pairs"][0]["sign_p"]
    assert payload["wmt"] is None and payload["expected"] is None


def test_votes_of_groups_never_compared_are_ranked_within_each_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("system_a,system_b,wins_a,wins_b,ties\nA,B,5,3,0\nC,D,4,2,1\n")
    argv = ["human", "votes", "--file", str(path), "--resamples", "30", "--permutations", "20"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for name in ("Bradley-Terry", "Elo", "TrueSkill"):
        assert f"note: {name}: systems never compared with each other" in out
    assert " ".join(out.split()).count("(group 1: A, B; group 2: C, D)") == 3
    rows = [line.split() for line in out.splitlines() if line[:2] in ("A ", "C ")]
    assert ["in", "group", "1"] in [row[-3:] for row in rows]
    assert ["in", "group", "2"] in [row[-3:] for row in rows]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (VOTES + "B,C,1,1,1\n", "line 5, field 'system_b': the pair 'B' / 'C' is given again"),
        (VOTES + "B,D,1,x,1\n", "line 5, field 'wins_b': 'x' is not a number"),
        ("", "empty file"),
    ],
)
def test_bad_votes_exit_2_with_the_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text(text)
    assert main(["human", "votes", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"comperbench: error: file {path}") and message in err
    assert "Traceback" not in err


def test_votes_refuse_benchmark_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "votes.csv"
    path.write_text(VOTES)
    assert main(["human", "votes", "--file", str(path), "--aspect", "overall"]) == 2
    assert "--aspect: only with --benchmark" in capsys.readouterr().err


def test_rates_adjust_the_z_tests_and_test_an_expected_rate(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["human", "labels", "--benchmark", "usr-topical", "--aspect", "understandable"]
    assert main([*argv, "--expected", "0.8", "--alternative", "less"]) == 0
    out = capsys.readouterr().out
    assert "adjusted p: Holm (family-wise error rate) over 15 z-tests" in out
    assert "rate of each system against the expected rate 0.8 (exact binomial test, less)" in out
    assert "adjusted p: Holm (family-wise error rate) over 6 binomial tests" in out
    assert main([*argv, "--json", "--expected", "0.8"]) == 0
    payload = json.loads(capsys.readouterr().out)
    understandable = payload["behaviours"]["understandable"]
    tests = understandable["pairwise_z_tests"]
    assert len(tests) == 15
    raw = [t["p_value"] for t in tests]
    holm = multipletests([p for p in raw if p is not None], method="holm")[1]
    assert [t["p_adjusted"] for t in tests if t["p_value"] is not None] == pytest.approx(holm)
    row = next(r for r in understandable["expected"] if r["system"] == "Argmax Decoding")
    ref = sps.binomtest(row["successes"], row["n"], 0.8)
    assert row["p_value"] == pytest.approx(ref.pvalue)
