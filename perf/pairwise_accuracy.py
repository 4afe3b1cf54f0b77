"""Speed of acc-eq (pairwise accuracy with tie calibration) with bootstrap intervals.

On a real benchmark (default dstc7: 10,000 responses, 1,000 contexts, 10 systems), 1,000 bootstrap
resamples, grouped turn level (within each context, contexts resampled) and system level (systems
resampled). Ours scores every resample's calibration at once (`comperbench.stats.pair_ranking.pairwise_accuracy`).
The reference is the algorithm of Deutsch, Foster and Freitag (EMNLP 2023) as mt-metrics-eval's
`tau_optimization` runs it, once per resample: enumerate every within-group pair in Python, sort
the pairs by metric difference, and sweep them keeping per-group counts of concordant, discordant
and tied pairs, taking the first best threshold. It runs the first `--loop-resamples` resamples
(which must give the same values as ours) and its time is scaled to the full count.

Run: COMPERBENCH_DATA=../shared/data python perf/pairwise_accuracy.py [--benchmark dstc7]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np

from comperbench import load_benchmark
from comperbench.common.textutil import interval
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import resolve_metrics, run_metrics
from comperbench.stats.metric_correlation.correlation import CorrelationResult, correlate
from comperbench.stats.pair_ranking.pairwise_accuracy import resampled_group_accuracy
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.vectorised import Groups


def timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def reference_acc_eq(groups: list[tuple[list[float], list[float]]]) -> float:
    """acc_eq over (metric, human) groups: per-group right/total counts, pairs swept by gap."""
    pairs, right, total = [], [], []
    for g, (metric, human) in enumerate(groups):
        right.append(0)
        total.append(0)
        for i in range(len(metric)):
            for j in range(i + 1, len(metric)):
                dm, dh = metric[i] - metric[j], human[i] - human[j]
                apart = dh != 0 and dm != 0 and (dm > 0) == (dh > 0)
                now = (dh == 0) if dm == 0 else apart
                right[g] += now
                total[g] += 1
                pairs.append((abs(dm), g, (dh == 0) - now))
    used = [g for g in range(len(groups)) if total[g]]
    score = sum(right[g] / total[g] for g in used) / len(used)
    thresholds, scores = [0.0], [score]
    pairs.sort(key=lambda p: p[0])
    for gap, g, change in pairs:
        score += change / total[g] / len(used)
        if thresholds[-1] == gap:
            scores[-1] = score  # a threshold ties every pair of that gap at once
        else:
            thresholds.append(gap)
            scores.append(score)
    return max(scores)


def grouped_reference(x, y, contexts, drawn: np.ndarray) -> list[float]:
    members = {c: np.flatnonzero(contexts == c) for c in np.unique(contexts)}
    labels = sorted(members)
    out = []
    for row in drawn:
        groups = [(x[members[labels[k]]].tolist(), y[members[labels[k]]].tolist()) for k in row]
        out.append(reference_acc_eq(groups))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--metric", default="f1")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=5)
    args = parser.parse_args()

    bench = load_benchmark(args.benchmark)
    run = run_metrics(bench, resolve_metrics(args.metric, "turn"), cache=ScoreCache())
    x = run.item_frame()[args.metric].to_numpy(float)
    y = bench.human_scores(bench.metadata.default_aspect)
    keep = np.isfinite(x) & np.isfinite(y)
    contexts = bench.table.column("dialogue_id").to_numpy(zero_copy_only=False)[keep]
    systems = np.asarray(run.item_systems)[keep]
    x, y = x[keep], y[keep]
    n_contexts = np.unique(contexts).size
    print(
        f"{bench.name}, {args.metric}: {x.size} items, {n_contexts} contexts, "
        f"{np.unique(systems).size} systems; {args.resamples} resamples "
        f"(reference: {args.loop_resamples}, scaled)\n"
    )
    print(f"{'level':<14}{'ours s':>9}{'reference s':>13}{'ratio':>9}  results")
    options = {"method": "acc-eq", "n_resamples": args.resamples, "seed": 0}
    ours_s, result = timed(lambda: correlate(x, y, groups=contexts, **options))
    drawn = bootstrap_indices(n_contexts, args.loop_resamples, 0)
    loop_s, loop = timed(lambda: grouped_reference(x, y, contexts, drawn))
    [point] = grouped_reference(x, y, contexts, np.arange(n_contexts)[None, :])
    if not np.isclose(point, result.value):
        raise AssertionError(f"grouped acc-eq {result.value} differs from the reference's {point}")
    check_grouped(x, y, contexts, drawn, loop)
    theirs = loop_s * args.resamples / args.loop_resamples
    print(f"{'grouped turn':<14}{ours_s:>9.2f}{theirs:>13.1f}{theirs / ours_s:>8.0f}x  equal")
    describe(result)
    sys_s, sys_result = timed(lambda: correlate(x, y, level="system", systems=systems, **options))
    print(f"{'system':<14}{sys_s:>9.2f}")
    describe(sys_result)


def describe(result: CorrelationResult) -> None:
    ci = interval(result.ci.low, result.ci.high) if result.ci else "-"
    print(f"  acc-eq {result.value:.4f} {ci}, epsilon {result.chosen['epsilon']:.3g}")


def check_grouped(x, y, contexts, drawn: np.ndarray, loop: list[float]) -> None:
    """Our resampled values for the reference's resamples equal the reference's."""
    C = counts_from_indices(drawn, np.unique(contexts).size)
    ours = resampled_group_accuracy(x, y, Groups.of(contexts), C, calibrate=True)[0]
    if not np.allclose(ours, loop, atol=1e-9):
        raise AssertionError(f"resampled acc-eq differs: {ours[:3]} vs {loop[:3]}")


if __name__ == "__main__":
    main()
