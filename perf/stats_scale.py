"""Time and peak memory of the resampled statistics on synthetic scores, 10^4 to 10^6 items.

At each size: turn-level bootstrap intervals of 10 metrics (1,000 resamples) for each statistic,
and all 45 pairwise PERM-BOTH tests (Pearson, 1,000 permutations). Each stage runs in a fresh
subprocess that reports its wall and CPU time and its peak resident memory, so that one stage's
peak does not hide another's (the peak includes the interpreter, the imports and the scores; the
resident memory before the stage is printed too). At the smallest size the same work is also
timed in this process against a per-resample loop over scipy on the same resamples (the loop on
the first `--loop-resamples` rows, its time scaled to all of them), one after the other so that
the ratios hold on a noisy machine; there the compiled kernels are loaded before timing.

Synthetic scores: human scores are means of three 1-5 ratings (13 distinct values, as averaged
Likert ratings are); metric j is the human score times (j + 1) / 10 plus normal noise, every
other metric rounded to 2 decimals (ties, as n-gram overlaps have).

Run: python perf/stats_scale.py [--items 10000,100000,1000000] [--methods pearson,...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings

import numpy as np
from stats import _scipy, loop_bootstrap, loop_perm_both  # perf/stats.py, beside this file
from usage import resident_mb

from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_tests.significance import significance_matrix
from comperbench.stats.resampling import bootstrap_indices, swap_masks
from comperbench.stats.settings import Resampling

METRICS = 10
METHODS = "pearson,spearman,kendall-b"


def synthetic(n: int, seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Metric scores by name and human scores of n items (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, (3, n)).mean(axis=0)
    scores = {}
    for j in range(METRICS):
        metric = human * (j + 1) / 10 + rng.normal(size=n)
        scores[f"metric-{j}"] = np.round(metric, 2) if j % 2 else metric
    return scores, human


def run_stage(stage: str, n: int, k: int) -> dict[str, float]:
    """One stage on n synthetic items: its times, and the resident memory before and at peak."""
    scores, human = synthetic(n)
    before = resident_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    if stage == "perm-both":
        significance_matrix(scores, human, statistic="pearson", resampling=Resampling(k, 1))
    else:
        correlation_table(scores, human, statistic=stage, resampling=Resampling(k))
    return {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "before_mb": before,
        "peak_mb": resident_mb("VmHWM"),
    }


def in_subprocess(stage: str, n: int, k: int) -> dict[str, float]:
    command = [sys.executable, __file__, "--stage", stage, "--n", str(n), "--resamples", str(k)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def stages(methods: list[str]) -> list[tuple[str, str]]:
    return [(m, f"intervals, {m}") for m in methods] + [("perm-both", "PERM-BOTH, 45 pairs")]


def report_scale(sizes: list[int], methods: list[str], k: int) -> None:
    print(
        f"\n{'items':>9}  {'stage':<24}{'wall s':>9}{'cpu s':>9}{'RSS before MB':>15}{'peak MB':>9}"
    )
    for n in sizes:
        for stage, label in stages(methods):
            out = in_subprocess(stage, n, k)
            print(
                f"{n:>9,}  {label:<24}{out['wall']:>9.2f}{out['cpu']:>9.2f}"
                f"{out['before_mb']:>15.0f}{out['peak_mb']:>9.0f}",
                flush=True,
            )


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def report_ratios(n: int, methods: list[str], k: int, loop_k: int) -> None:
    """The vectorised statistics against a loop over scipy on the same resamples, at n items."""
    scores, human = synthetic(n)
    X = np.vstack(list(scores.values()))
    small = {name: v[:200] for name, v in scores.items()}
    for method in methods:  # load the compiled kernels before timing
        correlation_table(small, human[:200], statistic=method, resampling=Resampling(2))
    idx = bootstrap_indices(n, k, 0)
    print(f"\n{n:,} items, {k} resamples, loop over scipy on {loop_k} and scaled x{k / loop_k:g}")
    print(f"{'stage':<24}{'vectorised s':>14}{'scipy loop s':>14}{'ratio':>9}")
    rows = []
    for method in methods:
        fast = timed(
            lambda m=method: correlation_table(scores, human, statistic=m, resampling=Resampling(k))
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loop = timed(lambda m=method: loop_bootstrap(X, human, idx, _scipy(m), loop_k))
        rows.append((f"intervals, {method}", fast, loop * k / loop_k))
    fast = timed(lambda: significance_matrix(scores, human, resampling=Resampling(k, 1)))
    Z = np.vstack([(x - x.mean()) / x.std() for x in X])
    swaps = swap_masks(n, k, 1)
    loop = timed(lambda: loop_perm_both(Z, human, swaps, _scipy("pearson"), loop_k))
    rows.append(("PERM-BOTH, 45 pairs", fast, loop * k / loop_k))
    for label, fast, slow in rows:
        print(f"{label:<24}{fast:>14.2f}{slow:>14.1f}{slow / fast:>8.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="10000,100000,1000000")
    parser.add_argument("--methods", default=METHODS)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=20)
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stage:
        print(json.dumps(run_stage(args.stage, args.n, args.resamples)))
        return
    sizes = [int(s) for s in args.items.split(",")]
    methods = args.methods.split(",")
    report_ratios(sizes[0], methods, args.resamples, min(args.loop_resamples, args.resamples))
    report_scale(sizes, methods, args.resamples)
    print("\n(targets: intervals at least 20x the scipy loop at 10,000 items; peak under 2 GB)")


if __name__ == "__main__":
    main()
