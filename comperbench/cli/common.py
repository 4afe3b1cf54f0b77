"""What the commands share: benchmark arguments, loading a benchmark from them, input errors."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from comperbench.cli.flags import SEED, resamples
from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import LINE_WIDTH, json_ready, table
from comperbench.stats.averaging import CONVENTIONS, UNDEFINED_GROUPS, WEIGHTINGS, Conventions
from comperbench.stats.settings import SETTINGS

if TYPE_CHECKING:
    from comperbench.benchmark import Benchmark


def add_exclude_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--exclude-system",
        action="append",
        metavar="SYSTEM",
        help="leave this system's items out (repeatable), e.g. a system that is also the reference",
    )


def add_common_arguments(parser: argparse.ArgumentParser, fewest_resamples: int) -> None:
    """--benchmark, --split, --resamples (at least `fewest_resamples`), --seed, --data-dir and
    --exclude-system."""
    parser.add_argument("--benchmark", required=True, help="benchmark name (see `list`)")
    parser.add_argument("--split", help="only this split")
    none = " (0: no intervals)" if fewest_resamples == 0 else ""
    parser.add_argument(
        "--resamples",
        type=resamples(fewest_resamples),
        default=SETTINGS.resamples,
        help=f"bootstrap/permutation resamples (default {SETTINGS.resamples}){none}",
    )
    parser.add_argument(
        "--seed",
        type=SEED,
        default=SETTINGS.seed,
        help=f"resampling seed (default {SETTINGS.seed})",
    )
    parser.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    add_exclude_argument(parser)


def add_convention_arguments(parser: argparse.ArgumentParser) -> None:
    """--convention, --group-weighting and --undefined-groups."""
    parser.add_argument(
        "--convention",
        choices=list(CONVENTIONS),
        default="comperbench",
        help="mt-metrics-eval: count two-item groups (+-1) in grouped averages, p-values as b/k, "
        "Williams' p as sf(|t|), to compare with a WMT paper (default: comperbench)",
    )
    parser.add_argument(
        "--group-weighting",
        choices=WEIGHTINGS,
        help="grouped averages: every group alike (groups, macro) or by its items (items, micro)",
    )
    parser.add_argument(
        "--undefined-groups",
        choices=UNDEFINED_GROUPS,
        help="grouped averages: leave a group whose value is undefined out (drop), or count it "
        "as 0 (zero, mt-metrics-eval's replace_nans_with_zeros)",
    )


def conventions_from_arguments(args: argparse.Namespace) -> Conventions:
    """The named convention with --group-weighting and --undefined-groups applied."""
    conventions = CONVENTIONS[args.convention]
    averaging = conventions.averaging
    if args.group_weighting:
        averaging = replace(averaging, weighting=args.group_weighting)
    if args.undefined_groups:
        averaging = replace(averaging, undefined=args.undefined_groups)
    return replace(conventions, averaging=averaging)


def load_from_arguments(args: argparse.Namespace, level: str | None = None) -> Benchmark:
    """The benchmark named by --benchmark at `level` (a stored level; None: its first), with
    --split and --exclude-system applied and raw files read from --data-dir."""
    from comperbench.benchmark import load_benchmark  # numpy and pyarrow: not for every command

    return load_benchmark(
        args.benchmark,
        level,
        args.split,
        data_dir=args.data_dir,
        exclude_systems=args.exclude_system or (),
    )


def located(run):
    """Report a statistics input error (ValueError) as a command-line error."""

    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except ValueError as exc:
            if isinstance(exc, ComperbenchError):
                raise
            raise ComperbenchError(str(exc)) from exc

    return wrapped


def print_json(payload: Any) -> None:
    """A command's result as JSON on standard output (NaN as null)."""
    print(json.dumps(json_ready(payload), indent=2, allow_nan=False, default=str))


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: int = 0) -> str:
    """A plain-text table whose lines fit `LINE_WIDTH` (`textutil.table`)."""
    return table(headers, rows, indent, LINE_WIDTH)
