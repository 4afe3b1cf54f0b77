"""CPU time and peak memory of the full cold default meta-evaluation: `comperbench evaluate
--benchmark NAME` (the default metrics, level and aspect) of every benchmark present, one after
another, each in a fresh process, all sharing one table and score cache that starts empty, as a
user evaluating every benchmark runs them.

With `--against TREE` (a checkout of the code before, e.g. main) the same runs are made with that
code first, from its own empty cache: each benchmark's scores (`scores.parquet`) and table rows
(`table.json`) are asserted equal, then the goal row is printed with the code before as anchor.

Minutes of CPU per large benchmark from an empty cache, so it is not part of `make bench`; run it
apart. CPU time, not wall time: the machine may be shared. On two idle cores the run takes at
least half its CPU time and at most all of it (the n-gram metrics share two worker processes and
torch two threads, the rest is one process), so the goal counts as met only when the CPU time
itself is under it.
Run: COMPERBENCH_DATA=/work/shared/data python perf/cold.py [--benchmarks a,b]
[--against ../main]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import pyarrow.parquet as pq
from rows import print_goal_row  # perf/rows.py, beside this file
from seed import present  # perf/seed.py, beside this file

from comperbench.benchmark import list_benchmarks

GOAL_S = 300.0
"""Goal of the whole run on two idle cores."""
GOAL_PEAK_MB = 2000.0


@dataclass(frozen=True)
class Run:
    """One `evaluate` in a fresh process: its CPU time with its workers, its peak memory (the
    largest of its processes) and where it wrote its scores and table."""

    cpu: float
    peak_mb: float
    out: Path


def evaluate_process(name: str, folder: Path, tree: str | None) -> Run:
    """`comperbench evaluate --benchmark NAME` in a fresh process (`tree` first on the path),
    with the cache of `folder`."""
    out = folder / "results" / name
    command = [sys.executable, "-m", "comperbench", "evaluate", "--benchmark", name]
    # one hash seed for both trees: a tree before dcdf065 grouped items into batches by the hash
    # of their references, and an encoder's last bits depend on which texts share its batches
    env = {**os.environ, "COMPERBENCH_CACHE": str(folder / "cache"), "PYTHONHASHSEED": "0"}
    if tree:
        env["PYTHONPATH"] = os.pathsep.join([tree, env.get("PYTHONPATH", "")])
    with open(folder / f"{name}.log", "w") as log:
        child = subprocess.Popen([*command, "--out", str(out)], env=env, stdout=log, stderr=log)
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"evaluate {name} failed: see {folder / f'{name}.log'}")
    return Run(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out)


def warm_files() -> None:
    """Import the scoring libraries once, untimed, so that neither tree's first run pays for
    reading them from disk."""
    imports = "import bert_score, nltk, rouge_score, sacrebleu, torch, transformers"
    subprocess.run([sys.executable, "-c", imports], check=True)


def meta_evaluation(names: list[str], tree: str | None, label: str) -> dict[str, Run]:
    """Every benchmark evaluated from one cache that starts empty; a line per benchmark."""
    folder = Path(tempfile.mkdtemp(prefix="comperbench-cold-"))
    runs = {}
    for name in names:
        runs[name] = run = evaluate_process(name, folder, tree)
        print(f"  {label} {name:22s} CPU {run.cpu:7.1f} s  peak {run.peak_mb:6.0f} MB", flush=True)
    return runs


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return a == b


def assert_same(name: str, old: Path, new: Path) -> None:
    """Equal scores and equal table rows (values, p-values, intervals) of one benchmark."""
    old_scores, new_scores = (
        pq.read_table(old / "scores.parquet"),
        pq.read_table(new / "scores.parquet"),
    )
    assert old_scores.equals(new_scores), f"{name}: the scores differ"
    old_rows = json.loads((old / "table.json").read_text())["rows"]
    new_rows = json.loads((new / "table.json").read_text())["rows"]
    assert _same_value(old_rows, new_rows), f"{name}: the table rows differ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", help="comma-separated (default: every one present)")
    parser.add_argument("--against", metavar="TREE", help="a checkout of the code before")
    args = parser.parse_args()
    names = present(args.benchmarks.split(",") if args.benchmarks else list_benchmarks())
    started = time.perf_counter()
    print(f"cold default evaluate of {len(names)} benchmarks, fresh processes, empty cache:")
    warm_files()
    before = meta_evaluation(names, args.against, "before") if args.against else None
    after = meta_evaluation(names, None, "this code")
    cpu = sum(r.cpu for r in after.values())
    peak = max(after.values(), key=lambda r: r.peak_mb)
    largest = next(n for n, r in after.items() if r is peak)
    print(f"  this code: CPU {cpu:.0f} s, peak {peak.peak_mb:.0f} MB ({largest})")
    if before is not None:
        for name in names:
            assert_same(name, before[name].out, after[name].out)
        anchor = sum(r.cpu for r in before.values())
        print_goal_row(
            f"full cold default meta-evaluation, {len(names)} benchmarks",
            f"{cpu:.0f} s (2 idle cores: {cpu / 2:.0f}-{cpu:.0f} s), peak {peak.peak_mb:.0f} MB",
            cpu,
            anchor,
            "the code before, same runs",
            f"< {GOAL_S:.0f} s on 2 cores, peak < {GOAL_PEAK_MB / 1000:.0f} GB",
            cpu < GOAL_S and peak.peak_mb < GOAL_PEAK_MB,
        )
    print(f"({time.perf_counter() - started:.0f} s of wall time)")


if __name__ == "__main__":
    main()
