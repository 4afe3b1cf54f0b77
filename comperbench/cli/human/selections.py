"""`comperbench human selections`: per-turn selections of an interactive evaluation (SOBA or
SATA, single-response turns apart), with the tests each setting prescribes and the cascading and
anchoring checks. The analyses are `comperbench.stats.human.judgments.selection_analysis` and
`comperbench.stats.human.judgments.single_response`; this module parses and prints."""

from __future__ import annotations

import argparse

from comperbench.cli.common import format_table, located, print_json
from comperbench.cli.flags import regular_file
from comperbench.cli.human.common import add_test_options, print_expected, print_rates
from comperbench.cli.human.selection_checks import (
    checks_payload,
    print_anchoring,
    print_cascading,
    print_single_response,
    single_response_payload,
)
from comperbench.cli.human.votes import (
    add_rating_options,
    print_counts,
    print_pairs,
    print_ratings,
    votes_payload,
)
from comperbench.common.textutil import number, p_value, wrap
from comperbench.human_io.selections import SETTINGS, read_selections
from comperbench.stats.human.judgments.selection_analysis import (
    OMNIBUS,
    PAIR_TEST,
    SATA_OUTCOMES,
    SelectionAnalysis,
    analyse_selections,
)
from comperbench.stats.human.judgments.single_response import (
    PAPER_NULL,
    analyse_single_response,
    single_response_rows,
)
from comperbench.stats.settings import Resampling

NAMES = {"soba": "SOBA (select one best)", "sata": "SATA (select all that apply)"}


def _print_omnibus(found: SelectionAnalysis) -> None:
    test = found.omnibus
    if test is None and found.omnibus_note is None:
        return
    if test is None:
        print("\n" + wrap(f"{OMNIBUS[found.setting]}: not computed, {found.omnibus_note}"))
        return
    print(
        "\n"
        + wrap(
            f"{OMNIBUS[found.setting]} ({test.n} turns): {number(test.statistic, 2)}, dof "
            f"{test.dof}, p {p_value(test.p_value)}"
        )
    )
    if found.omnibus_note:
        print(wrap(f"note: {found.omnibus_note}", indent="  "))


def _print_ties(found: SelectionAnalysis) -> None:
    """SATA: each pair's turns by who was selected, tie wins and tie losses apart."""
    if found.ties is None:
        return
    print(
        "\n"
        + wrap(
            "SATA turns of each pair by who was selected: a tie win selects both, a tie loss "
            "neither (the pairwise ties above are their sum)"
        )
    )
    headers = ["system A", "system B", "only A", "only B", "tie wins", "tie losses", "turns"]
    rows = [
        [r["system_a"], r["system_b"], *(int(r[c]) for c in (*SATA_OUTCOMES, "turns"))]
        for _, r in found.ties.iterrows()
    ]
    print(format_table(headers, rows, indent=2))


def _print_one(found: SelectionAnalysis, args: argparse.Namespace) -> None:
    print(f"\n== {NAMES[found.setting]}: {found.turns} judged turns")
    print("selection rate (turns selected / turns shown), Wilson 95% intervals:")
    print_rates(found.rates, "turns shown", "selected")
    print("\npairwise outcomes implied by the selections:")
    print_counts(found.votes)
    _print_ties(found)
    print()
    print_ratings(found.votes, args.permutations)
    _print_omnibus(found)
    family = "binomial tests" if found.setting == "soba" else "McNemar tests"
    print_pairs(found.votes, PAIR_TEST[found.setting], family)
    if found.expected is not None:
        print_expected(found.expected, args.expected, args, "selection rate")
    print_cascading(found.cascading, args.correction)
    print_anchoring(found.anchoring)


def _payload(found: SelectionAnalysis, about: str) -> dict:
    shared = votes_payload(found.votes, about)
    for key in ("chi_square", "dropped_outcomes", "cochran", "expected"):
        del shared[key]  # the setting's own tests replace them
    return {
        **shared,
        "turns": found.turns,
        "selection_rates": found.rates,
        "omnibus": {"test": OMNIBUS[found.setting], **vars(found.omnibus)}
        if found.omnibus
        else None,
        "omnibus_note": found.omnibus_note,
        "pair_test": PAIR_TEST[found.setting],
        "sata_pair_outcomes": found.ties,
        "expected": found.expected,
        **checks_payload(found.cascading, found.anchoring),
    }


def run_selections(args: argparse.Namespace) -> int:
    """`comperbench human selections`: the analysis of each setting's selections.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    rows = read_selections(args.file)
    several = rows["shown"].map(len) >= 2
    settings = [s for s in SETTINGS if ((rows["setting"] == s) & several).any()]
    about = (
        f"{args.file}: {len(rows)} judged turns by {rows['annotator'].nunique()} annotators in "
        f"{rows['dialogue'].nunique()} dialogues"
    )
    analyses = [
        analyse_selections(
            rows,
            setting,
            resampling=Resampling(args.resamples, args.seed),
            permutations=args.permutations,
            correction=args.correction,
            expected=args.expected,
            alternative=args.alternative,
        )
        for setting in settings
    ]
    single = None
    if not single_response_rows(rows).empty:
        single = analyse_single_response(
            rows,
            null=PAPER_NULL if args.expected is None else args.expected,
            alternative=args.alternative,
            correction=args.correction,
        )
    if args.json:
        payload = {found.setting: _payload(found, about) for found in analyses}
        if single is not None:
            payload["single"] = single_response_payload(single)
        print_json({"about": about, "settings": payload})
        return 0
    print(wrap(about))
    for found in analyses:
        _print_one(found, args)
    if single is not None:
        print_single_response(single, args)
    return 0


def register(actions: argparse._SubParsersAction) -> None:
    """Add `selections` to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    selections = actions.add_parser("selections")
    selections.add_argument(
        "--file",
        type=regular_file,
        required=True,
        metavar="FILE",
        help="selections (.csv, .jsonl or .parquet: dialogue,turn,shown,selected,annotator,"
        "setting; shown (in the order shown) and selected as A|B|C; setting soba or sata; a "
        "SATA turn showing one response is a single-response turn)",
    )
    add_rating_options(selections)
    add_test_options(
        selections,
        "also test each system's selection rate against this rate (exact binomial); the null of "
        f"the single-response win rates (default {PAPER_NULL:g}, as Liu et al.)",
    )
    selections.set_defaults(run=located(run_selections))
