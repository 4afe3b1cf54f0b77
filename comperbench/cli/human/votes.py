"""`comperbench human votes`: A/B votes, as a ranking of systems with tests.

The preferences are those implicit in a benchmark whose systems answered the same contexts (see
`comperbench.stats.human.votes.rating_votes`), or a user's A/B votes, one per row or counted per pair. The
analysis is `comperbench.stats.human.votes.vote_analysis.analyse`; this module parses and prints, and its
printers serve `human selections` too.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass

import pandas as pd

from comperbench.cli.common import (
    format_table,
    load_from_arguments,
    located,
    print_json,
)
from comperbench.cli.flags import resamples
from comperbench.cli.human.chateval import (
    print_chateval,
    print_prompt_validity,
    print_vote_agreement,
)
from comperbench.cli.human.common import (
    add_resampling_options,
    add_sources,
    add_test_options,
    adjusted_header,
    p_cells,
    print_expected,
    refuse_benchmark_options,
)
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import write_new_file
from comperbench.common.textutil import interval, number, p_value, wrap, wrap_signature
from comperbench.human_io.vote_counts import comparisons_from_vote_counts, read_vote_counts
from comperbench.human_io.vote_rows import (
    comparisons_from_vote_rows,
    read_vote_rows,
    vote_rows_from_rating_votes,
)
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.online_ratings import DEFAULT_PERMUTATIONS
from comperbench.stats.human.votes.rating_votes import (
    MEAN_JUDGE,
    as_comparisons,
    rating_votes,
    selections,
)
from comperbench.stats.human.votes.vote_agreement import (
    agreement_breakdown,
    annotator_correlations,
    prompt_validity,
    vote_kappa,
)
from comperbench.stats.human.votes.vote_analysis import VoteAnalysis, analyse
from comperbench.stats.multiplicity import describe
from comperbench.stats.resampling import MIN_BOOTSTRAP_UNITS
from comperbench.stats.settings import Resampling

SIGN_TEST = "exact sign test (ties left out)"
TIE_NOTE = "left out of win rates, half a win in Bradley-Terry, draws in Elo and TrueSkill"
HEADER_CHARS = 2**20
"""The most of a CSV file's first line read to find its header."""


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
    rows: pd.DataFrame | None = None
    """The votes one per row (`votes.read_vote_rows`), when given so."""


def _benchmark_games(args: argparse.Namespace) -> Games:
    """Comparisons, per-context selections, a description and the benchmark tag."""
    bench = load_from_arguments(args, args.level)
    aspect = bench.metadata.aspect(args.aspect).name
    ratings = bench.unit_ratings(aspect)
    judgments = rating_votes(ratings)
    if judgments.empty:
        raise ComperbenchError(
            f"no context of {bench.name} was answered by two or more systems; pairwise "
            "comparison needs systems rated on shared contexts"
        )
    per_judge = (judgments["judge"] != MEAN_JUDGE).any()
    if args.write_votes:
        write_new_file(args.write_votes, vote_rows_from_rating_votes(judgments).to_csv(index=False))
    games = as_comparisons(judgments)
    about = (
        f"{bench.label}, aspect {aspect}: {len(judgments)} preferences from "
        f"{'each annotator' if per_judge else 'the mean ratings'} over "
        f"{judgments['unit'].nunique()} shared contexts, {games.systems.size} systems"
    )
    return Games(games, selections(ratings), about, bench.tag)


def _one_vote_per_row(path: str) -> bool:
    """A .jsonl or .parquet file, or a CSV file whose header has an outcome column, holds votes
    one per row; another CSV file holds vote counts per pair."""
    if path.lower().endswith((".jsonl", ".parquet")):
        return True
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader([handle.readline(HEADER_CHARS)]), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False  # read_vote_counts says what is wrong with the file
    return "outcome" in [name.strip() for name in header]


def _votes_games(args: argparse.Namespace) -> Games:
    refuse_benchmark_options(args, write_votes="--write-votes")
    if _one_vote_per_row(args.file):
        rows = read_vote_rows(args.file)
        games = comparisons_from_vote_rows(rows)
        about = (
            f"{args.file}: {len(rows)} votes by {rows['annotator'].nunique()} annotators on "
            f"{rows['item'].nunique()} items, {games.systems.size} systems"
        )
        return Games(games, None, about, None, agreement_breakdown(rows), rows)
    votes = read_vote_counts(args.file)
    games = comparisons_from_vote_counts(votes, args.file)
    about = (
        f"{args.file}: {games.a.size} votes on {len(votes)} pairs of {games.systems.size} systems"
    )
    return Games(games, None, about, None)


def print_counts(result: VoteAnalysis) -> None:
    """Win/tie/loss per system and, with units, the WMT scores.

    Args:
        result: the vote analysis.
    """
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


def print_ratings(result: VoteAnalysis, permutations: int) -> None:
    """A table per rating (Bradley-Terry, Elo, TrueSkill), the systems in the first one's order.

    Args:
        result: the vote analysis.
        permutations: the random orders of Elo and TrueSkill.
    """
    for name, reason in result.undefined.items():
        if name in ("Bradley-Terry", "Elo", "TrueSkill"):
            print(wrap(f"note: {name} is undefined here: {reason}", indent="  "))
    if not result.ratings:
        return
    systems = next(iter(result.ratings.values())).table.index
    for name, rated in result.ratings.items():
        rows = []
        for system in systems:
            r = rated.table.loc[system]
            known = pd.notna(r["rank_low"])
            ranks = f"{int(r['rank_low'])}-{int(r['rank_high'])}" if known else "-"
            if rated.grouped:
                ranks += f" in group {int(r['group'])}"
            rows.append([system, number(r["rating"]), interval(r["low"], r["high"]), ranks])
        print(format_table(["system", name, "95% CI", "ranks"], rows))
        if rated.note:
            print(wrap(f"note: {name}: {rated.note}", indent="  "))
        for system in rated.outside:
            print(f"note: the {name} rating of {system} lies outside its own interval")
        print(wrap_signature(rated.signature))
        print()
    print(
        wrap(
            f"Elo and TrueSkill: median over {permutations} random orders of the comparisons; "
            "intervals: bootstrap percentiles, each resample replayed in a random order"
        )
    )


def _print_omnibus(result: VoteAnalysis) -> None:
    chi = result.chi_square
    if chi is None:
        reason = result.undefined["chi-square"]
        print("\n" + wrap(f"note: chi-square is undefined here: {reason}", indent="  "))
    else:
        dropped = result.dropped_outcomes
        note = f" ({', '.join(dropped)} never occur: column dropped)" if dropped else ""
        print(
            "\n"
            + wrap(
                f"chi-square, systems x (win, tie, loss){note}: {chi.statistic:.2f}, dof "
                f"{chi.dof}, p {p_value(chi.p_value)}"
            )
        )
    q = result.cochran
    if q is not None:
        print(
            wrap(
                f"Cochran's Q, best-rated system of each of {q.n} contexts every system "
                f"answered: {number(q.statistic, 2)}, dof {q.dof}, p {p_value(q.p_value)}"
            )
        )


EXTRA_TESTS = {
    "bootstrap_p": ("bootstrap p", "bootstrap tests over {unit}s (each {unit}'s votes together)"),
    "mcnemar_p": ("McNemar p", "exact McNemar tests on their selections as best"),
}


def print_pairs(result: VoteAnalysis, test: str = SIGN_TEST, family: str = "sign tests") -> None:
    """The tests of every pair: `test` says what the sign test is here, `family` names its
    tests in the correction's line; then, in a table of their own, the bootstrap and McNemar
    tests where computed.

    Args:
        result: the vote analysis.
        test: what the sign test is here.
        family: its tests' name in the correction's line.
    """
    pairs, correction = result.pairs, result.correction
    names = [[r["system_a"], r["system_b"]] for _, r in pairs.iterrows()]
    headers = ["system A", "system B", "A wins", "B wins", "ties", "sign p"]
    rows = [
        [
            *pair,
            r["wins_a"],
            r["wins_b"],
            r["ties"],
            *p_cells(r["sign_p"], r["sign_p_adjusted"], correction),
        ]
        for pair, (_, r) in zip(names, pairs.iterrows(), strict=True)
    ]
    print(wrap(f"\nevery pair of systems: {test}"))
    print(format_table(headers + adjusted_header(correction), rows, indent=2))
    print(wrap(describe(correction, int(pairs["sign_p"].notna().sum()), family)))
    extra = [column for column in EXTRA_TESTS if column in pairs]
    if not extra:
        return
    headers = ["system A", "system B"]
    for column in extra:
        headers += [EXTRA_TESTS[column][0], *adjusted_header(correction)]
    rows = [
        pair + [cell for c in extra for cell in p_cells(r[c], r[f"{c}_adjusted"], correction)]
        for pair, (_, r) in zip(names, pairs.iterrows(), strict=True)
    ]
    print()
    print(format_table(headers, rows, indent=2))
    unit = result.comparisons.unit_name
    for column in extra:
        what = EXTRA_TESTS[column][1].format(unit=unit)
        print(wrap(f"the same over {int(pairs[column].notna().sum())} {what}", first="  "))
    if "bootstrap_p" in pairs:
        floor = 2 / (result.resamples + 1)
        print(
            wrap(
                f"note: with {result.resamples} resamples no bootstrap p is below "
                f"{floor:.2g}; more --resamples resolve smaller p-values"
            )
        )
        if few := int((pairs["bootstrap_units"] < MIN_BOOTSTRAP_UNITS).sum()):
            print(
                wrap(
                    f"note: no bootstrap p for {few} pair(s) compared on fewer than "
                    f"{MIN_BOOTSTRAP_UNITS} {unit}s: too few to resample (the exact sign test "
                    "stands)"
                )
            )


def _print_agreement(agreement: pd.DataFrame) -> None:
    print("\nagreement of the votes on each item's pair, by the number of votes it got:")
    rows = [[int(k), *(int(v) for v in r)] for k, r in agreement.iterrows()]
    print(format_table(["votes", *agreement.columns], rows, indent=2))


def run_votes(args: argparse.Namespace) -> int:
    """`comperbench human votes`: the analysis of A/B votes or a benchmark's shared contexts.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    found = _votes_games(args) if args.file else _benchmark_games(args)
    games, about = found.comparisons, found.about
    result = analyse(
        games,
        selected=found.selected,
        resampling=Resampling(args.resamples, args.seed),
        permutations=args.permutations,
        benchmark=found.tag,
        correction=args.correction,
        expected=args.expected,
        alternative=args.alternative,
    )
    kappa = annotators = validity = None
    if found.rows is not None:
        kappa = vote_kappa(found.rows, Resampling(args.resamples, args.seed))
        annotators = annotator_correlations(found.rows)
        validity = prompt_validity(found.rows)
    if args.report:
        from comperbench.report.pages import write_votes_report

        write_votes_report(args.report, result, about)
    if args.json:
        print_json(
            {
                **votes_payload(result, about),
                "agreement": found.agreement,
                "fleiss_kappa": None if kappa is None else vars(kappa),
                "annotators": annotators,
                "prompt_validity": validity,
            }
        )
        return 0
    ties = int((games.outcome == 0.5).sum())
    print(wrap(f"{about}; {ties} ties ({TIE_NOTE})"))
    print_counts(result)
    print_chateval(result.chateval)
    if found.agreement is not None:
        _print_agreement(found.agreement)
    if kappa is not None and annotators is not None and validity is not None:
        print_vote_agreement(kappa, annotators)
        print_prompt_validity(validity)
    print()
    print_ratings(result, args.permutations)
    _print_omnibus(result)
    print_pairs(result)
    if result.expected is not None:
        print_expected(result.expected, args.expected, args, "win rate (ties left out)")
    return 0


def votes_payload(result: VoteAnalysis, about: str) -> dict:
    """The vote analysis as JSON-ready data.

    Args:
        result: the vote analysis.
        about: what was analysed.

    Returns:
        The JSON-ready data.
    """
    return {
        "about": about,
        "comparisons": int(result.comparisons.a.size),
        "ties": int((result.comparisons.outcome == 0.5).sum()),
        "correction": result.correction,
        "win_tie_loss": result.win_tie_loss,
        "wmt": result.wmt,
        "chateval": {"ranking": result.chateval.ranking, "pairs": result.chateval.pairs},
        "ratings": {
            name: {
                "signature": rated.signature,
                "table": rated.table,
                "note": rated.note,
                "informative": rated.informative,
            }
            for name, rated in result.ratings.items()
        },
        "undefined": result.undefined,
        "chi_square": vars(result.chi_square) if result.chi_square else None,
        "dropped_outcomes": result.dropped_outcomes,
        "cochran": vars(result.cochran) if result.cochran else None,
        "pairs": result.pairs,
        "expected": result.expected,
    }


def add_rating_options(parser: argparse.ArgumentParser) -> None:
    """--resamples, --seed and --permutations of the ratings (Elo, TrueSkill).

    Args:
        parser: the parser to add them to.
    """
    add_resampling_options(parser, 1)
    parser.add_argument(
        "--permutations",
        type=resamples(1),
        default=DEFAULT_PERMUTATIONS,
        help="random orders whose median is the Elo and TrueSkill rating",
    )


def register(actions: argparse._SubParsersAction) -> None:
    """Add `votes` to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    votes = actions.add_parser("votes")
    add_sources(
        votes,
        "votes one per row (.csv, .jsonl or .parquet: item,system_a,system_b,outcome,annotator; "
        "outcome a, b or tie), or vote counts per pair of systems (.csv: "
        "system_a,system_b,wins_a,wins_b,ties)",
        "with --benchmark: the human aspect (default: the benchmark's default)",
    )
    votes.add_argument(
        "--write-votes",
        metavar="FILE.csv",
        help="also write the benchmark's preferences as votes one per row (the --file format) "
        "to this new file",
    )
    votes.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write the ratings and the pairwise p-value heatmap as one HTML page (a new file)",
    )
    add_rating_options(votes)
    add_test_options(
        votes,
        "also test each system's win rate (ties left out) against this rate (exact binomial test)",
    )
    votes.set_defaults(run=located(run_votes))
