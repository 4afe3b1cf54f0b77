"""One line per measured row, the form `readme_table.py` writes into the README's speed table."""

from __future__ import annotations

ROW_PREFIX = "speed row | "


def _print(work: str, ours: str, anchor: str, ratio: float, goal: str, met: bool) -> None:
    verdict = "met" if met else "not met"
    shown = f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x"  # 1.98x never shows as 2.0x
    print(f"{ROW_PREFIX}{work} | {ours} | {anchor} | {shown} | {goal}, {verdict} |", flush=True)


def print_row(work: str, ours_s: float, anchor_s: float, anchor: str, goal: float) -> None:
    """The row's CPU seconds, its anchor's (measured in the same process), the ratio and the
    goal ratio, with whether the goal is met."""
    ratio = anchor_s / ours_s
    _print(
        work,
        f"{ours_s:.3g} s",
        f"{anchor}: {anchor_s:.3g} s",
        ratio,
        f">= {goal:g}x",
        ratio >= goal,
    )


def print_goal_row(
    work: str, ours: str, ours_s: float, anchor_s: float, anchor: str, goal: str, met: bool
) -> None:
    """A row whose goal is a budget (`goal`, e.g. "< 2 s CPU") rather than a ratio: `ours`
    describes the run, `ours_s` and `anchor_s` are the CPU seconds the ratio is taken of."""
    _print(work, ours, f"{anchor}: {anchor_s:.3g} s", anchor_s / ours_s, goal, met)
