"""`comperbench evaluate`: score a benchmark with metrics and correlate them with human scores."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from comperbench.benchmark import Benchmark, get_metadata, list_benchmarks
from comperbench.cli.common import (
    add_convention_arguments,
    add_exclude_argument,
    conventions_from_arguments,
    load_from_arguments,
    located,
)
from comperbench.cli.evaluate.many import evaluate_each
from comperbench.cli.evaluate.output import (
    Job,
    all_nan_status,
    print_evaluation,
    write_job,
)
from comperbench.cli.flags import MAX_WORKERS, POSITIVE, SEED, regular_file, resamples, whole
from comperbench.common.errors import ComperbenchError, UnknownNameError
from comperbench.common.outputs import refuse_existing
from comperbench.common.textutil import slug
from comperbench.evaluation.api import plan_evaluation, run_plan, run_plans
from comperbench.evaluation.options import RunOptions
from comperbench.evaluation.plan import EvaluationPlan, plan_each
from comperbench.evaluation.table import default_statistics
from comperbench.metrics.cluster import SCHEDULER_ENV, scheduler_address
from comperbench.metrics.llm.settings import CLI_OPTIONS
from comperbench.metrics.runner import resolve_metrics
from comperbench.stats.metric_correlation.statistics import get_statistic, statistic_names
from comperbench.stats.settings import SETTINGS, Resampling

ALL = "all"
"""--benchmark all: every benchmark whose raw files are under the data root."""


def optional_statistics() -> list[str]:
    """Registered statistics `evaluate` computes only when asked."""
    return [n for n in statistic_names() if n not in default_statistics()]


def statistic_list(text: str) -> list[str]:
    """--statistics: registered names, comma-separated (an unknown one is refused by name)."""
    try:
        return [get_statistic(name.strip()).name for name in text.split(",") if name.strip()]
    except UnknownNameError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _folder_name(args: argparse.Namespace, bench: Benchmark, level: str, aspect: str) -> str:
    """<benchmark>-<level>-<aspect> plus what else selects the items."""
    name = f"{bench.name}-{level}-{aspect}"
    name += f"-{bench.split}" if bench.split else ""
    name += "".join(f"-without-{slug(s)}" for s in bench.excluded_systems)
    if args.all_systems and bench.metadata.protocol.reference_excluded_systems:
        name += "-all-systems"
    name += "-grouped" if args.grouped else ""
    if bench.selection:
        name += f"-{bench.selection.kind}{bench.selection.n}-{bench.selection.digest}"
    return name


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


def benchmark_names(args: argparse.Namespace) -> list[str]:
    """--benchmark: a name, a comma-separated list, or `all`: every benchmark whose raw files
    are under the data root and that has --level (the others are said on stderr)."""
    if args.benchmark.strip() != ALL:
        return [n.strip() for n in args.benchmark.split(",") if n.strip()]
    present = list_benchmarks(present=True, data_dir=args.data_dir)
    if missing := [n for n in list_benchmarks() if n not in present]:
        print(f"comperbench: left out, raw files missing: {', '.join(missing)}", file=sys.stderr)
    if args.level in (None, "system"):
        return present
    chosen = [n for n in present if args.level in get_metadata(n).levels]
    if lacking := [n for n in present if n not in chosen]:
        print(
            f"comperbench: left out, no {args.level} level: {', '.join(lacking)}", file=sys.stderr
        )
    return chosen


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


def _jobs(args: argparse.Namespace, names: list[str], many: bool) -> dict[str, Job]:
    """Each benchmark's plan and output paths, every output checked before anything is
    scored. With several benchmarks, --out and --report name the folders they go in."""
    overwrite = _overwrite(args)
    plans = plan_each(
        names, lambda name: _plan(argparse.Namespace(**{**vars(args), "benchmark": name}))
    )
    jobs = {}
    for name, plan in plans.items():
        folder = _folder_name(args, plan.benchmark, plan.level, plan.aspect)
        out = Path(args.out or "results") / folder if many or not args.out else Path(args.out)
        report = Path(args.report) / f"{folder}.html" if many and args.report else args.report
        report = Path(report) if report else None
        _refuse_overwrite(out, plan.settings(), overwrite)
        refuse_existing(report, overwrite)
        jobs[name] = Job(plan, out, report)
    return jobs


@located
def run_evaluate(args: argparse.Namespace) -> int:
    names = benchmark_names(args)
    many = len(names) > 1 or args.benchmark.strip() == ALL
    jobs = _jobs(args, names, many)
    run = RunOptions(
        cache=not args.no_cache,
        batch_size=args.batch_size,
        workers=args.workers,
        scheduler=scheduler_address(args.scheduler),
        data_dir=args.data_dir,
    )
    if many:
        return evaluate_each(jobs, run_plans({n: j.plan for n, j in jobs.items()}, run), args)
    (job,) = jobs.values()
    evaluation = run_plan(job.plan, run)
    written = write_job(job, evaluation)
    if args.json:
        print(json.dumps(written.document, indent=2, default=str))
    else:
        print_evaluation(evaluation, written, args.verbose)
    return all_nan_status(evaluation.result)


def judge_options(args: argparse.Namespace) -> dict[str, str]:
    """The --judge-* options given, by `CLI_OPTIONS` key."""
    return {key: str(v) for key in CLI_OPTIONS if (v := getattr(args, key)) is not None}


def register(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("evaluate")
    evaluate.add_argument(
        "--benchmark",
        required=True,
        help="benchmark name (see `list`), a comma-separated list, or `all` (every benchmark "
        "whose raw files are present): several are scored in this one process, each model "
        "loaded once, each in its own folder, with a summary table",
    )
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
        "--out",
        help="output folder (default: results/<benchmark>-<level>-<aspect>); with several "
        "benchmarks, the folder their folders and summary.csv go in (default: results)",
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
        help="also write the table and its figures as one self-contained HTML page (a new "
        "file); with several benchmarks, the folder of their pages",
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
