"""The dialogue-level analyses of behaviour labels (ABC-Eval): rates per dialogue, sensitivity by
downsampling, predictive validity for dialogue quality and t-tests between systems' Likert means,
each against a hand computation or scipy/statsmodels, on generated files and on the templates."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from scipy.optimize import minimize
from statsmodels.stats.proportion import proportions_ztest

from comperbench.cli import main
from comperbench.common.textutil import LINE_WIDTH
from comperbench.human_io.templates import render
from comperbench.stats.human.judgments.dialogue_labels import (
    dialogue_rates,
    sensitivity,
    separation,
    system_dialogue_rates,
)
from comperbench.stats.human.judgments.predictive_validity import stepwise, univariate
from comperbench.stats.human.judgments.rating_analysis import likert_t_tests

SYSTEMS = ("bot-a", "bot-b", "bot-c")


def _files(tmp_path: Path, seed: int = 1) -> tuple[Path, Path, Path]:
    """Labels (one annotator, 3 behaviours, 6 turns a dialogue), a quality rating per dialogue
    that falls with its irrelevant turns, and a vote per pair of dialogues: 18 dialogue names,
    each shared by two systems' dialogues (12 per system)."""
    rng = np.random.default_rng(seed)
    labels, ratings, votes = [], [], []
    rates = {"bot-a": (0.1, 0.5, 0.3), "bot-b": (0.25, 0.5, 0.2), "bot-c": (0.45, 0.3, 0.25)}
    names = ("irrelevant", "empathetic", "self contradiction")
    for k in range(18):
        pair, latent = list(itertools.combinations(SYSTEMS, 2))[k % 3], []
        for system in pair:
            irrelevant = 0
            for turn, (behaviour, p) in itertools.product(
                range(6), zip(names, rates[system], strict=True)
            ):
                value = int(rng.random() < p)
                irrelevant += value if behaviour == "irrelevant" else 0
                labels.append((f"p{k}", turn, system, behaviour, value, "w1"))
            latent.append(4.2 - 0.6 * irrelevant + rng.normal(0, 0.6))
            quality = int(np.clip(round(latent[-1]), 1, 5))
            ratings.append((f"p{k}", system, "quality", quality, "u1", "dialogue"))
            ratings.append((f"p{k}", system, "engaging", int(rng.integers(1, 6)), "u1", "dialogue"))
        outcome = "a" if latent[0] > latent[1] else "b"
        votes.append((f"p{k}", *pair, "tie" if k == 5 else outcome, "u1"))
    label_columns = ["dialogue", "turn", "system", "behaviour", "value", "annotator"]
    rating_columns = ["item", "system", "aspect", "value", "annotator", "level"]
    vote_columns = ["item", "system_a", "system_b", "outcome", "annotator"]
    pd.DataFrame(labels, columns=label_columns).to_csv(tmp_path / "labels.csv", index=False)
    pd.DataFrame(ratings, columns=rating_columns).to_csv(tmp_path / "ratings.csv", index=False)
    pd.DataFrame(votes, columns=vote_columns).to_csv(tmp_path / "votes.csv", index=False)
    return tmp_path / "labels.csv", tmp_path / "ratings.csv", tmp_path / "votes.csv"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    capsys.readouterr()
    assert main(["human", "labels", *argv, "--resamples", "20", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_dialogue_rates_are_the_mean_share_of_turns_with_a_t_interval() -> None:
    items = pd.DataFrame(
        {
            "dialogue": ["d1", "d1", "d2", "d2", "d2", "d3", "d3"],
            "system": ["a", "a", "a", "a", "a", "b", "b"],
            "value": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0],
        }
    )
    per_dialogue = dialogue_rates(items)
    assert per_dialogue["rate"].tolist() == pytest.approx([0.5, 2 / 3, 0.0])
    table = system_dialogue_rates(per_dialogue)
    assert table.at["a", "mean"] == pytest.approx((0.5 + 2 / 3) / 2)
    low, high = sps.t.interval(0.95, 1, loc=(0.5 + 2 / 3) / 2, scale=sps.sem([0.5, 2 / 3]))
    assert (table.at["a", "low"], table.at["a", "high"]) == pytest.approx((low, high))
    # one dialogue: a mean without an interval, and the reason
    assert np.isnan(table.at["b", "low"]) and "only 1 item" in table.at["b", "note"]


def test_separation_at_the_full_data_is_the_z_test_and_needs_a_difference() -> None:
    rng = np.random.default_rng(3)
    turns = np.full(30, 8)
    a = np.column_stack([rng.binomial(8, 0.1, 30), turns])
    b = np.column_stack([rng.binomial(8, 0.5, 30), turns])
    found = separation(a, b, draws=50, seed=4)
    # at n = 30 every draw holds all dialogues: the share rejecting is the full-data test's verdict
    _, p = proportions_ztest([a[:, 0].sum(), b[:, 0].sum()], [240, 240])
    assert found["paper_n"] == 30 and found["at_paper"] == float(p < 0.05) == 1.0
    assert 2 <= found["needed"] < 30
    assert found == separation(a, b, draws=50, seed=4)  # seeded
    same = separation(a, a, draws=50, seed=4)
    assert same["needed"] is None and same["at_paper"] == 0.0
    short = separation(a[:1], b, draws=50)
    assert short["needed"] is None and "fewer than 2 dialogues" in short["reason"]
    one_system = pd.DataFrame({"dialogue": ["d1"], "system": ["a"], "count": [1], "turns": [2]})
    assert sensitivity(one_system).empty


def _adjusted_r2(y: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """R-squared and adjusted R-squared of least squares with an intercept, by hand."""
    design = np.column_stack([np.ones(len(y)), x])
    residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    r2 = 1 - residual @ residual / ((y - y.mean()) @ (y - y.mean()))
    n, k = x.shape
    return r2, 1 - (1 - r2) * (n - 1) / (n - k - 1)


def test_predictive_validity_equals_least_squares_by_hand() -> None:
    rng = np.random.default_rng(5)
    rates = pd.DataFrame(rng.random((40, 3)), columns=["x", "y", "z"])
    quality = 3 - 2 * rates["x"].to_numpy() + 0.5 * rates["y"].to_numpy() + rng.normal(0, 0.3, 40)
    found = univariate(rates, quality).set_index("behaviour")
    for column in rates.columns:
        r = np.corrcoef(rates[column], quality)[0, 1]
        assert found.at[column, "r_squared"] == pytest.approx(r * r)
    steps = stepwise(rates, quality).set_index("predictors")
    # with 3 predictors the beam (k = 100) holds every subset: each size's best by hand
    for size in (3, 2, 1):
        subsets = itertools.combinations(rates.columns, size)
        fits = {s: _adjusted_r2(quality, rates[list(s)].to_numpy()) for s in subsets}
        best = max(fits, key=lambda s: fits[s][1])
        assert steps.at[size, "behaviours"] == sorted(best)
        assert (steps.at[size, "r_squared"], steps.at[size, "adjusted"]) == pytest.approx(
            fits[best]
        )
    assert steps.at[1, "behaviours"] == ["x"] and steps.at[1, "all_contribute"]
    assert steps.at[3, "dropped"] == [] and steps.at[2, "dropped"] == ["z"]


def _mcfadden(x: np.ndarray, y: np.ndarray) -> float:
    """McFadden's pseudo-R-squared of a logistic regression with an intercept, by hand."""

    def negative_log_likelihood(beta: np.ndarray) -> float:
        eta = beta[0] + beta[1] * x
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    fitted = minimize(negative_log_likelihood, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    p = y.mean()
    null = -len(y) * (p * np.log(p) + (1 - p) * np.log(1 - p))
    return 1 - fitted.fun / null


def test_mcfadden_and_its_stepwise_model_equal_a_logistic_fit_by_hand() -> None:
    rng = np.random.default_rng(7)
    differences = pd.DataFrame(rng.normal(0, 0.3, (60, 2)), columns=["x", "y"])
    chance = 1 / (1 + np.exp(-4 * differences["x"].to_numpy()))
    outcome = (rng.random(60) < chance).astype(float)
    found = univariate(differences, outcome, "logistic").set_index("behaviour")
    for column in differences.columns:
        expected = _mcfadden(differences[column].to_numpy(), outcome)
        assert found.at[column, "r_squared"] == pytest.approx(expected, rel=1e-5)
    steps = stepwise(differences, outcome, "logistic").set_index("predictors")
    assert steps.at[1, "r_squared"] == pytest.approx(found["r_squared"].max(), rel=1e-6)
    # adjusted pseudo-R-squared: 1 - (log-likelihood - k) / null log-likelihood
    p = outcome.mean()
    null = len(outcome) * (p * np.log(p) + (1 - p) * np.log(1 - p))
    log_likelihood = null * (1 - steps.at[1, "r_squared"])
    assert steps.at[1, "adjusted"] == pytest.approx(1 - (log_likelihood - 1) / null)
    separated = pd.DataFrame({"x": [-2.0, -1, -0.5, 0.5, 1, 2]})
    reason = univariate(separated, np.array([0.0, 0, 0, 1, 1, 1]), "logistic")["reason"][0]
    assert reason == "the predictors separate the outcomes perfectly"


def test_predictive_validity_undefined_without_dialogues_or_variance() -> None:
    two = pd.DataFrame({"x": [0.1, 0.2]})
    assert "at least 3 dialogues, there are 2" in univariate(two, np.array([1.0, 2.0]))["reason"][0]
    flat = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4]})
    reason = univariate(flat, np.full(4, 3.0))["reason"][0]
    assert reason == "every one of the dialogues has the same quality"
    with pytest.raises(ValueError, match="no behaviour varies"):
        stepwise(pd.DataFrame({"x": [0.5] * 5}), np.arange(5.0))


def test_likert_t_tests_equal_scipy_student_t() -> None:
    rng = np.random.default_rng(6)
    rows = pd.DataFrame(
        {
            "item_id": np.arange(50),
            "system": ["a"] * 20 + ["b"] * 30,
            "value": np.r_[rng.integers(1, 6, 20), rng.integers(2, 6, 30)].astype(float),
        }
    )
    [found] = likert_t_tests(rows).to_dict("records")
    a, b = rows["value"][:20], rows["value"][20:]
    expected = sps.ttest_ind(a, b, equal_var=True)
    assert found["t"] == pytest.approx(expected.statistic)
    assert found["p_value"] == pytest.approx(expected.pvalue)
    assert found["dof"] == expected.df == 48
    flat = rows.assign(value=3.0)
    assert likert_t_tests(flat)["reason"][0] == "every rating of both systems is the same"
    assert likert_t_tests(rows[rows["system"] == "a"]).empty


def test_labels_command_adds_the_dialogue_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, ratings, votes = _files(tmp_path)
    argv = ["--file", str(labels), "--ratings", str(ratings), "--quality", "quality"]
    argv += ["--comparisons", str(votes)]
    document = _json(capsys, *argv, "--draws", "20")
    table = pd.read_csv(labels)
    irrelevant = table[table["behaviour"] == "irrelevant"]
    shares = irrelevant.groupby(["system", "dialogue"])["value"].mean()
    rates = document["behaviours"]["irrelevant"]["dialogue_level"]["rates"]
    for row in rates:
        assert row["mean"] == pytest.approx(shares[row["system"]].mean())
    assert {row["system"] for row in rates} == set(SYSTEMS)
    sensitivity = document["behaviours"]["irrelevant"]["dialogue_level"]["sensitivity"]
    assert len(sensitivity) == 3 and all(row["paper_n"] == 12 for row in sensitivity)
    validity = document["predictive_validity"]["likert"]
    quality = pd.read_csv(ratings).query("aspect == 'quality'").set_index(["item", "system"])
    joined = shares.reset_index().set_index(["dialogue", "system"])["value"]
    y = quality["value"].loc[list(joined.index)].to_numpy(float)
    r = np.corrcoef(joined.to_numpy(), y)[0, 1]
    found = {u["behaviour"]: u for u in validity["univariate"]}
    assert found["irrelevant"]["r_squared"] == pytest.approx(r * r)
    assert validity["stepwise"][0]["predictors"] == 3
    comparative = document["predictive_validity"]["comparative"]
    decided = pd.read_csv(votes).query("outcome != 'tie'")
    assert comparative["n"] == len(decided) == 17
    difference = np.array(
        [joined[(i, a)] - joined[(i, b)] for i, a, b in decided.iloc[:, :3].to_numpy()]
    )
    found = {u["behaviour"]: u for u in comparative["univariate"]}
    expected_r2 = _mcfadden(difference, (decided["outcome"] == "a").to_numpy(float))
    assert found["irrelevant"]["r_squared"] == pytest.approx(expected_r2, rel=1e-4)
    [ab, *_] = document["predictive_validity"]["t_tests"]["quality"]
    by_system = quality.reset_index().groupby("system")["value"]
    expected = sps.ttest_ind(by_system.get_group("bot-a"), by_system.get_group("bot-b"))
    assert ab["t"] == pytest.approx(expected.statistic) and ab["dof"] == 22
    capsys.readouterr()
    assert main(["human", "labels", *argv, "--resamples", "20", "--draws", "20"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= LINE_WIDTH
    for section in (
        "rate per dialogue",
        "sensitivity:",
        "linear regression",
        "McFadden",
        "t-tests",
    ):
        assert section in out


def test_ratings_that_do_not_join_the_labels_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels, ratings, votes = _files(tmp_path)
    table = pd.read_csv(ratings)
    table.loc[0, "item"] = "elsewhere"
    table.to_csv(ratings, index=False)
    argv = ["human", "labels", "--file", str(labels), "--ratings", str(ratings)]
    assert main([*argv, "--quality", "quality"]) == 2
    error = capsys.readouterr().err
    assert "1 of 36 labelled dialogues have no dialogue-level 'quality' rating" in error
    assert "dialogue 'p0' of system 'bot-a'" in error and "Traceback" not in error
    assert main(argv) == 2  # two dialogue-level aspects and no --quality
    assert "name the quality rating with --quality" in capsys.readouterr().err
    assert main(["human", "labels", "--benchmark", "usr-topical", "--ratings", str(ratings)]) == 2
    assert "--ratings: only with --file" in capsys.readouterr().err
    table = pd.read_csv(votes)
    table.loc[3, "item"] = "nowhere"
    table.to_csv(votes, index=False)
    assert main(["human", "labels", "--file", str(labels), "--comparisons", str(votes)]) == 2
    error = capsys.readouterr().err
    assert "1 of 17 votes with a winner compare dialogues that are not labelled" in error
    assert "the first on item 'nowhere'" in error


def test_templates_give_undefined_analyses_with_their_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(render("labels"))
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(
        "item,system,aspect,value,annotator,level\n"
        "d1,bot-a,overall,4,w1,dialogue\nd2,bot-b,overall,2,w1,dialogue\n"
    )
    document = _json(capsys, "--file", str(labels), "--ratings", str(ratings))
    behaviours = document["behaviours"]
    split = "every labelled turn has evenly split labels"
    assert behaviours["irrelevant"]["dialogue_level"] == {"undefined": split}
    empathetic = behaviours["empathetic"]["dialogue_level"]
    assert empathetic["sensitivity"] == []  # one system labelled
    assert empathetic["rates"][0]["note"] == "only 1 item: no interval"
    validity = document["predictive_validity"]["likert"]
    assert validity["n"] == 1 and validity["stepwise"] is None
    [fit] = validity["univariate"]
    assert fit["r_squared"] is None and fit["reason"].endswith("at least 3 dialogues, there are 1")
    [test] = document["predictive_validity"]["t_tests"]["overall"]
    assert test["t"] is None and test["reason"] == "a system has fewer than 2 rated dialogues"
    # the ratings template rates another system on d1: no join
    ratings.write_text(render("ratings"))
    assert main(["human", "labels", "--file", str(labels), "--ratings", str(ratings)]) == 2
    assert "have no dialogue-level 'overall' rating" in capsys.readouterr().err
