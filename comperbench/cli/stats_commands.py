"""`comperbench compare | agreement`: significance between metrics and inter-annotator
agreement."""

from __future__ import annotations

import argparse
import lzma
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from comperbench.benchmark import Benchmark
from comperbench.cli.common import (
    add_common_arguments,
    add_convention_arguments,
    conventions_from_arguments,
    format_table,
    load_from_arguments,
    located,
    print_json,
)
from comperbench.cli.flags import LEVEL, MAX_RESAMPLES, regular_file, resamples, whole
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import refuse_existing
from comperbench.common.parquet_bytes import read_parquet
from comperbench.common.textutil import interval, number, p_value, wrap, wrap_signature
from comperbench.stats import multiplicity
from comperbench.stats.annotator_agreement.agreement import STATISTICS, agreement
from comperbench.stats.metric_correlation.correlation import CorrelationResult, correlation_table
from comperbench.stats.metric_correlation.statistics import (
    statistic_names,
    supports,
)
from comperbench.stats.metric_tests.significance import TESTS, EarlyStopping
from comperbench.stats.metric_tests.verdicts import MAX_PERMUTATIONS, Verdicts, metric_verdicts
from comperbench.stats.settings import SETTINGS, Resampling


class DeprecatedFlag(argparse.Action):
    """An old flag that still sets its new flag's value, with a one-line warning."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        new = f"--{self.dest.replace('_', '-')}"
        print(f"warning: {option_string} is deprecated; use {new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def read_scores(path: str, bench: Benchmark) -> dict[str, np.ndarray]:
    """Metric columns of a parquet/CSV file keyed by item_id, aligned with the benchmark items."""
    from comperbench.metrics.provided import aligned_scores

    file = Path(path)
    if not file.is_file():
        raise ComperbenchError(f"scores file {path} does not exist")
    parquet = file.suffix == ".parquet"
    try:
        frame = (
            read_parquet(file.read_bytes(), use_pandas_metadata=True).to_pandas()
            if parquet
            else pd.read_csv(file)
        )
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, lzma.LZMAError) as exc:
        raise ComperbenchError(f"scores file {path} cannot be read: {exc}") from None
    return aligned_scores(frame, bench, path, line=lambda i: i + (1 if parquet else 2))


def _metric_scores(
    args: argparse.Namespace, bench: Benchmark
) -> tuple[dict[str, np.ndarray], bool]:
    """The metric scores of every item, and whether any metric needs references (a scores
    file's metrics are taken to need them unless --reference-free says otherwise)."""
    if args.scores:
        return read_scores(args.scores, bench), not args.reference_free
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import resolve_metrics, run_metrics

    run = run_metrics(bench, resolve_metrics(args.metrics, bench.level), cache=ScoreCache())
    run.require_a_run()
    for name, reason in run.skipped.items():
        print(f"skipped {name}: {reason}", file=sys.stderr)
    frame = run.item_frame()
    scores = {
        c: frame[c].to_numpy(dtype=float) for c in frame.columns if c not in ("item_id", "system")
    }
    return scores, any("references" in r.metric.needs for r in run.runs)


def _protocol_subset(
    args: argparse.Namespace, bench: Benchmark, needs_references: bool
) -> tuple[Benchmark, np.ndarray, list[str]]:
    """The benchmark the protocol keeps for these metrics, the mask of its items, and the lines
    that say what was left out and why."""
    needs = {"references"} if needs_references and not args.all_systems else set()
    excluded = bench.protocol_exclusions(needs)
    systems = np.asarray(bench.table.column("system").to_pylist())
    lines = []
    if excluded:
        left_out = ", ".join(f"{s} ({int((systems == s).sum())} items)" for s in excluded)
        protocol = bench.metadata.protocol
        lines = [
            f"protocol: every metric leaves out {left_out}, as metrics needing references do",
            f"  ({protocol.reason}; {protocol.source}); --all-systems keeps every system",
        ]
    return bench.without_systems(excluded), ~np.isin(systems, excluded), lines


def _print_correlations(table: list, statistic: str) -> None:
    rows = [
        [
            r.metric,
            r.n,
            r.n_dropped,
            number(r.value),
            p_value(r.p_value),
            interval(r.ci.low, r.ci.high) if r.ci else "-",
            "; ".join(note for note in (_contexts_note(r), r.reason, r.ci_note) if note),
        ]
        for r in table
    ]
    print(format_table(["metric", "n", "dropped", statistic, "p", "95% CI", "note"], rows))
    print(wrap_signature(table[0].signature))


def _contexts_note(r: CorrelationResult) -> str | None:
    if r.contexts is None:
        return None
    return f"on the {r.contexts} contexts every system answered, resampled"


def _p_matrix(metrics: list[str], short: list[str], values, ranks, p: np.ndarray) -> str:
    body = [
        [f"{short[i]} {name}", number(values[i]), ranks[i]]
        + ["" if i == j else p_value(p[i, j]) for j in range(len(metrics))]
        for i, name in enumerate(metrics)
    ]
    return format_table(["metric", "value", "rank", *short], body)


def _print_significance(verdicts: Verdicts, test: str) -> None:
    sig = verdicts.matrix
    print(
        "\n"
        + wrap(
            f"{test}: {'p' if verdicts.correction == 'none' else 'adjusted p'} that the row "
            f"metric correlates better than the column metric ({sig.n} {sig.unit}, "
            f"{sig.n_dropped} items dropped)"
        )
    )
    short = [f"m{i + 1}" for i in range(len(sig.metrics))]
    print(_p_matrix(sig.metrics, short, sig.values, verdicts.cluster_ranks, verdicts.adjusted))
    print(wrap(verdicts.describe()))
    if note := verdicts.resolution.note:
        print(wrap(f"note: {note}"))
    used = sig.resamples_used[~np.eye(len(sig.metrics), dtype=bool)]
    if used.size and used.min() < used.max():
        print(f"permutations per pair: {used.min()} to {used.max()} (pairs far above alpha stop)")
    for rank, members in enumerate(verdicts.clusters(), start=1):
        print(wrap(", ".join(members), first=f"cluster {rank}: ", indent="  "))
    for name, reason in sig.undefined.items():
        print(wrap(f"not ranked: {name} (correlation undefined: {reason})", indent="  "))
    if verdicts.correction != "none":
        print("\nunadjusted one-sided p-values (no verdict is drawn from them):")
        print(_p_matrix(sig.metrics, short, sig.values, verdicts.cluster_ranks, sig.p_values))
    print(wrap_signature(sig.signature))


def _compare_document(lines, correlations, verdicts: Verdicts | None) -> dict:
    significance = None
    if verdicts is not None:
        significance = {
            **vars(verdicts.matrix),
            "ranks": verdicts.cluster_ranks,
            "clusters": verdicts.clusters(),
            "rank_ranges": verdicts.rank_ranges,
            "tied_with_leader": verdicts.tied_with_leader,
            "correction": verdicts.correction,
            "adjusted_p_values": verdicts.adjusted,
            "resolution": vars(verdicts.resolution),
            "resolution_note": verdicts.resolution.note,
        }
    return {"protocol": lines, "correlations": correlations, "significance": significance}


def early_stopping(text: str) -> EarlyStopping:
    """BLOCK or BLOCK:BELOW:ABOVE, e.g. 1000 or 500:0.01:0.6."""
    parts = text.split(":")
    if len(parts) not in (1, 3):
        raise argparse.ArgumentTypeError(f"--early-stop {text!r}: give BLOCK or BLOCK:BELOW:ABOVE")
    try:
        block = whole(1, MAX_RESAMPLES)(parts[0])
        return EarlyStopping(block, *(float(part) for part in parts[1:]))
    except (argparse.ArgumentTypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"--early-stop {text!r}: {error}") from None


def run_compare(args: argparse.Namespace) -> int:
    if bool(args.scores) == bool(args.metrics):
        raise ComperbenchError("give exactly one of --metrics or --scores")
    stored = None if args.level == "system" else args.level
    bench = load_from_arguments(args, stored)
    all_scores, needs_references = _metric_scores(args, bench)
    if len(all_scores) < 2:
        named = ", ".join(all_scores) or "none"
        raise ComperbenchError(f"compare needs at least two metrics to compare; got {named}")
    level = args.level or bench.level
    aspect = bench.metadata.aspect(args.aspect, level).name
    refuse_existing(args.report)
    kept, keep, protocol_lines = _protocol_subset(args, bench, needs_references)
    scores = {name: values[keep] for name, values in all_scores.items()}
    human = kept.human_scores(aspect)
    columns = kept.table.select(["dialogue_id", "system"]).to_pandas()
    over_contexts = supports(args.statistic, "over_contexts")
    groups = columns["dialogue_id"].to_numpy() if args.grouped or over_contexts else None
    resampling = Resampling(args.resamples, args.seed, args.ci, conventions_from_arguments(args))
    options = dict(
        level=level,
        statistic=args.statistic,
        groups=groups,
        systems=columns["system"].to_numpy(),
        resampling=resampling,
        benchmark=kept.tag,
    )
    correlations = correlation_table(scores, human, **options)
    verdicts = metric_verdicts(
        scores,
        human,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        permutations=args.permutations,
        early_stopping=args.early_stop,
        **options,
    )
    if args.report:
        from comperbench.report.pages import write_comparison_report

        header = [("benchmark", kept.tag), ("aspect", aspect), ("level", level)]
        header += [("protocol", line.strip().removeprefix("protocol: ")) for line in protocol_lines]
        write_comparison_report(args.report, header, correlations, args.statistic, verdicts)
    if args.json:
        print_json(_compare_document(protocol_lines, correlations, verdicts))
        return 0
    for line in protocol_lines:
        print(wrap(line, indent="  "))
    grouped = " grouped by dialogue (shared context)" if args.grouped else ""
    print(wrap(f"{kept.label}, aspect {aspect}, {level} level{grouped}, {args.statistic}"))
    _print_correlations(correlations, args.statistic)
    _print_significance(verdicts, args.test)
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    bench = load_from_arguments(args, args.level)
    ratings = bench.ratings()
    if ratings.empty:
        raise ComperbenchError(
            f"{bench.name} publishes no individual ratings; agreement needs them"
        )
    aspects = (
        [bench.metadata.aspect(args.aspect).name]
        if args.aspect
        else sorted(ratings["aspect"].unique())
    )
    statistics = tuple(args.statistics.split(",")) if args.statistics else STATISTICS
    options = dict(resampling=Resampling(args.resamples, args.seed), benchmark=bench.tag)
    results = [
        (aspect, r) for aspect in aspects for r in agreement(ratings, aspect, statistics, **options)
    ]
    if args.json:
        print_json([{"aspect": aspect, **vars(r)} for aspect, r in results])
        return 0
    rows, notes, signature = [], set(), ""
    for aspect, r in results:
        ci = interval(r.ci.low, r.ci.high) if r.ci else "-"
        rows.append(
            [aspect, r.statistic, number(r.value), ci, r.n_items, r.n_ratings, r.reason or ""]
        )
        notes.add(r.rater_assignment)
        signature = r.signature
    raters = "; ".join(sorted(notes))
    print(wrap(f"{bench.label} ({bench.level} level): inter-annotator agreement, raters: {raters}"))
    print(
        format_table(["aspect", "statistic", "value", "95% CI", "items", "ratings", "note"], rows)
    )
    print(wrap_signature(signature))
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    compare = commands.add_parser("compare")
    add_common_arguments(compare, 1)
    source = compare.add_mutually_exclusive_group()
    source.add_argument("--metrics", help="comma-separated metric names, or 'default'")
    source.add_argument(
        "--scores", type=regular_file, help="parquet/CSV file: item_id + one column per metric"
    )
    compare.add_argument("--aspect", help="human aspect (default: the benchmark's default)")
    compare.add_argument("--level", choices=["turn", "dialogue", "system"])
    compare.add_argument(
        "--grouped", action="store_true", help="correlate within each dialogue, then average"
    )
    compare.add_argument(
        "--statistic",
        choices=statistic_names(),
        default="pearson",
        help="the correlation statistic the metrics are compared on (default: pearson)",
    )
    compare.add_argument(
        "--method",
        dest="statistic",
        choices=statistic_names(),
        action=DeprecatedFlag,
        help=argparse.SUPPRESS,
    )
    compare.add_argument(
        "--test",
        choices=TESTS,
        default=SETTINGS.test,
        help="perm-both (the default) swaps the two metrics' scores per item; pairwise-permutation swaps their "
        "verdicts per pair of items, each metric at its own tie threshold (acc-eq, acc23, "
        "tau-eq, kendall-like); paired-bootstrap; williams (Pearson only). For spa (system "
        "level) perm-both swaps each system's score on each context and paired-bootstrap "
        "resamples contexts",
    )
    compare.add_argument(
        "--permutations",
        type=resamples(1),
        help="permutations of the tests between metrics (default: as many as the correction "
        f"needs for a difference to be shown, at most {MAX_PERMUTATIONS})",
    )
    compare.add_argument(
        "--early-stop",
        type=early_stopping,
        metavar="BLOCK[:BELOW:ABOVE]",
        help="permutation tests: stop after a block of BLOCK permutations once p < BELOW or "
        "p > ABOVE (default 0.02 and 0.5, as mt-metrics-eval)",
    )
    add_convention_arguments(compare)
    compare.add_argument("--ci", choices=["percentile", "bca"], default="percentile")
    compare.add_argument("--alpha", type=LEVEL, default=SETTINGS.alpha)
    compare.add_argument(
        "--correction",
        choices=multiplicity.CORRECTIONS,
        default=SETTINGS.correction,
        help="multiplicity correction over the pairwise tests; every verdict (clusters, ranks) "
        "reads the adjusted p-values (default: holm)",
    )
    compare.add_argument(
        "--reference-free",
        action="store_true",
        help="the --scores metrics need no references: the protocol leaves no system out",
    )
    compare.add_argument(
        "--all-systems",
        action="store_true",
        help="ignore the benchmark's evaluation protocol (keep e.g. USR's ground truth)",
    )
    compare.add_argument("--json", action="store_true", help="print JSON instead of tables")
    compare.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write the correlations and the p-value heatmap as one HTML page (a new file)",
    )
    compare.set_defaults(run=located(run_compare))

    agree = commands.add_parser("agreement")
    add_common_arguments(agree, 0)
    agree.add_argument("--level", choices=["turn", "dialogue"])
    agree.add_argument("--aspect", help="one aspect (default: every rated aspect)")
    agree.add_argument("--statistics", help=f"comma-separated, from {','.join(STATISTICS)}")
    agree.add_argument("--json", action="store_true", help="print JSON instead of a table")
    agree.set_defaults(run=located(run_agreement))
