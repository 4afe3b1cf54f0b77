"""Preferences and selections derived from shared-context ratings; `comperbench pairwise | rates`."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from comperbench import load_benchmark
from comperbench.cli import main
from comperbench.stats.judgments import MEAN_JUDGE, pairwise_judgments, selections
from comperbench.textutil import interval


def test_judgments_by_hand() -> None:
    ratings = pd.DataFrame(
        {
            "unit": ["c1"] * 6 + ["c2"] * 2,
            "system": ["x", "y", "z", "x", "y", "z", "x", "y"],
            "judge": ["j1", "j1", "j1", "j2", "j2", "j2", None, None],
            "value": [3, 1, 3, 1, 2, np.nan, 2, 4],
        }
    )
    got = pairwise_judgments(ratings)
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
    ties = 0
    for (_, _), group in ratings.groupby([ratings["item_id"].map(units), "annotator"]):
        values = dict(zip(group["system"], group["value"], strict=True))
        for a, b in combinations(sorted(values), 2):
            if values[a] > values[b]:
                wins[a] += 1
            elif values[b] > values[a]:
                wins[b] += 1
            else:
                ties += 1
    assert main(["pairwise", "--benchmark", "usr-topical", "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert f"{ties} ties" in out
    top = "New Human Generated"
    first_row = next(line for line in out.splitlines() if line.startswith(top))  # win/tie/loss
    assert int(first_row.split()[3]) == wins[top]
    for header in ("Bradley-Terry", "Elo (median)", "TrueSkill (median)", "Cochran's Q"):
        assert header in out
    assert "stat:trueskill|level:system|resample:bootstrap-percentile|n:50" in out
    assert f"{top} vs Original Ground Truth" in out


def test_pairwise_needs_shared_contexts(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pairwise", "--benchmark", "fed-turn"]) == 2
    assert "no context of fed-turn was answered by two or more systems" in capsys.readouterr().err


def test_rates_of_a_binary_aspect_with_wilson_intervals(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    understandable = bench.human_scores("understandable")
    argmax = np.asarray(bench.table.column("system").to_pylist()) == "Argmax Decoding"
    count = int(np.sum(understandable[argmax] > 0.5))
    assert main(["rates", "--benchmark", "usr-topical", "--aspect", "understandable"]) == 0
    out = capsys.readouterr().out
    low, high = proportion_confint(count, int(argmax.sum()), method="wilson")
    line = next(line for line in out.splitlines() if line.startswith("Argmax Decoding  "))
    assert f"{count}" in line and interval(low, high) in line
    assert "two-proportion z-tests" in out and "chi-square, systems x label" in out


def test_rates_refuse_a_non_binary_aspect(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rates", "--benchmark", "usr-topical", "--aspect", "overall"]) == 2
    assert "rates need a 0-1 (binary) aspect" in capsys.readouterr().err


def test_an_undefined_rating_is_named_and_the_others_still_shown(
    data_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.stats import pairwise

    def never_loses(*args: object, **kwargs: object) -> None:
        raise ValueError(
            "Bradley-Terry: a system never wins or never loses; the MLE does not exist"
        )

    monkeypatch.setattr(pairwise, "bradley_terry", never_loses)
    assert main(["pairwise", "--benchmark", "usr-persona", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "note: Bradley-Terry is undefined here: Bradley-Terry: a system never wins" in out
    assert "Elo (median)" in out and "TrueSkill (median)" in out
    assert "Bradley-Terry  95% CI" not in out


def test_pairwise_and_agreement_without_a_system(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop = ["--exclude-system", "Original Ground Truth"]
    assert main(["pairwise", "--benchmark", "usr-topical", "--resamples", "20", *drop]) == 0
    out = capsys.readouterr().out
    # 60 contexts x 10 pairs of the 5 remaining systems x 3 annotators
    assert "usr-topical (without Original Ground Truth), aspect overall: 1800 preferences" in out
    assert "5 systems" in out and "Original Ground Truth  " not in out
    assert main(["agreement", "--benchmark", "usr-topical", "--resamples", "20", *drop]) == 0
    out = capsys.readouterr().out
    assert "usr-topical (without Original Ground Truth) (turn level)" in out
    assert "~without:original-ground-truth" in out
