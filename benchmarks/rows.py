"""One line per measured row, the form `readme_table.py` writes into the README's speed table."""

from __future__ import annotations

ROW_PREFIX = "speed row | "


def print_row(work: str, ours_s: float, anchor_s: float, anchor: str, goal: float) -> None:
    """The row's CPU seconds, its anchor's (measured in the same process), the ratio and the
    goal ratio, with whether the goal is met."""
    ratio = anchor_s / ours_s
    verdict = "met" if ratio >= goal else "not met"
    print(
        f"{ROW_PREFIX}{work} | {ours_s:.3g} s | {anchor}: {anchor_s:.3g} s | {ratio:.1f}x | "
        f">= {goal:g}x, {verdict} |",
        flush=True,
    )
