"""What the `human` subcommands share: test options and the printing of p-values and rates."""

from __future__ import annotations

import argparse

import pandas as pd

from comperbench.cli.common import add_exclude_argument, format_table
from comperbench.cli.flags import LEVEL, SEED, regular_file, resamples
from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import interval, number, p_value, wrap
from comperbench.stats.multiplicity import CORRECTIONS, describe

SHORT = {"holm": "Holm", "bh": "BH"}


def add_test_options(parser: argparse.ArgumentParser, expected_help: str) -> None:
    """--correction, --expected, --alternative and --json.

    Args:
        parser: the parser to add them to.
        expected_help: the help of --expected.
    """
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison adjustment of each family of tests: Holm (default), "
        "Benjamini-Hochberg, or none",
    )
    parser.add_argument("--expected", type=LEVEL, metavar="RATE", help=expected_help)
    parser.add_argument(
        "--alternative", choices=["two-sided", "greater", "less"], default="two-sided"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def add_sources(parser: argparse.ArgumentParser, file_help: str, aspect_help: str) -> None:
    """--file or --benchmark (one of them), and the benchmark's --aspect, --level, --split,
    --data-dir and --exclude-system.

    Args:
        parser: the parser to add them to.
        file_help: the help of --file.
        aspect_help: the help of --aspect.
    """
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--file", type=regular_file, metavar="FILE", help=file_help)
    source.add_argument("--benchmark", help="benchmark name (see `list`)")
    parser.add_argument("--aspect", help=aspect_help)
    parser.add_argument("--level", choices=["turn", "dialogue"])
    parser.add_argument("--split", help="only this split")
    parser.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    add_exclude_argument(parser)


BENCHMARK_ONLY = {
    "aspect": "--aspect",
    "level": "--level",
    "split": "--split",
    "data_dir": "--data-dir",
    "exclude_system": "--exclude-system",
}


def refuse_benchmark_options(args: argparse.Namespace, **more: str) -> None:
    """Fail when options of `add_sources`' --benchmark (or `more`, attribute -> flag) come with
    --file.

    Args:
        args: the parsed command line.
        more: more options of --benchmark only, attribute -> flag.
    """
    given = [flag for name, flag in {**BENCHMARK_ONLY, **more}.items() if getattr(args, name)]
    if given:
        raise ComperbenchError(f"{', '.join(given)}: only with --benchmark, not with --file")


def add_resampling_options(parser: argparse.ArgumentParser, fewest: int) -> None:
    """--resamples (at least `fewest`; 0, where allowed: no intervals) and --seed.

    Args:
        parser: the parser to add them to.
        fewest: the fewest resamples allowed.
    """
    parser.add_argument(
        "--resamples", type=resamples(fewest), default=1000, help="bootstrap resamples"
    )
    parser.add_argument("--seed", type=SEED, default=0)


def adjusted_header(correction: str) -> list[str]:
    """The header of the adjusted p-value column.

    Args:
        correction: the multiplicity correction (holm, bh or none).

    Returns:
        The adjusted p-value's column header, or none without a correction.
    """
    return [] if correction == "none" else [f"p {SHORT[correction]}"]


def p_cells(p: float, adjusted: float, correction: str) -> list[str]:
    """The cells of a p-value and its adjusted value.

    Args:
        p: the p-value.
        adjusted: the adjusted p-value.
        correction: the multiplicity correction (holm, bh or none).

    Returns:
        The p-value's cell, and the adjusted one's with a correction.
    """
    return [p_value(p)] + ([] if correction == "none" else [p_value(adjusted)])


def print_expected(
    tests: pd.DataFrame, expected: float, args: argparse.Namespace, what: str
) -> None:
    """Each system's rate against the expected rate (`rates.rate_tests`).

    Args:
        tests: rows of `rates.rate_tests`.
        expected: the expected rate.
        args: the parsed command line.
        what: what the rates are, for the heading.
    """
    print(
        "\n"
        + wrap(
            f"{what} against the expected rate {expected:g} (exact binomial test, "
            f"{args.alternative}):"
        )
    )
    rows = [
        [
            s,
            int(r["successes"]),
            int(r["n"]),
            number(r["rate"]),
            interval(r["exact_low"], r["exact_high"]),
            *p_cells(r["p_value"], r["p_adjusted"], args.correction),
        ]
        for s, r in tests.iterrows()
    ]
    headers = ["system", "successes", "n", "rate", "exact 95% CI", "p"]
    print(format_table(headers + adjusted_header(args.correction), rows, indent=2))
    print(wrap(describe(args.correction, int(tests["p_value"].notna().sum()), "binomial tests")))


def print_rate_tests(tests: pd.DataFrame, correction: str) -> None:
    """Two-proportion z-tests of every pair of systems (`rates.pairwise_rate_tests`).

    Args:
        tests: rows of `rates.pairwise_rate_tests`.
        correction: the multiplicity correction (holm, bh or none).
    """
    print("\ntwo-proportion z-tests (pooled variance):")
    body = [
        [
            t["system_a"],
            t["system_b"],
            number(t["z"], 2),
            *p_cells(t["p_value"], t["p_adjusted"], correction),
        ]
        for _, t in tests.iterrows()
    ]
    headers = ["system A", "system B", "z", "p", *adjusted_header(correction)]
    print(format_table(headers, body, indent=2))
    print(wrap(describe(correction, int(tests["p_value"].notna().sum()), "z-tests")))


def print_rates(table: pd.DataFrame, what: str, counted: str = "labelled 1") -> None:
    """A `rates.rates` table, highest rate first: `what` names n, `counted` the count.

    Args:
        table: a `rates.rates` table.
        what: what n counts.
        counted: what the count counts.
    """
    rows = [
        [s, int(r["n"]), int(r["count"]), number(r["rate"]), interval(r["low"], r["high"])]
        for s, r in table.sort_values("rate", ascending=False).iterrows()
    ]
    print(format_table(["system", what, counted, "rate", "interval"], rows))
