"""`comperbench evaluate`: score a benchmark with metrics and correlate them with human scores."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from comperbench.benchmark import Benchmark
from comperbench.cli.common import (
    add_convention_arguments,
    add_exclude_argument,
    conventions_from_arguments,
    load_from_arguments,
    located,
)
from comperbench.cli.flags import MAX_WORKERS, POSITIVE, SEED, regular_file, resamples, whole
from comperbench.cli.judge_output import print_issue_reports
from comperbench.common.arrow_arrays import float_array, text_array
from comperbench.common.errors import ComperbenchError, UnknownNameError
from comperbench.common.outputs import refuse_existing
from comperbench.common.textutil import slug
from comperbench.evaluation.api import plan_evaluation, run_plan
from comperbench.evaluation.judges import explanation_columns
from comperbench.evaluation.options import RunOptions
from comperbench.evaluation.plan import EvaluationPlan
from comperbench.evaluation.result import Evaluation
from comperbench.evaluation.table import default_statistics
from comperbench.metrics.cluster import SCHEDULER_ENV, scheduler_address
from comperbench.metrics.llm.settings import CLI_OPTIONS
from comperbench.metrics.runner import RunResult, resolve_metrics
from comperbench.report.evaluation_text import (
    ceiling_lines,
    header_lines,
    metric_lines,
    run_notes,
    signature_lines,
    table_notes,
    text_tables,
    wrapped,
)
from comperbench.stats.metric_correlation.statistics import get_statistic, statistic_names
from comperbench.stats.settings import SETTINGS, Resampling


def optional_statistics() -> list[str]:
    """Registered statistics `evaluate` computes only when asked."""
    return [n for n in statistic_names() if n not in default_statistics()]


def statistic_list(text: str) -> list[str]:
    """--statistics: registered names, comma-separated (an unknown one is refused by name)."""
    try:
        return [get_statistic(name.strip()).name for name in text.split(",") if name.strip()]
    except UnknownNameError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def write_outputs(out: Path, result: RunResult, document: dict[str, Any]) -> tuple[Path, Path]:
    """scores.parquet (items or systems x metrics) and table.json (correlations + provenance)."""
    out.mkdir(parents=True, exist_ok=True)
    scores_path, table_path = out / "scores.parquet", out / "table.json"
    if result.level == "system":
        result.system_frame().reset_index().to_parquet(scores_path, index=False)
    else:
        pq.write_table(item_table(result), scores_path)
    table_path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return scores_path, table_path


def item_table(result: RunResult) -> pa.Table:
    """`item_frame()` and the explanation columns as pandas writes them, without loading pandas."""
    columns = {"item_id": text_array(result.item_ids), "system": text_array(result.item_systems)}
    for run in result.runs:
        if not run.metric.corpus:
            columns[run.metric.name] = float_array(run.scores)
    for name, explained in explanation_columns(result).items():
        columns[name] = text_array(explained)
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


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


def _refuse_overwrite(out: Path, run: dict[str, Any], overwrite: bool) -> None:
    """A folder holding the table of the same run is replaced; one holding another run's table
    only with --overwrite."""
    table = out / "table.json"
    if overwrite or not table.is_file():
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
            f"{table} holds the table of another run{what}; replace it with --overwrite, or "
            "choose another folder with --out"
        )


def benchmark_from_arguments(args: argparse.Namespace) -> Benchmark:
    """--benchmark at --level (system level: its first stored level), with --split,
    --exclude-system and --sample or --limit applied."""
    bench = load_from_arguments(args, None if args.level == "system" else args.level)
    if args.sample is not None:
        return bench.sample(args.sample, args.sample_seed)
    return bench.head(args.limit) if args.limit is not None else bench


def _plan(args: argparse.Namespace) -> EvaluationPlan:
    """The evaluation the arguments ask for; the --judge-* options are built into the metrics
    and recorded in the plan."""
    bench = benchmark_from_arguments(args)
    options = judge_options(args)
    metrics = resolve_metrics(args.metrics, args.level or bench.level, options)
    resampling = Resampling(args.resamples, args.seed, args.ci, conventions_from_arguments(args))
    plan = plan_evaluation(
        bench,
        metrics,
        level=args.level,
        aspect=args.aspect,
        statistics=args.statistics,
        grouped=args.grouped,
        resampling=resampling,
        protocol=not args.all_systems,
    )
    return replace(plan, judge_options=options)


def _overwrite(args: argparse.Namespace) -> bool:
    """--overwrite, or its old spelling --force (said on stderr)."""
    if args.force:
        print("comperbench: --force is deprecated; use --overwrite", file=sys.stderr)
    return args.overwrite or args.force


@located
def run_evaluate(args: argparse.Namespace) -> int:
    plan = _plan(args)
    overwrite = _overwrite(args)
    out = _output_folder(args, plan.benchmark, plan.level, plan.aspect)
    _refuse_overwrite(out, plan.settings(), overwrite)
    report = Path(args.report) if args.report else None
    refuse_existing(report, overwrite)
    run = RunOptions(
        cache=not args.no_cache,
        batch_size=args.batch_size,
        workers=args.workers,
        scheduler=scheduler_address(args.scheduler),
        data_dir=args.data_dir,
    )
    evaluation = run_plan(plan, run)
    evaluation.result.require_a_run()
    document = evaluation.document()
    scores_path, table_path = write_outputs(out, evaluation.result, document)
    if report is not None:
        metrics = len(evaluation.table.rows)
        print(
            f"writing {report}: testing every pair of the {metrics} metrics (PERM-BOTH, as many "
            "permutations as Holm's correction needs)...",
            file=sys.stderr,
            flush=True,
        )
        evaluation.report(report, overwrite=overwrite)
    if args.json:
        print(json.dumps(document, indent=2, default=str))
        return _all_nan_status(evaluation.result)
    _print_evaluation(evaluation, args.verbose)
    result = evaluation.result
    cached = sum(r.cached for r in result.runs)
    computed = sum(r.computed for r in result.runs)
    print(f"\n{computed} scores computed{_places(result)}, {cached} from the cache")
    for path in (scores_path, table_path, report):
        if path is not None:
            print(f"wrote {path}")
    return _all_nan_status(result)


def _print_evaluation(evaluation: Evaluation, verbose: bool) -> None:
    """The header, the table, then the notes; signatures and metric settings with -v."""
    for line in wrapped(header_lines(evaluation)):
        print(line)
    table = evaluation.table
    if table.rows:
        for text in text_tables(table.rows, table.statistics, reference=table.ceiling_row()):
            print()
            print(text)
    else:
        print("no metric could run on this benchmark")
    for line in wrapped(run_notes(evaluation) + table_notes(table) + ceiling_lines(table)):
        print(line)
    print_issue_reports(evaluation.issues)
    if verbose:
        print()
        for line in signature_lines(table) + metric_lines(evaluation.result):
            print(line)
    elif table.signatures:
        print("signatures and metric settings: table.json, or -v")


def _places(result: RunResult) -> str:
    """' (12000 on the Dask cluster at ..., 300 in this process)', or '' when all were here."""
    counts: dict[str, int] = {}
    for run in result.runs:
        if run.computed:
            counts[run.place] = counts.get(run.place, 0) + run.computed
    if set(counts) <= {"this process"}:
        return ""
    return " (" + ", ".join(f"{n} on {place}" for place, n in counts.items()) + ")"


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
    evaluate = commands.add_parser("evaluate")
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
        type=POSITIVE,
        metavar="N",
        help="score a seeded sample of N items, stratified by system (ids recorded in table.json "
        "and cited in the signature); for a quick run of a judge",
    )
    quick.add_argument("--limit", type=POSITIVE, metavar="N", help="score only the first N items")
    evaluate.add_argument(
        "--sample-seed", type=SEED, default=0, help="seed of --sample (default 0)"
    )
    evaluate.add_argument(
        "--out", help="output folder (default: results/<benchmark>-<level>-<aspect>)"
    )
    evaluate.add_argument("--no-cache", action="store_true", help="recompute every score")
    evaluate.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the outputs of another run in the output folder, and an existing --report "
        "page (the same run's outputs are always replaced)",
    )
    evaluate.add_argument("--force", action="store_true", help=argparse.SUPPRESS)
    evaluate.add_argument("--batch-size", type=POSITIVE, default=256, help="items per metric call")
    evaluate.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    evaluate.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS),
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
        type=resamples(0),
        default=SETTINGS.resamples,
        help="bootstrap resamples (0: no intervals)",
    )
    evaluate.add_argument("--seed", type=SEED, default=SETTINGS.seed, help="bootstrap seed")
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
    evaluate.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print the signatures and each metric's settings (always in table.json)",
    )
    evaluate.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write the table and its figures as one self-contained HTML page (a new file)",
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
        kind = regular_file if key == "judge_key_file" else None  # the rest: checked by the judge
        flag = "--" + key.replace("_", "-")
        group.add_argument(flag, dest=key, type=kind, metavar="VALUE", help=text)
