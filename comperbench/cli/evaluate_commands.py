"""`comperbench evaluate`: score a benchmark with metrics and correlate them with human scores."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from comperbench import __version__
from comperbench.benchmark import load_benchmark
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import RunResult, correlations, resolve_metrics, run_metrics
from comperbench.textutil import table as format_table


def _human(result: RunResult, aspect: str) -> np.ndarray:
    bench = result.benchmark
    if result.level == "system":
        return bench.systems()[aspect].reindex(result.systems).to_numpy(dtype=float)
    return bench.human_scores(aspect)


def correlation_rows(result: RunResult, aspect: str) -> list[dict[str, Any]]:
    """One row per metric: correlations with the human scores of `aspect` at the run's level."""
    human = _human(result, aspect)
    frame = result.system_frame() if result.level == "system" else result.item_frame()
    rows = []
    for run in result.runs:
        row: dict[str, Any] = {"metric": run.metric.name, "nan_scores": run.nans}
        row.update(correlations(frame[run.metric.name].to_numpy(dtype=float), human))
        rows.append(row)
    return rows


def _cell(value: float, digits: int = 3) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def _p(value: float) -> str:
    return "-" if math.isnan(value) else (f"{value:.1e}" if value < 1e-3 else f"{value:.3f}")


def render(rows: list[dict[str, Any]]) -> str:
    headers = ["metric", "n", "pearson", "p", "spearman", "p", "kendall", "p", "NaN"]
    body = [
        [
            r["metric"],
            r["n"],
            _cell(r["pearson"]),
            _p(r["pearson_p"]),
            _cell(r["spearman"]),
            _p(r["spearman_p"]),
            _cell(r["kendall"]),
            _p(r["kendall_p"]),
            r["nan_scores"],
        ]
        for r in rows
    ]
    return format_table(headers, body)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def write_outputs(
    out: Path, result: RunResult, aspect: str, rows: list[dict[str, Any]]
) -> tuple[Path, Path]:
    """scores.parquet (items or systems x metrics) and table.json (correlations + provenance)."""
    out.mkdir(parents=True, exist_ok=True)
    scores_path, table_path = out / "scores.parquet", out / "table.json"
    frame = result.system_frame().reset_index() if result.level == "system" else result.item_frame()
    frame.to_parquet(scores_path, index=False)
    bench = result.benchmark
    document = {
        "comperbench_version": __version__,
        "benchmark": bench.name,
        "benchmark_version": bench.metadata.version,
        "fingerprint": bench.fingerprint,
        "split": bench.split,
        "level": result.level,
        "aspect": aspect,
        "correlation": "scipy.stats pearsonr, spearmanr, kendalltau (tau-b); pairs with a "
        "missing score dropped",
        "metrics": {
            run.metric.name: {
                "family": run.metric.family,
                "needs": sorted(run.metric.needs),
                "config": run.metric.config(),
                "library": run.metric.library_version(),
                "nan_scores": run.nans,
            }
            for run in result.runs
        },
        "skipped": result.skipped,
        "rows": rows,
    }
    table_path.write_text(json.dumps(_json_safe(document), indent=2, default=str) + "\n")
    return scores_path, table_path


def run_evaluate(args: argparse.Namespace) -> int:
    bench_level = None if args.level == "system" else args.level
    bench = load_benchmark(args.benchmark, bench_level, args.split, data_dir=args.data_dir)
    level = args.level or bench.level
    aspect = bench.metadata.aspect(args.aspect).name
    metrics = resolve_metrics(args.metrics, level)
    cache = None if args.no_cache else ScoreCache()
    result = run_metrics(bench, metrics, level, cache=cache, batch_size=args.batch_size)
    rows = correlation_rows(result, aspect)
    human_n = len(result.systems) if level == "system" else len(bench)
    missing = int(np.isnan(_human(result, aspect)).sum())
    print(
        f"{bench.name} ({bench.fingerprint[:12]}), {level} level, aspect {aspect}: "
        f"{human_n} {'systems' if level == 'system' else 'items'}"
    )
    for name, reason in result.skipped.items():
        print(f"skipped {name}: {reason}")
    for run in result.runs:
        if run.nans:
            print(
                f"note: {run.metric.name} scored NaN on {run.nans} of {len(run.scores)} (left out)"
            )
    if missing:
        unit = "systems" if level == "system" else "items"
        print(f"note: {missing} {unit} without a human {aspect} score are left out")
    if rows:
        print()
        print(render(rows))
    else:
        print("no metric could run on this benchmark")
    cached = sum(r.cached for r in result.runs)
    computed = sum(r.computed for r in result.runs)
    out = Path(args.out or os.path.join("results", f"{bench.name}-{level}-{aspect}"))
    scores_path, table_path = write_outputs(out, result, aspect, rows)
    print(f"\n{computed} scores computed, {cached} from the cache")
    print(f"wrote {scores_path} and {table_path}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "evaluate", help="score a benchmark with metrics and correlate them with human scores"
    )
    evaluate.add_argument("--benchmark", required=True, help="benchmark name (see `list`)")
    evaluate.add_argument(
        "--level",
        choices=["turn", "dialogue", "system"],
        help="correlation level (default: the benchmark's first level)",
    )
    evaluate.add_argument(
        "--metrics",
        default="default",
        help="comma-separated metric names, or `default` for the suite (default: default)",
    )
    evaluate.add_argument("--aspect", help="human aspect (default: the benchmark's default)")
    evaluate.add_argument("--split", help="only this split")
    evaluate.add_argument(
        "--out", help="output folder (default: results/<benchmark>-<level>-<aspect>)"
    )
    evaluate.add_argument("--no-cache", action="store_true", help="recompute every score")
    evaluate.add_argument("--batch-size", type=int, default=256, help="items per metric call")
    evaluate.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    evaluate.set_defaults(run=run_evaluate)
