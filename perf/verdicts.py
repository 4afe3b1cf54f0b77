"""Speed of PERM-BOTH on Spearman's rho, the test behind every verdict between metrics: the
compiled kernel (candidates sorted once per pair, human ranks fixed) against the weighted
resampler it replaced (the 2n candidates re-ranked with the human side in every row), on the
same swap rows, for a usr-topical-sized and a dstc7-sized pair of metrics. Both nulls are
asserted equal to the last bit before the ratio is printed; then the cost of the verdicts of
usr-topical's default metrics (19 metrics, 342 one-sided tests, Holm), whose permutations are
grown until the smallest adjusted p-value can fall below alpha. Times are CPU seconds of this
process.

Run: COMPERBENCH_DATA=../shared/data python perf/verdicts.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
from scipy import stats as sps

from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.metric_tests import significance
from comperbench.stats.resampling import swap_row_source, transposed_swaps, zscore

ROWS = 4000


def _pair(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    a = np.round(rng.normal(size=n) + 0.3 * human, 1)
    b = np.round(rng.normal(size=n), 1)
    a[: n // 15] = 0.0  # ties, as BLEU's zeros
    return zscore(a), zscore(b), human


def _timed(null_of) -> tuple[np.ndarray, float]:
    start = time.process_time()
    null = null_of(0, ROWS)
    return null, time.process_time() - start


def kernel_ratio(n: int) -> None:
    a, b, human = _pair(n, n)
    swaps = swap_row_source(n, ROWS, 0)
    spearman = get_statistic("spearman")
    weighted = significance._perm_both_null(
        significance._swap_scorer(a, b, human, spearman, None), swaps
    )
    compiled = significance._spearman_null(a, b, sps.rankdata(human), transposed_swaps(swaps))
    compiled(0, 64)  # compiled once, outside the timing
    old, old_time = _timed(weighted)
    new, new_time = _timed(compiled)
    assert np.array_equal(old, new), "the kernels' nulls differ"
    print(
        f"PERM-BOTH spearman, {n:,} items x {ROWS:,} permutations: weighted resampler "
        f"{old_time:.3f} s, compiled kernel {new_time:.3f} s ({old_time / new_time:.1f}x)"
    )


def usr_topical_verdicts() -> None:
    import comperbench
    from comperbench import load_benchmark

    evaluation = comperbench.evaluate(load_benchmark("usr-topical"), "default")
    for statistic in ("pearson", "spearman"):
        start = time.process_time()
        verdicts = evaluation.significance(statistic)
        spent = time.process_time() - start
        r = verdicts.resolution
        print(
            f"usr-topical verdicts, {len(verdicts.metrics)} metrics, {statistic}: {spent:.1f} s, "
            f"{r.permutations:,} permutations at most, smallest adjusted p "
            f"{r.smallest_adjusted:.4f}, {len(verdicts.differing_pairs())} pairs differ, "
            f"{len(verdicts.clusters())} clusters"
        )


if __name__ == "__main__":
    for items in (300, 3000, 10_000):
        kernel_ratio(items)
    usr_topical_verdicts()
