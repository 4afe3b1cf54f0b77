"""Unknown commands and actions: the command a renamed one became, or the closest known ones."""

from __future__ import annotations

import argparse
import difflib
from typing import Any, NoReturn

from comperbench.common.textutil import escaped

RENAMED = {
    "pairwise": "human votes",
    "rates": "human labels",
    "power": "human plan",
}
"""Former commands -> the command that does their job now."""


class Parser(argparse.ArgumentParser):
    """An argument parser that answers an unknown command, action or setting with one line on
    standard error that says what to type instead, and exit status 2 (its subparsers are of
    this class too)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
            self.exit(2, f"comperbench: error: {escaped(unknown(self.prog, value, action))}\n")
        super()._check_value(action, value)

    def error(self, message: str) -> NoReturn:
        """A wrong or missing argument as one line (argparse would print the usage first)."""
        self.exit(2, f"{self.prog}: error: {escaped(message)} (see `{self.prog} --help`)\n")


def unknown(prog: str, word: str, action: argparse._SubParsersAction) -> str:
    """Why `word` is not a choice of `prog`'s subcommands, and what to type instead."""
    kind = (action.metavar or "command").lower()
    said = f"unknown {kind} {word!r}"
    renamed = f"comperbench {RENAMED.get(word)}"
    if word in RENAMED and (renamed + " ").startswith(prog + " "):
        return f"{said}: it is now `{renamed}`"
    candidates = _candidates(action)
    close = [f"`{prog} {candidates[c]}`" for c in difflib.get_close_matches(word, candidates, n=3)]
    if close:
        listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
        return f"{said}: did you mean {listed}?"
    return f"{said}: `{prog} --help` lists them"


def _candidates(action: argparse._SubParsersAction) -> dict[str, str]:
    """Each choice by its name, and each choice's own subcommands by theirs (`votes` ->
    `human votes`) where no choice has that name."""
    found = {name: name for name in action.choices}
    for name, parser in action.choices.items():
        for child in _subcommands(parser):
            found.setdefault(child, f"{name} {child}")
    return found


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    return [
        name
        for a in parser._actions
        if isinstance(a, argparse._SubParsersAction)
        for name in a.choices
    ]
