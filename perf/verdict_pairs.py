"""The verdicts of a view after one new submission: with the earlier pairs' tests kept
(`stats.metric_tests.pair_memo`), only the new metric's pairs are tested. Prints the CPU of
every pair of 20 metrics on 10,000 items (Spearman PERM-BOTH, the leaderboard's settings)
against that of the 19 new pairs once the other 171 are kept, and checks the p-values equal.

Run: python perf/verdict_pairs.py
"""

from __future__ import annotations

import time

import numpy as np

from comperbench.stats.metric_tests.pair_memo import PAIRS
from comperbench.stats.metric_tests.sequential import EarlyStopping
from comperbench.stats.metric_tests.significance import significance_matrix
from comperbench.stats.settings import Resampling

N_ITEMS, N_METRICS = 10_000, 20


def main() -> None:
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, N_ITEMS).astype(float)
    scores = {f"m{k:02d}": human * (0.05 * k) + rng.normal(size=N_ITEMS) for k in range(N_METRICS)}
    settings = {
        "statistic": "spearman",
        "resampling": Resampling(seed=0),
        "early_stopping": EarlyStopping(),
    }
    significance_matrix(dict(list(scores.items())[:3]), human, **settings)  # kernels loaded
    PAIRS.forget()
    significance_matrix(dict(list(scores.items())[:-1]), human, **settings)  # the earlier view
    start = time.process_time()
    grown = significance_matrix(scores, human, **settings)
    new_pairs = time.process_time() - start
    PAIRS.forget()
    start = time.process_time()
    fresh = significance_matrix(scores, human, **settings)
    every_pair = time.process_time() - start
    assert np.array_equal(grown.p_values, fresh.p_values, equal_nan=True), "p-values differ"
    pairs = N_METRICS * (N_METRICS - 1) // 2
    print(
        f"{N_METRICS} metrics x {N_ITEMS:,} items, Spearman PERM-BOTH: all {pairs} pairs "
        f"{every_pair:.2f} s CPU; the {N_METRICS - 1} new pairs with the others kept "
        f"{new_pairs:.2f} s ({every_pair / new_pairs:.1f}x); p-values equal"
    )


if __name__ == "__main__":
    main()
