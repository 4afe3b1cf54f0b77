"""`evaluate` with LLM judges: quick runs on a sample or the first items, judge options, and the
judges' explanations and issue reports in the outputs (against the chat-completions test server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from comperbench import load_benchmark, metrics
from comperbench.cli import main
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation.judges import explanation_column
from comperbench.selection import stratified_rows

pytestmark = pytest.mark.usefixtures("judge_server")

FIXTURES = Path(__file__).parent / "fixtures"
QUICK = ["--resamples", "100"]


def _soda_root(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "soda_eval", root / "soda_eval")
    return root


def _evaluate(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["evaluate", *args, *QUICK])
    return status, capsys.readouterr().out


def test_stratified_allocation_by_hand() -> None:
    systems = ["A"] * 6 + ["B"] * 3 + ["C"]
    rows = stratified_rows(systems, 5, seed=0)
    # quotas 3, 1.5, 0.5: floors 3, 1, 0; the one left goes to the larger remainder, B before C
    assert [systems[i] for i in rows].count("A") == 3
    assert [systems[i] for i in rows].count("B") == 2 and list(rows) == sorted(rows)
    assert list(stratified_rows(systems, 5, seed=0)) == list(rows)


def test_a_sample_is_seeded_stratified_recorded_and_cited(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "cpdscore-simple[http:seeded,n=1]"
    base = ["--benchmark", "holistic-context", "--metrics", spec, "--data-dir", str(data_root)]
    status, out = _evaluate([*base, "--sample", "20", "--out", str(tmp_path / "a"), "-v"], capsys)
    assert status == 0
    assert "items: a sample of 20 of 200 items (seed 0, stratified by system" in out
    document = json.loads((tmp_path / "a" / "table.json").read_text())
    selection = document["selection"]
    assert selection["kind"] == "sample" and len(selection["item_ids"]) == 20
    assert f"~sample:20/200,seed:0,ids:{selection['ids_sha256']}" in out
    assert all(selection["ids_sha256"] in s["signature"] for s in document["signatures"])
    full = load_benchmark("holistic-context", data_dir=data_root)
    shares = full.to_pandas()["system"].value_counts(normalize=True)
    for system, count in selection["strata"].items():
        assert abs(count - 20 * shares[system]) < 1
    assert document["run"]["judge_options"] == {}
    _evaluate([*base, "--sample", "20", "--out", str(tmp_path / "b")], capsys)
    again = json.loads((tmp_path / "b" / "table.json").read_text())["selection"]
    assert again["item_ids"] == selection["item_ids"]
    _evaluate([*base, "--sample", "20", "--sample-seed", "1", "--out", str(tmp_path / "c")], capsys)
    other = json.loads((tmp_path / "c" / "table.json").read_text())["selection"]
    assert other["item_ids"] != selection["item_ids"]


def test_limit_keeps_the_first_items(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--benchmark", "holistic-context", "--metrics", "cpdscore-simple[http:plain,n=1]"]
    args += ["--data-dir", str(data_root), "--limit", "5", "--out", str(tmp_path / "out")]
    status, out = _evaluate(args, capsys)
    assert status == 0 and "items: the first 5 of 200 items (in table order" in out
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet")
    first = load_benchmark("holistic-context", data_dir=data_root).item_ids[:5]
    assert scores["item_id"].tolist() == first


@pytest.mark.parametrize(
    ("option", "message"), [("0", "--sample: 0 is out of range"), ("200", "every one")]
)
def test_a_sample_of_nothing_or_everything_is_refused(
    data_root: Path, option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--benchmark", "holistic-context", "--metrics", "length", "--sample", option]
    try:
        status = main(["evaluate", *args, "--data-dir", str(data_root)])
    except SystemExit as refused:  # as it is parsed
        status = refused.code
    assert status == 2
    assert message in capsys.readouterr().err


def test_a_sample_is_not_sampled_again(data_root: Path) -> None:
    sample = load_benchmark("holistic-context", data_dir=data_root).sample(10)
    with pytest.raises(ComperbenchError, match="already a sample"):
        sample.head(3)


def test_judge_options_on_the_command_line(
    server: str, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--benchmark", "holistic-context", "--metrics", "cpdscore-simple[n=1]", "--limit", "3"]
    args += ["--judge-model", "http:plain", "--judge-url", server, "--judge-concurrency", "2"]
    args += ["--data-dir", str(data_root), "--out", str(tmp_path / "out")]
    status, out = _evaluate(args, capsys)
    name = "cpdscore-simple[http:plain,n=1,t=0.7,seed=0,prompt=1]"
    assert status == 0 and name in out
    document = json.loads((tmp_path / "out" / "table.json").read_text())
    assert document["metrics"][name]["config"]["url"] == server
    assert document["run"]["judge_options"]["judge_concurrency"] == "2"


def test_soda_eval_explanations_issue_rates_and_detection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "soda-eval[http:soda-text]"
    name = metrics.get(spec).name
    args = ["--benchmark", "soda-eval", "--metrics", spec, "--data-dir", str(_soda_root(tmp_path))]
    status, out = _evaluate([*args, "--out", str(tmp_path / "out")], capsys)
    assert status == 0
    assert f"note: {name}: first answers unusable: 0 of 8 (0.0%)" in out
    assert "repetition  soda    1/8    12.5%  [2.2%, 47.1%]" in out
    scores = pd.read_parquet(tmp_path / "out" / "scores.parquet").set_index("item_id")
    said = json.loads(scores.loc["soda-eval/test/40/0003", explanation_column(name)])
    [call] = said["calls"]
    assert call["issues"] == [{"type": "repetition", "explanation": "says it again"}]
    assert call["comment"] == "A reply." and call["score"] == 2.0
    issues = json.loads((tmp_path / "out" / "table.json").read_text())["metrics"][name]["issues"]
    repetition = next(r for r in issues["rates"] if r["issue"] == "repetition")
    assert (repetition["count"], repetition["n"]) == (1, 8) and repetition["rate"] == 0.125
    detected = {d["issue"]: d for d in issues["detection"]}
    rep = detected["repetition"]
    assert (rep["true_positives"], rep["false_positives"], rep["false_negatives"]) == (1, 0, 0)
    assert rep["precision"] == 1.0 and rep["recall"] == 1.0 and rep["f1"] == 1.0
    fluency = detected["fluency"]  # labelled once, never flagged: precision undefined
    assert fluency["precision"] is None and fluency["recall"] == 0.0 and fluency["f1"] == 0.0
    assert "issue detection against GPT-4's issue labels (annotator gpt-4), not human" in out
    assert issues["labels"].startswith("GPT-4's issue labels")
    assert "note: F1 intervals: only 8 items resampled" in out
    # every item has the judge's "A reply." and GPT-4's comment: 8 pairs of each part
    agreement = issues["explanations"]
    assert {part: a["pairs"] for part, a in agreement.items()} == {
        "issues and overall comment": 8,
        "overall comment": 8,
    }
    assert agreement["overall comment"]["semantic_metric"].startswith("bertscore-f1[")
    assert "explanations against GPT-4's comments of the same responses" in out


def test_explanation_agreement_is_undefined_without_gpt4_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.evaluation.judges import explanation_report
    from comperbench.metrics.runner import run_metrics

    bench = load_benchmark("soda-eval", data_dir=_soda_root(tmp_path), cache=False)
    result = run_metrics(bench, [metrics.get("soda-eval[http:soda-text]")])
    report = explanation_report(result, result.runs[0], tmp_path / "no-data")
    assert report["overall comment"]["pairs"] == 0
    assert report["overall comment"]["undefined"].startswith("GPT-4's comments cannot be read")


def test_explanations_come_back_when_every_score_is_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_server import Handler

    spec = "soda-eval[http:soda-text]"
    args = ["--benchmark", "soda-eval", "--metrics", spec, "--data-dir", str(_soda_root(tmp_path))]
    _evaluate([*args, "--out", str(tmp_path / "first")], capsys)
    asked = len(Handler.seen)
    status, out = _evaluate([*args, "--out", str(tmp_path / "second")], capsys)
    assert status == 0 and "0 scores computed, 8 from the cache" in out
    assert len(Handler.seen) == asked
    first = pd.read_parquet(tmp_path / "first" / "scores.parquet")
    second = pd.read_parquet(tmp_path / "second" / "scores.parquet")
    pd.testing.assert_frame_equal(first, second)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--metrics", "cpdscore-simple[colour=red]"], "unknown judge option 'colour'"),
        (["--metrics", "cpdscore-simple", "--judge-timeout", "soon"], "judge option 'timeout'"),
        (["--metrics", "cpdscore-simple", "--judge-url", "http://x"], "apply to a server"),
    ],
)
def test_bad_judge_options_end_the_run_with_a_clear_error(
    data_root: Path, options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "holistic-context", *options, "--data-dir", str(data_root)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
