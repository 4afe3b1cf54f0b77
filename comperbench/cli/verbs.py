"""Commands and actions built when they run, and unknown ones answered with the command a
renamed one became, or the closest known ones."""

from __future__ import annotations

import argparse
import difflib
import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple, NoReturn

from comperbench.common.registry import Registry


class Verb(NamedTuple):
    """A command or an action: the module whose `register(subparsers)` builds its parser, its
    one-line help, and the names of its own actions (for "did you mean")."""

    module: str
    help: str
    actions: tuple[str, ...] = ()


def verb_table(kind: str, verbs: Mapping[str, Verb]) -> Registry[Verb]:
    """The commands (or one command's actions) registered in the order given.

    Args:
        kind: what they are, as an error names them ("command", "action").
        verbs: each name and its `Verb`, in the order `--help` lists them.

    Returns:
        The registry.
    """
    table: Registry[Verb] = Registry(kind)
    for name, verb in verbs.items():
        table.add(name, verb)
    return table


class Verbs(argparse._SubParsersAction):
    """Subcommands listed by name and help from a table of `Verb`s; a verb's parser is built
    (its module imported and registered) only when a command line reaches it, or by `build`."""

    def __init__(self, *args: Any, verbs: Registry[Verb], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.verbs, self.built = verbs, set[str]()
        for name, verb in verbs.items():
            listed = self.add_parser(name, add_help=False)
            if verb.actions:
                nested = listed.add_subparsers()
                for action in verb.actions:
                    nested.add_parser(action, add_help=False)

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """The parser of `name`, with its help from the table, in place of the listed one."""
        kwargs.setdefault("help", self.verbs.get(name).help)
        order = [a.dest for a in self._choices_actions]
        self._name_parser_map.pop(name, None)
        parser = super().add_parser(name, **kwargs)
        if name in order:  # keep the table's order in the listing
            self._choices_actions[order.index(name)] = self._choices_actions.pop()
        return parser

    def build(self, name: str, every: bool = False) -> None:
        """Import `name`'s module and build its parsers (`every`: its actions' too)."""
        module = self.verbs.get(name).module
        if module not in self.built:
            self.built.add(module)
            importlib.import_module(module).register(self)
        if every:
            for action in self.choices[name]._actions:
                if isinstance(action, Verbs):
                    action.build_every()

    def build_every(self) -> None:
        """Every verb's parsers and its actions' (as every command's `--help` shows them)."""
        for name, _ in self.verbs.items():
            self.build(name, every=True)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        self.build(values[0])  # the verb; the rest are its arguments
        super().__call__(parser, namespace, values, option_string)


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
            self.exit(2, f"comperbench: error: {_escaped(unknown(self.prog, value, action))}\n")
        super()._check_value(action, value)

    def error(self, message: str) -> NoReturn:
        """A wrong or missing argument as one line (argparse would print the usage first)."""
        self.exit(2, f"{self.prog}: error: {_escaped(message)} (see `{self.prog} --help`)\n")


def _escaped(text: str) -> str:
    """`textutil.escaped`, imported on the error path only (textutil imports numpy)."""
    from comperbench.common.textutil import escaped

    return escaped(text)


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
