"""`comperbench human ACTION`: analyse and plan a human evaluation. Each action is a module of
its own; this one gathers them under one verb."""

from __future__ import annotations

import argparse
import importlib

ACTIONS = ("votes", "selections", "labels", "ratings", "template", "plan")


def register(commands: argparse._SubParsersAction) -> None:
    human = commands.add_parser(
        "human",
        help="your own human evaluation (votes, selections, labels, ratings) or a benchmark's: "
        "analyse, plan, templates",
    )
    actions = human.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name in ACTIONS:
        importlib.import_module(f"comperbench.cli.human.{name}").register(actions)
