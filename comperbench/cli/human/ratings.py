"""`comperbench human ratings`: a file of ratings per turn or dialogue: agreement per aspect and
system means with intervals. The analysis is `comperbench.stats.human.judgments.rating_analysis`; this module
parses and prints."""

from __future__ import annotations

import argparse

from comperbench.cli.common import format_table, located, print_json
from comperbench.cli.flags import LEVEL, regular_file
from comperbench.cli.human.common import add_resampling_options
from comperbench.common.textutil import interval, number, wrap, wrap_signature
from comperbench.human_io.ratings import read_ratings
from comperbench.stats.human.judgments.rating_analysis import RatingAnalysis, analyse_ratings
from comperbench.stats.resampling import bootstrap_note
from comperbench.stats.settings import Resampling


def _print_one(level: str, found: RatingAnalysis, confidence: float) -> None:
    print(f"\n== {found.aspect} ({level} level)")
    rows = [
        [s, int(r["items"]), int(r["ratings"]), number(r["mean"]), interval(r["low"], r["high"])]
        for s, r in found.means.iterrows()
    ]
    headers = ["system", "items", "ratings", "mean", f"{confidence:.0%} t interval"]
    print(format_table(headers, rows))
    for system, note in found.means["note"].dropna().items():
        print(wrap(f"note: {system}: {note}", indent="  "))
    body = []
    for r in found.agreement:
        bounds = interval(r.ci.low, r.ci.high) if r.ci else "-"
        note = r.reason or bootstrap_note(r.n_items, "items") or ""
        body.append([r.statistic, number(r.value), bounds, r.n_items, note])
    print("agreement:")
    print(format_table(["statistic", "value", "interval", "items", "note"], body, indent=2))
    print(wrap_signature(found.agreement[0].signature))


def run_ratings(args: argparse.Namespace) -> int:
    """`comperbench human ratings`: agreement and system means per aspect.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    ratings = read_ratings(args.file)
    analyses = [
        (
            str(level),
            analyse_ratings(
                rows,
                str(aspect),
                resampling=Resampling(args.resamples, args.seed, args.ci),
                confidence=args.confidence,
            ),
        )
        for (level, aspect), rows in ratings.groupby(["level", "aspect"], sort=True)
    ]
    about = (
        f"{args.file}: {len(ratings)} ratings by {ratings['annotator'].nunique()} annotators of "
        f"{ratings['system'].nunique()} systems on {ratings['item_id'].nunique()} rated items"
    )
    if args.json:
        results = [
            {
                "level": level,
                "aspect": found.aspect,
                "means": found.means,
                "agreement": [vars(r) for r in found.agreement],
            }
            for level, found in analyses
        ]
        print_json({"about": about, "aspects": results})
        return 0
    print(wrap(about))
    print("system mean: the mean of the item means; interval: Student t over the items")
    for level, found in analyses:
        _print_one(level, found, args.confidence)
    return 0


def register(actions: argparse._SubParsersAction) -> None:
    """Add `ratings` to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    ratings = actions.add_parser("ratings")
    ratings.add_argument(
        "--file",
        type=regular_file,
        required=True,
        metavar="FILE",
        help="ratings (.csv, .jsonl or .parquet: item,system,aspect,value,annotator,level; "
        "level turn or dialogue)",
    )
    ratings.add_argument("--confidence", type=LEVEL, default=0.95)
    ratings.add_argument(
        "--ci", choices=["percentile", "bca"], default="percentile", help="agreement intervals"
    )
    add_resampling_options(ratings, 0)
    ratings.add_argument("--json", action="store_true", help="print the results as JSON")
    ratings.set_defaults(run=located(run_ratings))
