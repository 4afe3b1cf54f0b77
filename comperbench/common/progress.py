"""Progress that shows on a terminal (a tqdm bar) and off one (a plain line at intervals), so a
long run is never silent in a log or a CI job."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

PLAIN_EVERY_S = 10.0
"""Seconds between two plain progress lines when standard error is not a terminal."""


def duration(seconds: float) -> str:
    """A short human duration: 42 s, 3.5 min, 1.2 h."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def eta_text(done: int, total: int, elapsed: float) -> str:
    """'elapsed 12 s, about 40 s left' (no estimate before the first unit is done)."""
    left = f", about {duration(elapsed / done * (total - done))} left" if 0 < done < total else ""
    return f"elapsed {duration(elapsed)}{left}"


class PlainProgress:
    """A tqdm-like counter that writes `label: done/total unit (pct), elapsed, ETA` to stderr at
    most every `every` seconds, and a last line when it ends after at least one such line."""

    def __init__(self, total: int, label: str, unit: str = "item", every: float | None = None):
        self.total, self.label, self.unit = total, label, unit
        self.every = PLAIN_EVERY_S if every is None else every
        self.done, self.started = 0, time.monotonic()
        self._last = self.started
        self._shown: int | None = None  # the count on the last line printed

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: TracebackType | Any) -> None:
        if self._shown is not None and self._shown != self.done and kind is None:
            self._line()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            self._line()

    def _line(self) -> None:
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        elapsed = time.monotonic() - self.started
        print(
            f"{self.label}: {self.done}/{self.total} {self.unit}s{share}, "
            f"{eta_text(self.done, self.total, elapsed)}",
            file=sys.stderr,
            flush=True,
        )
        self._shown = self.done


def progress(total: int, label: str, unit: str = "item") -> Any:
    """A tqdm bar on a terminal, else a `PlainProgress`; both have `update(n)` and are context
    managers."""
    if sys.stderr.isatty():
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=label, unit=unit, leave=False)
    return PlainProgress(total, label, unit)


def clock(seconds: float) -> str:
    """Elapsed time as a clock: 0:07, 1:42, 1:02:05."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class StatusLine:
    """One line saying how far a long run is, on standard error: rewritten in place on a
    terminal (a tqdm line above the bars of the steps), else printed each time it is shown."""

    def __init__(self) -> None:
        self._bar: Any = None
        if sys.stderr.isatty():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=0, bar_format="{desc}", position=0, leave=True)

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *_: object) -> None:
        if self._bar is not None:
            self._bar.close()

    def show(self, text: str) -> None:
        if self._bar is None:
            print(text, file=sys.stderr, flush=True)
        else:
            self._bar.set_description_str(text)
