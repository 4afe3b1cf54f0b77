"""One registry pattern, used by benchmarks and metrics alike."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from comperbench.common.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name -> object mapping whose lookups fail with the closest known names."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of `add`."""

        def decorate(item: T) -> T:
            return self.add(name, item)

        return decorate

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._items), n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            known = ", ".join(sorted(self._items))
            raise UnknownNameError(f"unknown {self.kind} {name!r}.{hint} Known: {known}") from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._items)
