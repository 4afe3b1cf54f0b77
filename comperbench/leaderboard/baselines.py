"""Seed the leaderboard with the package's own metrics, submitted through the normal path."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from comperbench import __version__
from comperbench.benchmark import Benchmark, list_benchmarks, load_benchmark
from comperbench.errors import DataMissingError
from comperbench.leaderboard.items import ItemIndex, keep_level_items, stored_levels
from comperbench.leaderboard.service import Outcome, submit_many
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionMeta
from comperbench.metrics.base import Metric
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import DIALOGUE_SUITE, TURN_SUITE, resolve_metrics, run_metrics
from comperbench.progress import StatusLine, clock

BASELINE_METRICS = tuple(m for m in TURN_SUITE if not m.startswith("bertscore"))
"""The fast n-gram and embedding metrics (BERTScore is left to `--metrics` for its run time)."""
DIALOGUE_BASELINE_METRICS = tuple(m for m in DIALOGUE_SUITE if m != "dialogue-coherence")
"""Distinct-n and length of the system's turns (dialogue-coherence, which encodes every system
turn and the turn before it, is left to `--metrics` for its run time: 41 s on FED-Dialogue's
125 dialogues and well over ten minutes on DSTC9's 2,200 on two shared cores, where a turn-level
embedding baseline takes about a minute on DSTC7's 10,000 items)."""


def baseline_metrics(level: str) -> tuple[str, ...]:
    """The metrics seeded by default on a benchmark level."""
    return DIALOGUE_BASELINE_METRICS if level == "dialogue" else BASELINE_METRICS


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


@dataclass
class SeedCount:
    """How far a seed is: benchmark levels done, baselines stored and still expected."""

    levels: int
    expected: int
    """Baselines expected: one per metric and benchmark level, less those found not to apply."""
    levels_done: int = 0
    stored: int = 0

    def line(self, elapsed: float) -> str:
        """The overall progress line, e.g. 'seeding 7/14 benchmark levels, 31 of 120
        baselines, 1:42 elapsed'."""
        return (
            f"seeding {self.levels_done}/{self.levels} benchmark levels, {self.stored} of "
            f"{self.expected} baselines, {clock(elapsed)} elapsed"
        )


def seed(
    store: Store,
    metrics: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    progress: Callable[[str], None] = print,
) -> list[Outcome]:
    """Score every metric (default: each level's `baseline_metrics`) on every benchmark level it
    applies to, one submission per metric and benchmark level, the metrics of a level scored
    together and stored as soon as they are (an interrupted seed keeps its work and its cached
    scores, and a repeated one recognises what is already there). One line on standard error
    says how far it is.

    Without an explicit list of benchmarks, those whose raw files are absent are skipped and
    said so.
    """
    names = list(benchmarks) if benchmarks is not None else list_benchmarks()
    levels = [
        (name, level, tuple(metrics) if metrics is not None else baseline_metrics(level))
        for name in names
        for level in stored_levels(name)
    ]
    count = SeedCount(len(levels), sum(len(m) for _, _, m in levels))
    index, cache = ItemIndex(), ScoreCache()
    outcomes: list[Outcome] = []
    started, missing = time.monotonic(), set()
    with StatusLine() as status:
        for name, level, chosen in levels:
            status.show(count.line(time.monotonic() - started))
            if name in missing:
                bench = None
            else:
                bench = _loaded(name, level, benchmarks is not None, progress)
            if bench is None:
                missing.add(name)
                count.expected -= len(chosen)
            else:
                outcomes += _seed_level(bench, chosen, store, index, cache, count, progress)
            count.levels_done += 1
        status.show(count.line(time.monotonic() - started))
    return outcomes


def _loaded(
    name: str, level: str, asked: bool, progress: Callable[[str], None]
) -> Benchmark | None:
    """The benchmark level, or None when its raw files are absent and it was not asked for."""
    try:
        return load_benchmark(name, level)
    except DataMissingError as exc:
        if asked:
            raise
        progress(f"skipped benchmark {name}: {exc}")
        return None


def _seed_level(
    bench: Benchmark,
    metrics: Sequence[str],
    store: Store,
    index: ItemIndex,
    cache: ScoreCache,
    count: SeedCount,
    progress: Callable[[str], None],
) -> list[Outcome]:
    """Score the metrics on one benchmark level and submit one file per metric."""
    keep_level_items(bench)
    result = run_metrics(bench, resolve_metrics(list(metrics), bench.level), cache=cache)
    for metric_name, reason in result.skipped.items():
        progress(f"skipped {metric_name} on {bench.name} ({bench.level}): {reason}")
    count.expected -= len(metrics) - len(result.runs)
    uploads = [
        (
            f"{run.metric.name}-{bench.name}-{bench.level}.csv",
            _csv(result.item_ids, run.scores.tolist()),
            _baseline(run.metric),
        )
        for run in result.runs
    ]
    outcomes = submit_many(uploads, store, index)
    count.stored += len(outcomes)
    return outcomes
