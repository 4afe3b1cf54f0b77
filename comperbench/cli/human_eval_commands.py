"""`comperbench pairwise | rates`: the human evaluation itself, as a ranking of systems.

`pairwise` reads the preferences implicit in a benchmark whose systems answered the same contexts
(see `comperbench.stats.judgments`), or vote counts per pair of systems from a CSV file, and ranks
the systems; `rates` gives per-system rates of a binary aspect with Wilson intervals and tests
between systems. The analysis is `comperbench.stats.pairwise_analysis.analyse`; this module parses
and prints.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass

import numpy as np
import pandas as pd

from comperbench.benchmark import Benchmark
from comperbench.cli.common import (
    add_common_arguments,
    add_exclude_argument,
    load_from_arguments,
    located,
    print_json,
)
from comperbench.errors import ComperbenchError
from comperbench.stats.judgments import (
    MEAN_JUDGE,
    as_comparisons,
    pairwise_judgments,
    selections,
)
from comperbench.stats.multiplicity import CORRECTIONS, describe
from comperbench.stats.online_ratings import DEFAULT_PERMUTATIONS
from comperbench.stats.pairwise import Comparisons
from comperbench.stats.pairwise_analysis import PairwiseAnalysis, analyse
from comperbench.stats.pairwise_tests import chi_square
from comperbench.stats.rates import pairwise_rate_tests, rate_tests, rates
from comperbench.stats.vote_rows import (
    agreement_breakdown,
    comparisons_from_vote_rows,
    read_vote_rows,
    vote_rows_from_judgments,
)
from comperbench.stats.votes import comparisons_from_votes, read_votes
from comperbench.textutil import interval, number, p_value
from comperbench.textutil import table as format_table

TIE_NOTE = "left out of win rates, half a win in Bradley-Terry, draws in Elo and TrueSkill"
SHORT = {"holm": "Holm", "bh": "BH"}
BENCHMARK_ONLY = {
    "aspect": "--aspect",
    "write_votes": "--write-votes",
    "level": "--level",
    "split": "--split",
    "data_dir": "--data-dir",
    "exclude_system": "--exclude-system",
}


def _load(args: argparse.Namespace) -> Benchmark:
    return load_from_arguments(args, args.level)


@dataclass(frozen=True)
class Games:
    """The comparisons to analyse and what goes with them."""

    comparisons: Comparisons
    selected: pd.DataFrame | None
    """Per-context selections (benchmarks only)."""
    about: str
    tag: str | None
    agreement: pd.DataFrame | None = None
    """How the votes on each item's pair agree (votes one per row only)."""


def _benchmark_games(args: argparse.Namespace) -> Games:
    """Comparisons, per-context selections, a description and the benchmark tag."""
    bench = _load(args)
    aspect = bench.metadata.aspect(args.aspect).name
    ratings = bench.unit_ratings(aspect)
    judgments = pairwise_judgments(ratings)
    if judgments.empty:
        raise ComperbenchError(
            f"no context of {bench.name} was answered by two or more systems; pairwise "
            "comparison needs systems rated on shared contexts"
        )
    per_judge = (judgments["judge"] != MEAN_JUDGE).any()
    if args.write_votes:
        vote_rows_from_judgments(judgments).to_csv(args.write_votes, index=False)
    games = as_comparisons(judgments)
    about = (
        f"{bench.label}, aspect {aspect}: {len(judgments)} preferences from "
        f"{'each annotator' if per_judge else 'the mean ratings'} over "
        f"{judgments['unit'].nunique()} shared contexts, {games.systems.size} systems"
    )
    return Games(games, selections(ratings), about, bench.tag)


def _one_vote_per_row(path: str) -> bool:
    """A .jsonl file, or a CSV file whose header has an outcome column, holds votes one per row;
    another CSV file holds vote counts per pair."""
    if path.lower().endswith(".jsonl"):
        return True
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False  # read_votes says what is wrong with the file
    return "outcome" in [name.strip() for name in header]


def _votes_games(args: argparse.Namespace) -> Games:
    given = [flag for name, flag in BENCHMARK_ONLY.items() if getattr(args, name)]
    if given:
        raise ComperbenchError(f"{', '.join(given)}: only with --benchmark, not with --votes")
    if _one_vote_per_row(args.votes):
        rows = read_vote_rows(args.votes)
        games = comparisons_from_vote_rows(rows)
        about = (
            f"{args.votes}: {len(rows)} votes by {rows['annotator'].nunique()} annotators on "
            f"{rows['item'].nunique()} items, {games.systems.size} systems"
        )
        return Games(games, None, about, None, agreement_breakdown(rows))
    votes = read_votes(args.votes)
    games = comparisons_from_votes(votes, args.votes)
    about = (
        f"{args.votes}: {games.a.size} votes on {len(votes)} pairs of {games.systems.size} systems"
    )
    return Games(games, None, about, None)


def _print_counts(result: PairwiseAnalysis) -> None:
    wtl, wmt = result.win_tie_loss, result.wmt
    headers = ["system", "wins", "ties", "losses", "win rate"]
    if wmt is not None:
        headers += ["WMT major (n)", "WMT distinct (n)"]
    rows = []
    for s, r in wtl.sort_values("win_rate", ascending=False).iterrows():
        row = [s, int(r["wins"]), int(r["ties"]), int(r["losses"]), number(r["win_rate"])]
        if wmt is not None:
            row.append(f"{number(wmt.at[s, 'major'])} ({int(wmt.at[s, 'major_n'])})")
            row.append(f"{number(wmt.at[s, 'distinct'])} ({int(wmt.at[s, 'distinct_n'])})")
        rows.append(row)
    print(format_table(headers, rows))


def _print_ratings(result: PairwiseAnalysis, n_permutations: int) -> None:
    for name, reason in result.undefined.items():
        if name in ("Bradley-Terry", "Elo", "TrueSkill"):
            print(f"note: {name} is undefined here: {reason}")
    if not result.ratings:
        return
    first = next(iter(result.ratings.values()))
    headers, rows = ["system"], [[s] for s in first.table.index]
    for name, rated in result.ratings.items():
        headers += [name, "95% CI", "ranks"]
        for row, system in zip(rows, first.table.index, strict=True):
            r = rated.table.loc[system]
            row += [number(r["rating"]), interval(r["low"], r["high"])]
            known = pd.notna(r["rank_low"])
            row.append(f"{int(r['rank_low'])}-{int(r['rank_high'])}" if known else "-")
    print(format_table(headers, rows))
    print(
        f"Elo and TrueSkill: median over {n_permutations} random orders of the comparisons; "
        "intervals: bootstrap percentiles, each resample replayed in a random order"
    )
    for name, rated in result.ratings.items():
        for system in rated.outside:
            print(f"note: the {name} rating of {system} lies outside its own interval")
        print(rated.signature)


def _print_omnibus(result: PairwiseAnalysis) -> None:
    chi = result.chi_square
    if chi is None:
        print(f"\nnote: chi-square is undefined here: {result.undefined['chi-square']}")
    else:
        dropped = result.dropped_outcomes
        note = f" ({', '.join(dropped)} never occur: column dropped)" if dropped else ""
        print(
            f"\nchi-square, systems x (win, tie, loss){note}: {chi.statistic:.2f}, dof "
            f"{chi.dof}, p {p_value(chi.p_value)}"
        )
    q = result.cochran
    if q is not None:
        print(
            f"Cochran's Q, best-rated system of each of {q.n} contexts every system "
            f"answered: {number(q.statistic, 2)}, dof {q.dof}, p {p_value(q.p_value)}"
        )


def _adjusted_header(correction: str) -> list[str]:
    return [] if correction == "none" else [f"p {SHORT[correction]}"]


def _p_cells(p: float, adjusted: float, correction: str) -> list[str]:
    return [p_value(p)] + ([] if correction == "none" else [p_value(adjusted)])


def _print_pairs(result: PairwiseAnalysis) -> None:
    pairs, correction = result.pairs, result.correction
    mcnemar = "mcnemar_p" in pairs
    headers = ["system A", "system B", "A wins", "B wins", "ties", "sign p"]
    headers += _adjusted_header(correction)
    if mcnemar:
        headers += ["McNemar p", *_adjusted_header(correction)]
    rows = []
    for _, r in pairs.iterrows():
        row = [r["system_a"], r["system_b"], r["wins_a"], r["wins_b"], r["ties"]]
        row += _p_cells(r["sign_p"], r["sign_p_adjusted"], correction)
        if mcnemar:
            row += _p_cells(r["mcnemar_p"], r["mcnemar_p_adjusted"], correction)
        rows.append(row)
    print("\nevery pair of systems: exact sign test (ties left out)", end="")
    print(", exact McNemar test on their selections as best" if mcnemar else "")
    print(format_table(headers, rows, indent=2))
    print(describe(correction, len(pairs), "sign tests"), end="")
    print(f"; the same over {len(pairs)} McNemar tests" if mcnemar else "")


def _print_expected(
    tests: pd.DataFrame, expected: float, args: argparse.Namespace, what: str
) -> None:
    print(
        f"\n{what} against the expected rate {expected:g} (exact binomial test, "
        f"{args.alternative}):"
    )
    rows = [
        [
            s,
            int(r["successes"]),
            int(r["n"]),
            number(r["rate"]),
            interval(r["exact_low"], r["exact_high"]),
            *_p_cells(r["p_value"], r["p_adjusted"], args.correction),
        ]
        for s, r in tests.iterrows()
    ]
    headers = ["system", "successes", "n", "rate", "exact 95% CI", "p"]
    print(format_table(headers + _adjusted_header(args.correction), rows, indent=2))
    print(describe(args.correction, int(tests["p_value"].notna().sum()), "binomial tests"))


def _print_agreement(agreement: pd.DataFrame) -> None:
    print("\nagreement of the votes on each item's pair, by the number of votes it got:")
    rows = [[int(k), *(int(v) for v in r)] for k, r in agreement.iterrows()]
    print(format_table(["votes", *agreement.columns], rows, indent=2))


def run_pairwise(args: argparse.Namespace) -> int:
    found = _votes_games(args) if args.votes else _benchmark_games(args)
    games, about = found.comparisons, found.about
    result = analyse(
        games,
        selected=found.selected,
        n_resamples=args.resamples,
        n_permutations=args.permutations,
        seed=args.seed,
        benchmark=found.tag,
        correction=args.correction,
        expected=args.expected,
        alternative=args.alternative,
    )
    if args.json:
        print_json({**_pairwise_payload(result, about), "agreement": found.agreement})
        return 0
    ties = int((games.outcome == 0.5).sum())
    print(f"{about}; {ties} ties ({TIE_NOTE})")
    _print_counts(result)
    if found.agreement is not None:
        _print_agreement(found.agreement)
    print()
    _print_ratings(result, args.permutations)
    _print_omnibus(result)
    _print_pairs(result)
    if result.expected is not None:
        _print_expected(result.expected, args.expected, args, "win rate (ties left out)")
    return 0


def _pairwise_payload(result: PairwiseAnalysis, about: str) -> dict:
    return {
        "about": about,
        "comparisons": int(result.comparisons.a.size),
        "ties": int((result.comparisons.outcome == 0.5).sum()),
        "correction": result.correction,
        "win_tie_loss": result.win_tie_loss,
        "wmt": result.wmt,
        "ratings": {
            name: {"signature": rated.signature, "table": rated.table}
            for name, rated in result.ratings.items()
        },
        "undefined": result.undefined,
        "chi_square": vars(result.chi_square) if result.chi_square else None,
        "dropped_outcomes": result.dropped_outcomes,
        "cochran": vars(result.cochran) if result.cochran else None,
        "pairs": result.pairs,
        "expected": result.expected,
    }


def binary_labels(bench: Benchmark, aspect: str) -> tuple[np.ndarray, int]:
    """Per item 1 when the mean rating is above 0.5, 0 below, NaN at exactly 0.5 (a split vote)
    or without a rating; and the number of split votes."""
    spec = bench.metadata.aspect(aspect)
    if (spec.min, spec.max) != (0, 1):
        raise ComperbenchError(
            f"aspect {aspect!r} of {bench.name} is rated {spec.min:g}-{spec.max:g}; rates need a "
            "0-1 (binary) aspect"
        )
    scores = bench.human_scores(aspect)
    labels = np.where(scores > 0.5, 1.0, np.where(scores < 0.5, 0.0, np.nan))
    labels[np.isnan(scores)] = np.nan
    return labels, int(np.sum(scores == 0.5))


def _print_rate_tests(tests: pd.DataFrame, correction: str) -> None:
    print("\ntwo-proportion z-tests (pooled variance):")
    body = [
        [
            t["system_a"],
            t["system_b"],
            number(t["z"], 2),
            *_p_cells(t["p_value"], t["p_adjusted"], correction),
        ]
        for _, t in tests.iterrows()
    ]
    headers = ["system A", "system B", "z", "p", *_adjusted_header(correction)]
    print(format_table(headers, body, indent=2))
    print(describe(correction, int(tests["p_value"].notna().sum()), "z-tests"))


def run_rates(args: argparse.Namespace) -> int:
    bench = _load(args)
    aspect = bench.metadata.aspect(args.aspect).name
    labels, split_votes = binary_labels(bench, aspect)
    systems = np.asarray(bench.table.column("system").to_pylist(), dtype=object)
    table = rates(systems, labels, args.confidence)
    tests = pairwise_rate_tests(table, args.correction) if len(table) > 1 else None
    chi = None
    if tests is not None:
        counts = np.column_stack([table["count"], table["n"] - table["count"]])
        chi = dict(zip(("statistic", "p_value", "dof"), chi_square(counts), strict=True))
    expected = None
    if args.expected is not None:
        expected = rate_tests(
            table["count"], table["n"], args.expected, args.alternative, args.correction
        )
    if args.json:
        print_json(
            {
                "about": f"{bench.label}, aspect {aspect}",
                "split_votes_left_out": split_votes,
                "correction": args.correction,
                "rates": table,
                "pairwise_z_tests": tests,
                "chi_square": chi,
                "expected": expected,
            }
        )
        return 0
    print(
        f"{bench.label}, aspect {aspect}: rate of items labelled 1 (majority of the ratings) per "
        f"system, Wilson {args.confidence:.0%} intervals"
    )
    if split_votes:
        print(f"note: {split_votes} items with evenly split ratings are left out")
    rows = [
        [s, int(r["n"]), int(r["count"]), number(r["rate"]), interval(r["low"], r["high"])]
        for s, r in table.sort_values("rate", ascending=False).iterrows()
    ]
    print(format_table(["system", "items", "labelled 1", "rate", "interval"], rows))
    if tests is not None and chi is not None:
        _print_rate_tests(tests, args.correction)
        print(
            f"chi-square, systems x label: {chi['statistic']:.2f}, dof {chi['dof']}, "
            f"p {p_value(chi['p_value'])}"
        )
    if expected is not None:
        _print_expected(expected, args.expected, args, "rate of each system")
    return 0


def _add_test_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison adjustment of each family of tests: Holm (default), "
        "Benjamini-Hochberg, or none",
    )
    parser.add_argument(
        "--expected",
        type=float,
        metavar="RATE",
        help="also test each system's rate against this expected rate (exact binomial test)",
    )
    parser.add_argument(
        "--alternative", choices=["two-sided", "greater", "less"], default="two-sided"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _register_pairwise(commands: argparse._SubParsersAction) -> None:
    pairwise = commands.add_parser(
        "pairwise",
        help="rank systems from pairwise preferences: a benchmark's shared contexts or votes",
    )
    source = pairwise.add_mutually_exclusive_group(required=True)
    source.add_argument("--benchmark", help="benchmark name (see `list`)")
    source.add_argument(
        "--votes",
        metavar="FILE.csv",
        help="votes one per row (.csv or .jsonl: item,system_a,system_b,outcome,annotator; "
        "outcome a, b or tie), or vote counts per pair of systems (.csv: "
        "system_a,system_b,wins_a,wins_b,ties)",
    )
    pairwise.add_argument("--aspect", help="human aspect (default: the benchmark's default)")
    pairwise.add_argument(
        "--write-votes",
        metavar="FILE.csv",
        help="also write the benchmark's preferences as votes one per row (the --votes format)",
    )
    pairwise.add_argument("--level", choices=["turn", "dialogue"])
    pairwise.add_argument("--split", help="only this split")
    pairwise.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    add_exclude_argument(pairwise)
    pairwise.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    pairwise.add_argument(
        "--permutations",
        type=int,
        default=DEFAULT_PERMUTATIONS,
        help="random orders whose median is the Elo and TrueSkill rating",
    )
    pairwise.add_argument("--seed", type=int, default=0)
    _add_test_options(pairwise)
    pairwise.set_defaults(run=located(run_pairwise))


def register(commands: argparse._SubParsersAction) -> None:
    _register_pairwise(commands)
    rate = commands.add_parser("rates", help="per-system rates of a binary aspect, with tests")
    add_common_arguments(rate)
    rate.add_argument("--aspect", required=True, help="a 0-1 aspect, e.g. understandable")
    rate.add_argument("--level", choices=["turn", "dialogue"])
    rate.add_argument("--confidence", type=float, default=0.95)
    _add_test_options(rate)
    rate.set_defaults(run=located(run_rates))
