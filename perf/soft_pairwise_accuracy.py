"""Speed of soft pairwise accuracy (SPA) against mt-metrics-eval's `pce`, in one process.

On a real benchmark (default dstc7: 1,000 contexts, 10 systems) with 10 metrics and 1,000
permutations: every metric's value (`correlation_table(..., statistic="spa", resampling=Resampling(0))`), then every
value with its percentile interval over 1,000 resampled contexts. The reference is
google-research/mt-metrics-eval's `mt_metrics_eval/pce.py` as its `PairwiseConfidenceError`
runs it (the human and the metric p-values, then 1 - PCE, per metric), loaded from a checkout of
that repository (`--mt-metrics-eval`, or the MT_METRICS_EVAL environment variable). For the
interval it runs on each resample's systems x contexts matrix weighted by the resample's context
counts; the first `--loop-resamples` resamples are timed and the time scaled to the full count.

Before a ratio is printed, our p-values are checked on pce's own swap matrix, for the value and
for every resample the reference ran, counted in float64 and by the compiled float32 kernel that
many resamples use (the two equal): equal to those of exact integer arithmetic where the scores
are fractions of a small denominator (human ratings, `length`; pce's float32 sums, compared
without a tolerance, break some of those exact ties), else equal to pce's but for `--tie-share`
of them at most, none more than 1 / 100 apart. Both sides run once before they are timed, and
our swap matrix is drawn again inside each timing; the value alone is timed `--repeat` times per
side, one side's runs after each other (BLAS threads spin for a while after a product, and that
CPU would be charged to the next run), and the fastest kept: once with BLAS threads as each
library leaves them (the row: pce on every core, ours on one for products this small), once
with both on one BLAS thread. Times are CPU seconds of this process.

Run: COMPERBENCH_DATA=../shared/data MT_METRICS_EVAL=../mt-metrics-eval \\
     python perf/soft_pairwise_accuracy.py
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np
from threadpoolctl import threadpool_limits

from comperbench.stats.metric_correlation.contexts import SystemContexts
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling

sys.path.insert(0, str(Path(__file__).parent))
from rows import print_row
from stats import load_inputs

spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
PERMUTATIONS = 1000
SETTLE_S = 1.0


def cpu_timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.process_time()
    out = work()
    return time.process_time() - start, out


def fastest(work: Callable[[], object], repeat: int) -> tuple[float, object]:
    """The fewest CPU seconds of `repeat` timed runs after one untimed (and the last output);
    our swaps are drawn again inside each. One side's runs follow each other, after a pause
    in which the BLAS threads of what ran before go to sleep: OpenBLAS's spin for about 0.1 s
    after a product (2^28 cycles), CPU that would be charged to whatever runs next."""
    time.sleep(SETTLE_S)
    work()
    best, out = math.inf, None
    for _ in range(repeat):
        spa.shared_signs.cache_clear()
        seconds, out = cpu_timed(work)
        best = min(best, seconds)
    return best, out


def load_pce(checkout: str | None) -> ModuleType:
    """mt-metrics-eval's pce.py from a checkout (it needs numpy only)."""
    path = Path(checkout or "../mt-metrics-eval") / "mt_metrics_eval" / "pce.py"
    if not path.is_file():
        raise SystemExit(
            f"no mt-metrics-eval checkout: {path} is missing (clone "
            "google-research/mt-metrics-eval and pass --mt-metrics-eval or MT_METRICS_EVAL)"
        )
    spec = importlib.util.spec_from_file_location("pce", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pce_signs(n_units: int) -> np.ndarray:
    """The swap matrix pce.compute_pairwise_p_values draws (seed 4), as float64."""
    rng = np.random.default_rng(4)
    draws = rng.random(size=(PERMUTATIONS, n_units), dtype=np.float32)
    return np.rint(draws) * 2.0 - 1.0


def reference_spa(pce: ModuleType, metric: np.ndarray, human: np.ndarray) -> float:
    """PairwiseConfidenceError's body: both p-value matrices, then 1 - PCE."""
    gold = pce.compute_pairwise_p_values(human, num_permutations=PERMUTATIONS)
    ours = pce.compute_pairwise_p_values(metric, num_permutations=PERMUTATIONS)
    return pce.compute_one_minus_pce(gold, ours)


def upper(p: np.ndarray) -> np.ndarray:
    return p[np.triu_indices(p.shape[0], 1)]


def as_integers(matrix: np.ndarray, largest: int = 360) -> np.ndarray | None:
    """The matrix times the smallest denominator up to `largest` that makes it whole, if any."""
    for denominator in range(1, largest + 1):
        whole = np.rint(matrix * denominator)
        if np.array_equal(whole / denominator, matrix):
            return whole.astype(np.int64)
    return None


def exact_p_values(whole: np.ndarray, signs: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(resamples, pairs) p-values counted in integer arithmetic (no rounding at all)."""
    S, n = whole.shape
    left, right = np.triu_indices(S, 1)
    Wi = W.astype(np.int64)
    null = ((Wi[:, None, :] * whole).reshape(-1, n) @ signs.astype(np.int64).T).reshape(
        len(W), S, -1
    )
    seen = (Wi @ whole.T)[:, :, None]
    reached = (null[:, left] - null[:, right]) >= (seen[:, left] - seen[:, right])
    return reached.sum(axis=2) / signs.shape[0]


def check(pce: ModuleType, matrix: np.ndarray, W: np.ndarray, tie_share: float) -> None:
    """Our p-values from pce's swaps on each weighted matrix: those of exact integer arithmetic
    when the scores are fractions of a small denominator (pce's float32 sums break some exact
    ties there), else pce's but for `tie_share` of them at most, by no more than 0.01."""
    signs = pce_signs(matrix.shape[1])
    ours = spa.pairwise_p_values(matrix, signs, W)
    limit, spa.COMPILED_COMPARISONS = spa.COMPILED_COMPARISONS, 0
    try:
        compiled = spa.pairwise_p_values(matrix, signs, W)  # as the interval's many resamples
    finally:
        spa.COMPILED_COMPARISONS = limit
    if not np.array_equal(compiled, ours):
        raise AssertionError("the compiled float32 count differs from the float64 count")
    whole = as_integers(matrix)
    if whole is not None:
        if not np.array_equal(ours, exact_p_values(whole, signs, W)):
            raise AssertionError("p-values differ from those of exact integer arithmetic")
        return
    theirs = np.vstack([upper(pce.compute_pairwise_p_values(matrix * w)) for w in W])
    apart = ours != theirs
    if apart.mean() > tie_share or np.abs(ours - theirs).max() > 0.01:
        raise AssertionError(
            f"p-values differ from pce's: {apart.sum()} of {apart.size}, by up to "
            f"{np.abs(ours - theirs).max()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument(
        "--metrics", default="bleu-1,bleu-2,bleu-3,bleu-4,chrf,rouge-1,rouge-2,rouge-l,f1,length"
    )
    parser.add_argument("--scores", help="parquet/CSV with item_id and one column per metric")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=20)
    parser.add_argument("--tie-share", type=float, default=0.01)
    parser.add_argument("--repeat", type=int, default=3, help="value-only timings per side")
    parser.add_argument("--mt-metrics-eval", default=os.environ.get("MT_METRICS_EVAL"))
    args = parser.parse_args()
    pce = load_pce(args.mt_metrics_eval)
    d = load_inputs(args)
    data = SystemContexts.of(d.X, d.y, d.systems, d.groups)
    complete = np.all([data.complete(m) for m in range(len(d.names))], axis=0)
    human, metrics = data.human[:, complete], data.metrics[:, :, complete]
    n = human.shape[1]
    scores = dict(zip(d.names, d.X, strict=True))
    table = {"level": "system", "statistic": "spa", "groups": d.groups, "systems": d.systems}
    print(f"{n} contexts every system answered, {human.shape[0]} systems, {PERMUTATIONS} perms")

    def reference_values() -> list[float]:
        return [reference_spa(pce, m, human) for m in metrics]

    def our_values() -> object:
        return correlation_table(scores, d.y, resampling=Resampling(0), **table)

    theirs_s, theirs = fastest(reference_values, args.repeat)
    ours_s, ours = fastest(our_values, args.repeat)
    with threadpool_limits(limits=1, user_api="blas"):
        one_theirs_s, _ = fastest(reference_values, args.repeat)
        one_ours_s, _ = fastest(our_values, args.repeat)
    W = counts_from_indices(bootstrap_indices(n, args.resamples, 0), n)
    for matrix in (human, *metrics):
        check(pce, matrix, np.vstack([np.ones((1, n)), W[: args.loop_resamples]]), args.tie_share)
    print_row(
        f"SPA, value only, {len(metrics)} metrics",
        ours_s,
        theirs_s,
        f"pce (fastest of {args.repeat})",
        5,
    )
    print(
        f"  both on one BLAS thread: ours {one_ours_s:.3g} s, pce {one_theirs_s:.3g} s, "
        f"{one_theirs_s / one_ours_s:.2f}x"
    )

    loop = W[: args.loop_resamples]
    loop_s, _ = cpu_timed(
        lambda: [[reference_spa(pce, m * w, human * w) for w in loop] for m in metrics]
    )
    theirs_s = loop_s * args.resamples / args.loop_resamples + theirs_s
    spa.shared_signs.cache_clear()
    ours_s, _ = cpu_timed(
        lambda: correlation_table(scores, d.y, resampling=Resampling(args.resamples), **table)
    )
    print_row(
        f"SPA with its interval, {args.resamples} resamples of {n} contexts",
        ours_s,
        theirs_s,
        f"pce per resample ({args.loop_resamples} run, scaled)",
        50,
    )
    for name, value, result in zip(d.names, theirs, ours, strict=True):
        print(f"  {name:<10} ours {result.value:.4f} (pce, its own swaps: {value:.4f})")


if __name__ == "__main__":
    main()
