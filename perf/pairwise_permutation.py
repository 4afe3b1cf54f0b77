"""Speed of the pairwise permutation test between two metrics on grouped acc-eq.

On a real benchmark (default dstc7: 10,000 responses in 1,000 contexts), two metrics, acc-eq within
each context with each metric's own calibrated epsilon, 1,000 permutations. Ours builds each
metric's verdict on every within-context pair once and scores a block of permutations as one
matrix product (`comperbench.stats.metric_tests.significance.permutation_test`). The reference is the
algorithm of mt-metrics-eval's `PairwisePermutationSigDiff`: per permutation and per context, a
random symmetric 0/1 matrix chooses which metric's pairwise difference and tie matrices each pair
takes, and acc23 is counted from the combined matrices, then averaged over contexts. It runs the
first `--loop-permutations` permutations, and its time is scaled to the full count.

Both sides are checked on the reference's own swap matrices: our null value for the same swaps
equals the reference's for every permutation it ran.

Run: COMPERBENCH_DATA=../shared/data python perf/pairwise_permutation.py [--benchmark dstc7]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np

from comperbench import load_benchmark
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import resolve_metrics, run_metrics
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.metric_tests.significance import permutation_test
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups


def timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


class Reference:
    """mt-metrics-eval's PairwisePermutationSigDiff for acc23 averaged over groups, in numpy."""

    def __init__(self, a, b, human, layout: Groups, eps_a: float, eps_b: float) -> None:
        self.groups = []
        for start, size in zip(layout.starts, layout.sizes, strict=True):
            idx = layout.order[start : start + size]
            self.groups.append(
                (self._diffs(a[idx], eps_a), self._diffs(b[idx], eps_b), self._diffs(human[idx], 0))
            )

    @staticmethod
    def _diffs(v: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        d = v[None, :] - v[:, None]
        tie = np.abs(d) <= epsilon
        return np.where(tie, 0.0, d), tie

    @staticmethod
    def _acc23(x: tuple[np.ndarray, np.ndarray], y: tuple[np.ndarray, np.ndarray]) -> float:
        (xd, xt), (yd, yt) = x, y
        n = xd.shape[0]
        con = (((xd > 0) & (yd > 0)) | ((xd < 0) & (yd < 0))).sum() / 2
        tied = ((xt & yt).sum() - n) / 2
        return (con + tied) / (n * (n - 1) / 2)

    def delta(self) -> float:
        return float(np.mean([self._acc23(a, h) - self._acc23(b, h) for a, b, h in self.groups]))

    def null(self, masks: list[list[np.ndarray]]) -> list[float]:
        """stat(A') - stat(B') for each permutation's list of per-group symmetric masks."""
        out = []
        for per_group in masks:
            values_a, values_b = [], []
            for (a, b, h), w1 in zip(self.groups, per_group, strict=True):
                w2 = 1 - w1
                hybrid_a = (w1 * a[0] + w2 * b[0], (w1 * a[1] + w2 * b[1]).astype(bool))
                hybrid_b = (w1 * b[0] + w2 * a[0], (w1 * b[1] + w2 * a[1]).astype(bool))
                values_a.append(self._acc23(hybrid_a, h))
                values_b.append(self._acc23(hybrid_b, h))
            out.append(float(np.mean(values_a) - np.mean(values_b)))
        return out


def draw_masks(layout: Groups, k: int, seed: int) -> list[list[np.ndarray]]:
    """Per permutation, per group: a symmetric 0/1 matrix, 1 where the pair keeps its metric."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        per_group = []
        for size in layout.sizes:
            w = np.triu(rng.integers(0, 2, (size, size)), 1)
            per_group.append(w + w.T)
        out.append(per_group)
    return out


def our_null(a, b, human, layout: Groups, masks: list[list[np.ndarray]]) -> np.ndarray:
    """Our null differences for the reference's masks: a pair whose mask is 0 swaps verdicts."""
    statistic = get_statistic("acc-eq")
    verdicts_a, shares = statistic.pair_verdicts(a, human, layout)
    verdicts_b, _ = statistic.pair_verdicts(b, human, layout)
    d_share = (verdicts_a - verdicts_b) * shares
    swapped = np.array(
        [
            np.concatenate([1 - w[np.triu_indices(w.shape[0], 1)] for w in per_group])
            for per_group in masks
        ]
    )
    return d_share.sum() - 2.0 * (swapped @ d_share)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--metrics", default="f1,bleu-2")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--loop-permutations", type=int, default=10)
    args = parser.parse_args()

    bench = load_benchmark(args.benchmark)
    names = args.metrics.split(",")
    run = run_metrics(bench, resolve_metrics(args.metrics, "turn"), cache=ScoreCache())
    frame = run.item_frame()
    a, b = (frame[name].to_numpy(float) for name in names)
    human = bench.human_scores(bench.metadata.default_aspect)
    keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(human)
    contexts = bench.table.column("dialogue_id").to_numpy(zero_copy_only=False)[keep]
    a, b, human = a[keep], b[keep], human[keep]
    layout = Groups.of(contexts)
    print(
        f"{bench.name}, {' vs '.join(names)}: {a.size} items, {layout.sizes.size} contexts, "
        f"{layout.n_pairs} within-context pairs; {args.permutations} permutations "
        f"(reference: {args.loop_permutations}, scaled)\n"
    )
    options = {"statistic": "acc-eq", "groups": contexts}
    options["resampling"] = Resampling(args.permutations)
    ours_s, result = timed(lambda: permutation_test(a, b, human, **options))
    statistic = get_statistic("acc-eq")
    eps = [statistic.chosen(v, human, layout)["epsilon"] for v in (a, b)]
    setup_s, reference = timed(lambda: Reference(a, b, human, layout, *eps))
    masks = draw_masks(layout, args.loop_permutations, 0)
    loop_s, loop = timed(lambda: reference.null(masks))
    if not np.isclose(reference.delta(), result.delta):
        raise AssertionError(
            f"delta {result.delta} differs from the reference's {reference.delta()}"
        )
    if not np.allclose(our_null(a, b, human, layout, masks), loop, atol=1e-12):
        raise AssertionError("null differences for the same swaps differ from the reference's")
    theirs = setup_s + loop_s * args.permutations / args.loop_permutations
    print(f"{'ours s':>9}{'reference s':>13}{'ratio':>9}")
    print(f"{ours_s:>9.2f}{theirs:>13.1f}{theirs / ours_s:>8.0f}x  (same delta and null values)")
    print(
        f"\ndelta {result.delta:+.4f} (epsilons {eps[0]:.3g}, {eps[1]:.3g}), "
        f"p {result.p_value:.4f} over {result.n_resamples} permutations"
    )


if __name__ == "__main__":
    main()
