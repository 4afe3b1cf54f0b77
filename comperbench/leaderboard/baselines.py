"""Seed the leaderboard with the package's own metrics, submitted through the normal path."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence

import numpy as np

from comperbench import __version__
from comperbench.benchmark import list_benchmarks
from comperbench.errors import DataMissingError
from comperbench.leaderboard.items import ItemIndex, cached_benchmark, stored_levels
from comperbench.leaderboard.service import Outcome, submit
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionMeta
from comperbench.metrics.base import Metric
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import TURN_SUITE, resolve_metrics, run_metrics
from comperbench.progress import eta_text

BASELINE_METRICS = tuple(m for m in TURN_SUITE if not m.startswith("bertscore"))
"""The fast n-gram and embedding metrics (BERTScore is left to `--metrics` for its run time)."""


def _csv(ids: Sequence[str], scores: Sequence[float]) -> bytes:
    """A submission file of the finite scores (an item a metric could not score is left out)."""
    out = io.StringIO()
    out.write("item_id,score\n")
    for item, score in zip(ids, scores, strict=True):
        if np.isfinite(score):
            out.write(f"{item},{float(score)!r}\n")
    return out.getvalue().encode()


def _baseline(metric: Metric) -> SubmissionMeta:
    return SubmissionMeta(
        name=metric.name,
        authors="comperbench",
        description=f"comperbench {__version__} baseline",
        reference_free="references" not in metric.needs,
        baseline=True,
    )


def seed(
    store: Store,
    metrics: Sequence[str] = BASELINE_METRICS,
    benchmarks: Sequence[str] | None = None,
    progress: Callable[[str], None] = print,
) -> list[Outcome]:
    """Score every metric on every benchmark level it applies to, one submission per metric and
    benchmark level, stored as soon as the benchmark level is scored (an interrupted seed keeps
    its work and its cached scores, and a repeated one recognises what is already there).

    Without an explicit list, benchmarks whose raw files are absent are skipped and said so.
    """
    names = list(benchmarks) if benchmarks is not None else list_benchmarks()
    levels = [(name, level) for name in names for level in stored_levels(name)]
    index = ItemIndex()
    cache = ScoreCache()
    outcomes: list[Outcome] = []
    started, missing = time.monotonic(), set()
    for done, (name, level) in enumerate(levels, start=1):
        if name in missing:
            continue
        try:
            bench = cached_benchmark(name, level)
        except DataMissingError as exc:
            if benchmarks is not None:
                raise
            progress(f"skipped benchmark {name}: {exc}")
            missing.add(name)
            continue
        result = run_metrics(bench, resolve_metrics(list(metrics), level), cache=cache)
        for metric_name, reason in result.skipped.items():
            progress(f"skipped {metric_name} on {name} ({level}): {reason}")
        for run in result.runs:
            raw = _csv(result.item_ids, run.scores.tolist())
            file_name = f"{run.metric.name}-{name}-{level}.csv"
            outcome = submit(file_name, raw, _baseline(run.metric), store, index)
            progress(f"  {run.metric.name}: {outcome.summary()}")
            outcomes.append(outcome)
        elapsed = time.monotonic() - started
        progress(
            f"[{done}/{len(levels)} benchmark levels] {name} ({level}): {len(result.runs)} "
            f"baselines stored; {eta_text(done, len(levels), elapsed)}"
        )
    return outcomes
