"""`comperbench human selections`' single-response table and its cascading and anchoring checks,
as text and JSON. The analyses are `comperbench.stats.human.judgments.single_response` and
`comperbench.stats.human.judgments.selection_effects`."""

from __future__ import annotations

import argparse

from comperbench.cli.common import format_table
from comperbench.cli.human.common import adjusted_header, p_cells
from comperbench.common.textutil import interval, number, p_value, wrap
from comperbench.stats.human.judgments.selection_effects import CASCADING_TEST, Anchoring, Cascading
from comperbench.stats.human.judgments.single_response import SingleResponseAnalysis
from comperbench.stats.multiplicity import describe


def print_cascading(found: Cascading, correction: str) -> None:
    """Each event's re-selection in consecutive turns beside its rate, with Fisher's test.

    Args:
        found: the cascading check.
        correction: the multiplicity correction (holm, bh or none).
    """
    if found.table is None:
        print("\n" + wrap(f"cascading (re-selection in consecutive turns): {found.reason}"))
        return
    print(
        "\n"
        + wrap(
            "cascading: of the consecutive turns (t, t + 1 of a dialogue) showing it both times, "
            "those with the event at t and again at t + 1, beside its rate over all turns; "
            f"{CASCADING_TEST} (null: independent turns):"
        )
    )
    table = found.table
    rows = [
        [
            event,
            int(r["pairs"]),
            int(r["before"]),
            int(r["again"]),
            number(r["reselection_rate"]),
            number(r["rate_after_other"]),
            number(r["selection_rate"]),
            number(r["odds_ratio"], 2),
            *p_cells(r["p_value"], r["p_adjusted"], correction),
        ]
        for event, r in table.iterrows()
    ]
    headers = ["event", "pairs", "at t", "again", "again rate", "after other", "rate", "odds"]
    print(format_table([*headers, "p", *adjusted_header(correction)], rows, indent=2))
    for event, reason in table["reason"].dropna().items():
        print(wrap(f"{event}: {reason}", indent="  ", first="  "))
    print(wrap(describe(correction, int(table["p_value"].notna().sum()), "Fisher tests")))


def print_anchoring(found: Anchoring) -> None:
    """Each position's selection rate and the test of equal rates, per number shown.

    Args:
        found: the anchoring check.
    """
    if not found.groups:
        print("\n" + wrap(f"anchoring (selection rate by position shown): {found.reason}"))
        return
    print("\nanchoring: selection rate of the response shown in each position (1 = first):")
    for group in found.groups:
        rates = ", ".join(
            f"{position}: {number(r['rate'])} ({int(r['selected'])})"
            for position, r in group.rates.iterrows()
        )
        print(wrap(f"{group.shown} shown, {group.turns} turns: {rates}", indent="    ", first="  "))
        if group.reason:
            print(wrap(f"{group.test}: {group.reason}", indent="    ", first="    "))
            continue
        dof = f", dof {group.dof}" if group.dof is not None else ""
        print(
            wrap(
                f"{group.test}: {number(group.statistic, 2)}{dof}, p {p_value(group.p_value)}",
                indent="    ",
                first="    ",
            )
        )


def print_single_response(found: SingleResponseAnalysis, args: argparse.Namespace) -> None:
    """The SM table (Liu et al., Table 6) and its checks.

    Args:
        found: the single-response analysis.
        args: the parsed command line.
    """
    print(f"\n== single response (SATA, one response shown): {found.turns} judged turns")
    print(
        wrap(
            "win rate (turns selected / turns), with the normal-approximation interval Table 6 "
            "of Liu et al. prints and Wilson's; exact binomial test against "
            f"{found.null:g} ({found.alternative}):"
        )
    )
    rows = [
        [
            system,
            int(r["dialogues"]),
            int(r["turns"]),
            int(r["selected"]),
            number(r["rate"]),
            interval(r["wald_low"], r["wald_high"]),
            interval(r["wilson_low"], r["wilson_high"]),
            *p_cells(r["p_value"], r["p_adjusted"], args.correction),
        ]
        for system, r in found.table.iterrows()
    ]
    headers = ["system", "dialogues", "turns", "selected", "win rate", "95% CI", "Wilson", "p"]
    print(format_table(headers + adjusted_header(args.correction), rows, indent=2))
    tested = int(found.table["p_value"].notna().sum())
    print(wrap(describe(args.correction, tested, "binomial tests")))
    print_cascading(found.cascading, args.correction)
    print_anchoring(found.anchoring)


def checks_payload(cascading: Cascading, anchoring: Anchoring) -> dict:
    """The cascading and anchoring checks as JSON-ready data.

    Args:
        cascading: the cascading check.
        anchoring: the anchoring check.

    Returns:
        The JSON-ready data.
    """
    return {
        "cascading": {"test": CASCADING_TEST, **vars(cascading)},
        "anchoring": {"groups": list(anchoring.groups), "reason": anchoring.reason},
    }


def single_response_payload(found: SingleResponseAnalysis) -> dict:
    """The single-response analysis as JSON-ready data.

    Args:
        found: the single-response analysis.

    Returns:
        The JSON-ready data.
    """
    return {
        "turns": found.turns,
        "win_rates": found.table,
        "null": found.null,
        "alternative": found.alternative,
        **checks_payload(found.cascading, found.anchoring),
    }
