"""Speed of the meta-evaluation statistics against a straightforward per-resample loop over scipy.

On a real benchmark (default dstc7: 10,000 responses, 1,000 contexts, 10 systems) with 10 metrics:
all 45 pairwise PERM-BOTH tests and bootstrap intervals of every metric at every level (items,
contexts, systems), with 1,000 resamples each. The loop runs the same index and swap matrices
through scipy (that both give the same numbers is what tests/test_stats_*.py check, and, for the
turn-level intervals, this script before it prints their ratio); where it would take minutes it
runs the first `--loop-resamples` rows (a tenth of them for the grouped loop) and its time is
scaled to the full count, as printed. Times are CPU seconds of this process.

Run: COMPERBENCH_DATA=../shared/data python perf/stats.py [--method spearman]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench import load_benchmark
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.metric_tests.significance import significance_matrix
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices, swap_masks
from comperbench.stats.settings import Resampling

sys.path.insert(0, str(Path(__file__).parent))
from rows import print_row

METRICS = "bleu-1,bleu-2,bleu-3,bleu-4,chrf,rouge-1,rouge-2,rouge-l,f1,length"


def _scipy(method: str):
    if method == "pearson":
        return lambda a, b: sps.pearsonr(a, b).statistic
    if method == "spearman":
        return lambda a, b: sps.spearmanr(a, b).statistic
    return lambda a, b: sps.kendalltau(a, b, variant=method[-1]).statistic


def metric_scores(bench, spec: str, scores_file: str | None) -> dict[str, np.ndarray]:
    if scores_file:
        frame = (
            pd.read_parquet(scores_file)
            if scores_file.endswith(".parquet")
            else pd.read_csv(scores_file)
        )
        frame = frame.set_index("item_id").reindex(bench.item_ids)
        return {c: frame[c].to_numpy(float) for c in frame.columns if c != "system"}
    from comperbench.metrics.cache import ScoreCache
    from comperbench.metrics.runner import resolve_metrics, run_metrics

    run = run_metrics(bench, resolve_metrics(spec, bench.level), cache=ScoreCache())
    frame = run.item_frame()
    return {c: frame[c].to_numpy(float) for c in frame.columns if c not in ("item_id", "system")}


def timed(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def loop_perm_both(Z: np.ndarray, y: np.ndarray, swaps: np.ndarray, f, rows: int) -> np.ndarray:
    """Differences corr(A') - corr(B') of every pair for the first `rows` swap rows."""
    m = Z.shape[0]
    out = []
    for i in range(m):
        for j in range(i + 1, m):
            for s in swaps[:rows]:
                out.append(f(np.where(s, Z[j], Z[i]), y) - f(np.where(s, Z[i], Z[j]), y))
    return np.array(out)


def loop_bootstrap(X: np.ndarray, y: np.ndarray, idx: np.ndarray, f, rows: int) -> np.ndarray:
    return np.array([[f(x[i], y[i]) for i in idx[:rows]] for x in X])


def loop_grouped(X, y, groups, idx: np.ndarray, f, rows: int) -> np.ndarray:
    labels = np.unique(groups)
    members = [np.flatnonzero(groups == g) for g in labels]
    out = []
    for x in X:
        row = []
        for draw in idx[:rows]:
            row.append(np.nanmean([f(x[members[g]], y[members[g]]) for g in draw]))
        out.append(row)
    return np.array(out)


@dataclass
class Inputs:
    """The items with every score: metric rows X, human scores y, their contexts and systems."""

    names: list[str]
    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    systems: np.ndarray


def load_inputs(args: argparse.Namespace) -> Inputs:
    bench = load_benchmark(args.benchmark)
    scores, score_s = timed(lambda: metric_scores(bench, args.metrics, args.scores))
    human = bench.human_scores()
    table = bench.table.select(["dialogue_id", "system"]).to_pandas()
    keep = np.isfinite(human) & np.all([np.isfinite(v) for v in scores.values()], axis=0)
    names = list(scores)
    data = Inputs(
        names,
        np.vstack([scores[n][keep] for n in names]),
        human[keep],
        table.dialogue_id.to_numpy()[keep],
        table.system.to_numpy()[keep],
    )
    print(
        f"{bench.name}: {data.y.size} items with every score, {len(np.unique(data.groups))} "
        f"contexts, {len(np.unique(data.systems))} systems, {len(names)} metrics (scored in "
        f"{score_s:.1f} s)"
    )
    return data


def time_perm_both(d: Inputs, method: str, k: int, loop_k: int) -> tuple[tuple, object]:
    """All pairwise PERM-BOTH tests, vectorised and as a loop over scipy."""
    sig, fast_s = timed(
        lambda: significance_matrix(
            dict(zip(d.names, d.X, strict=True)), d.y, statistic=method, resampling=Resampling(k, 1)
        )
    )
    Z = np.vstack([(x - x.mean()) / x.std() for x in d.X])
    order = [d.names.index(n) for n in sig.metrics]
    swaps = swap_masks(d.y.size, k, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, loop_s = timed(lambda: loop_perm_both(Z[order], d.y, swaps, _scipy(method), loop_k))
    pairs = len(d.names) * (len(d.names) - 1) // 2
    return (f"PERM-BOTH, {pairs} pairs", fast_s, loop_s * k / loop_k), sig


def time_bootstraps(d: Inputs, method: str, k: int, loop_k: int) -> list[tuple]:
    """Bootstrap intervals of every metric at turn, grouped turn and system level."""
    f, scores = _scipy(method), scores_of(d.names, d.X)
    rows = []
    _, fast_s = timed(
        lambda: correlation_table(scores, d.y, statistic=method, resampling=Resampling(k))
    )
    idx = bootstrap_indices(d.y.size, k, 0)
    loop, loop_s = timed(lambda: loop_bootstrap(d.X, d.y, idx, f, loop_k))
    W = counts_from_indices(idx[:loop_k], d.y.size)
    if not np.allclose(get_statistic(method).resampled(d.X, d.y, W), loop, rtol=0, atol=1e-12):
        raise AssertionError(f"turn-level {method} resamples differ from scipy's")
    rows.append(("bootstrap, turn level (items)", fast_s, loop_s * k / loop_k))
    print_row(
        f"turn-level {method} intervals, {k} resamples of {d.y.size} items, {len(d.names)} metrics",
        fast_s,
        loop_s * k / loop_k,
        f"scipy loop ({loop_k} run, scaled)",
        30,
    )
    _, fast_s = timed(
        lambda: correlation_table(
            scores, d.y, statistic=method, groups=d.groups, resampling=Resampling(k)
        )
    )
    gidx = bootstrap_indices(len(np.unique(d.groups)), k, 0)
    group_k = max(1, loop_k // 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, loop_s = timed(lambda: loop_grouped(d.X, d.y, d.groups, gidx, f, group_k))
    rows.append(("bootstrap, turn level grouped by context", fast_s, loop_s * k / group_k))
    options = dict(level="system", statistic=method, systems=d.systems, resampling=Resampling(k))
    _, fast_s = timed(lambda: correlation_table(scores, d.y, **options))
    frame = pd.DataFrame(np.vstack([d.X, d.y]).T).groupby(d.systems).mean()
    sx, sy = frame.to_numpy()[:, :-1].T, frame.to_numpy()[:, -1]
    sidx = bootstrap_indices(sy.size, k, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, loop_s = timed(lambda: loop_bootstrap(sx, sy, sidx, f, k))
    rows.append(("bootstrap, system level (systems)", fast_s, loop_s))
    return rows


def report(rows: list[tuple]) -> None:
    print(f"\n{'task':<42}{'vectorised s':>14}{'scipy loop s':>14}{'ratio':>9}")
    for label, fast, slow in rows:
        print(f"{label:<42}{fast:>14.2f}{slow:>14.1f}{slow / fast:>8.0f}x")
    for label, chosen in (
        ("all", rows),
        ("all but the grouped bootstrap", [r for r in rows if "grouped" not in r[0]]),
    ):
        fast, slow = sum(r[1] for r in chosen), sum(r[2] for r in chosen)
        print(f"{label:<42}{fast:>14.2f}{slow:>14.1f}{slow / fast:>8.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    parser.add_argument("--metrics", default=METRICS)
    parser.add_argument("--scores", help="parquet/CSV with item_id and one column per metric")
    parser.add_argument("--method", default="pearson")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=50)
    args = parser.parse_args()
    k, loop_k = args.resamples, min(args.loop_resamples, args.resamples)
    data = load_inputs(args)
    print(f"{args.method}, {k} resamples, loop timed on {loop_k} and scaled x{k / loop_k:g}")
    perm_row, sig = time_perm_both(data, args.method, k, loop_k)
    report([perm_row, *time_bootstraps(data, args.method, k, loop_k)])
    print(f"(targets: all under 30 s, at least 20x)\nclusters: {sig.clusters()}\n{sig.signature}")


def scores_of(names: list[str], X: np.ndarray) -> dict[str, np.ndarray]:
    return dict(zip(names, X, strict=True))


if __name__ == "__main__":
    main()
