"""Several benchmarks in one process: `evaluate([...])` and `evaluate --benchmark a,b|all`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import comperbench
from comperbench.cli import main
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation import Evaluations, RunOptions
from comperbench.evaluation import api as evaluation_api
from comperbench.metrics.embeddings import embedding

FRESH = RunOptions(cache=False)


def _sample(name: str, data_root: Path, n: int = 40) -> comperbench.Benchmark:
    return comperbench.load_benchmark(name, data_dir=data_root).sample(n, seed=3)


def test_a_list_gives_each_benchmark_the_table_it_gets_alone(data_root: Path) -> None:
    benchmarks = [_sample("usr-topical", data_root), _sample("fed-turn", data_root)]
    together = comperbench.evaluate(benchmarks, ["length", "f1"], run=FRESH)
    assert isinstance(together, Evaluations) and list(together) == ["usr-topical", "fed-turn"]
    for bench in benchmarks:
        alone = comperbench.evaluate(bench, ["length", "f1"], run=FRESH)
        pd.testing.assert_frame_equal(together[bench.name].to_pandas(), alone.to_pandas())
    assert [r["metric"] for r in together["fed-turn"].table.rows] == ["length"]  # no references
    frame = together.to_pandas()
    assert list(frame.columns[:4]) == ["benchmark", "level", "aspect", "metric"]
    assert sorted(frame.groupby("benchmark").size().items()) == [
        ("fed-turn", 1),
        ("usr-topical", 2),
    ]
    rows = {row[0]: row for row in together.summary_rows()}
    assert rows["usr-topical"][1:5] == ["turn", "overall", 40, 2]
    pearson = together["fed-turn"].table.rows[0]["pearson"]
    assert rows["fed-turn"][5:7] == [f"{pearson:.3f}"] * 2 and together.statistic() == "pearson"
    values = [r["pearson"] for r in together["usr-topical"].table.rows]
    assert rows["usr-topical"][5:7] == [f"{min(values):.3f}", f"{max(values):.3f}"]
    assert "Evaluations of 2 benchmarks" in repr(together)
    assert "<table>" in together._repr_html_()


def test_every_benchmark_is_planned_before_any_is_scored(
    data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scored: list[str] = []
    real = evaluation_api.run_metrics
    monkeypatch.setattr(
        evaluation_api,
        "run_metrics",
        lambda bench, *a, **k: scored.append(bench.name) or real(bench, *a, **k),
    )
    with pytest.raises(ComperbenchError, match=r"^fed-turn: .*uses_knowledge"):
        comperbench.evaluate(
            [_sample("usr-topical", data_root), _sample("fed-turn", data_root)],
            ["length"],
            aspect="uses_knowledge",  # USR's, not FED's
        )
    with pytest.raises(ComperbenchError, match="named twice"):
        comperbench.evaluate([_sample("usr-topical", data_root)] * 2, ["length"])
    with pytest.raises(ComperbenchError, match="one at a time"):
        comperbench.evaluate(["usr-topical"], scores=pd.DataFrame({"item_id": []}))
    assert scored == []


def test_the_encoder_is_loaded_once_for_several_benchmarks(data_root: Path) -> None:
    embedding._load_encoder.cache_clear()
    benchmarks = [_sample("usr-topical", data_root, 20), _sample("grade-convai2", data_root, 20)]
    together = comperbench.evaluate(benchmarks, ["context-cosine"], run=FRESH)
    assert all(e.result.runs[0].computed == 20 for e in together.values())
    assert embedding._load_encoder.cache_info().misses == 1


def _names(document: dict) -> list[str]:
    return [name for name in document["evaluations"]]


def test_the_command_writes_a_folder_per_benchmark_and_one_summary(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "evaluate",
        "--metrics",
        "length,f1",
        "--sample",
        "40",
        "--resamples",
        "50",
        "--no-cache",
    ]
    args += ["--data-dir", str(data_root)]
    out = tmp_path / "many"
    assert main([*args, "--benchmark", "usr-topical,fed-turn", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("== usr-topical (1 of 2) ==\n")
    assert "\n== fed-turn (2 of 2) ==\n" in printed and "== summary of 2 benchmarks ==" in printed
    summary = pd.read_csv(out / "summary.csv")
    assert sorted(zip(summary["benchmark"], summary["metric"], strict=True)) == [
        ("fed-turn", "length"),
        ("usr-topical", "f1"),
        ("usr-topical", "length"),
    ]
    folder = next(out.glob("usr-topical-turn-overall-sample40-*"))
    alone = tmp_path / "alone"
    assert main([*args, "--benchmark", "usr-topical", "--out", str(alone)]) == 0
    assert json.loads((folder / "table.json").read_text()) == json.loads(
        (alone / "table.json").read_text()
    )
    again = main([*args, "--benchmark", "usr-topical,fed-turn", "--out", str(out)])
    assert again == 0  # the same command replaces its own outputs


def test_all_takes_the_benchmarks_at_hand_that_have_the_level(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "all", "--level", "dialogue", "--metrics", "dialogue-length"]
    args += ["--sample", "30", "--resamples", "0", "--json", "--out", str(tmp_path)]
    assert main([*args, "--data-dir", str(data_root)]) == 0
    printed = capsys.readouterr()
    document = json.loads(printed.out)
    assert _names(document) == ["dstc9", "fed-dialogue"]
    assert "left out, raw files missing: comperdial, soda-eval" in printed.err
    assert "left out, no dialogue level: dailydialog-gupta," in printed.err
    assert document["summary"] == str(tmp_path / "summary.csv")


def test_a_benchmark_no_metric_can_run_on_is_left_out_and_said(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical,fed-turn", "--metrics", "f1", "--limit", "20"]
    args += ["--resamples", "0", "--out", str(tmp_path), "--data-dir", str(data_root)]
    assert main(args) == 0
    printed = capsys.readouterr()
    assert "left out: no metric can run on fed-turn: f1: needs references" in printed.err
    assert "left out fed-turn: no metric can run on it" in printed.out
    assert list(pd.read_csv(tmp_path / "summary.csv")["benchmark"]) == ["usr-topical"]
