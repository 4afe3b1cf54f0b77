"""Behaviour labels and ratings from a user's files: formats, strict input and every statistic
against an independent implementation on the same data."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from comperbench.cli import main
from comperbench.human_io.labels import as_ratings, read_labels
from comperbench.human_io.ratings import read_ratings
from comperbench.human_io.templates import TEMPLATES, render
from comperbench.stats.human.judgments.label_analysis import analyse_labels, majority_labels
from comperbench.stats.human.judgments.rating_analysis import analyse_ratings
from comperbench.stats.settings import Resampling

SYSTEMS = ("bot-a", "bot-b", "bot-c")


def _labels(seed: int = 0) -> pd.DataFrame:
    """Three systems, 40 turns each, two behaviours, two annotators on every turn, who agree on
    most labels; bot-c is irrelevant more often."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, rate in zip(SYSTEMS, (0.15, 0.2, 0.45), strict=True):
        for dialogue in range(8):
            for turn in range(5):
                for behaviour, p in (("irrelevant", rate), ("empathetic", 0.5)):
                    truth = int(rng.random() < p)
                    for annotator in ("w1", "w2"):
                        value = truth if rng.random() < 0.85 else 1 - truth
                        rows.append(
                            {
                                "dialogue": f"{system}-d{dialogue}",
                                "turn": turn,
                                "system": system,
                                "behaviour": behaviour,
                                "value": value,
                                "annotator": annotator,
                            }
                        )
    return pd.DataFrame(rows)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    elif path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path


def _reliability(rows: pd.DataFrame) -> np.ndarray:
    """annotators x items matrix for the krippendorff package (NaN: not labelled)."""
    return rows.pivot_table(index="annotator", columns="item_id", values="value").to_numpy(float)


def test_label_rates_tests_and_alpha_equal_independent_implementations(tmp_path: Path) -> None:
    labels = read_labels(_write(_labels(), tmp_path / "labels.csv"))
    rows = as_ratings(labels)
    irrelevant = rows[rows["aspect"] == "irrelevant"]
    items, split = majority_labels(irrelevant)
    found = analyse_labels(
        items["system"].to_numpy(object),
        items["value"].to_numpy(),
        "irrelevant",
        split=split,
        individual=irrelevant,
        resampling=Resampling(200, ci="bca"),
    )
    # majority of two labels: agreeing pairs only; split pairs are counted and left out
    per_item = irrelevant.groupby("item_id")["value"].agg(["mean", "first"])
    assert split == int((per_item["mean"] == 0.5).sum()) > 0
    for system in SYSTEMS:
        mine = items[items["system"] == system]["value"]
        row = found.rates.loc[system]
        assert (row["n"], row["count"]) == (len(mine), int(mine.sum()))
        low, high = proportion_confint(int(mine.sum()), len(mine), method="wilson")
        assert (row["low"], row["high"]) == pytest.approx((low, high))
    pair = found.tests.iloc[0]
    a, b = found.rates.loc[pair["system_a"]], found.rates.loc[pair["system_b"]]
    z, p = proportions_ztest([a["count"], b["count"]], [a["n"], b["n"]])
    assert (pair["z"], pair["p_value"]) == pytest.approx((z, p))
    ref = krippendorff.alpha(_reliability(irrelevant), level_of_measurement="nominal")
    assert found.agreement.value == pytest.approx(ref)
    ci = found.agreement.ci
    assert ci.method == "bca" and ci.low < found.agreement.value < ci.high
    assert "resample:bootstrap-bca|n:200" in found.agreement.signature


def test_labels_read_alike_from_csv_jsonl_and_parquet(tmp_path: Path) -> None:
    frame = _labels(1)
    tables = [
        read_labels(_write(frame, tmp_path / f"l{s}")) for s in (".csv", ".jsonl", ".parquet")
    ]
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other)


def test_labels_command_prints_each_behaviour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(_labels(), tmp_path / "labels.csv")
    assert main(["human", "labels", "--file", str(path), "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "== empathetic" in out and "== irrelevant" in out
    assert "Krippendorff's alpha (nominal) on 120 items labelled twice or more" in out
    assert "adjusted p: Holm (family-wise error rate) over 3 z-tests" in out
    argv = ["human", "labels", "--file", str(path), "--resamples", "50", "--json"]
    assert main([*argv, "--expected", "0.2"]) == 0
    payload = json.loads(capsys.readouterr().out)
    irrelevant = payload["behaviours"]["irrelevant"]
    row = next(r for r in irrelevant["expected"] if r["system"] == "bot-c")
    assert row["p_value"] == pytest.approx(sps.binomtest(row["successes"], row["n"], 0.2).pvalue)
    assert irrelevant["agreement"]["ci"]["method"] == "bca"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value": "2"}, "line 3, field 'value': label '2' is not 0 or 1"),
        ({"value": "yes"}, "line 3, field 'value': label 'yes' is not 0 or 1"),
        ({"value": ""}, "line 3, field 'value': label '(missing)' is not 0 or 1"),
        ({"system": ""}, "line 3, field 'system': missing system"),
        ({"annotator": "w1"}, "line 3, field 'annotator': annotator 'w1' labels 'irrelevant'"),
    ],
)
def test_bad_labels_name_the_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, message: str
) -> None:
    frame = _labels().head(4).astype({"value": object})
    for field, value in change.items():
        frame.loc[1, field] = value
    path = _write(frame, tmp_path / "labels.csv")
    assert main(["human", "labels", "--file", str(path)]) == 2
    captured = capsys.readouterr()
    assert f"file {path}, {message}" in captured.err
    assert captured.out == ""


def test_a_repeated_label_names_the_first_line(tmp_path: Path) -> None:
    frame = _labels().head(4)
    frame.loc[3] = frame.loc[0]
    with pytest.raises(ValueError, match=r"line 5, field 'annotator'.*\(first at line 2\)"):
        read_labels(_write(frame, tmp_path / "labels.csv"))


def _ratings(seed: int = 0) -> pd.DataFrame:
    """Three systems rate-able 1-5 on 30 prompts by three annotators, turn level, plus a
    dialogue-level aspect."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, shift in zip(SYSTEMS, (0.0, 0.5, 1.0), strict=True):
        for prompt in range(30):
            quality = 2.5 + shift + rng.normal(0, 0.8)
            for annotator in ("w1", "w2", "w3"):
                value = int(np.clip(round(quality + rng.normal(0, 0.6)), 1, 5))
                rows.append((f"p{prompt}", system, "engaging", value, annotator, "turn"))
        for annotator in ("w1", "w2"):
            rows.append(("d1", system, "overall", 3 + SYSTEMS.index(system), annotator, "dialogue"))
    return pd.DataFrame(rows, columns=["item", "system", "aspect", "value", "annotator", "level"])


def test_rating_agreement_and_means_equal_independent_implementations(tmp_path: Path) -> None:
    ratings = read_ratings(_write(_ratings(), tmp_path / "ratings.csv"))
    engaging = ratings[ratings["aspect"] == "engaging"]
    found = analyse_ratings(engaging, "engaging", resampling=Resampling(100))
    values = {r.statistic: r.value for r in found.agreement}
    matrix = _reliability(engaging)
    for level in ("interval", "ordinal"):
        ref = krippendorff.alpha(matrix, level_of_measurement=level)
        assert values[f"alpha-{level}"] == pytest.approx(ref)
    for system in SYSTEMS:
        item_means = engaging[engaging["system"] == system].groupby("item_id")["value"].mean()
        low, high = sps.t.interval(
            0.95, item_means.size - 1, loc=item_means.mean(), scale=sps.sem(item_means)
        )
        row = found.means.loc[system]
        assert (row["items"], row["ratings"]) == (30, 90)
        assert (row["mean"], row["low"], row["high"]) == pytest.approx(
            (item_means.mean(), low, high)
        )
    assert list(found.means.index) == ["bot-c", "bot-b", "bot-a"]


def test_ratings_command_reports_each_level_and_aspect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(_ratings(), tmp_path / "ratings.jsonl")
    assert main(["human", "ratings", "--file", str(path), "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "== engaging (turn level)" in out and "== overall (dialogue level)" in out
    # one dialogue-level item per system: no interval, and too few items said out loud
    assert "only 3 items resampled" in out
    assert main(["human", "ratings", "--file", str(path), "--resamples", "50", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {(a["level"], a["aspect"]) for a in payload["aspects"]} == {
        ("dialogue", "overall"),
        ("turn", "engaging"),
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value": "nan"}, "field 'value': rating 'nan' is not a finite number"),
        ({"value": "good"}, "field 'value': rating 'good' is not a finite number"),
        ({"level": "episode"}, "field 'level': unknown level 'episode'"),
        ({"annotator": "w1"}, "field 'annotator': annotator 'w1' rates 'engaging'"),
    ],
)
def test_bad_ratings_name_the_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, message: str
) -> None:
    frame = _ratings().head(3).astype({"value": object})
    for field, value in change.items():
        frame.loc[1, field] = value
    path = _write(frame, tmp_path / "ratings.csv")
    assert main(["human", "ratings", "--file", str(path)]) == 2
    captured = capsys.readouterr()
    assert f"file {path}, line 3, {message}" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("kind", list(TEMPLATES))
def test_each_template_runs_through_its_command(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for suffix in (".csv", ".jsonl"):
        if kind == "vote-counts" and suffix == ".jsonl":
            continue  # vote counts are read from CSV only
        path = tmp_path / f"{kind}{suffix}"
        assert main(["human", "template", kind, "--out", str(path)]) == 0
        assert path.read_text(encoding="utf-8") == render(kind, suffix)
        command = TEMPLATES[kind].command
        argv = ["human", command, "--file", str(path), "--resamples", "20"]
        if command in ("votes", "selections"):
            argv += ["--permutations", "20"]
        capsys.readouterr()
        assert main(argv) == 0, capsys.readouterr().err


def test_a_template_never_overwrites_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("mine\n", encoding="utf-8")
    assert main(["human", "template", "votes", "--out", str(path)]) == 2
    assert "exists" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "mine\n"


def test_a_benchmark_aspect_gets_the_alpha_of_its_individual_labels(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.benchmark import load_benchmark

    bench = load_benchmark("usr-topical", data_dir=data_root)
    ratings = bench.ratings()
    understandable = ratings[ratings["aspect"] == "understandable"]
    argv = ["human", "labels", "--benchmark", "usr-topical", "--aspect", "understandable"]
    assert main([*argv, "--resamples", "100", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["behaviours"]["understandable"]["agreement"]
    matrix = understandable.pivot_table(
        index="annotator", columns="item_id", values="value"
    ).to_numpy(float)
    assert found["value"] == pytest.approx(
        krippendorff.alpha(matrix, level_of_measurement="nominal")
    )
    assert found["n_items"] == 360


def test_ratings_over_too_few_units_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text(render("votes"), encoding="utf-8")
    argv = ["human", "votes", "--file", str(path), "--resamples", "20", "--permutations", "20"]
    assert main(argv) == 0
    assert "note: Elo: only 2 items resampled" in capsys.readouterr().out


def test_a_two_item_system_mean_says_its_interval_is_not_informative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two items of equal mean 1.5: the t interval is [1.5, 1.5], over too few items to mean it
    rows = [
        {
            "level": "turn",
            "item": item,
            "system": "bot-a",
            "aspect": "engaging",
            "annotator": annotator,
            "value": value,
        }
        for item in ("i1", "i2")
        for annotator, value in (("w1", 1), ("w2", 2))
    ]
    path = _write(pd.DataFrame(rows), tmp_path / "ratings.csv")
    means = analyse_ratings(read_ratings(path), "engaging", resampling=Resampling(20)).means
    row = means.loc["bot-a"]
    assert (row["mean"], row["low"], row["high"]) == (1.5, 1.5, 1.5)
    assert row["note"] == "only 2 items: an interval over fewer than 10 is not informative"
    assert main(["human", "ratings", "--file", str(path), "--resamples", "20"]) == 0
    assert "note: bot-a: only 2 items: an interval over fewer than 10" in capsys.readouterr().out
    ten = pd.DataFrame([{**r, "item": f"{r['item']}-{k}"} for r in rows for k in range(5)])
    means = analyse_ratings(read_ratings(_write(ten, tmp_path / "ten.csv")), "engaging").means
    assert means.loc["bot-a", "items"] == 10 and means.loc["bot-a", "note"] is None
