"""A metric against its floor, the bare forward passes of its model over the very batches the
metric gave it: the batches recorded, the fastest CPU time of a few runs, and the rows printed."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from goals import Goal
from rows import print_goal_row

Batch = list[list[int]]


@contextmanager
def recording(module: Any, forward: str, batches: list[Batch]) -> Iterator[None]:
    """Within it, each call of `module.<forward>` (a forward pass whose second argument is the
    batch's token id lists) appends those lists to `batches`."""
    original = getattr(module, forward)

    def recorded(model: Any, ids: Sequence[list[int]], *rest: Any) -> Any:
        batches.append([list(i) for i in ids])
        return original(model, ids, *rest)

    setattr(module, forward, recorded)
    try:
        yield
    finally:
        setattr(module, forward, original)


def fastest(work: Callable[[], object], repeat: int) -> float:
    """The least CPU time of `repeat` runs: other jobs on the machine only ever slow one down."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def describe(batches: list[Batch]) -> str:
    texts = sum(len(b) for b in batches)
    tokens = sum(len(i) for b in batches for i in b)
    return f"{texts} distinct texts, {tokens} tokens, {len(batches)} batches"


def print_floor_rows(goal: Goal, metric_s: float, floor_s: float) -> None:
    """The metric's and its floor's CPU seconds, their ratio, and the goal's speed row."""
    ratio = metric_s / floor_s
    print(f"metric {metric_s:.2f} s CPU, its forward passes alone {floor_s:.2f} s: {ratio:.2f}x")
    print_goal_row(
        goal.work,
        f"{metric_s:.3g} s ({ratio:.2f}x its floor)",
        metric_s,
        floor_s,
        "its forward passes alone",
        goal.stated(floor_s),
        goal.met(ratio, floor_s=1.0),
    )
