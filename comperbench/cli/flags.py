"""Command-line values checked as they are parsed (argparse `type=` helpers).

A value outside its range is refused before any work starts, in one line that names the flag
(argparse adds it), the value and the range allowed. A file argument must be a regular file of
at most `MAX_FILE_BYTES`: a device, a FIFO or a socket may never end, and is refused by name.
"""

from __future__ import annotations

import argparse
import math
import os
import stat
from collections.abc import Callable

MAX_RESAMPLES = 1_000_000
"""The most bootstrap resamples or permutations a command takes: each one is a pass over every
item and keeps one 8-byte value per metric and statistic."""
MAX_WORKERS = 1024
"""The most worker processes a command starts."""
MAX_FILE_BYTES = 2**30
"""The largest input file a command reads (1 GiB: tens of millions of rows)."""
REFERENCE_RESAMPLES = 1000
"""The count a larger count's cost is stated against."""


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number from `low` to `high` (inclusive; no upper bound when None)."""
    allowed = f"a whole number {_range(low, high)}"

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text} is out of range: give {allowed}")
        return value

    convert.__name__ = allowed
    return convert


def _range(low: int, high: int | None) -> str:
    shown = [f"{n:,}" if abs(n) >= 100_000 else str(n) for n in (low, high) if n is not None]
    return f"from {shown[0]} to {shown[1]}" if high is not None else f"of {shown[0]} or more"


def real(low: float, high: float, *, closed: bool = False) -> Callable[[str], float]:
    """A finite number between `low` and `high` (exclusive; inclusive when `closed`)."""
    ends = "inclusive" if closed else "exclusive"
    allowed = f"a number between {low:g} and {high:g} ({ends})"

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}") from None
        inside = low <= value <= high if closed else low < value < high
        if not inside:
            raise argparse.ArgumentTypeError(f"{text} is out of range: give {allowed}")
        return value

    convert.__name__ = allowed
    return convert


def number(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} is out of range: give a finite number")
    return value


def positive_real(text: str) -> float:
    """A finite number above 0."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is out of range: give a number above 0")
    return value


def resamples(low: int) -> Callable[[str], int]:
    """A count of resamples or permutations from `low` to `MAX_RESAMPLES`; a larger count is
    refused with what it would cost."""
    bounded = whole(low, MAX_RESAMPLES)

    def convert(text: str) -> int:
        try:
            return bounded(text)
        except argparse.ArgumentTypeError as refused:
            raise argparse.ArgumentTypeError(f"{refused}{_cost(text)}") from None

    convert.__name__ = bounded.__name__
    return convert


def _cost(text: str) -> str:
    """What a resample count above `MAX_RESAMPLES` would cost ("" for any other text)."""
    try:
        value = int(text)
    except ValueError:
        return ""
    if value <= MAX_RESAMPLES:
        return ""
    return (
        f" (each resample is a pass over every item and keeps 8 bytes per metric and statistic: "
        f"{value:,} would hold {value * 8 / 1e9:,.3g} GB per metric and statistic, and take "
        f"{value / REFERENCE_RESAMPLES:,.0f}x the time of {REFERENCE_RESAMPLES:,})"
    )


POSITIVE = whole(1)
SEED = whole(0)
PORT = whole(1, 65535)
LEVEL = real(0, 1)
"""A significance level, a power, a confidence or a rate: strictly between 0 and 1."""


def regular_file(text: str) -> str:
    """A path that is a regular file of at most `MAX_FILE_BYTES`, not a device, FIFO or socket
    (an absent path or a folder is left to the reader, which names it)."""
    try:
        found = os.stat(text)
    except OSError:
        return text
    if stat.S_ISDIR(found.st_mode):
        return text
    if not stat.S_ISREG(found.st_mode):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a regular file (a device, FIFO or socket, which may never end)"
        )
    if found.st_size > MAX_FILE_BYTES:
        raise argparse.ArgumentTypeError(
            f"{text!r} holds {found.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} a "
            "command reads"
        )
    return text
