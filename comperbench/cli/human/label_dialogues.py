"""The dialogue-level sections of `comperbench human labels --file`: each behaviour's rate per
dialogue and its sensitivity by downsampling; with --ratings, the predictive validity of the
behaviours for Likert dialogue quality and t-tests between systems' Likert means; with
--comparisons, their predictive validity for comparative quality (ABC-Eval, Finch, Finch & Choi
2023). The analyses are `comperbench.stats.human.judgments.dialogue_labels`, `.predictive_validity` and
`.rating_analysis`; this module assembles and prints them."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from comperbench.cli.common import format_table
from comperbench.cli.flags import LEVEL, regular_file, resamples
from comperbench.cli.human.common import adjusted_header, p_cells
from comperbench.common.textutil import interval, number, wrap
from comperbench.human_io.label_quality import (
    dialogue_ratings,
    join_comparisons,
    join_quality,
    quality_aspect,
)
from comperbench.human_io.ratings import read_ratings
from comperbench.human_io.vote_rows import read_vote_rows
from comperbench.stats.human.judgments.dialogue_labels import (
    PAPER_DIALOGUES,
    POWER,
    dialogue_rates,
    sensitivity,
    system_dialogue_rates,
)
from comperbench.stats.human.judgments.label_analysis import majority_labels
from comperbench.stats.human.judgments.predictive_validity import Kind, stepwise, univariate
from comperbench.stats.human.judgments.rating_analysis import likert_t_tests
from comperbench.stats.multiplicity import describe

POWER_TEXT = (
    f"from the size where {POWER:.0%} of draws reject on; the paper tests at {PAPER_DIALOGUES}"
)
SPLIT = "every labelled turn has evenly split labels"


def add_dialogue_options(parser: argparse.ArgumentParser) -> None:
    """--ratings, --quality, --comparisons, --draws and --alpha.

    Args:
        parser: the parser to add them to.
    """
    parser.add_argument(
        "--ratings",
        type=regular_file,
        metavar="FILE",
        help="with --file: dialogue-level ratings (the `ratings` format, item = dialogue) for "
        "predictive validity and t-tests between systems",
    )
    parser.add_argument("--quality", metavar="ASPECT", help="the ratings' dialogue quality aspect")
    parser.add_argument(
        "--comparisons",
        type=regular_file,
        metavar="FILE",
        help="with --file: votes between two labelled dialogues (the `votes` format, item = the "
        "dialogue name both share) for predictive validity of comparative quality",
    )
    parser.add_argument(
        "--draws", type=resamples(1), default=100, help="seeded draws per downsample size"
    )
    parser.add_argument("--alpha", type=LEVEL, default=0.05, help="sensitivity test level")


def per_behaviour(labels: pd.DataFrame, args: argparse.Namespace) -> dict[str, dict]:
    """Per behaviour: dialogue rates (per dialogue and per system) and the sensitivity table.

    Args:
        labels: the labels read.
        args: the parsed command line.

    Returns:
        Behaviour -> its rates and sensitivity.
    """
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
            "per_dialogue": found.set_index(["dialogue", "system"]),
            "rates": system_dialogue_rates(found, args.confidence),
            "sensitivity": sensitivity(found, alpha=args.alpha, draws=args.draws, seed=args.seed),
        }
    return out


def _validity(wide: pd.DataFrame, outcome: np.ndarray, kind: Kind) -> dict:
    """Univariate fits per behaviour (the rows with its value) and the stepwise model (the rows
    with every behaviour's value)."""
    fits = []
    for behaviour in wide.columns:
        known = wide[behaviour].notna().to_numpy()
        fits.append(univariate(wide.loc[known, [behaviour]], outcome[known], kind))
    complete = wide.notna().all(axis=1).to_numpy()
    try:
        steps, undefined = stepwise(wide[complete], outcome[complete], kind), None
    except ValueError as exc:
        steps, undefined = None, str(exc)
    return {
        "kind": kind,
        "n": len(wide),
        "univariate": pd.concat(fits, ignore_index=True),
        "stepwise": steps,
        "stepwise_undefined": undefined,
    }


def _wide(behaviours: dict[str, dict]) -> pd.DataFrame:
    """Each labelled (dialogue, system) with its rate of every behaviour, a column each."""
    return pd.concat(
        {
            b: found["per_dialogue"]["rate"]
            for b, found in behaviours.items()
            if "undefined" not in found
        },
        axis=1,
    )


def with_quality(behaviours: dict[str, dict], args: argparse.Namespace) -> dict | None:
    """Predictive validity for --ratings (Likert quality, with t-tests between systems) and for
    --comparisons (comparative quality), or None without either.

    Args:
        behaviours: rows of `per_behaviour`.
        args: the parsed command line.

    Returns:
        The predictive validity analyses, or None.
    """
    if not (args.ratings or args.comparisons):
        return None
    wide = _wide(behaviours)
    likert = comparative = tests = aspect = None
    if args.ratings:
        file = str(args.ratings)
        ratings = dialogue_ratings(read_ratings(args.ratings), file)
        aspect = quality_aspect(ratings, args.quality, file)
        quality = join_quality(wide, ratings, aspect, file)
        likert = _validity(wide, quality.to_numpy(float), "linear")
        tests = {
            str(a): likert_t_tests(rows, args.correction)
            for a, rows in ratings.groupby("aspect", sort=True)
        }
    if args.comparisons:
        file = str(args.comparisons)
        differences, outcome = join_comparisons(wide, read_vote_rows(args.comparisons), file)
        comparative = _validity(differences, outcome, "logistic")
    return {"quality": aspect, "likert": likert, "comparative": comparative, "t_tests": tests}


def print_behaviour(behaviour: str, found: dict, args: argparse.Namespace) -> None:
    """One behaviour's dialogue rates and sensitivity.

    Args:
        behaviour: the behaviour.
        found: its `per_behaviour` entry.
        args: the parsed command line.
    """
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
    """The predictive validity of the behaviours for dialogue quality.

    Args:
        found: the `with_quality` analyses.
        args: the parsed command line.
    """
    if found["likert"] is not None:
        what = (
            f"dialogue quality ({found['quality']!r}) on each behaviour's rate, linear regression"
        )
        _print_fits(found["likert"], what, "labelled dialogues")
    if found["comparative"] is not None:
        what = (
            "which of two dialogues is better on the difference of their rates, logistic "
            "regression (ties left out)"
        )
        _print_fits(found["comparative"], what, "votes with a winner")
    for aspect, tests in (found["t_tests"] or {}).items():
        _print_t_tests(aspect, tests, args.correction)


def _print_fits(found: dict, what: str, units: str) -> None:
    score = "R-squared" if found["kind"] == "linear" else "McFadden"
    print("\n" + wrap(f"== predictive validity ({found['n']} {units}): {what}"))
    body = [
        [
            u["behaviour"],
            u["reason"] or number(u["r_squared"]),
            "" if u["reason"] else number(u["slope"]),
        ]
        for _, u in found["univariate"].iterrows()
    ]
    print(format_table(["behaviour", score, "slope"], body))
    if found["stepwise"] is None:
        print(wrap(f"stepwise regression: undefined, {found['stepwise_undefined']}"))
        return
    print(f"backwards stepwise regression (beam search, k = 100, adjusted {score}):")
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
    headers = ["predictors", "removed", score, "adjusted", "all add"]
    print(format_table(headers, body, indent=2))


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
