"""`comperbench human ACTION`: analyse and plan a human evaluation. Each action is a module of
its own, imported when a command line reaches it; this one gathers them under one verb."""

from __future__ import annotations

import argparse

from comperbench.cli.verbs import Verb, Verbs, verb_table

_ACTIONS = {
    "votes": Verb(
        "comperbench.cli.human.votes",
        "rank systems from pairwise preferences: your A/B votes or a benchmark's shared contexts",
    ),
    "selections": Verb(
        "comperbench.cli.human.selections",
        "per-turn selections (SOBA or SATA): selection rates, the setting's tests, ratings",
    ),
    "labels": Verb(
        "comperbench.cli.human.labels",
        "binary labels per system (behaviours, or a benchmark's 0-1 aspect): rates, tests, "
        "Krippendorff's alpha",
    ),
    "ratings": Verb(
        "comperbench.cli.human.ratings", "ratings per turn or dialogue: agreement and system means"
    ),
    "template": Verb("comperbench.cli.human.template", "an example file of a format, to fill in"),
    "plan": Verb(
        "comperbench.cli.human.plan",
        "sample size or power per human-evaluation setting, from the difference to detect",
        ("ab", "soba-pair", "sata-pair", "soba-k", "sata-k", "sata-rate", "labels", "ratings"),
    ),
}
ACTIONS = verb_table("action", _ACTIONS)


def register(commands: argparse._SubParsersAction) -> None:
    human = commands.add_parser("human")
    human.add_subparsers(
        dest="action", metavar="ACTION", required=True, action=Verbs, verbs=ACTIONS
    )
