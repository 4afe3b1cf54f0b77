"""`comperbench evaluate`: score a benchmark with metrics and correlate them with human scores."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
from typing import Any, cast

import numpy as np

from comperbench import __version__
from comperbench.benchmark import load_benchmark
from comperbench.cli.stats_commands import add_exclude_argument
from comperbench.loaders.base import slug
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import RunResult, resolve_metrics, run_metrics
from comperbench.stats.correlation import Level, Method, correlation_table
from comperbench.stats.resampling import CIMethod
from comperbench.textutil import interval, number, p_value
from comperbench.textutil import table as format_table


def _human(result: RunResult, aspect: str) -> np.ndarray:
    bench = result.benchmark
    if result.level == "system":
        return bench.systems()[aspect].reindex(result.systems).to_numpy(dtype=float)
    return bench.human_scores(aspect)


EVALUATE_METHODS: tuple[Method, ...] = ("pearson", "spearman", "kendall-b")
"""The correlations `evaluate` prints; the table and JSON call tau-b `kendall`."""


def _label(method: str) -> str:
    return "kendall" if method == "kendall-b" else method


def correlation_rows(
    result: RunResult,
    aspect: str,
    *,
    n_resamples: int = 1000,
    ci: CIMethod | None = "percentile",
    seed: int = 0,
    grouped: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """One row per metric with each correlation, its p-value and bootstrap interval at the run's
    level, plus the signature of each correlation. System level resamples systems; grouped turn
    level averages the correlations within each dialogue and resamples dialogues."""
    human = _human(result, aspect)
    bench = result.benchmark
    if result.level == "system":
        frame = result.system_frame()
        units = np.arange(len(frame))  # one unit per system: the frame already holds the means
    else:
        frame = result.item_frame()
        units = None
    groups = bench.table.column("dialogue_id").to_numpy() if grouped else None
    scores = {run.metric.name: frame[run.metric.name].to_numpy(dtype=float) for run in result.runs}
    rows: dict[str, dict[str, Any]] = {
        run.metric.name: {"metric": run.metric.name, "nan_scores": run.nans} for run in result.runs
    }
    signatures: dict[str, str] = {}
    if not scores:
        return [], signatures
    for method in EVALUATE_METHODS:
        table = correlation_table(
            scores,
            human,
            level=cast(Level, result.level),
            method=method,
            groups=groups,
            systems=units,
            n_resamples=n_resamples,
            ci=ci if n_resamples else None,
            seed=seed,
            benchmark=bench.tag,
        )
        label = _label(method)
        for r in table:
            row = rows[r.metric]
            row.update({"n": r.n, "dropped": r.n_dropped})
            row[label], row[f"{label}_p"] = r.value, r.p_value
            row[f"{label}_ci"] = [r.ci.low, r.ci.high] if r.ci else None
            if r.reason:
                row[f"{label}_note"] = r.reason
        signatures[label] = table[0].signature
    return list(rows.values()), signatures


def _ci(bounds: list[float] | None) -> str:
    return "-" if bounds is None else interval(*bounds)


def render(rows: list[dict[str, Any]]) -> str:
    headers = ["metric", "n"]
    for method in EVALUATE_METHODS:
        headers += [_label(method), "95% CI", "p"]
    headers.append("NaN")
    body = []
    for r in rows:
        line = [r["metric"], r["n"]]
        for method in EVALUATE_METHODS:
            label = _label(method)
            line += [number(r[label]), _ci(r[f"{label}_ci"]), p_value(r[f"{label}_p"])]
        body.append([*line, r["nan_scores"]])
    return format_table(headers, body)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def notes_summary(notes: dict[str, Any]) -> str:
    """The non-zero counts of a metric's run notes and its first error, on one line."""
    counts = [
        f"{key.replace('_', ' ')} {value}"
        for key, value in notes.items()
        if isinstance(value, int)
        and not isinstance(value, bool)
        and value
        and key not in ("n", "seed")
    ]
    errors = notes.get("errors") or []
    return "; ".join([*counts, *([f"first error: {errors[0]}"] if errors else [])])


def write_outputs(
    out: Path,
    result: RunResult,
    aspect: str,
    rows: list[dict[str, Any]],
    signatures: dict[str, str],
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
        "excluded_systems": list(bench.excluded_systems),
        "level": result.level,
        "aspect": aspect,
        "correlation": "pearson, spearman, kendall (tau-b) with scipy p-values and bootstrap "
        "intervals (comperbench.stats); pairs with a missing score dropped",
        "signatures": signatures,
        "metrics": {
            run.metric.name: {
                "family": run.metric.family,
                "needs": sorted(run.metric.needs),
                "config": run.metric.config(),
                "library": run.metric.cache_version(),
                "nan_scores": run.nans,
                "notes": run.notes,
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
    bench = load_benchmark(
        args.benchmark,
        bench_level,
        args.split,
        data_dir=args.data_dir,
        exclude_systems=args.exclude_system or (),
    )
    level = args.level or bench.level
    aspect = bench.metadata.aspect(args.aspect).name
    metrics = resolve_metrics(args.metrics, level)
    cache = None if args.no_cache else ScoreCache()
    result = run_metrics(
        bench, metrics, level, cache=cache, batch_size=args.batch_size, workers=args.workers
    )
    rows, signatures = correlation_rows(
        result,
        aspect,
        n_resamples=args.resamples,
        ci=args.ci,
        seed=args.seed,
        grouped=args.grouped,
    )
    human_n = len(result.systems) if level == "system" else len(bench)
    missing = int(np.isnan(_human(result, aspect)).sum())
    grouped = ", correlations within each dialogue averaged" if args.grouped else ""
    print(
        f"{bench.label} ({bench.fingerprint[:12]}), {level} level{grouped}, aspect {aspect}: "
        f"{human_n} {'systems' if level == 'system' else 'items'}"
    )
    for name, reason in result.skipped.items():
        print(f"skipped {name}: {reason}")
    for run in result.runs:
        if summary := notes_summary(run.notes):
            print(f"note: {run.metric.name}: {summary}")
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
        for signature in signatures.values():
            print(signature)
    else:
        print("no metric could run on this benchmark")
    cached = sum(r.cached for r in result.runs)
    computed = sum(r.computed for r in result.runs)
    default_out = f"{bench.name}-{level}-{aspect}" + "".join(
        f"-without-{slug(s)}" for s in bench.excluded_systems
    )
    out = Path(args.out or os.path.join("results", default_out))
    scores_path, table_path = write_outputs(out, result, aspect, rows, signatures)
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
    evaluate.add_argument(
        "--workers",
        type=int,
        help="processes for the n-gram metrics (default: $COMPERBENCH_WORKERS or one per CPU)",
    )
    evaluate.add_argument(
        "--resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)"
    )
    evaluate.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    evaluate.add_argument("--ci", choices=["percentile", "bca"], default="percentile")
    evaluate.add_argument(
        "--grouped",
        action="store_true",
        help="turn level: correlate within each dialogue (shared context), then average",
    )
    add_exclude_argument(evaluate)
    evaluate.set_defaults(run=run_evaluate)
