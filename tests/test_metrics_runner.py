"""The runner and `comperbench evaluate`: items from a benchmark, skips, NaN counts, tables."""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

from comperbench import load_benchmark
from comperbench.cli import main
from comperbench.cli.evaluate.output import item_table
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation.judges import explanation_columns
from comperbench.evaluation.run import evaluate_run
from comperbench.metrics import get
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import (
    RunResult,
    benchmark_items,
    default_suite,
    resolve_metrics,
    run_metrics,
    skip_reason,
)
from comperbench.stats.metric_correlation.contexts import system_unit_matrix
from comperbench.stats.metric_correlation.statistics import statistic_names
from comperbench.stats.pair_ranking.soft_pairwise_accuracy import soft_pairwise_accuracy
from comperbench.stats.settings import Resampling

NGRAM = "bleu-2,f1,length"


def correlation_rows(
    result: RunResult, aspect: str, **options: object
) -> tuple[list[dict], dict[str, str]]:
    """The rows of `evaluate_run` and the signature of each statistic (one protocol group)."""
    table = evaluate_run(result, aspect, **options)  # type: ignore[arg-type]
    return table.rows, {s.statistic: s.signature for s in table.signatures}


def _usr_length_run(data_root: Path) -> RunResult:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    return run_metrics(bench, resolve_metrics("length", "turn"))


def test_correlation_rows_equal_scipy_with_intervals_and_signatures(data_root: Path) -> None:
    result = _usr_length_run(data_root)
    (row,), signatures = correlation_rows(result, "overall", resampling=Resampling(200, 3))
    lengths = result.item_frame()["length"].to_numpy()
    human = result.benchmark.human_scores("overall")
    assert (row["n"], row["dropped"]) == (360, 0)
    assert row["pearson"] == pytest.approx(stats.pearsonr(lengths, human)[0])
    assert row["pearson_p"] == pytest.approx(stats.pearsonr(lengths, human)[1])
    assert row["spearman"] == pytest.approx(stats.spearmanr(lengths, human)[0])
    assert row["kendall-b"] == pytest.approx(stats.kendalltau(lengths, human, variant="b")[0])
    for label in ("pearson", "spearman", "kendall-b"):
        low, high = row[f"{label}_ci"]
        assert low < row[label] < high
    assert set(signatures) == set(statistic_names(reported_only=True))
    assert "resample:bootstrap-percentile|n:200|seed:3" in signatures["kendall-b"]
    assert f"bench:usr-topical@{result.benchmark.fingerprint}" in signatures["pearson"]


def test_grouped_correlation_rows_average_within_dialogues(data_root: Path) -> None:
    result = _usr_length_run(data_root)
    (row,), _ = correlation_rows(result, "overall", resampling=Resampling(0), grouped=True)
    frame = result.item_frame()
    frame["human"] = result.benchmark.human_scores("overall")
    frame["dialogue"] = result.benchmark.table.column("dialogue_id").to_numpy()
    per_dialogue = [
        stats.pearsonr(g["length"], g["human"])[0]
        for _, g in frame.groupby("dialogue")
        if g["length"].nunique() > 1 and g["human"].nunique() > 1
    ]
    assert row["pearson"] == pytest.approx(np.mean(per_dialogue))
    assert row["n"] == len(per_dialogue)
    assert math.isnan(row["pearson_p"]) and row["pearson_ci"] is None


def test_system_correlation_resamples_systems(data_root: Path) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("length,corpus-bleu", "system"), "system")
    rows, signatures = correlation_rows(
        result, "overall", resampling=Resampling(100), protocol=False
    )
    human = bench.systems()["overall"].reindex(result.systems)
    means = result.system_frame()
    for row in rows:
        assert row["n"] == 6
        expected = stats.pearsonr(means[row["metric"]], human)[0]
        assert row["pearson"] == pytest.approx(expected)
    assert "level:system" in signatures["pearson"]


def test_soft_pairwise_accuracy_uses_each_systems_contexts(data_root: Path) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("length,corpus-bleu", "system"), "system")
    rows, signatures = correlation_rows(
        result, "overall", resampling=Resampling(50), protocol=False, statistics=["pearson", "spa"]
    )
    length, corpus = rows
    human = system_unit_matrix(
        bench.human_scores("overall"),
        bench.table.column("system").to_numpy(zero_copy_only=False),
        bench.table.column("dialogue_id").to_numpy(zero_copy_only=False),
    )[1]
    metric = system_unit_matrix(
        result.item_frame()["length"].to_numpy(),
        result.item_frame()["system"].to_numpy(),
        bench.table.column("dialogue_id").to_numpy(zero_copy_only=False),
    )[1]
    expected = soft_pairwise_accuracy(metric, human, resampling=Resampling(50))
    assert length["spa"] == pytest.approx(expected.value)
    assert length["spa_ci"] == pytest.approx([expected.ci.low, expected.ci.high])
    assert (length["n"], length["spa_contexts"], length["spa_dropped"]) == (6, 60, 0)
    assert length["pearson"] == pytest.approx(  # the other statistics still use system means
        stats.pearsonr(result.system_frame()["length"], bench.systems()["overall"])[0]
    )
    assert math.isnan(corpus["spa"]) and corpus["spa_ci"] is None
    assert corpus["spa_note"] == "a corpus-level metric has no scores per context"
    assert "stat:spa|level:system|resample:bootstrap-percentile|n:50" in signatures["spa"]


def test_default_suite_depends_on_level() -> None:
    assert "corpus-bleu" not in default_suite("turn")
    assert {"corpus-bleu", "distinct-1", "distinct-2"} <= set(default_suite("system"))
    names = [m.name for m in resolve_metrics("default,bleu-4", "turn")]
    assert names.count("bleu-4") == 1
    assert "bertscore-f1[all-MiniLM-L6-v2:L6]" in names


def test_metric_lists_keep_commas_inside_brackets() -> None:
    names = [m.name for m in resolve_metrics("geval[coherence,n=1], bleu-4,length", "turn")]
    assert names[0].startswith("geval[coherence,") and names[1:] == ["bleu-4", "length"]
    with pytest.raises(ComperbenchError, match="unbalanced brackets"):
        resolve_metrics("geval[coherence,bleu-4", "turn")


def test_items_carry_the_benchmark_fields(data_root: Path) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    items = benchmark_items(bench)
    assert len(items) == 360
    first = items[0]
    assert first.item_id == bench.item_ids[0]
    assert first.references and first.grounding and first.context
    assert first.response == bench.table.column("response")[0].as_py()


def test_turn_run_matches_direct_scores_and_human_correlation(
    data_root: Path, tmp_path: Path
) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics(NGRAM, "turn"), cache=ScoreCache(tmp_path))
    frame = result.item_frame()
    items = benchmark_items(bench)
    assert list(frame["f1"]) == pytest.approx(get("f1").score(items))
    (row, *_), _ = correlation_rows(result, "overall", resampling=Resampling(0), protocol=False)
    expected = stats.pearsonr(frame["bleu-2"], bench.human_scores("overall"))[0]
    assert row["metric"] == "bleu-2" and row["pearson"] == pytest.approx(expected)


def test_protocol_leaves_the_ground_truth_out_of_reference_metrics_only(data_root: Path) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("bleu-2,length", "turn"))
    table = evaluate_run(result, "overall", resampling=Resampling(50))
    bleu, length = table.rows
    assert (bleu["n"], bleu["protocol_excluded"]) == (300, ["Original Ground Truth"])
    assert (length["n"], length["protocol_excluded"]) == (360, [])
    frame = result.item_frame()
    keep = frame["system"] != "Original Ground Truth"
    human = bench.human_scores("overall")
    expected = stats.pearsonr(frame["bleu-2"][keep], human[keep.to_numpy()])[0]
    assert bleu["pearson"] == pytest.approx(expected)
    without = {s.signature for s in table.signatures if s.excluded}
    reported = statistic_names(reported_only=True)
    assert len(without) == len(reported) and all(
        "~without:original-ground-truth" in s for s in without
    )
    assert table.excluded_items(result) == {"Original Ground Truth": 60}


def test_protocol_applies_at_system_level(data_root: Path) -> None:
    bench = load_benchmark("usr-persona", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("corpus-bleu,length", "system"), "system")
    rows = {r["metric"]: r for r in evaluate_run(result, "overall", resampling=Resampling(0)).rows}
    assert rows["corpus-bleu"]["n"] == 4 and rows["length"]["n"] == 5
    kept = evaluate_run(result, "overall", resampling=Resampling(0), protocol=False).rows
    assert {r["n"] for r in kept} == {5}


def test_a_protocol_naming_a_missing_system_is_a_located_error(data_root: Path) -> None:
    from dataclasses import replace

    import pyarrow as pa

    from comperbench.benchmark import _check_protocol
    from comperbench.common.errors import DataFormatError
    from comperbench.metadata import EvaluationProtocol

    meta = load_benchmark("usr-topical", data_dir=data_root).metadata
    wrong = replace(meta, protocol=EvaluationProtocol("x", ("Nobody",), "test"))
    with pytest.raises(DataFormatError, match=r"usr-topical: its evaluation protocol .* 'Nobody'"):
        _check_protocol(wrong, pa.table({"system": ["Argmax Decoding"]}))


def test_worker_processes_give_the_in_process_scores(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The n-gram metrics scored by two spawned processes equal the in-process scores."""
    from comperbench.metrics import runner

    bench = load_benchmark("usr-persona", data_dir=data_root)
    metrics = resolve_metrics("bleu-2,rouge-1,rouge-l,meteor,f1,length", "turn")
    serial = run_metrics(bench, metrics, workers=1).item_frame()
    monkeypatch.setattr(runner, "MIN_PARALLEL_SCORES", 0)
    cache = ScoreCache(tmp_path)
    parallel = run_metrics(bench, metrics, cache=cache, workers=2, batch_size=64)
    pd.testing.assert_frame_equal(parallel.item_frame(), serial)
    assert [r.computed for r in parallel.runs] == [300] * 6
    again = run_metrics(bench, metrics, cache=cache, workers=2)
    assert [r.cached for r in again.runs] == [300] * 6


def test_a_given_pool_scores_several_benchmarks_with_the_same_workers(
    data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A caller's pool serves every run it is given to: its workers start once and give the
    in-process scores."""
    from comperbench.metrics import runner
    from comperbench.metrics.workers import process_pool

    metrics = resolve_metrics("bleu-2,f1", "turn")
    benches = [load_benchmark(name, data_dir=data_root) for name in ("usr-persona", "usr-topical")]
    serial = [run_metrics(b, metrics, workers=1).item_frame() for b in benches]
    monkeypatch.setattr(runner, "MIN_PARALLEL_SCORES", 0)
    with process_pool(2) as pool:
        shared = [run_metrics(b, metrics, workers=2, pool=pool) for b in benches]
        workers = {p.pid for p in pool._processes.values()}
        assert pool.submit(os.getpid).result() in workers
    for run, alone in zip(shared, serial, strict=True):
        assert run.runs[0].place == "2 worker processes"
        pd.testing.assert_frame_equal(run.item_frame(), alone)
    assert len(workers) <= 2


def test_system_run_uses_means_and_corpus_metrics(data_root: Path) -> None:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    metrics = resolve_metrics("f1,corpus-bleu,distinct-1", "system")
    result = run_metrics(bench, metrics, "system")
    systems = result.system_frame()
    assert list(systems.index) == sorted(bench.systems().index)
    items = benchmark_items(bench)
    one = systems.index[0]
    group = [i for i in items if i.system == one]
    assert systems.loc[one, "f1"] == pytest.approx(np.mean(get("f1").score(group)))
    assert systems.loc[one, "corpus-bleu"] == pytest.approx(get("corpus-bleu").score_corpus(group))
    turn = run_metrics(bench, metrics, "turn")
    assert set(turn.skipped) == {"corpus-bleu", "distinct-1"}


def test_reference_metrics_are_skipped_without_references(data_root: Path) -> None:
    bench = load_benchmark("fed-turn", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("bleu-4,length", "turn"))
    assert result.skipped == {"bleu-4": "needs references, and fed-turn has none"}
    assert [r.metric.name for r in result.runs] == ["length"]


def test_blank_references_count_as_none_when_skipping(data_root: Path) -> None:
    from comperbench.metrics.base import TurnItem

    bench = load_benchmark("fed-turn", data_dir=data_root)
    blank = [TurnItem("a", "hi", references=("", "  ")), TurnItem("b", "yo", references=(" ",))]
    assert skip_reason(get("bleu-4"), bench, blank, "turn") == (
        "needs references, and fed-turn has none"
    )
    one = [*blank, TurnItem("c", "hey", references=("hello",))]
    assert skip_reason(get("bleu-4"), bench, one, "turn") is None


def test_evaluate_command_prints_and_writes(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", NGRAM, "--out", str(out)]
    assert main([*args, "--data-dir", str(data_root)]) == 0
    printed = capsys.readouterr().out
    assert "usr-topical" in printed and "pearson" in printed and "bleu-2" in printed
    assert "95% CI" in printed and "signatures and metric settings: table.json, or -v" in printed
    scores = pd.read_parquet(out / "scores.parquet")
    assert list(scores.columns) == ["item_id", "system", "bleu-2", "f1", "length"]
    assert len(scores) == 360
    table = json.loads((out / "table.json").read_text())
    bench = load_benchmark("usr-topical", data_dir=data_root)
    assert table["fingerprint"] == bench.fingerprint
    assert table["metrics"]["bleu-2"]["config"]["smooth_method"] == "exp"
    assert "stat:pearson|level:turn|resample:bootstrap-percentile" in str(table["signatures"])
    row = {r["metric"]: r for r in table["rows"]}["length"]
    assert row["spearman"] == pytest.approx(
        stats.spearmanr(scores["length"], bench.human_scores("overall"))[0]
    )
    # a second run is served from the cache
    assert main([*args, "--data-dir", str(data_root)]) == 0
    assert "0 scores computed" in capsys.readouterr().out


def test_evaluate_without_a_system(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-2", "--out", str(tmp_path)]
    extra = ["--exclude-system", "Original Ground Truth", "--resamples", "50"]
    assert main([*args, *extra, "--data-dir", str(data_root)]) == 0
    printed = capsys.readouterr().out
    assert "usr-topical (without Original Ground Truth)" in printed and ": 300 items" in printed
    table = json.loads((tmp_path / "table.json").read_text())
    assert table["excluded_systems"] == ["Original Ground Truth"]
    assert table["rows"][0]["n"] == 300
    assert "~without:original-ground-truth" in table["signatures"][0]["signature"]


def test_evaluate_prints_the_protocol_and_all_systems_opts_out(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-2", "--resamples", "0"]
    args += ["--data-dir", str(data_root), "-v"]
    assert main([*args, "--out", str(tmp_path / "p")]) == 0
    printed = capsys.readouterr().out
    assert "leave out Original Ground Truth (60 items): its response is the reference" in printed
    assert "Mehri & Eskenazi (ACL 2020)" in printed
    assert "metric bleu-2|sacrebleu==" in printed and "smooth_method:exp" in printed
    table = json.loads((tmp_path / "p" / "table.json").read_text())
    assert table["protocol"]["applied"] and table["rows"][0]["n"] == 300
    assert main([*args, "--out", str(tmp_path / "a"), "--all-systems"]) == 0
    assert "protocol not applied (--all-systems)" in capsys.readouterr().out
    table = json.loads((tmp_path / "a" / "table.json").read_text())
    assert not table["protocol"]["applied"] and table["rows"][0]["n"] == 360


def test_evaluate_reports_skips_on_a_benchmark_without_references(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "fed-turn", "--metrics", "bleu-4,length"]
    assert main([*args, "--out", str(tmp_path), "--data-dir", str(data_root)]) == 0
    printed = capsys.readouterr().out
    assert "skipped bleu-4: needs references, and fed-turn has none" in printed


def test_turn_metrics_are_skipped_on_a_dialogue_benchmark(data_root: Path) -> None:
    bench = load_benchmark("fed-dialogue", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("length", "dialogue"))
    assert result.runs == []
    assert result.skipped == {
        "length": "a turn-level metric; fed-dialogue is scored at dialogue level"
    }


def test_missing_human_scores_are_left_out_and_counted(data_root: Path) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    from comperbench.benchmark import Benchmark

    full = load_benchmark("usr-topical", data_dir=data_root)
    scores = full.table.column("scores").combine_chunks()
    overall = pc.struct_field(scores, "overall").to_pylist()
    overall[:5] = [None] * 5
    fields = {f.name: scores.field(f.name) for f in scores.type}
    fields["overall"] = pa.array(overall, pa.float64())
    patched = pa.StructArray.from_arrays(list(fields.values()), names=list(fields))
    table = full.table.set_column(full.table.schema.get_field_index("scores"), "scores", patched)
    bench = Benchmark(full.metadata, "turn", table, {})
    result = run_metrics(bench, resolve_metrics("length", "turn"))
    (row,), _ = correlation_rows(result, "overall", resampling=Resampling(0))
    assert (row["n"], row["dropped"]) == (355, 5)
    lengths = result.item_frame()["length"].to_numpy()[5:]
    assert row["pearson"] == pytest.approx(stats.pearsonr(lengths, overall[5:])[0])


@pytest.mark.slow
def test_default_suite_on_usr_topical(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "default"]
    assert main([*args, "--out", str(tmp_path), "--data-dir", str(data_root)]) == 0
    printed = capsys.readouterr().out
    assert "skipped" not in printed
    table = json.loads((tmp_path / "table.json").read_text())
    names = [row["metric"] for row in table["rows"]]
    assert len(names) == len(default_suite("turn"))
    assert "bertscore-f1[all-MiniLM-L6-v2:L6]" in names
    for row in table["rows"]:
        # The USR protocol leaves Original Ground Truth (60 items) out of reference-based metrics.
        assert row["n"] == (300 if row["protocol_excluded"] else 360) and row["nan_scores"] == 0
        assert -1.0 <= row["pearson"] <= 1.0 and 0.0 <= row["pearson_p"] <= 1.0


def test_evaluate_says_why_a_two_system_correlation_is_undefined(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "grade-dailydialog", "--level", "system"]
    args += ["--metrics", "length", "--resamples", "20", "--out", str(tmp_path)]
    assert main([*args, "--data-dir", str(data_root)]) == 0
    out = capsys.readouterr().out
    names = ", ".join(statistic_names(reported_only=True))
    assert f"note: length ({names}): only 2 systems; a correlation needs at" in out


def test_evaluate_json_prints_the_table_document(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-persona", "--metrics", "length", "--json"]
    args += ["--resamples", "0", "--out", str(tmp_path), "--data-dir", str(data_root)]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "table.json").read_text())
    assert printed["rows"][0]["metric"] == "length" and printed["rows"][0]["n"] == 300


def test_evaluate_never_overwrites_another_run_silently(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["evaluate", "--benchmark", "usr-persona", "--resamples", "0"]
    base += ["--data-dir", str(data_root)]
    assert main([*base, "--metrics", "length,bleu-2"]) == 0
    folder = tmp_path / "results" / "usr-persona-turn-overall"
    assert json.loads((folder / "table.json").read_text())["run"]["metrics"] == ["bleu-2", "length"]
    assert main([*base, "--metrics", "length,bleu-2"]) == 0  # the same run again: same table
    assert main([*base, "--metrics", "length"]) == 2
    assert "holds the table of another run (it differs in: metrics)" in capsys.readouterr().err
    assert len(json.loads((folder / "table.json").read_text())["rows"]) == 2  # nothing lost
    assert main([*base, "--metrics", "length", "--grouped"]) == 0  # its own folder
    assert (tmp_path / "results" / "usr-persona-turn-overall-grouped" / "table.json").is_file()
    assert main([*base, "--metrics", "length", "--overwrite"]) == 0
    assert len(json.loads((folder / "table.json").read_text())["rows"]) == 1


def test_the_item_scores_file_is_the_table_pandas_writes(data_root: Path, tmp_path: Path) -> None:
    run = _usr_length_run(data_root)
    scores = run.runs[0].scores.copy()
    scores[:3] = np.nan
    first = run.item_ids[0]
    explained = replace(run.runs[0], scores=scores, explanations={first: {"verdict": "é"}})
    unexplained = replace(explained, metric=get("f1"), explanations={})  # a column of nulls
    result = replace(run, runs=[explained, unexplained])
    by_pandas = result.item_frame().assign(**explanation_columns(result))
    by_pandas.to_parquet(tmp_path / "pandas.parquet", index=False)
    pq.write_table(item_table(result), tmp_path / "arrow.parquet")
    expected = pq.read_table(tmp_path / "pandas.parquet").replace_schema_metadata()
    assert pq.read_table(tmp_path / "arrow.parquet").equals(expected)
    written = pd.read_parquet(tmp_path / "arrow.parquet")
    pd.testing.assert_frame_equal(written, pd.read_parquet(tmp_path / "pandas.parquet"))
    assert written["length"].isna().sum() == 3
