"""The speed goals users wait on, one declared row each, and the printer `make bench` ends with.

A row names its work (the label its script prints as a speed row, `rows.py`), the script in this
folder that measures it, its goal and how it is measured. The scripts judge their runs with the
row's `met` and print its `text`, so a goal is stated here once. The printer reads a `make bench`
log and prints every row with its goal and "met" / "not met", or "not measured" when its script
does not exist yet or printed no row into the log.

Run: python perf/goals.py bench.log    (python perf/goals.py --scripts: the scripts to run)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from rows import ROW_PREFIX

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Goal:
    """One speed goal: `limit` seconds (of `clock`), added to `floor` when one is named, or a
    multiple of it when `clock` is "x"; and under `peak_mb` of peak memory when given."""

    work: str
    script: str
    measured: str
    limit: float
    clock: str = "s CPU"
    floor: str = ""
    peak_mb: float = 0.0
    needs: str = ""
    """What the script needs set up first, if anything (`make bench` runs only those needing
    nothing)."""

    @property
    def text(self) -> str:
        return self.stated()

    def stated(self, floor_s: float | None = None) -> str:
        """The goal in words, with the floor's measured seconds when given."""
        floor = self.floor + (f" ({floor_s:.2f} s)" if floor_s is not None else "")
        if not self.floor:
            budget = f"< {self.limit:g} {self.clock}"
        elif self.clock == "x":
            budget = f"<= {self.limit:g}x {floor}"
        else:
            budget = f"<= {floor} + {self.limit:g} {self.clock}"
        return budget + (f", < {self.peak_mb:g} MB" if self.peak_mb else "")

    def met(self, seconds: float, floor_s: float = 0.0, peak_mb: float = 0.0) -> bool:
        """Whether a run of `seconds` (and `peak_mb`) meets the goal, `floor_s` its floor."""
        if not self.floor:
            fast = seconds < self.limit
        elif self.clock == "x":
            fast = seconds <= self.limit * floor_s
        else:
            fast = seconds <= floor_s + self.limit
        return fast and (not self.peak_mb or peak_mb < self.peak_mb)


SEEDED = "--db LEADERBOARD.sqlite, a seeded leaderboard database, and Chromium"
FRESH = "fastest CPU (user + system) of 5 fresh `python -m comperbench` processes"
GOALS = (
    Goal("`comperbench --version`", "cli_start.py", FRESH, 0.3),
    Goal("`comperbench list`", "cli_start.py", FRESH, 1.0),
    Goal("`comperbench human plan ab --difference 0.1`", "cli_start.py", FRESH, 1.0),
    Goal(
        "warm `evaluate --benchmark dstc7`, 12 n-gram metrics cached",
        "cli.py",
        "CPU of a fresh process; the floor: an interpreter importing numpy, scipy.special and "
        "the compiled rank kernels",
        1.0,
        floor="import floor",
    ),
    Goal(
        "`submit` of 10,000 dstc7 items, fresh process",
        "cli.py",
        "CPU and peak resident memory (VmHWM) of a fresh process; the same import floor",
        0.5,
        floor="import floor",
        peak_mb=300,
    ),
    Goal(
        "submission of 10,000 dstc7 items inside a running server",
        "server_submit.py",
        "CPU of validate + score + store in the server's process, its imports done",
        0.3,
    ),
    Goal(
        "page load",
        "page_load.py",
        "wall time from navigation start to the first ranking row visible (Chromium)",
        1.5,
        clock="s wall",
        needs=SEEDED,
    ),
    Goal(
        "tab switch",
        "page_load.py",
        "wall time from a click on a tab to its content drawn, the slowest tab",
        0.5,
        clock="s wall",
        needs=SEEDED,
    ),
    Goal(
        "BERTScore, 300 dstc7 items",
        "bertscore.py",
        "CPU of `bertscore` on 300 items against the model's forward passes over them alone",
        1.1,
        clock="x",
        floor="its forward-pass floor",
    ),
    Goal(
        "context-cosine, 300 usr-topical items",
        "encoders.py",
        "CPU of `context-cosine` on 300 items against the encoder's forward passes over their "
        "texts alone",
        1.15,
        clock="x",
        floor="its forward-pass floor",
    ),
    Goal(
        "dialogue-coherence, 125 fed-dialogue dialogues",
        "encoders.py",
        "CPU of `dialogue-coherence` on every fed-dialogue dialogue against the encoder's "
        "forward passes over their turns alone",
        1.15,
        clock="x",
        floor="its forward-pass floor",
    ),
)
COLD = "an empty cache and minutes of CPU: run it apart"
GOALS += (
    Goal(
        "cold `evaluate --benchmark all`: the encoder metrics",
        "cold.py",
        "CPU of BERTScore, context-cosine and dialogue-coherence in the one-process run against "
        "their models' forward passes over the same batches alone",
        1.15,
        clock="x",
        floor="their forward-pass floor",
        needs=COLD,
    ),
    Goal(
        "cold `evaluate --benchmark all`: all but the encoder metrics",
        "cold.py",
        "CPU of the one-process run with its worker processes, less the encoder metrics'",
        60.0,
        needs=COLD,
    ),
)
BY_WORK = {goal.work: goal for goal in GOALS}


def verdicts(log: list[str]) -> dict[str, tuple[str, str]]:
    """Each speed row of the log: its work -> what it measured and "met" / "not met"."""
    found = {}
    for line in log:
        if line.startswith(ROW_PREFIX):
            cells = [cell.strip() for cell in line.removeprefix(ROW_PREFIX).split("|")]
            found[cells[0]] = (cells[1], cells[4].rpartition(", ")[2])
    return found


def report(goal: Goal, measured: dict[str, tuple[str, str]]) -> str:
    """The goal's line: its work, goal and verdict (or why it was not measured)."""
    head = f"{goal.work} | goal {goal.text} |"
    if goal.work in measured:
        ours, verdict = measured[goal.work]
        return f"{head} {ours} | {verdict}"
    if not (HERE / goal.script).exists():
        return f"{head} not measured (perf/{goal.script} does not exist yet)"
    if goal.needs:
        return f"{head} not measured (perf/{goal.script} needs {goal.needs}: run it apart)"
    return f"{head} not measured (no row of perf/{goal.script} in the log)"


def main() -> None:
    if sys.argv[1:] == ["--scripts"]:
        ready = {g.script: None for g in GOALS if not g.needs and (HERE / g.script).exists()}
        print(" ".join(ready))
        return
    if len(sys.argv) != 2:
        raise SystemExit("usage: python perf/goals.py BENCH_LOG | --scripts")
    measured = verdicts(Path(sys.argv[1]).read_text(encoding="utf-8").splitlines())
    print("goals:")
    for goal in GOALS:
        print(report(goal, measured))


if __name__ == "__main__":
    main()
