"""The human ceiling beside the metrics in `evaluate`: table, JSON, text and HTML, set apart."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import comperbench
from comperbench import Evaluation, Resampling
from comperbench.benchmark import load_benchmark
from comperbench.cli import main
from comperbench.stats import benchmark_ceiling
from comperbench.stats.annotator_agreement.ceiling import LABEL

RESAMPLES = 100


@pytest.fixture(scope="module")
def evaluation(data_root: Path) -> Evaluation:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    return comperbench.evaluate(bench, ["meteor", "length"], resampling=Resampling(RESAMPLES))


def test_the_ceiling_is_a_reference_row_on_the_reference_free_items(
    evaluation: Evaluation, data_root: Path
) -> None:
    """Every system is kept (the protocol leaves out the ground truth only for metrics needing
    references), and the row is not one of the metrics'."""
    bench = load_benchmark("usr-topical", data_dir=data_root)
    expected = benchmark_ceiling(
        bench, "overall", statistic="spearman", resampling=Resampling(resamples=RESAMPLES)
    )
    found = evaluation.table.ceilings["spearman"]
    assert found.value == expected.value and found.ci == expected.ci and found.n == 360
    row = evaluation.table.ceiling_row()
    assert row is not None and row["metric"] == LABEL and row["reference"] is True
    assert row["spearman"] == expected.value and row["spearman_annotators"] == 5
    assert list(evaluation.to_pandas()["metric"]) == ["meteor", "length"]
    assert [r["metric"] for r in evaluation.table.rows] == ["meteor", "length"]
    meteor = evaluation.to_pandas().set_index("metric").at["meteor", "spearman"]
    assert 0 < meteor < found.value


def test_json_carries_the_ceiling(
    evaluation: Evaluation, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "meteor,length", "--json"]
    args += ["--resamples", str(RESAMPLES), "--data-dir", str(data_root)]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    document = json.loads(capsys.readouterr().out)
    ceiling = document["human_ceiling"]
    assert ceiling["metric"] == LABEL and ceiling["n"] == 360
    for statistic in ("pearson", "spearman", "kendall-b"):
        assert ceiling[statistic] == evaluation.table.ceilings[statistic].value
        assert "ceiling:leave-one-annotator-out" in ceiling[f"{statistic}_signature"]
    assert LABEL not in [row["metric"] for row in document["rows"]]


def test_text_sets_the_row_apart_under_the_metrics(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "meteor,length"]
    args += ["--resamples", str(RESAMPLES), "--data-dir", str(data_root), "-v"]
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(LABEL + "  "))
    assert lines[row - 1].startswith("-----") and lines[row - 2].startswith("length ")
    assert lines[row][len(LABEL) :].split()[0] == "360"
    assert any(line.startswith(f"{LABEL}: each annotator's scores correlated") for line in lines)
    assert any(line.startswith(f"{LABEL}: stat:spearman-ceiling|") for line in lines)
    prose = [line for line in lines if "stat:" not in line and not line.startswith("metric ")]
    assert max(map(len, prose)) <= 120  # signatures (-v) are printed whole


def test_the_report_shows_the_row_and_the_line(evaluation: Evaluation, tmp_path: Path) -> None:
    text = evaluation.report(tmp_path / "report.html").read_text()
    reference = text.split('<tbody class="reference">', 1)[1].split("</tbody>", 1)[0]
    assert f"<td>{LABEL}</td>" in reference and "<td>360</td>" in reference
    value = evaluation.table.ceilings["pearson"].value
    assert f"{LABEL} {value:.3f}" in text  # the forest plot's reference line


def test_grouped_and_unrated_benchmarks_say_why_there_is_none(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--metrics", "length", "--resamples", "0", "--data-dir", str(data_root)]
    for benchmark, extra, why in (
        ("usr-topical", ["--grouped"], "not within dialogues"),
        ("dailydialog-gupta", [], "no individual ratings of overall"),
    ):
        args = ["evaluate", "--benchmark", benchmark, *common, *extra]
        assert main([*args, "--out", str(tmp_path / benchmark)]) == 0
        out = capsys.readouterr().out
        assert f"\n{LABEL}  " not in out
        text = " ".join(out.split())  # notes are wrapped at 120 characters
        assert f"note: {LABEL}: not available: " in text and why in text
    table = json.loads((tmp_path / "dailydialog-gupta" / "table.json").read_text())
    assert "no individual ratings" in table["human_ceiling"]["reason"]


def test_without_resamples_the_ceiling_has_no_interval(data_root: Path) -> None:
    bench = load_benchmark("usr-persona", data_dir=data_root)
    found = comperbench.evaluate(bench, ["length"], resampling=Resampling(resamples=0))
    ceiling = found.table.ceilings["pearson"]
    assert ceiling.ci is None and not math.isnan(ceiling.value) and ceiling.n == 300
