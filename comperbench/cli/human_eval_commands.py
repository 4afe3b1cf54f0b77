"""`comperbench pairwise | rates`: the human evaluation itself, as a ranking of systems.

`pairwise` reads the preferences implicit in a benchmark whose systems answered the same contexts
(see `comperbench.stats.judgments`) and ranks the systems; `rates` gives per-system rates of a
binary aspect with Wilson intervals and tests between systems.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from comperbench.benchmark import Benchmark, load_benchmark
from comperbench.cli.stats_commands import add_common_arguments, located
from comperbench.errors import ComperbenchError
from comperbench.stats import pairwise as pw
from comperbench.stats.judgments import (
    MEAN_JUDGE,
    as_comparisons,
    pairwise_judgments,
    selections,
)
from comperbench.stats.rates import pairwise_rate_tests, rates
from comperbench.textutil import interval, number, p_value
from comperbench.textutil import table as format_table


def unit_ratings(bench: Benchmark, aspect: str) -> pd.DataFrame:
    """unit (dialogue id), system, judge, value: the individual ratings of `aspect`, or the item
    scores (judge missing) when the benchmark publishes no individual ratings of it."""
    units = dict(zip(bench.item_ids, bench.table.column("dialogue_id").to_pylist(), strict=True))
    ratings = bench.ratings()
    ratings = ratings[ratings["aspect"] == aspect]
    if ratings.empty:
        scores = bench.human_scores(aspect)
        systems = bench.table.column("system").to_pylist()
        return pd.DataFrame(
            {
                "unit": [units[i] for i in bench.item_ids],
                "system": systems,
                "judge": None,
                "value": scores,
            }
        ).dropna(subset=["value"])
    return pd.DataFrame(
        {
            "unit": ratings["item_id"].map(units),
            "system": ratings["system"],
            "judge": ratings["annotator"],
            "value": pd.to_numeric(ratings["value"]),
        }
    )


def _ratings_rows(tables: list[tuple[pw.Ratings, str]]) -> list[list[object]]:
    """One row per system: each rating system's value (column `rating` or `median`), interval and
    rank range, systems in the order of the first table."""
    rows = []
    for system in tables[0][0].table.index:
        row: list[object] = [system]
        for ratings, column in tables:
            r = ratings.table.loc[system]
            row += [number(r[column]), interval(r["low"], r["high"])]
            row.append(f"{int(r['rank_low'])}-{int(r['rank_high'])}")
        rows.append(row)
    return rows


def run_pairwise(args: argparse.Namespace) -> int:
    bench = load_benchmark(
        args.benchmark,
        args.level,
        args.split,
        data_dir=args.data_dir,
        exclude_systems=args.exclude_system or (),
    )
    aspect = bench.metadata.aspect(args.aspect).name
    judgments = pairwise_judgments(unit_ratings(bench, aspect))
    if judgments.empty:
        raise ComperbenchError(
            f"no context of {bench.name} was answered by two or more systems; pairwise "
            "comparison needs systems rated on shared contexts"
        )
    # Elo and TrueSkill depend on the order of the games: replay them in a seeded random order
    order = np.random.default_rng(args.seed).permutation(len(judgments))
    judgments = judgments.iloc[order].reset_index(drop=True)
    games = as_comparisons(judgments)
    per_judge = (judgments["judge"] != MEAN_JUDGE).any()
    ties = int((games.outcome == 0.5).sum())
    print(
        f"{bench.label}, aspect {aspect}: {len(judgments)} preferences from "
        f"{'each annotator' if per_judge else 'the mean ratings'} over "
        f"{judgments['unit'].nunique()} shared contexts, {games.systems.size} systems; "
        f"{ties} ties (left out of win rates, half a win in Bradley-Terry, draws in Elo and "
        "TrueSkill)"
    )
    wtl = pw.win_tie_loss(games)
    wmt = pw.wmt_scores(
        judgments["unit"].astype(str).tolist(),
        judgments["a"].tolist(),
        judgments["b"].tolist(),
        judgments["outcome"].to_numpy(),
    )
    rows = [
        [
            s,
            int(r["wins"]),
            int(r["ties"]),
            int(r["losses"]),
            number(r["win_rate"]),
            f"{number(wmt.at[s, 'major'])} ({int(wmt.at[s, 'major_n'])})",
            f"{number(wmt.at[s, 'distinct'])} ({int(wmt.at[s, 'distinct_n'])})",
        ]
        for s, r in wtl.sort_values("win_rate", ascending=False).iterrows()
    ]
    headers = ["system", "wins", "ties", "losses", "win rate", "WMT major (n)", "WMT distinct (n)"]
    print(format_table(headers, rows))
    rated: list[tuple[pw.Ratings, str]] = []
    headers = ["system"]
    print()
    for label, column, rate in (
        (
            "Bradley-Terry",
            "rating",
            lambda: pw.bradley_terry(games, args.resamples, args.seed, benchmark=bench.tag),
        ),
        (
            "Elo (median)",
            "median",
            lambda: pw.elo(games, n_resamples=args.resamples, seed=args.seed, benchmark=bench.tag),
        ),
        (
            "TrueSkill (median)",
            "median",
            lambda: pw.trueskill_ratings(games, args.resamples, args.seed, benchmark=bench.tag),
        ),
    ):
        try:
            rated.append((rate(), column))
        except ValueError as exc:  # e.g. no Bradley-Terry MLE when a system never loses
            print(f"note: {label} is undefined here: {exc}")
            continue
        headers += [label, "95% CI", "ranks"]
    print(format_table(headers, _ratings_rows(rated)))
    for ratings, _ in rated:
        print(ratings.signature)
    outcomes = wtl[["wins", "ties", "losses"]]
    _, empty = pw.empty_lines(outcomes.to_numpy())
    dropped = [str(outcomes.columns[i]) for i in empty]
    note = f" ({', '.join(dropped)} never occur: column dropped)" if dropped else ""
    try:
        statistic, p, dof = pw.chi_square(outcomes.to_numpy())
        print(
            f"\nchi-square, systems x (win, tie, loss){note}: {statistic:.2f}, dof {dof}, "
            f"p {p_value(p)}"
        )
    except ValueError as exc:
        print(f"\nnote: chi-square is undefined here: {exc}")
    picked = selections(unit_ratings(bench, aspect))
    if len(picked) and picked.shape[1] > 2:
        q, p, dof = pw.cochrans_q(picked.to_numpy())
        print(
            f"Cochran's Q, best-rated system of each of {len(picked)} contexts every system "
            f"answered: {number(q, 2)}, dof {dof}, p {p_value(p)}"
        )
    first, second = list(rated[0][0].table.index[:2])
    pair = judgments[judgments["a"].isin([first, second]) & judgments["b"].isin([first, second])]
    first_won = ((pair["a"] == first) & (pair["outcome"] == 1)) | (
        (pair["b"] == first) & (pair["outcome"] == 0)
    )
    wins_first, decided = int(first_won.sum()), int((pair["outcome"] != 0.5).sum())
    print(
        f"{first} vs {second}: {wins_first} of {decided} decided preferences, sign test p "
        f"{p_value(pw.sign_test(wins_first, decided - wins_first))}"
    )
    if len(picked) and {first, second} <= set(picked.columns):
        _, p = pw.mcnemar(picked[first].astype(bool), picked[second].astype(bool))
        print(f"  McNemar (exact) on their selections as best: p {p_value(p)}")
    return 0


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


def run_rates(args: argparse.Namespace) -> int:
    bench = load_benchmark(
        args.benchmark,
        args.level,
        args.split,
        data_dir=args.data_dir,
        exclude_systems=args.exclude_system or (),
    )
    aspect = bench.metadata.aspect(args.aspect).name
    labels, split_votes = binary_labels(bench, aspect)
    systems = np.asarray(bench.table.column("system").to_pylist(), dtype=object)
    table = rates(systems, labels, args.confidence)
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
    if len(table) > 1:
        tests = pairwise_rate_tests(table)
        print("\ntwo-proportion z-tests (pooled variance):")
        body = [
            [t["system_a"], t["system_b"], number(t["z"], 2), p_value(t["p_value"])]
            for _, t in tests.iterrows()
        ]
        print(format_table(["system A", "system B", "z", "p"], body, indent=2))
        counts = np.column_stack([table["count"], table["n"] - table["count"]])
        statistic, p, dof = pw.chi_square(counts)
        print(f"chi-square, systems x label: {statistic:.2f}, dof {dof}, p {p_value(p)}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    pairwise = commands.add_parser(
        "pairwise",
        help="rank systems from the preferences implicit in ratings of shared contexts",
    )
    add_common_arguments(pairwise)
    pairwise.add_argument("--aspect", help="human aspect (default: the benchmark's default)")
    pairwise.add_argument("--level", choices=["turn", "dialogue"])
    pairwise.set_defaults(run=located(run_pairwise))

    rate = commands.add_parser("rates", help="per-system rates of a binary aspect, with tests")
    add_common_arguments(rate)
    rate.add_argument("--aspect", required=True, help="a 0-1 aspect, e.g. understandable")
    rate.add_argument("--level", choices=["turn", "dialogue"])
    rate.add_argument("--confidence", type=float, default=0.95)
    rate.set_defaults(run=located(run_rates))
