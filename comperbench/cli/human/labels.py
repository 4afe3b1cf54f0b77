"""`comperbench human labels`: binary labels per system, from a file of behaviour labels or a
benchmark's 0-1 aspect: rates with Wilson intervals, tests between systems and Krippendorff's
alpha. The analysis is `comperbench.stats.human.judgments.label_analysis`; this module parses and prints."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from comperbench.benchmark import Benchmark
from comperbench.cli.common import load_from_arguments, located, print_json
from comperbench.cli.flags import LEVEL
from comperbench.cli.human.common import (
    add_resampling_options,
    add_sources,
    add_test_options,
    print_expected,
    print_rate_tests,
    print_rates,
    refuse_benchmark_options,
)
from comperbench.cli.human.label_dialogues import (
    add_dialogue_options,
    per_behaviour,
    print_behaviour,
    print_validity,
    with_quality,
)
from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import interval, number, p_value, wrap, wrap_signature
from comperbench.human_io.labels import as_ratings, read_labels
from comperbench.stats.human.judgments.label_analysis import (
    LabelAnalysis,
    analyse_labels,
    majority,
    majority_labels,
)
from comperbench.stats.resampling import bootstrap_note
from comperbench.stats.settings import Resampling

FILE_ONLY = ("ratings", "quality", "comparisons")


def binary_labels(bench: Benchmark, aspect: str) -> tuple[np.ndarray, int]:
    """Per item the `majority` label of its mean rating of a 0-1 aspect, and the number of
    evenly split items.

    Args:
        bench: the benchmark.
        aspect: its 0-1 aspect.

    Returns:
        (majority label per item, number of split items).
    """
    spec = bench.metadata.aspect(aspect)
    if (spec.min, spec.max) != (0, 1):
        raise ComperbenchError(
            f"aspect {aspect!r} of {bench.name} is rated {spec.min:g}-{spec.max:g}; labels need "
            "a 0-1 (binary) aspect"
        )
    return majority(bench.human_scores(aspect))


def _options(args: argparse.Namespace) -> dict:
    return dict(
        confidence=args.confidence,
        correction=args.correction,
        expected=args.expected,
        alternative=args.alternative,
        resampling=Resampling(args.resamples, args.seed, ci="bca"),
    )


def _benchmark_analyses(args: argparse.Namespace) -> tuple[str, list[LabelAnalysis]]:
    if not args.aspect:
        raise ComperbenchError("--benchmark needs --aspect, a 0-1 aspect such as understandable")
    bench = load_from_arguments(args, args.level)
    aspect = bench.metadata.aspect(args.aspect).name
    labels, split = binary_labels(bench, aspect)
    systems = np.asarray(bench.table.column("system").to_pylist(), dtype=object)
    ratings = bench.ratings()
    individual = ratings[ratings["aspect"] == aspect]
    found = analyse_labels(
        systems,
        labels,
        aspect,
        split=split,
        individual=None if individual.empty else individual,
        benchmark=bench.tag,
        **_options(args),
    )
    return f"{bench.label}, aspect {aspect}", [found]


def _file_analyses(
    args: argparse.Namespace, labels: pd.DataFrame
) -> tuple[str, list[LabelAnalysis]]:
    refuse_benchmark_options(args)
    ratings = as_ratings(labels)
    out = []
    for behaviour, rows in ratings.groupby("aspect", sort=True):
        items, split = majority_labels(rows)
        out.append(
            analyse_labels(
                items["system"].to_numpy(dtype=object),
                items["value"].to_numpy(),
                str(behaviour),
                split=split,
                individual=rows,
                **_options(args),
            )
        )
    about = (
        f"{args.file}: {len(labels)} labels by {labels['annotator'].nunique()} annotators of "
        f"{labels['behaviour'].nunique()} behaviours on {labels['item_id'].nunique()} responses"
    )
    return about, out


def _print_agreement(found: LabelAnalysis) -> None:
    result = found.agreement
    if result is None:
        return
    if result.reason:
        print(wrap(f"Krippendorff's alpha (nominal): undefined, {result.reason}"))
        return
    bounds = interval(result.ci.low, result.ci.high) if result.ci else "-"
    print(
        wrap(
            f"Krippendorff's alpha (nominal) on {result.n_items} items labelled twice or more: "
            f"{number(result.value)} {bounds} (BCa)"
        )
    )
    small = bootstrap_note(result.n_items, "items")
    if small:
        print(wrap(f"note: {small}", indent="  "))
    print(wrap_signature(result.signature))


def _print_one(found: LabelAnalysis, args: argparse.Namespace) -> None:
    print(
        "\n"
        + wrap(
            f"== {found.behaviour}: rate of items labelled 1 (majority of their labels), "
            f"Wilson {args.confidence:.0%} intervals"
        )
    )
    if found.split:
        print(f"note: {found.split} items with evenly split labels are left out")
    print_rates(found.rates, "items")
    if found.tests is not None:
        print_rate_tests(found.tests, args.correction)
    if found.chi_square is not None:
        chi = found.chi_square
        print(
            f"chi-square, systems x label: {chi.statistic:.2f}, dof {chi.dof}, "
            f"p {p_value(chi.p_value)}"
        )
    if found.expected is not None:
        print_expected(found.expected, args.expected, args, "rate of each system")
    _print_agreement(found)


def _payload(found: LabelAnalysis) -> dict:
    return {
        "rates": found.rates,
        "split_left_out": found.split,
        "pairwise_z_tests": found.tests,
        "chi_square": vars(found.chi_square) if found.chi_square else None,
        "expected": found.expected,
        "agreement": vars(found.agreement) if found.agreement else None,
    }


def _dialogue_analyses(labels: pd.DataFrame, args: argparse.Namespace) -> tuple[dict, dict | None]:
    behaviours = per_behaviour(labels, args)
    return behaviours, with_quality(behaviours, args)


def run_labels(args: argparse.Namespace) -> int:
    """`comperbench human labels`: rates, tests and agreement of binary labels.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    if args.file:
        labels = read_labels(args.file)
        about, analyses = _file_analyses(args, labels)
        dialogues, validity = _dialogue_analyses(labels, args)
    else:
        given = [f"--{name}" for name in FILE_ONLY if getattr(args, name)]
        if given:
            raise ComperbenchError(f"{', '.join(given)}: only with --file, not with --benchmark")
        (about, analyses), dialogues, validity = _benchmark_analyses(args), {}, None
    if args.json:
        behaviours = {found.behaviour: _payload(found) for found in analyses}
        for behaviour, found in dialogues.items():
            behaviours[behaviour]["dialogue_level"] = found
        print_json(
            {
                "about": about,
                "correction": args.correction,
                "behaviours": behaviours,
                "predictive_validity": validity,
            }
        )
        return 0
    print(wrap(about))
    for found in analyses:
        _print_one(found, args)
    for behaviour, found in dialogues.items():
        print_behaviour(behaviour, found, args)
    if validity is not None:
        print_validity(validity, args)
    return 0


def register(actions: argparse._SubParsersAction) -> None:
    """Add `labels` to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    labels = actions.add_parser("labels")
    add_sources(
        labels,
        "behaviour labels (.csv, .jsonl or .parquet: dialogue,turn,system,behaviour,value,"
        "annotator; value 0 or 1)",
        "with --benchmark: a 0-1 aspect, e.g. understandable",
    )
    labels.add_argument("--confidence", type=LEVEL, default=0.95)
    add_resampling_options(labels, 0)
    add_dialogue_options(labels)
    add_test_options(labels, "also test each system's rate against this rate (exact binomial test)")
    labels.set_defaults(run=located(run_labels))
