"""CPU time of `comperbench leaderboard seed`, per benchmark, against its estimate and the code
before.

1. The default seed (the cheap baselines) of each benchmark, each in a fresh process from an
   empty cache: CPU time with its worker processes, beside the estimate it printed
   (`comperbench.leaderboard.seeding.seed_cost`), and the sum.
2. The worker processes kept for the whole seed against a pool started for each benchmark level
   (as before: every level started its workers again, and each loaded its metrics again), on the
   same levels without a score cache: the scores asserted equal, then the ratio.
3. With `--against TREE` (a checkout of the code before, e.g. main): both trees seed the same
   benchmarks with the same metrics (the cheap baselines), each in a fresh process from an
   empty cache; every stored row (value, p-value, interval, n, replicates) and every rank range
   and p-value against the leader asserted equal, then the ratio.

With `--row` only the speed row: the default seed of every benchmark present in a fresh process
from an empty cache (CPU time with its workers, peak memory of its largest process), against the
seed that stored the encoder baselines too (`--full`, the default before), the rows of the cheap
baselines asserted equal in both; the goal is judged on CPU time (two idle cores take at least
half of it and at most all of it).

CPU time, not wall time: the machine may be shared. Run:
COMPERBENCH_DATA=/work/shared/data python perf/seed.py [--benchmarks a,b] [--against ../main]
[--against-benchmarks c,d] [--row]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np
from rows import print_goal_row  # perf/rows.py, beside this file

from comperbench.benchmark import get_metadata, list_benchmarks, load_benchmark
from comperbench.common.errors import DataMissingError
from comperbench.leaderboard.items import stored_levels
from comperbench.leaderboard.scoring import leaderboard_statistics
from comperbench.leaderboard.seeding.baselines import baseline_metrics
from comperbench.leaderboard.service import ranking
from comperbench.leaderboard.store import Store
from comperbench.metrics.runner import resolve_metrics, run_metrics
from comperbench.metrics.workers import default_workers, process_pool

POOL_LEVELS = ["usr-topical", "usr-persona", "grade-convai2", "dailydialog-gupta"]
AGAINST = [*POOL_LEVELS, "fed-dialogue"]
ROW_COLUMNS = "value, p_value, ci_low, ci_high, n, replicates, p_method, reason, protocol"
GOAL_S = 300.0
"""Goal of the default seed on two cores."""


def _cpu() -> float:
    """CPU seconds of this process and its finished child processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cpu_of(work: Callable[[], object]) -> tuple[float, object]:
    start = _cpu()
    out = work()
    return _cpu() - start, out


def present(names: list[str]) -> list[str]:
    """The benchmarks whose raw files are under the data root."""
    found = []
    for name in names:
        try:
            load_benchmark(name, stored_levels(name)[0])
        except DataMissingError:
            continue
        found.append(name)
    return found


def seed_process(
    benchmarks: list[str],
    tree: str | None = None,
    metrics: list[str] | None = None,
    full: bool = False,
) -> tuple[float, Path, str, float]:
    """`leaderboard seed` (`--full` with `full`) in a fresh process with an empty cache (`tree`
    first on the path): its CPU time with its workers, its store, its standard output and the
    peak memory of its largest process in MB."""
    folder = Path(tempfile.mkdtemp(prefix="comperbench-seed-"))
    db = folder / "lb.sqlite"
    Store(db)  # an existing database: no --create needed, in either tree
    command = [sys.executable, "-m", "comperbench", "leaderboard", "seed", "--db", str(db)]
    command += ["--benchmarks", ",".join(benchmarks)]
    command += ["--metrics", ",".join(metrics)] if metrics else []
    command += ["--full"] if full else []
    env = {**os.environ, "COMPERBENCH_CACHE": str(folder / "cache")}
    if tree:
        env["PYTHONPATH"] = os.pathsep.join([tree, env.get("PYTHONPATH", "")])
    out, err = folder / "seed.out", folder / "seed.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        child = subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"seed failed:\n{err.read_text()[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, db, out.read_text(), usage.ru_maxrss / 1024


def per_benchmark(names: list[str]) -> None:
    """The default seed of each benchmark in a fresh process, beside its estimate."""
    print("default seed (cheap baselines), each benchmark in a fresh process, empty cache:")
    total = estimated = 0.0
    for name in names:
        cpu, _, out, _ = seed_process([name])
        found = re.search(r"\(([^()]*) of CPU time\)", out)
        guess = found.group(1) if found else "none printed"
        print(f"  {name:22s} CPU {cpu:6.1f} s   estimate {guess}")
        total += cpu
        estimated += _seconds(guess)
    print(f"  sum: CPU {total:.0f} s, estimates {estimated:.0f} s")


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"s": 1, "min": 60, "h": 3600}[unit]


def _level_scores(pool: object | None, names: list[str]) -> list[np.ndarray]:
    scores = []
    for name in names:
        bench = load_benchmark(name, stored_levels(name)[0])
        metrics = resolve_metrics(list(baseline_metrics(bench.level)), bench.level)
        result = run_metrics(bench, metrics, pool=pool)  # type: ignore[arg-type]
        scores += [run.scores for run in result.runs]
    return scores


def pool_ratio(names: list[str]) -> None:
    """One worker pool for every level against one pool per level, without a score cache
    (after a first seed of the first level: what a cache pays once, e.g. WordNet unpacked)."""
    _level_scores(None, names[:1])
    per_level, before = cpu_of(lambda: _level_scores(None, names))

    def shared() -> list[np.ndarray]:
        with process_pool(default_workers()) as pool:
            return _level_scores(pool, names)

    kept, after = cpu_of(shared)
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(old, new)
    print(
        f"workers kept for the whole seed vs started per level ({', '.join(names)}; "
        f"{default_workers()} workers, scores equal): CPU {per_level:.1f} s -> {kept:.1f} s, "
        f"ratio {per_level / kept:.2f}x"
    )


def _rows(db: Path) -> dict[tuple, tuple]:
    query = (
        f"SELECT m.name, r.benchmark, r.level, r.aspect, r.statistic, {ROW_COLUMNS} "
        "FROM results r JOIN metrics m ON m.id = r.metric_id"
    )
    with sqlite3.connect(db) as connection:
        return {row[:5]: row[5:] for row in connection.execute(query)}


def _places(db: Path, names: list[str]) -> dict[tuple, tuple]:
    store, out = Store(db), {}
    for name in names:
        for level in [*stored_levels(name), "system"]:
            for aspect in get_metadata(name).aspect_names:
                for statistic in [s.name for s in leaderboard_statistics()]:
                    for r in ranking(store, name, level, aspect, statistic):
                        key = (r.row.metric, name, level, aspect, statistic)
                        out[key] = (r.rank, r.rank_low, r.rank_high, r.p_vs_leader, r.leader)
    return out


def _same(old: dict[tuple, tuple], new: dict[tuple, tuple], what: str) -> None:
    assert old.keys() == new.keys(), f"{what}: other rows ({len(old)} vs {len(new)})"
    for key, value in old.items():
        same = all(a == b or (a != a and b != b) for a, b in zip(value, new[key], strict=True))
        assert same, f"{what} differ at {key}: {value} vs {new[key]}"


def against(tree: str, names: list[str]) -> None:
    """The same seed with the code of `tree` and with this code: equal rows, then the ratio."""
    metrics = list(dict.fromkeys(m for n in names for m in _cheap(n)))
    old_cpu, old_db, _, _ = seed_process(names, tree, metrics)
    new_cpu, new_db, _, _ = seed_process(names, None, metrics)
    _same(_rows(old_db), _rows(new_db), "stored rows")
    _same(_places(old_db, names), _places(new_db, names), "rank ranges")
    count = len(_rows(new_db))
    print(
        f"seed of {', '.join(names)} ({len(metrics)} metrics), code of {tree} vs this code, "
        f"{count} stored rows and their rank ranges equal: CPU {old_cpu:.1f} s -> "
        f"{new_cpu:.1f} s, ratio {old_cpu / new_cpu:.2f}x"
    )


def default_seed_row(names: list[str]) -> None:
    """The default seed of `names` against the seed with the encoder baselines (`--full`, the
    default before): the cheap baselines' rows equal in both, then the goal row."""
    full_cpu, full_db, _, _ = seed_process(names, full=True)
    cpu, db, _, peak = seed_process(names)
    rows, full_rows = _rows(db), _rows(full_db)
    _same(rows, {key: full_rows[key] for key in rows}, "cheap baselines' rows")
    print_goal_row(
        f"default `leaderboard seed`, {len(names)} benchmarks (cheap baselines)",
        f"{cpu:.0f} s (2 idle cores: {cpu / 2:.0f}-{cpu:.0f} s), peak {peak:.0f} MB",
        cpu,
        full_cpu,
        "the same seed with the encoder baselines (--full, the default before)",
        f"< {GOAL_S / 60:.0f} min on 2 cores",
        cpu < GOAL_S,
    )


def _cheap(name: str) -> list[str]:
    return [m for level in stored_levels(name) for m in baseline_metrics(level)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", help="comma-separated (default: every one present)")
    parser.add_argument("--against", metavar="TREE", help="a checkout of the code before")
    parser.add_argument(
        "--against-benchmarks", help=f"compared with TREE (default: {','.join(AGAINST)})"
    )
    parser.add_argument("--row", action="store_true", help="only the default seed's speed row")
    args = parser.parse_args()
    names = present(args.benchmarks.split(",") if args.benchmarks else list_benchmarks())
    started = time.perf_counter()
    if args.row:
        default_seed_row(names)
        print(f"({time.perf_counter() - started:.0f} s of wall time)")
        return
    per_benchmark(names)
    pool_ratio(present(POOL_LEVELS))
    if args.against:
        compared = args.against_benchmarks.split(",") if args.against_benchmarks else AGAINST
        against(args.against, present(compared))
    print(f"({time.perf_counter() - started:.0f} s of wall time)")


if __name__ == "__main__":
    main()
