"""`comperbench compare | agreement` on a real benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from comperbench import load_benchmark
from comperbench.cli import main


def _scores(data_root: Path, tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    bench = load_benchmark("usr-topical", data_dir=data_root)
    table = bench.to_pandas()
    frame = pd.DataFrame(
        {
            "item_id": table["item_id"],
            "length": table["response"].str.len().astype(float),
            "words": table["response"].str.split().str.len().astype(float),
            "noise": np.random.default_rng(0).normal(size=len(table)),
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_compare_prints_correlations_matrix_and_clusters(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _scores(data_root, tmp_path)
    code = main(
        [
            "compare",
            "--benchmark",
            "usr-topical",
            "--scores",
            str(path),
            "--resamples",
            "200",
            "--permutations",
            "200",
            "--reference-free",
            "--data-dir",
            str(data_root),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "usr-topical, aspect overall, turn level, pearson" in out
    assert "protocol" not in out
    flat = " ".join(out.split())
    assert "adjusted p: Holm (family-wise error rate) over 6 one-sided pairwise tests" in flat
    assert "perm-both: adjusted p that the row metric" in out
    assert "(200 permutations at most; smallest achievable adjusted p 0.0299)" in flat
    assert "unadjusted one-sided p-values (no verdict is drawn from them)" in out
    assert "cluster 1:" in out and "noise" in out.split("cluster")[-1]
    assert "stat:perm-both:pearson|level:turn|resample:swap|n:200|seed:0" in out
    assert "bench:usr-topical@" in out


def test_compare_system_level_and_grouped(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _scores(data_root, tmp_path)
    base = [
        "compare",
        "--benchmark",
        "usr-topical",
        "--scores",
        str(path),
        "--resamples",
        "100",
        "--data-dir",
        str(data_root),
    ]
    assert main([*base, "--level", "system", "--statistic", "kendall-b"]) == 0
    out = capsys.readouterr().out
    assert "system level, kendall-b" in out and "only 5 systems resampled" in out
    assert main([*base, "--grouped", "--statistic", "spearman"]) == 0
    assert "grouped by dialogue" in capsys.readouterr().out
    assert (
        main([*base, "--level", "system", "--statistic", "spa", "--test", "paired-bootstrap"]) == 0
    )
    out = capsys.readouterr().out
    assert "on the 60 contexts every system answered, resampled" in out
    assert "(60 contexts, 0 items dropped)" in out and "only 5 systems" not in out
    assert "stat:paired-bootstrap:spa|level:system|resample:bootstrap|n:100" in out


def test_compare_rejects_a_scores_file_with_unknown_ids(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, frame = _scores(data_root, tmp_path)
    frame.loc[5, "item_id"] = "usr-topical/none"
    frame.to_csv(path, index=False)
    code = main(
        [
            "compare",
            "--benchmark",
            "usr-topical",
            "--scores",
            str(path),
            "--data-dir",
            str(data_root),
        ]
    )
    assert code == 2
    assert "line 7" in capsys.readouterr().err


def test_compare_applies_the_protocol_to_reference_metrics(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", "--benchmark", "usr-topical", "--metrics", "bleu-2,length"]
    argv += ["--resamples", "50", "--data-dir", str(data_root)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "protocol: every metric leaves out Original Ground Truth (60 items)" in out
    assert "usr-topical (without Original Ground Truth), aspect overall" in out
    assert "~without:original-ground-truth" in out
    assert main([*argv, "--all-systems", "--correction", "none"]) == 0
    out = capsys.readouterr().out
    assert "protocol" not in out and "adjusted p" not in out


def test_compare_says_why_no_metric_can_run(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", "--benchmark", "fed-dialogue", "--metrics", "length,distinct-1"]
    assert main([*argv, "--data-dir", str(data_root)]) == 2
    err = capsys.readouterr().err
    assert "no metric can run on fed-dialogue: length: a turn-level metric" in err


def test_agreement_per_aspect(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "agreement",
            "--benchmark",
            "usr-topical",
            "--resamples",
            "50",
            "--statistics",
            "alpha-interval,fleiss",
            "--data-dir",
            str(data_root),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "raters: annotator ids" in out
    assert out.count("alpha-interval") >= 6 and "maintains_context" in out


def test_compare_lists_a_constant_metric_as_not_ranked(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, frame = _scores(data_root, tmp_path)
    frame["constant"] = 1.0
    frame.to_csv(path, index=False)
    argv = ["compare", "--benchmark", "usr-topical", "--scores", str(path), "--reference-free"]
    assert main([*argv, "--resamples", "100", "--data-dir", str(data_root)]) == 0
    out = capsys.readouterr().out
    clusters = [line for line in out.splitlines() if line.startswith("cluster ")]
    assert clusters and all("constant" not in line for line in clusters)
    assert "not ranked: constant (correlation undefined: metric scores are constant)" in out


def test_compare_json_holds_correlations_matrix_and_adjusted_p_values(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    argv = ["compare", "--benchmark", "usr-topical", "--metrics", "bleu-2,length", "--json"]
    assert main([*argv, "--resamples", "50", "--data-dir", str(data_root)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["protocol"][0].startswith("protocol: every metric leaves out Original")
    assert [c["n"] for c in document["correlations"]] == [300, 300]
    significance = document["significance"]
    assert significance["correction"] == "holm" and len(significance["clusters"]) >= 1
    raw, adjusted = significance["p_values"], significance["adjusted_p_values"]
    assert raw[0][0] is None and adjusted[0][0] is None
    # Holm over the two one-sided tests, by hand
    low, high = sorted([raw[0][1], raw[1][0]])
    expected = {low: min(1.0, 2 * low), high: min(1.0, max(2 * low, high))}
    assert adjusted[0][1] == pytest.approx(expected[raw[0][1]])
    assert adjusted[1][0] == pytest.approx(expected[raw[1][0]])


def test_agreement_prints_json(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    argv = ["agreement", "--benchmark", "usr-persona", "--aspect", "overall", "--json"]
    assert main([*argv, "--resamples", "20", "--data-dir", str(data_root)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["aspect"] for r in rows} == {"overall"} and rows[0]["n_items"] == 300


def test_compare_pairwise_permutation_with_early_stopping_and_conventions(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _scores(data_root, tmp_path)
    common = ["compare", "--benchmark", "usr-topical", "--scores", str(path), "--reference-free"]
    common += ["--data-dir", str(data_root), "--grouped", "--statistic", "acc-eq", "--json"]
    options = ["--test", "pairwise-permutation", "--early-stop", "50:0.02:0.5"]
    options += ["--convention", "mt-metrics-eval", "--group-weighting", "items"]
    assert main([*common, *options]) == 0
    document = json.loads(capsys.readouterr().out)
    significance = document["significance"]
    assert "pairwise-permutation:acc-eq-grouped~items-weighted" in significance["signature"]
    assert "early-stop:50:0.02-0.5" in significance["signature"]
    assert "|conv:p=b/k+williams=abs-t|" in significance["signature"]
    used = np.array(significance["resamples_used"])[~np.eye(3, dtype=bool)]
    assert used.max() <= 1000 and used.min() >= 50 and (used % 50 == 0).all()
    noise = significance["metrics"].index("noise")
    assert noise == 2  # pure noise ranks last
    with pytest.raises(SystemExit):
        main([*common, "--early-stop", "0.5"])
    assert "--early-stop '0.5'" in capsys.readouterr().err


def test_evaluate_grouped_under_mt_metrics_eval_conventions(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "usr-topical", "--metrics", "length", "--grouped"]
    args += ["--data-dir", str(data_root), "--resamples", "0", "--out", str(tmp_path / "a"), "-v"]
    assert main([*args, "--convention", "mt-metrics-eval", "--undefined-groups", "zero"]) == 0
    out = capsys.readouterr().out
    assert "correlations within each dialogue averaged (undefined-as-0+groups-of-2)" in out
    assert "pearson-grouped~undefined-as-0+groups-of-2" in out


def test_compare_with_one_metric_says_it_needs_two_in_one_line(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, frame = _scores(data_root, tmp_path)
    frame[["item_id", "length"]].to_csv(path, index=False)
    argv = ["compare", "--benchmark", "usr-topical", "--scores", str(path)]
    assert main([*argv, "--data-dir", str(data_root)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "comperbench: error: compare needs at least two metrics to compare; got length\n"
    )
    assert captured.out == ""


def test_compare_method_is_a_deprecated_alias_of_statistic(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _scores(data_root, tmp_path)
    argv = ["compare", "--benchmark", "usr-topical", "--scores", str(path), "--resamples", "20"]
    argv += ["--permutations", "20", "--data-dir", str(data_root)]
    assert main([*argv, "--method", "spearman"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "warning: --method is deprecated; use --statistic\n"
    assert "turn level, spearman" in captured.out
    assert main([*argv, "--statistic", "spearman"]) == 0
    assert capsys.readouterr().out == captured.out
