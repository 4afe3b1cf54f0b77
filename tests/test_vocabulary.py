"""One word, one thing: no public signature and no CLI flag uses a retired synonym.

The signatures are those of every public function and class (its constructor and public methods)
that `comperbench`, `comperbench.stats` and `comperbench.metrics` export (their `__all__`: the
public API; the modules below them are building blocks that keep their own counting names, such as
`n_units` and `n_resamples` beside each other), each counted once, under the module that defines it; `inspect.signature` reads through a keyword shim
(`renamed_keywords`) to the function it wraps, so an old keyword kept only by a shim does not show,
and one kept as a parameter does. The flags are those of every command and action of the CLI; a
flag hidden from `--help` (a deprecated alias) is not counted.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import warnings
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import comperbench
from comperbench.cli import build_parser
from comperbench.common.deprecation import renamed_keywords
from comperbench.stats.metric_correlation.statistics import statistic_names

RETIRED = {"n_resamples": "resamples", "averaging": "conventions", "use_cache": "cache"}
"""Retired parameter names -> the word to use (as flags: --n-resamples -> --resamples)."""
STATISTIC = ("method", "statistic")
"""`method` naming a statistic -> `statistic` (`method` stays for other computation methods)."""
RECORDED = "a result's record of the resamples drawn, serialised under this name in --json output"
KEPT = {
    ("comperbench.stats.averaging.Conventions", "averaging"): (
        "a Conventions is an Averaging and more: the field names that part"
    ),
    ("comperbench.stats.metric_correlation.statistics.Statistic", "averaging"): (
        "the Averaging object a grouped statistic applies, not the Conventions setting"
    ),
    ("comperbench.stats.metric_correlation.statistics.Statistic.with_averaging", "averaging"): (
        "the Averaging object a grouped statistic applies, not the Conventions setting"
    ),
    ("comperbench.stats.resampling.Interval", "n_resamples"): RECORDED,
    ("comperbench.stats.signature.Signature", "n_resamples"): RECORDED,
    ("comperbench.stats.metric_tests.sequential.TestResult", "n_resamples"): RECORDED,
}
"""(callable, parameter) -> why a retired word stays there."""
ROOTS = ("comperbench", "comperbench.stats", "comperbench.metrics")
WALKED: tuple[str, ...] = ()
"""The packages whose public submodules are walked too (none: the roots' exports are the API)."""


def public_modules() -> list[ModuleType]:
    """The roots and every public submodule of the walked packages."""
    modules = [importlib.import_module(name) for name in ROOTS]
    for package in WALKED:
        path = importlib.import_module(package).__path__
        for info in pkgutil.walk_packages(path, package + "."):
            if not any(part.startswith("_") for part in info.name.split(".")):
                modules.append(importlib.import_module(info.name))
    return modules


def exported(module: ModuleType) -> Iterator[Any]:
    """The module's public functions and classes defined in comperbench, old names served with
    a DeprecationWarning left out."""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(module, name)
        moved = any(issubclass(w.category, DeprecationWarning) for w in caught)
        ours = getattr(value, "__module__", "").startswith("comperbench")
        if not moved and ours and (inspect.isfunction(value) or inspect.isclass(value)):
            yield value


def callables(value: Any) -> Iterator[tuple[str, Callable[..., Any]]]:
    """A function, or a class and its own public methods, each by its qualified name."""
    yield f"{value.__module__}.{value.__qualname__}", value
    if inspect.isclass(value):
        for name, member in vars(value).items():
            if not name.startswith("_") and isinstance(member, staticmethod | classmethod):
                yield f"{value.__module__}.{value.__qualname__}.{name}", getattr(value, name)
            elif not name.startswith("_") and inspect.isfunction(member):
                yield f"{value.__module__}.{value.__qualname__}.{name}", member


def signatures(modules: list[ModuleType]) -> dict[str, inspect.Signature]:
    """Each public callable's signature, by its qualified name (re-exports counted once)."""
    found = {}
    for module in modules:
        for value in exported(module):
            for where, function in callables(value):
                try:
                    found[where] = inspect.signature(function)
                except (TypeError, ValueError):  # a class without a Python signature
                    continue
    return found


def names_a_statistic(annotation: Any, default: Any, choices: Any = None) -> bool:
    """Whether a `method` takes a statistic: annotated as one, or its default or choices are
    registered statistics' names."""
    known = set(statistic_names())
    return (
        "Statistic" in str(annotation)
        or (isinstance(default, str) and default in known)
        or bool(choices and set(choices) <= known)
    )


def signature_offenders(found: dict[str, inspect.Signature]) -> list[str]:
    """Each retired parameter, as `module.function(old=)`: use new=."""
    offenders = []
    for where, signature in sorted(found.items()):
        for p in signature.parameters.values():
            if (where, p.name) in KEPT:
                continue
            if p.name in RETIRED:
                offenders.append(f"{where}({p.name}=): use {RETIRED[p.name]}=")
            elif p.name == STATISTIC[0] and names_a_statistic(p.annotation, p.default):
                offenders.append(f"{where}({p.name}=, a statistic): use {STATISTIC[1]}=")
    return offenders


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parser and every command's and action's parser below it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                yield from parsers(sub)


def flag_offenders(parser: argparse.ArgumentParser) -> list[str]:
    """Each retired flag shown in `--help`, as `prog --old`: use --new."""
    retired = {f"--{old.replace('_', '-')}": f"--{new}" for old, new in RETIRED.items()}
    retired |= {f"--no-{old[2:]}": f"--no-{new[2:]}" for old, new in retired.items()}
    offenders = []
    for each in parsers(parser):
        for action in each._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                if flag in retired:
                    offenders.append(f"{each.prog} {flag}: use {retired[flag]}")
                elif flag == f"--{STATISTIC[0]}" and names_a_statistic(
                    action.type, action.default, action.choices
                ):
                    offenders.append(f"{each.prog} {flag} (a statistic): use --{STATISTIC[1]}")
    return offenders


def test_no_public_signature_uses_a_retired_word() -> None:
    found = signatures(public_modules())
    assert f"{comperbench.load_benchmark.__module__}.load_benchmark" in found  # the walk reached
    gone = [f"{w}({n}=)" for w, n in KEPT if n not in getattr(found.get(w), "parameters", ())]
    assert not gone, f"KEPT lists parameters that are gone: {gone}"
    offenders = signature_offenders(found)
    assert not offenders, f"{len(offenders)} retired words in signatures:\n" + "\n".join(offenders)


def test_no_cli_flag_uses_a_retired_word() -> None:
    offenders = flag_offenders(build_parser())
    assert not offenders, f"{len(offenders)} retired flags:\n" + "\n".join(offenders)


def _old(n_resamples: int = 1, method: str = "pearson", use_cache: bool = True) -> None: ...


def _fine(resamples: int = 1, method: str = "holm", cache: bool = True) -> None: ...


def test_retired_parameters_and_a_statistic_named_method_are_found() -> None:
    found = {"m.old": inspect.signature(_old), "m.fine": inspect.signature(_fine)}
    assert signature_offenders(found) == [
        "m.old(n_resamples=): use resamples=",
        "m.old(method=, a statistic): use statistic=",
        "m.old(use_cache=): use cache=",
    ]


def test_a_keyword_shim_shows_only_the_new_name() -> None:
    shimmed = renamed_keywords(n_resamples="resamples", use_cache="cache")(_fine)
    assert signature_offenders({"m.shimmed": inspect.signature(shimmed)}) == []


def test_retired_flags_are_found_and_hidden_aliases_are_not() -> None:
    parser = argparse.ArgumentParser(prog="cb")
    commands = parser.add_subparsers()
    compare = commands.add_parser("compare", prog="cb compare")
    compare.add_argument("--method", choices=["pearson", "spearman"], default="pearson")
    compare.add_argument("--n-resamples", type=int)
    compare.add_argument("--use-cache", action=argparse.BooleanOptionalAction)
    compare.add_argument("--averaging", help=argparse.SUPPRESS)
    commands.add_parser("plan", prog="cb plan").add_argument("--method", choices=["exact", "z"])
    assert flag_offenders(parser) == [
        "cb compare --method (a statistic): use --statistic",
        "cb compare --n-resamples: use --resamples",
        "cb compare --use-cache: use --cache",
        "cb compare --no-use-cache: use --no-cache",
    ]
