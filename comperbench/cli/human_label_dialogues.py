"""The dialogue-level sections of `comperbench human labels --file`: each behaviour's rate per
dialogue and its sensitivity by downsampling; with --ratings, the predictive validity of the
behaviours for dialogue quality and t-tests between systems' Likert means (ABC-Eval, Finch, Finch
& Choi 2023). The analyses are `comperbench.stats.dialogue_labels`, `.predictive_validity` and
`.rating_analysis`; this module assembles and prints them."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from comperbench.cli.common import format_table
from comperbench.cli.human_common import adjusted_header, p_cells
from comperbench.human.label_quality import dialogue_ratings, join_quality, quality_aspect
from comperbench.human.ratings import read_ratings
from comperbench.stats.dialogue_labels import dialogue_rates, sensitivity, system_dialogue_rates
from comperbench.stats.label_analysis import majority_labels
from comperbench.stats.multiplicity import describe
from comperbench.stats.predictive_validity import stepwise, univariate
from comperbench.stats.rating_analysis import likert_t_tests
from comperbench.textutil import interval, number, wrap

POWER_TEXT = "from the size where 80% of draws reject on; the paper tests at 32"
SPLIT = "every labelled turn has evenly split labels"
MCFADDEN = (
    "the paper fits it to comparative quality (which of two dialogues is better, logistic "
    "regression); label and rating files carry no comparisons"
)


def add_dialogue_options(parser: argparse.ArgumentParser) -> None:
    """--ratings, --quality, --draws and --alpha."""
    parser.add_argument(
        "--ratings",
        metavar="FILE",
        help="with --file: dialogue-level ratings (the `ratings` format, item = dialogue) for "
        "predictive validity and t-tests between systems",
    )
    parser.add_argument("--quality", metavar="ASPECT", help="the ratings' dialogue quality aspect")
    parser.add_argument("--draws", type=int, default=100, help="seeded draws per downsample size")
    parser.add_argument("--alpha", type=float, default=0.05, help="sensitivity test level")


def per_behaviour(labels: pd.DataFrame, args: argparse.Namespace) -> dict[str, dict]:
    """Per behaviour: dialogue rates (per dialogue and per system) and the sensitivity table."""
    dialogues = labels[["item_id", "dialogue"]].drop_duplicates()
    rows = labels.rename(columns={"behaviour": "aspect"})
    out = {}
    for behaviour, group in rows.groupby("aspect", sort=True):
        items, _ = majority_labels(group)
        if items.empty:
            out[str(behaviour)] = {"undefined": SPLIT}
            continue
        found = dialogue_rates(items.merge(dialogues, on="item_id"))
        out[str(behaviour)] = {
            "per_dialogue": found,
            "rates": system_dialogue_rates(found, args.confidence),
            "sensitivity": sensitivity(found, alpha=args.alpha, draws=args.draws, seed=args.seed),
        }
    return out


def _validity(wide: pd.DataFrame, quality: pd.Series) -> dict:
    """Univariate R-squared per behaviour (its rated dialogues) and the stepwise model (the
    dialogues with a rate of every behaviour)."""
    fits = []
    for behaviour in wide.columns:
        known = wide[behaviour].notna()
        fits.append(univariate(wide.loc[known, [behaviour]], quality[known].to_numpy(float)))
    complete = wide.dropna()
    try:
        steps = stepwise(complete, quality.loc[complete.index].to_numpy(float))
        undefined = None
    except ValueError as exc:
        steps, undefined = None, str(exc)
    return {
        "dialogues": len(wide),
        "univariate": pd.concat(fits, ignore_index=True),
        "stepwise": steps,
        "stepwise_undefined": undefined,
        "mcfadden_undefined": MCFADDEN,
    }


def with_ratings(behaviours: dict[str, dict], args: argparse.Namespace) -> dict | None:
    """Predictive validity and Likert t-tests from --ratings, or None without it."""
    if not args.ratings:
        return None
    file = str(args.ratings)
    ratings = dialogue_ratings(read_ratings(args.ratings), file)
    aspect = quality_aspect(ratings, args.quality, file)
    wide = pd.concat(
        {
            b: found["per_dialogue"].set_index(["dialogue", "system"])["rate"]
            for b, found in behaviours.items()
            if "undefined" not in found
        },
        axis=1,
    )
    quality = join_quality(wide, ratings, aspect, file)
    tests = {
        str(a): likert_t_tests(rows, args.correction)
        for a, rows in ratings.groupby("aspect", sort=True)
    }
    return {"quality": aspect, **_validity(wide, quality), "likert_t_tests": tests}


def print_behaviour(behaviour: str, found: dict, args: argparse.Namespace) -> None:
    if "undefined" in found:
        print("\n" + wrap(f"== {behaviour}: rate per dialogue undefined, {found['undefined']}"))
        return
    print(
        "\n"
        + wrap(
            f"== {behaviour}: rate per dialogue (share of its turns labelled 1), mean over dialogues"
        )
    )
    body = [
        [s, int(r["dialogues"]), number(r["mean"]), interval(r["low"], r["high"]), r["note"] or ""]
        for s, r in found["rates"].iterrows()
    ]
    print(
        format_table(["system", "dialogues", "mean rate", f"t {args.confidence:.0%}", "note"], body)
    )
    table = found["sensitivity"]
    if table.empty:
        print("sensitivity: undefined, one system")
        return
    print(
        wrap(
            f"sensitivity: dialogues per system needed to separate two systems (z-test at "
            f"{args.alpha:g} in {args.draws} seeded draws, {POWER_TEXT})"
        )
    )
    body = [
        [
            t["system_a"],
            t["system_b"],
            t["reason"] or ("not within the data" if pd.isna(t["needed"]) else int(t["needed"])),
            "" if t["reason"] else f"{number(t['at_paper'], 2)} at n={int(t['paper_n'])}",
        ]
        for _, t in table.iterrows()
    ]
    print(
        format_table(
            ["system A", "system B", "dialogues needed", "share rejecting"], body, indent=2
        )
    )


def print_validity(found: dict, args: argparse.Namespace) -> None:
    print(
        "\n"
        + wrap(
            f"== predictive validity: dialogue quality ({found['quality']!r}, {found['dialogues']} "
            "labelled dialogues) on each behaviour's rate per dialogue, linear regression"
        )
    )
    body = [
        [
            u["behaviour"],
            u["reason"] or number(u["r_squared"]),
            "" if u["reason"] else number(u["slope"]),
        ]
        for _, u in found["univariate"].iterrows()
    ]
    print(format_table(["behaviour", "R-squared", "slope"], body))
    print(wrap(f"McFadden's pseudo-R-squared: undefined, {found['mcfadden_undefined']}"))
    if found["stepwise"] is None:
        print(wrap(f"stepwise regression: undefined, {found['stepwise_undefined']}"))
    else:
        print("backwards stepwise regression (beam search, k = 100, adjusted R-squared):")
        body = [
            [
                int(s["predictors"]),
                ", ".join(s["dropped"]) or "(all)",
                number(s["r_squared"]),
                number(s["adjusted"]),
                "yes" if s["all_contribute"] else "no",
            ]
            for _, s in found["stepwise"].iterrows()
        ]
        headers = ["predictors", "removed", "R-squared", "adjusted", "all add"]
        print(format_table(headers, body, indent=2))
    for aspect, tests in found["likert_t_tests"].items():
        _print_t_tests(aspect, tests, args.correction)


def _print_t_tests(aspect: str, tests: pd.DataFrame, correction: str) -> None:
    print("\n" + wrap(f"== {aspect}: Student's t-tests between systems' mean dialogue ratings"))
    if tests.empty:
        print("undefined, one system")
        return
    body = [
        [
            t["system_a"],
            t["system_b"],
            number(t["mean_a"]),
            number(t["mean_b"]),
            t["reason"] or number(t["t"], 2),
            int(t["dof"]),
            *p_cells(t["p_value"], t["p_adjusted"], correction),
        ]
        for _, t in tests.iterrows()
    ]
    headers = [
        "system A",
        "system B",
        "mean A",
        "mean B",
        "t",
        "dof",
        "p",
        *adjusted_header(correction),
    ]
    print(format_table(headers, body, indent=2))
    print(wrap(describe(correction, int(np.count_nonzero(tests["p_value"].notna())), "t-tests")))
