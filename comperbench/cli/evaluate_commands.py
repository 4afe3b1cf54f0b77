"""`comperbench evaluate`: score a benchmark with metrics and correlate them with human scores."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from comperbench.benchmark import VERIFIED, Benchmark
from comperbench.cli.common import (
    add_convention_arguments,
    add_exclude_argument,
    conventions_from_arguments,
    load_from_arguments,
)
from comperbench.cli.judge_output import print_issue_reports
from comperbench.errors import ComperbenchError, UnknownNameError
from comperbench.evaluation import (
    EvaluationTable,
    default_statistics,
    evaluate_run,
    issue_reports,
    table_document,
)
from comperbench.explanations import explanation_columns
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.cluster import SCHEDULER_ENV, connect, scheduler_address
from comperbench.metrics.llm_settings import CLI_OPTIONS
from comperbench.metrics.runner import RunResult, resolve_metrics, run_metrics
from comperbench.stats.averaging import Averaging
from comperbench.stats.settings import SETTINGS
from comperbench.stats.statistics import get_statistic, statistic_names
from comperbench.textutil import interval, number, p_value, slug
from comperbench.textutil import table as format_table


def optional_statistics() -> list[str]:
    """Registered statistics `evaluate` computes only when asked."""
    return [n for n in statistic_names() if n not in default_statistics()]


def statistic_list(text: str) -> list[str]:
    """--statistics: registered names, comma-separated (an unknown one is refused by name)."""
    try:
        return [get_statistic(name.strip()).name for name in text.split(",") if name.strip()]
    except UnknownNameError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _human(result: RunResult, aspect: str) -> np.ndarray:
    bench = result.benchmark
    if result.level == "system":
        return bench.systems()[aspect].reindex(result.systems).to_numpy(dtype=float)
    return bench.human_scores(aspect)


def _ci(bounds: list[float] | None) -> str:
    return "-" if bounds is None else interval(*bounds)


def render(rows: list[dict[str, Any]], statistics: tuple[str, ...]) -> str:
    headers = ["metric", "n"]
    for method in statistics:
        headers += [method, "95% CI", "p"]
    headers.append("NaN")
    body = []
    for r in rows:
        line = [r["metric"], r["n"]]
        for method in statistics:
            line += [number(r[method]), _ci(r[f"{method}_ci"]), p_value(r[f"{method}_p"])]
        body.append([*line, r["nan_scores"]])
    return format_table(headers, body)


_JUDGE_COUNTS = ("first_answers", "first_answers_rejected")


def notes_summary(notes: dict[str, Any]) -> str:
    """The non-zero counts of a metric's run notes and its first error, on one line."""
    counts = [
        f"{key.replace('_', ' ')} {value}"
        for key, value in notes.items()
        if isinstance(value, int)
        and not isinstance(value, bool)
        and value
        and key not in ("n", "seed", *_JUDGE_COUNTS)
    ]
    errors = notes.get("errors") or []
    return "; ".join([*counts, *([f"first error: {errors[0]}"] if errors else [])])


def judge_answer_lines(notes: dict[str, Any]) -> list[str]:
    """A judge's share of unusable first answers, and why answers stayed unusable after every
    retry."""
    if not notes.get("first_answers"):
        return []
    first, rejected = notes["first_answers"], notes["first_answers_rejected"]
    lines = [f"first answers unusable: {rejected} of {first} ({100 * rejected / first:.1f}%)"]
    if reasons := notes.get("rejected_by_reason"):
        text = ", ".join(f"{reason} {count}" for reason, count in reasons.items())
        lines.append(f"unusable after every retry: {text}")
    return lines


def write_outputs(out: Path, result: RunResult, document: dict[str, Any]) -> tuple[Path, Path]:
    """scores.parquet (items or systems x metrics) and table.json (correlations + provenance)."""
    out.mkdir(parents=True, exist_ok=True)
    scores_path, table_path = out / "scores.parquet", out / "table.json"
    if result.level == "system":
        frame = result.system_frame().reset_index()
    else:
        frame = result.item_frame().assign(**explanation_columns(result))
    frame.to_parquet(scores_path, index=False)
    table_path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return scores_path, table_path


def protocol_lines(table: EvaluationTable, result: RunResult) -> list[str]:
    """What the benchmark's evaluation protocol left out, for whom and why, or that it was not
    applied."""
    protocol = table.protocol
    if not protocol.reference_excluded_systems:
        return []
    if not table.protocol_applied:
        return ["protocol not applied (--all-systems): every metric is correlated on every system"]
    excluded = table.excluded_items(result)
    if not excluded:
        return [f"protocol: {protocol.source}; no metric here needs references"]
    left_out = ", ".join(f"{s} ({n} items)" for s, n in excluded.items())
    return [
        f"protocol: metrics needing references leave out {left_out}: {protocol.reason}",
        f"protocol source: {protocol.source} (--all-systems keeps every system)",
    ]


def _print_header(
    args: argparse.Namespace, result: RunResult, table: EvaluationTable, averaging: Averaging
) -> None:
    bench, level, aspect = result.benchmark, result.level, table.aspect
    human_n = len(result.systems) if level == "system" else len(bench)
    grouped = ", correlations within each dialogue averaged" if args.grouped else ""
    if args.grouped and averaging.label:
        grouped += f" ({averaging.label})"
    print(
        f"{bench.label} ({bench.fingerprint[:12]}), {level} level{grouped}, aspect {aspect}: "
        f"{human_n} {'systems' if level == 'system' else 'items'}"
    )
    if bench.provenance != VERIFIED:
        print(f"data: {bench.provenance}")
    if bench.selection:
        print(f"items: {bench.selection.describe()}")
    for line in protocol_lines(table, result):
        print(line)
    for name, reason in result.skipped.items():
        print(f"skipped {name}: {reason}")
    for run in result.runs:
        if summary := notes_summary(run.notes):
            print(f"note: {run.metric.name}: {summary}")
        for line in judge_answer_lines(run.notes):
            print(f"note: {run.metric.name}: {line}")
        if run.nans:
            print(
                f"note: {run.metric.name} scored NaN on {run.nans} of {len(run.scores)} (left out)"
            )
    missing = int(np.isnan(_human(result, aspect)).sum())
    if missing:
        unit = "systems" if level == "system" else "items"
        print(f"note: {missing} {unit} without a human {aspect} score are left out")


def row_notes(row: dict[str, Any], statistics: tuple[str, ...]) -> list[str]:
    """Why a row's values are undefined or weak, one line per distinct reason, and the tie
    threshold a calibrated statistic chose."""
    reasons: dict[str, list[str]] = {}
    for method in statistics:
        if note := row.get(f"{method}_note"):
            reasons.setdefault(note, []).append(method)
    lines = [
        f"note: {row['metric']} ({', '.join(labels)}): {note}" for note, labels in reasons.items()
    ]
    chose: dict[str, list[str]] = {}
    for method in statistics:
        if (epsilon := row.get(f"{method}_epsilon")) is not None:
            chose.setdefault(f"{epsilon:.4g}", []).append(method)
    for epsilon, labels in chose.items():
        lines.append(
            f"note: {row['metric']} ({', '.join(labels)}): tie threshold epsilon {epsilon}"
        )
    for method in statistics:
        if (contexts := row.get(f"{method}_contexts")) is not None:
            left_out = row[f"{method}_dropped"]
            lines.append(
                f"note: {row['metric']} ({method}): on the {contexts} contexts every system "
                f"answered with both scores ({left_out} items in other contexts left out)"
            )
    return lines


def _print_table(table: EvaluationTable) -> None:
    if not table.rows:
        print("no metric could run on this benchmark")
        return
    print()
    print(render(table.rows, table.statistics))
    for row in table.rows:
        for line in row_notes(row, table.statistics):
            print(line)
    several = len(table.groups) > 1
    for signed in table.signatures:
        prefix = ""
        if several:
            prefix = (
                "without " + ", ".join(signed.excluded) + ": "
                if signed.excluded
                else "all systems: "
            )
        print(prefix + signed.signature)


def _print_metric_signatures(result: RunResult) -> None:
    for run in result.runs:
        print(f"metric {run.metric.signature()}")


def _run_settings(
    args: argparse.Namespace,
    bench: Benchmark,
    level: str,
    aspect: str,
    metrics: list[str],
    statistics: list[str],
    averaging: Averaging,
) -> dict[str, Any]:
    """Everything that changes the table besides the data: two runs with equal settings on the
    same benchmark version write the same table."""
    return {
        "benchmark": bench.tag,
        "split": bench.split,
        "level": level,
        "aspect": aspect,
        "metrics": sorted(metrics),
        "grouped": args.grouped,
        "resamples": args.resamples,
        "seed": args.seed,
        "ci": args.ci,
        "protocol_applied": not args.all_systems,
        "statistics": statistics,
        "averaging": averaging.label if args.grouped else "",
        "judge_options": judge_options(args),
    }


def _output_folder(args: argparse.Namespace, bench: Benchmark, level: str, aspect: str) -> Path:
    """--out, else results/<benchmark>-<level>-<aspect> plus what else selects the items."""
    if args.out:
        return Path(args.out)
    name = f"{bench.name}-{level}-{aspect}"
    name += f"-{bench.split}" if bench.split else ""
    name += "".join(f"-without-{slug(s)}" for s in bench.excluded_systems)
    if args.all_systems and bench.metadata.protocol.reference_excluded_systems:
        name += "-all-systems"
    name += "-grouped" if args.grouped else ""
    if bench.selection:
        name += f"-{bench.selection.kind}{bench.selection.n}-{bench.selection.digest}"
    return Path("results") / name


def _refuse_overwrite(out: Path, run: dict[str, Any], force: bool) -> None:
    """A folder holding another run's table is only overwritten with --force."""
    table = out / "table.json"
    if force or not table.is_file():
        return
    try:
        previous = json.loads(table.read_text()).get("run")
    except (json.JSONDecodeError, AttributeError):
        previous = None
    if previous != run:
        differs = (
            [k for k in run if previous.get(k) != run[k]] if isinstance(previous, dict) else []
        )
        what = f" (it differs in: {', '.join(differs)})" if differs else ""
        raise ComperbenchError(
            f"{table} holds the table of another run{what}; choose another folder with --out, "
            "or replace it with --force"
        )


def run_evaluate(args: argparse.Namespace) -> int:
    bench_level = None if args.level == "system" else args.level
    bench = selected(load_from_arguments(args, bench_level), args)
    level = args.level or bench.level
    aspect = bench.metadata.aspect(args.aspect, level).name
    metrics = resolve_metrics(args.metrics, level, judge_options(args))
    statistics = args.statistics or list(default_statistics())
    averaging = conventions_from_arguments(args).averaging
    run = _run_settings(
        args, bench, level, aspect, [m.name for m in metrics], statistics, averaging
    )
    out = _output_folder(args, bench, level, aspect)
    _refuse_overwrite(out, run, args.force)
    cache = None if args.no_cache else ScoreCache()
    address = scheduler_address(args.scheduler)
    with connect(address) if address else nullcontext() as client:
        result = run_metrics(
            bench,
            metrics,
            level,
            cache=cache,
            batch_size=args.batch_size,
            workers=args.workers,
            client=client,
        )
    table = evaluate_run(
        result,
        aspect,
        n_resamples=args.resamples,
        ci=args.ci,
        seed=args.seed,
        grouped=args.grouped,
        apply_protocol=not args.all_systems,
        statistics=statistics,
        averaging=averaging,
    )
    issues = issue_reports(result, args.resamples, args.seed)
    document = {"run": run, **table_document(result, table, issues)}
    if not args.json:
        _print_header(args, result, table, averaging)
        _print_table(table)
        print_issue_reports(issues)
        _print_metric_signatures(result)
    cached = sum(r.cached for r in result.runs)
    computed = sum(r.computed for r in result.runs)
    scores_path, table_path = write_outputs(out, result, document)
    if args.json:
        print(json.dumps(document, indent=2, default=str))
        return _all_nan_status(result)
    print(f"\n{computed} scores computed{_places(result)}, {cached} from the cache")
    print(f"wrote {scores_path} and {table_path}")
    return _all_nan_status(result)


def _places(result: RunResult) -> str:
    """' (12000 on the Dask cluster at ..., 300 in this process)', or '' when all were here."""
    counts: dict[str, int] = {}
    for run in result.runs:
        if run.computed:
            counts[run.place] = counts.get(run.place, 0) + run.computed
    if set(counts) <= {"this process"}:
        return ""
    return " (" + ", ".join(f"{n} on {place}" for place, n in counts.items()) + ")"


def selected(bench: Benchmark, args: argparse.Namespace) -> Benchmark:
    """The benchmark, or the sample or first items that --sample or --limit keep."""
    if args.sample is not None:
        return bench.sample(args.sample, args.sample_seed)
    if args.limit is not None:
        return bench.head(args.limit)
    return bench


def judge_options(args: argparse.Namespace) -> dict[str, str]:
    """The --judge-* options given, by `CLI_OPTIONS` key."""
    return {key: str(v) for key in CLI_OPTIONS if (v := getattr(args, key)) is not None}


def _all_nan_status(result: RunResult) -> int:
    """1, said on stderr, when every score of every metric that ran is NaN; else 0."""
    if not result.runs or any(run.nans < len(run.scores) for run in result.runs):
        return 0
    for run in result.runs:
        print(f"comperbench: every score of {run.metric.name} is NaN", file=sys.stderr)
    return 1


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
    quick = evaluate.add_mutually_exclusive_group()
    quick.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="score a seeded sample of N items, stratified by system (ids recorded in table.json "
        "and cited in the signature); for a quick run of a judge",
    )
    quick.add_argument("--limit", type=int, metavar="N", help="score only the first N items")
    evaluate.add_argument("--sample-seed", type=int, default=0, help="seed of --sample (default 0)")
    evaluate.add_argument(
        "--out", help="output folder (default: results/<benchmark>-<level>-<aspect>)"
    )
    evaluate.add_argument("--no-cache", action="store_true", help="recompute every score")
    evaluate.add_argument(
        "--force", action="store_true", help="overwrite an output folder that holds another run"
    )
    evaluate.add_argument("--batch-size", type=int, default=256, help="items per metric call")
    evaluate.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    evaluate.add_argument(
        "--workers",
        type=int,
        help="processes for the n-gram metrics (default: $COMPERBENCH_WORKERS or one per CPU)",
    )
    evaluate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="score on the Dask cluster of this scheduler (tcp://HOST:8786), or on a cluster of "
        f"one process per CPU started here (local); default: ${SCHEDULER_ENV}. LLM judges stay "
        "in this process",
    )
    evaluate.add_argument(
        "--resamples",
        type=int,
        default=SETTINGS.n_resamples,
        help="bootstrap resamples (0: no intervals)",
    )
    evaluate.add_argument("--seed", type=int, default=SETTINGS.seed, help="bootstrap seed")
    evaluate.add_argument("--ci", choices=["percentile", "bca"], default="percentile")
    evaluate.add_argument(
        "--statistics",
        type=statistic_list,
        help="comma-separated statistics (default: "
        f"{','.join(default_statistics())}; also {','.join(optional_statistics())}): "
        "acc-eq is WMT's pairwise accuracy with tie calibration, best with --grouped or at "
        "system level",
    )
    evaluate.add_argument(
        "--grouped",
        action="store_true",
        help="turn level: correlate within each dialogue (shared context), then average",
    )
    add_convention_arguments(evaluate)
    add_exclude_argument(evaluate)
    _add_judge_arguments(evaluate)
    evaluate.add_argument(
        "--all-systems",
        action="store_true",
        help="ignore the benchmark's evaluation protocol: correlate every metric on every system "
        "(e.g. keep USR's ground truth, whose response is the reference)",
    )
    evaluate.add_argument(
        "--json", action="store_true", help="print table.json's document instead of the table"
    )
    evaluate.set_defaults(run=run_evaluate)


def _add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """--judge-* options: every LLM judge's settings its brackets leave open."""
    group = parser.add_argument_group(
        "LLM judges",
        "Settings of every LLM judge in --metrics that its brackets leave open; brackets take "
        "the same options (cpdscore-simple[http:gpt-4o,n=5,t=0.7,seed=1,url=...,timeout=30,"
        "concurrency=8,retries=2,key_file=...,structured=false]). The API key is read from "
        "--judge-key-file or $COMPERBENCH_LLM_API_KEY, never from the command line, and never "
        "printed.",
    )
    for key, text in CLI_OPTIONS.items():
        group.add_argument("--" + key.replace("_", "-"), dest=key, metavar="VALUE", help=text)
