"""`human votes` printers of the ChatEval protocol's analyses: the win-count ranking with the
Major and Distinct scores, the per-pair table, Fleiss' kappa and each annotator against the
others (`comperbench.stats.human.votes.chateval`, `comperbench.stats.human.votes.vote_agreement`)."""

from __future__ import annotations

import pandas as pd

from comperbench.cli.common import format_table
from comperbench.common.textutil import interval, number, p_value, wrap
from comperbench.stats.annotator_agreement.agreement import AgreementResult
from comperbench.stats.human.votes.chateval import ChatEvalScores

SCORES = (
    "Major = wins / (wins + losses), ties left out; Distinct = wins / (wins + losses + ties); "
    "Distinct tie = ties / (wins + losses + ties) (Lee et al., section 2.2)"
)


def print_chateval(scores: ChatEvalScores) -> None:
    """The ranking by system win count, then every pair's scores (both directions).

    Args:
        scores: the ChatEval scores of the votes.
    """
    print(
        "\n"
        + wrap(f"ChatEval ranking by system win count (opponents beaten, Major > 0.5); {SCORES}")
    )
    rows = [
        [
            int(r["rank"]),
            system,
            int(r["won"]),
            int(r["lost"]),
            int(r["even"]),
            int(r["all_ties"]),
            number(r["major"]),
            number(r["distinct"]),
            number(r["distinct_tie"]),
        ]
        for system, r in scores.ranking.iterrows()
    ]
    headers = ["rank", "system", "beats", "loses to", "even", "only ties", "Major", "Distinct"]
    print(format_table([*headers, "Distinct tie"], rows, indent=2))
    print("\nChatEval scores of each system (row) against each opponent:")
    rows = [
        [
            r["system"],
            r["opponent"],
            int(r["wins"]),
            int(r["losses"]),
            int(r["ties"]),
            number(r["major"]),
            number(r["distinct"]),
            number(r["distinct_tie"]),
        ]
        for _, r in scores.pairs.iterrows()
    ]
    headers = ["system", "opponent", "wins", "losses", "ties", "Major", "Distinct"]
    print(format_table([*headers, "Distinct tie"], rows, indent=2))
    if scores.pairs["major"].isna().any():
        print(wrap("note: Major is undefined (-) for a pair whose every vote is a tie", "  "))


def print_vote_agreement(kappa: AgreementResult, annotators: pd.DataFrame) -> None:
    """Fleiss' kappa of the votes and each annotator's correlation with the others.

    Args:
        kappa: Fleiss' kappa of the votes.
        annotators: rows of `annotator_correlations`.
    """
    if kappa.reason:
        line = f"Fleiss' kappa of the votes is undefined here: {kappa.reason}"
    else:
        ci = f", 95% CI {interval(kappa.ci.low, kappa.ci.high)}" if kappa.ci else ""
        line = (
            f"Fleiss' kappa of the votes (a, b, tie) over {kappa.n_items} item pairs with two or "
            f"more votes: {number(kappa.value)}{ci}"
        )
    print("\n" + wrap(line))
    defined = annotators["spearman"].notna()
    negative = int((annotators["spearman"] < 0).sum())
    print(
        wrap(
            f"each annotator against the others (Spearman of their votes, 1 a / 0.5 tie / 0 b, "
            f"and the others' mean vote on the same item pairs): {int(defined.sum())} of "
            f"{len(annotators)} defined, {negative} negative"
        )
    )
    rows = [
        [
            name,
            int(r["shared"]),
            number(r["spearman"]),
            "-" if pd.isna(r["p"]) else p_value(r["p"]),
            r["reason"] or "",
        ]
        for name, r in annotators.iterrows()
    ]
    print(format_table(["annotator", "shared", "Spearman", "p", "undefined because"], rows, 2))


LOWEST = 5
"""Prompts of lowest validity printed (all are in --json)."""


def print_prompt_validity(validity: pd.DataFrame) -> None:
    """A summary of the prompts' item-total correlations and the lowest ones.

    Args:
        validity: rows of `prompt_validity`.
    """
    defined = validity["r"].dropna()
    median = number(float(defined.median())) if len(defined) else "-"
    print(
        "\n"
        + wrap(
            "prompt validity (Pearson r of a prompt's mean vote per pair of systems with the "
            f"pair's mean vote over the other prompts): {len(defined)} of {len(validity)} "
            f"prompts defined, median r {median}, {int((defined < 0).sum())} negative; the "
            f"{min(LOWEST, len(validity))} lowest (all with --json):"
        )
    )
    rows = [
        [
            item,
            int(r["pairs"]),
            number(r["r"]),
            "-" if pd.isna(r["p"]) else p_value(r["p"]),
            r["reason"] or "",
        ]
        for item, r in validity.head(LOWEST).iterrows()
    ]
    print(format_table(["prompt", "pairs", "r", "p", "undefined because"], rows, 2))
