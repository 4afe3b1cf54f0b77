"""The CLI runs users wait on, each in a fresh process, against their targets:

1. a warm `comperbench evaluate --benchmark dstc7` with the 12 n-gram metrics cached, and its
   correlation table kept by the run before (a re-run of the same command): goal at most the
   import floor + 1 s of CPU; printed beside it, the same run with only the scores cached (the
   table's bootstrap and human ceiling computed again);
2. `comperbench submit` of a full-coverage dstc7 file (10,000 items): goal at most the import
   floor + 0.5 s of CPU and under 300 MB peak (the goals: `goals.py`).

Each run is timed twice, its output compared first: as it runs now (a run imports its own
command's module, and that module what it uses), and with every command's module imported first,
as every run did before (that loads pandas, statsmodels and the rest). The floor of any run is
the interpreter with numpy, scipy.special (the p-values) and numba with the compiled rank
kernels loaded (the bootstrap of Spearman and Kendall over thousands of items), timed alone
first. Each command prints a speed row (`rows.py`) for the README's table: its CPU seconds now,
against the same run with every command's module imported first, and its goal.

Run: COMPERBENCH_DATA=/work/shared/data python perf/cli.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

from goals import BY_WORK, Goal
from leaderboard import _file  # perf/leaderboard.py, beside this file
from rows import print_goal_row

from comperbench.metrics.runner import NGRAM_SUITE

EVALUATE = BY_WORK["warm `evaluate --benchmark dstc7`, 12 n-gram metrics cached"]
SUBMIT = BY_WORK["`submit` of 10,000 dstc7 items, fresh process"]
HEAVY = ("scipy.stats", "pandas", "statsmodels", "matplotlib", "numba", "httpx")

RUN = """
import json, sys, time
sys.path.insert(0, {here!r})
from usage import resident_mb
from comperbench.cli import build_parser, main
if {every!r}:
    build_parser()  # every command's module, as before
argv = {argv!r}
imported = time.process_time()
status = main(argv)
print(json.dumps({{"status": status, "cpu": time.process_time(), "imports": imported,
    "peak": resident_mb("VmHWM"), "loaded": [m for m in {heavy!r} if m in sys.modules]}}),
    file=sys.stderr)
"""


def cli_run(argv: list[str], every: bool) -> tuple[str, dict[str, object]]:
    """`comperbench ARGV` in a fresh process: its output and its CPU seconds (all of them, and
    those before the command ran), peak MB and the heavy libraries it loaded."""
    code = RUN.format(here=str(Path(__file__).parent), every=every, argv=argv, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    figures = json.loads(done.stderr.strip().splitlines()[-1])
    if done.returncode or figures["status"]:
        raise SystemExit(f"comperbench {' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    return done.stdout, figures


FLOOR = """
import time
from comperbench.stats.blas import one_thread_by_default
one_thread_by_default()  # as the CLI does
import numpy as np, scipy.special
from comperbench.stats.vectorised import kendall_resampler, spearman_resampler
X, y, W = np.arange(200.0)[None], np.arange(200.0) % 7, np.ones((2, 200))
kendall_resampler(X, y, "b")(W), spearman_resampler(X, y)(W)
print(time.process_time())
"""


def floor() -> float:
    """CPU seconds of an interpreter that imports numpy (with one BLAS thread, as the CLI) and
    scipy.special and loads the compiled rank kernels (numba), and does nothing else."""
    done = subprocess.run([sys.executable, "-c", FLOOR], capture_output=True, text=True)
    return float(done.stdout)


def compare(goal: Goal, argv_of: Callable[[int], list[str]], floor_s: float) -> None:
    """Both ways of running a command, their outputs checked equal, then their figures and the
    speed row of the run as it is now against its goal, `floor_s` the import floor."""
    label = goal.work
    out_before, before = cli_run(argv_of(0), every=True)
    out_now, now = cli_run(argv_of(1), every=False)
    same = out_before.replace("run0", "run") == out_now.replace("run1", "run")  # output paths
    assert same, f"{label}: the output differs\n{out_before}\n{out_now}"
    print(f"{label} (outputs identical):")
    for name, run in (("every command's module imported (before)", before), ("now", now)):
        print(
            f"  {name}: CPU {run['cpu']:.2f} s ({run['imports']:.2f} s before the command ran), "
            f"peak {run['peak']:.0f} MB; loaded {', '.join(run['loaded']) or 'none of them'}"
        )
    print_goal_row(
        label,
        f"{now['cpu']:.3g} s, peak {now['peak']:.0f} MB",
        now["cpu"],
        before["cpu"],
        "the same run, every command's module imported first",
        goal.stated(floor_s),
        goal.met(now["cpu"], floor_s, now["peak"]),
    )


def main() -> None:
    floor_s = floor()
    print(
        "import floor: an interpreter importing numpy and scipy.special and loading the compiled "
        f"rank kernels takes {floor_s:.2f} s CPU"
    )
    metrics = ",".join(NGRAM_SUITE)
    out = Path(tempfile.mkdtemp(prefix="comperbench-cli-"))
    evaluate = ["evaluate", "--benchmark", "dstc7", "--metrics", metrics, "--overwrite"]
    cli_run([*evaluate, "--out", str(out / "warm-up")], every=False)  # scores the cache
    shutil.rmtree(Path(os.environ["COMPERBENCH_CACHE"]) / "tables")
    _, computed = cli_run([*evaluate, "--out", str(out / "computed")], every=False)
    print(
        f"warm evaluate with only the scores cached (the table computed): CPU {computed['cpu']:.2f} s"
    )
    compare(EVALUATE, lambda k: [*evaluate, "--out", str(out / f"run{k}")], floor_s)
    scores = out / "dstc7.csv"
    scores.write_bytes(_file("dstc7", "turn", 0))
    submit = ["submit", str(scores), "--name", "bench"]
    cli_run([*submit, "--db", str(out / "warm-up.sqlite"), "--create"], every=False)
    items = len(scores.read_text().splitlines()) - 1
    assert items == 10_000, f"the dstc7 submission holds {items:,} items, not 10,000"
    compare(SUBMIT, lambda k: [*submit, "--db", str(out / f"run{k}.sqlite"), "--create"], floor_s)


if __name__ == "__main__":
    main()
