"""`comperbench.evaluate` and the `evaluate` command agree; the user's own scores; the figures
of an evaluation; the HTML reports; the quiet table of `evaluate`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import comperbench
from comperbench import Evaluation, Resampling
from comperbench.cli import main
from comperbench.common.errors import ComperbenchError, DataFormatError
from comperbench.evaluation import GivenScores

METRICS = ["meteor", "length"]
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


@pytest.fixture(scope="module")
def evaluation(data_root: Path) -> Evaluation:
    return comperbench.evaluate(_usr_topical(data_root), METRICS)


def _usr_topical(data_root: Path) -> comperbench.Benchmark:
    return comperbench.load_benchmark("usr-topical", data_dir=data_root)


def _cli_document(data_root: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", ",".join(METRICS)]
    assert main([*args, "--out", str(out), "--data-dir", str(data_root), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_python_and_the_command_give_the_same_table(
    evaluation: Evaluation, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _cli_document(data_root, tmp_path / "cli", capsys)
    frame = evaluation.to_pandas().set_index("metric")
    assert list(frame.index) == METRICS
    assert frame.at["meteor", "n"] == 300 and frame.at["length", "n"] == 360  # the protocol
    assert frame.at["meteor", "protocol_excluded"] == "Original Ground Truth"
    signatures = {
        (s["statistic"], tuple(s["protocol_excluded"])): s["signature"]
        for s in document["signatures"]
    }
    for row in document["rows"]:
        name = row["metric"]
        assert frame.at[name, "n"] == row["n"]
        for statistic in ("pearson", "spearman", "kendall-b"):
            assert frame.at[name, statistic] == row[statistic]
            assert [
                frame.at[name, f"{statistic}_ci_low"],
                frame.at[name, f"{statistic}_ci_high"],
            ] == (row[f"{statistic}_ci"])
            assert frame.at[name, f"{statistic}_p"] == row[f"{statistic}_p"]
            signature = signatures[(statistic, tuple(row["protocol_excluded"]))]
            assert frame.at[name, f"{statistic}_signature"] == signature
            assert f"bench:usr-topical@{document['fingerprint']}" in signature
    assert evaluation.document()["run"] == document["run"]
    assert json.loads(json.dumps(evaluation.document()["rows"])) == document["rows"]


def test_top_level_import_stays_light() -> None:
    code = (
        "import sys, comperbench\n"
        "assert 'matplotlib' not in sys.modules\n"
        "assert 'comperbench.evaluation.api' not in sys.modules\n"
        "from comperbench import evaluate, Evaluation, RunOptions, Resampling\n"
        "assert evaluate.__module__ == 'comperbench.evaluation.api'\n"
        "assert 'matplotlib' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_own_scores_give_the_table_of_the_metric_that_made_them(
    evaluation: Evaluation, data_root: Path
) -> None:
    items = evaluation.result.item_frame()
    own = comperbench.evaluate(_usr_topical(data_root), scores=items[["item_id", "meteor"]])
    assert own.table.rows[0]["n"] == 300  # taken to need references, as meteor does
    for key in ("pearson", "pearson_ci", "spearman_p"):
        assert own.table.rows[0][key] == evaluation.table.rows[0][key]
    series = {"mine": items.set_index("item_id")["meteor"]}
    free = comperbench.evaluate(
        _usr_topical(data_root),
        scores=GivenScores(series, reference_free=True),
        resampling=Resampling(resamples=0),
    )
    assert free.table.rows[0]["metric"] == "mine" and free.table.rows[0]["n"] == 360


def test_own_scores_are_checked_against_the_items(evaluation: Evaluation, data_root: Path) -> None:
    items = evaluation.result.item_frame()[["item_id", "meteor"]]
    unknown = pd.concat([items, pd.DataFrame({"item_id": ["nope"], "meteor": [0.5]})])
    with pytest.raises(DataFormatError, match=r"^scores, row 360: item_id 'nope' is not an item"):
        comperbench.evaluate(_usr_topical(data_root), scores=unknown)
    with pytest.raises(
        DataFormatError, match=r"^scores\['m'\]: 1 item\(s\) of usr-topical have no scores"
    ):
        short = {"m": items.set_index("item_id")["meteor"].iloc[1:]}
        comperbench.evaluate(_usr_topical(data_root), scores=short)
    with pytest.raises(ComperbenchError, match="give metrics or scores, not both"):
        comperbench.evaluate(_usr_topical(data_root), ["meteor"], scores=items)


def _texts(figure) -> list[str]:
    return [t.get_text() for ax in figure.axes for t in ax.texts]


def test_scatter_draws_the_left_out_system_apart(evaluation: Evaluation) -> None:
    points = evaluation.system_points("meteor")
    assert points["left_out"].sum() == 1 and points.loc["Original Ground Truth", "left_out"]
    scatter = evaluation.plot_scatter("meteor")
    assert "Original Ground Truth (left out)" in _texts(scatter)
    annotation = scatter.axes[0].get_legend().get_title().get_text()
    assert "n = 5 systems" in annotation
    kept = points[~points["left_out"]]
    r = np.corrcoef(kept["metric"], kept["human"])[0, 1]
    assert annotation.startswith(f"Pearson r = {r:.3f} [")
    assert not evaluation.system_points("length")["left_out"].any()  # needs no references


def test_forest_and_significance_figures(evaluation: Evaluation) -> None:
    forest = evaluation.plot_forest("spearman")
    assert [t.get_text() for t in forest.axes[0].get_yticklabels()] == METRICS
    verdicts = evaluation.significance("pearson")
    sig, adjusted = verdicts.matrix, verdicts.adjusted
    assert sig.n == 300 and "~without:original-ground-truth" in sig.signature
    assert np.isnan(np.diag(adjusted)).all() and (adjusted[~np.eye(2, dtype=bool)] >= 0).all()
    chart = evaluation.plot_significance("pearson")
    labels = [t.get_text() for t in chart.axes[0].get_yticklabels()]
    assert labels == verdicts.metrics
    with pytest.raises(ComperbenchError, match="acc-eq was not computed"):
        evaluation.plot_forest("acc-eq")


def test_report_is_one_self_contained_page(evaluation: Evaluation, tmp_path: Path) -> None:
    path = evaluation.report(tmp_path / "report.html")
    text = path.read_text()
    assert text.count("<svg") == 4  # forest, two scatter plots, significance heatmap
    assert "<table>" in text and "<td>meteor</td>" in text and "<td>300</td>" in text
    assert "<script" not in text and "<link" not in text
    assert set(re.findall(r"https?://[^\"'\s<>)]+", text)) <= NAMESPACES
    assert "Original Ground Truth (left out)" in text
    assert evaluation.benchmark.fingerprint in text and "stat:pearson|" in text
    with pytest.raises(ComperbenchError, match="exists; choose another name"):
        evaluation.report(path)


def test_evaluate_prints_the_table_first_and_short_lines(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4,length", "--grouped"]
    args += ["--statistics", "pearson,acc-eq", "--resamples", "100", "--data-dir", str(data_root)]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 120, [line for line in lines if len(line) > 120]
    table = lines.index(next(line for line in lines if line.startswith("metric  n ")))
    notes = [i for i, line in enumerate(lines) if line.startswith("note: ")]
    assert notes and table < min(notes)
    assert any(line.startswith("protocol: ") for line in lines[:table])
    assert not any("stat:pearson" in line or line.startswith("metric bleu-4|") for line in lines)
    assert main([*args, "--out", str(tmp_path / "a"), "-v"]) == 0
    verbose = capsys.readouterr().out
    assert "stat:pearson-grouped" in verbose and "\nmetric bleu-4|sacrebleu==" in verbose


def test_report_options_write_new_pages_only(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--benchmark", "usr-topical", "--data-dir", str(data_root)]
    page = tmp_path / "evaluate.html"
    args = ["evaluate", *common, "--metrics", "length", "--resamples", "50"]
    assert main([*args, "--out", str(tmp_path / "a"), "--report", str(page)]) == 0
    assert "<svg" in page.read_text()
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "b"), "--report", str(page)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"comperbench: error: {page} exists; choose another name or remove it first"
    ]
    assert not (tmp_path / "b").exists()  # refused before scoring
    compare = tmp_path / "compare.html"
    args = ["compare", *common, "--metrics", "bleu-4,length", "--resamples", "50"]
    assert main([*args, "--report", str(compare)]) == 0
    text = compare.read_text()
    assert text.count("<svg") == 1 and "<td>bleu-4</td>" in text
    votes = tmp_path / "votes.html"
    args = ["human", "votes", *common, "--resamples", "20", "--permutations", "20"]
    assert main([*args, "--report", str(votes)]) == 0
    text = votes.read_text()
    assert text.count("<svg") == 5 and "Bradley-Terry" in text and "rank 1-1" in text
    assert "ChatEval scores" in text and "Major score of the row against the column" in text
    assert set(re.findall(r"https?://[^\"'\s<>)]+", text)) <= NAMESPACES


def test_correlation_table_names_the_benchmark_it_is_given(evaluation: Evaluation) -> None:
    from comperbench.stats import correlation_table

    bench = evaluation.benchmark
    scores = {"length": evaluation.result.item_frame()["length"].to_numpy()}
    (result,) = correlation_table(scores, bench.human_scores("overall"), benchmark=bench)
    assert f"|bench:usr-topical@{bench.fingerprint}|" in result.signature


def test_a_wide_table_is_split_by_statistic_and_long_names_shortened() -> None:
    from comperbench.report.evaluation_text import text_tables

    statistics = ("pearson", "spearman", "kendall-b")
    row = {"n": 300, "nan_scores": 2}
    for s in statistics:
        row |= {s: 0.25, f"{s}_ci": [0.1, 0.4], f"{s}_p": 0.0004}
    names = ["bertscore-f1[all-MiniLM-L6-v2:L6]", "cpdscore-simple[http:gpt-4o,n=5,seed=1,t=0.7]"]
    tables = text_tables([dict(row, metric=name) for name in names], statistics)
    assert len(tables) == 2
    assert all(len(line) <= 120 for text in tables for line in text.splitlines())
    first, second = (text.splitlines() for text in tables)
    assert first[0].split()[2:] == ["pearson", "95%", "CI", "p", "spearman", "95%", "CI", "p"]
    assert second[0].split() == ["metric", "n", "kendall-b", "95%", "CI", "p", "NaN"]
    assert first[2].split()[:4] == ["bertscore-f1[all-MiniLM-L6-v2:L6]", "300", "0.250", "[0.100,"]
    assert first[3].split()[0] == "cpdscore-simple[htt…4o,n=5,seed=1,t=0.7]"  # 40 characters
    assert first[2].split()[-1] == "<0.001" and second[2].split()[-1] == "2"


@pytest.mark.filterwarnings("error:.*is deprecated; use:DeprecationWarning")
def test_a_rerun_replaces_its_outputs_and_another_run_needs_overwrite(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    common = ["evaluate", "--resamples", "0", "--data-dir", str(data_root), "--out", str(out)]
    first = [*common, "--benchmark", "usr-persona", "--metrics", "length"]
    assert main(first) == 0
    assert main(first) == 0  # the same command: its own outputs, replaced
    capsys.readouterr()
    other = [*common, "--benchmark", "usr-topical", "--metrics", "length"]
    assert main(other) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"comperbench: error: {out / 'table.json'} holds the table of another run (it differs "
        "in: benchmark); replace it with --overwrite, or choose another folder with --out"
    )
    assert json.loads((out / "table.json").read_text())["benchmark"] == "usr-persona"
    assert main([*other, "--overwrite"]) == 0
    assert json.loads((out / "table.json").read_text())["benchmark"] == "usr-topical"
    capsys.readouterr()
    more = [*common, "--benchmark", "usr-topical", "--metrics", "length,bleu-2"]
    assert main(more) == 2
    assert "(it differs in: metrics); replace it with --overwrite" in capsys.readouterr().err
    assert main([*more, "--force"]) == 0  # the old spelling
    assert "--force is deprecated; use --overwrite" in capsys.readouterr().err
    assert len(json.loads((out / "table.json").read_text())["rows"]) == 2
