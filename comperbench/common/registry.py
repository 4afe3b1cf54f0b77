"""One registry pattern for benchmarks, metrics, statistics and CLI verbs.

A registry is filled lazily, on its first lookup: it imports the built-in modules declared for
its kind (each registers its items when imported), then every module named by its entry-point
group (`comperbench.metrics`, `comperbench.benchmarks`), so that a package installed beside
comperbench adds items without editing it. A plugin that fails to import is recorded by name
(`Registry.failures`) with a warning, and the other items stay available.
"""

from __future__ import annotations

import difflib
import importlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

from comperbench.common.errors import UnknownNameError

T = TypeVar("T")


def entry_points(group: str) -> Sequence[object]:
    """The entry points of `group` of every installed distribution.

    Args:
        group: the entry-point group (`comperbench.metrics`).

    Returns:
        The entry points (`importlib.metadata.EntryPoint`), each with a `name` and a `load()`.
    """
    from importlib.metadata import entry_points as installed  # a cost only when a lookup needs it

    return tuple(installed(group=group))


class PluginWarning(UserWarning):
    """A plugin named by an entry point of comperbench could not be loaded."""


class Registry(Generic[T]):
    """A name -> object mapping, loaded on first use, whose lookups fail with the closest names.

    Args:
        kind: what the items are, as an error names them ("metric", "benchmark").
        modules: the built-in modules that register this kind's items when imported.
        group: the entry-point group whose entries name plugin modules ("" for none).
        listed_by: the command that lists every item, named by the unknown-name error.
    """

    def __init__(
        self,
        kind: str,
        modules: Sequence[str] = (),
        group: str = "",
        listed_by: str = "",
    ) -> None:
        self.kind, self.modules, self.group, self.listed_by = kind, tuple(modules), group, listed_by
        self._items: dict[str, T] = {}
        self._loaded = not modules and not group
        self.failures: dict[str, str] = {}
        """Entry-point name -> why its plugin could not be loaded (one line)."""

    def add(self, name: str, item: T) -> T:
        """Register `item` under `name`.

        Args:
            name: the name lookups use.
            item: what `get(name)` returns.

        Returns:
            The item, so that `add` may serve as a decorator's body.

        Raises:
            ValueError: `name` is already registered.
        """
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of `add`.

        Args:
            name: the name lookups use.

        Returns:
            A decorator that registers what it decorates and returns it unchanged.
        """

        def decorate(item: T) -> T:
            return self.add(name, item)

        return decorate

    def load(self) -> None:
        """Import the built-in modules, then the plugins of the entry-point group (once)."""
        if self._loaded:
            return
        self._loaded = True  # before importing: a module registering its items looks nothing up
        try:
            for module in self.modules:
                importlib.import_module(module)
        except BaseException:
            self._loaded = False  # a broken built-in module fails every lookup, not only the first
            raise
        if self.group:
            for entry in entry_points(self.group):
                self._load_plugin(entry)

    def _load_plugin(self, entry: object) -> None:
        name = getattr(entry, "name", "?")
        try:
            entry.load()  # type: ignore[attr-defined]
        except Exception as error:
            why = f"{type(error).__name__}: {error}".splitlines()[0]
            self.failures[name] = why
            warnings.warn(
                f"{self.kind} plugin {name!r} ({self.group}) was not loaded: {why}",
                PluginWarning,
                stacklevel=4,
            )

    def get(self, name: str) -> T:
        """The item registered under `name`.

        Args:
            name: a registered name.

        Returns:
            The item.

        Raises:
            UnknownNameError: no item has that name; the one-line message names the closest.
        """
        self.load()
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.unknown(name)) from None

    def unknown(self, name: str) -> str:
        """The one-line error for an unknown `name`: the closest names and where all are listed.

        Args:
            name: the name that was not found.

        Returns:
            "unknown metric 'blue-4'; did you mean bleu-4? `comperbench list metrics` lists them
            all" (without the listing command when the registry has none).
        """
        close = _closest(name, list(self._items))
        hint = f"did you mean {_either(close)}?" if close else ""
        if self.listed_by:
            listing = f"`{self.listed_by}` lists them all"
        else:
            listing = "" if close else f"known: {', '.join(sorted(self._items))}"
        return f"unknown {self.kind} {name!r}; " + " ".join(p for p in (hint, listing) if p)

    def names(self) -> list[str]:
        """Every registered name, sorted.

        Returns:
            The names.
        """
        self.load()
        return sorted(self._items)

    def items(self) -> list[tuple[str, T]]:
        """Every (name, item), in the order of registration.

        Returns:
            The pairs.
        """
        self.load()
        return list(self._items.items())

    def values(self) -> list[T]:
        """Every item, in the order of registration.

        Returns:
            The items.
        """
        return [item for _, item in self.items()]

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self.load()
        return len(self._items)


def _closest(name: str, known: Sequence[str]) -> list[str]:
    """The known names most like `name` (all that tie for the best likeness, at most three)."""
    likeness = {k: difflib.SequenceMatcher(None, name, k).ratio() for k in known}
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    return [k for k in close if likeness[k] == likeness[close[0]]]


def _either(names: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
