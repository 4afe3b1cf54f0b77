"""Seed the leaderboard with the package's own metrics, submitted through the normal path."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from comperbench.benchmark import Benchmark, list_benchmarks, load_benchmark
from comperbench.common.errors import DataMissingError
from comperbench.common.progress import StatusLine, clock, duration
from comperbench.common.textutil import wrap
from comperbench.common.version import __version__
from comperbench.leaderboard.items import ItemIndex, keep_level_items, stored_levels
from comperbench.leaderboard.seeding.seed_cost import (
    ENCODER_LOAD,
    WORKER_START,
    LevelCost,
    cost_name,
    is_cheap,
    level_cost,
    uses_encoder,
)
from comperbench.leaderboard.seeding.verdicts import keep_opening_verdicts
from comperbench.leaderboard.service import Outcome, submit_many
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionMeta
from comperbench.metrics.base import Metric, TurnItem, nonblank_references
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import (
    DIALOGUE_SUITE,
    TURN_SUITE,
    benchmark_items,
    resolve_metrics,
    run_metrics,
    skip_reason,
)
from comperbench.metrics.workers import MIN_PARALLEL_SCORES, default_workers, process_pool

BASELINE_METRICS = tuple(m for m in TURN_SUITE if not m.startswith("bertscore"))
"""Every turn-level baseline (`--full`): the n-gram and encoder metrics (BERTScore is left to
`--metrics` for its run time); the default seed takes the cheap ones (`baseline_metrics`)."""
DIALOGUE_BASELINE_METRICS = tuple(m for m in DIALOGUE_SUITE if m != "dialogue-coherence")
"""Distinct-n and length of the system's turns (dialogue-coherence, which encodes every system
turn and the turn before it, is left to `--metrics` for its run time: 41 s on FED-Dialogue's
125 dialogues and well over ten minutes on DSTC9's 2,200 on two shared cores, where a turn-level
embedding baseline takes about a minute on DSTC7's 10,000 items)."""


def baseline_metrics(level: str, full: bool = False) -> tuple[str, ...]:
    """The metrics seeded on a benchmark level: the cheap ones (`seed_cost.is_cheap`), or with
    `full` every baseline (the encoder metrics too)."""
    every = DIALOGUE_BASELINE_METRICS if level == "dialogue" else BASELINE_METRICS
    return every if full else tuple(m for m in every if is_cheap(m))


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


@dataclass(frozen=True)
class LevelPlan:
    """One benchmark level to seed: the loaded level, the metrics that apply to it and those
    that do not, with the reason."""

    bench: Benchmark
    metrics: tuple[Metric, ...]
    skipped: dict[str, str]
    cost: LevelCost


@dataclass(frozen=True)
class SeedPlan:
    """Every benchmark level a seed scores, found before anything is scored (so that its
    counts never change while it runs), and the benchmarks skipped for lack of raw files."""

    levels: list[LevelPlan]
    missing: dict[str, str]
    workers: int

    @property
    def baselines(self) -> int:
        return sum(len(p.metrics) for p in self.levels)

    @property
    def items(self) -> int:
        return sum(len(p.bench) for p in self.levels)

    @property
    def cpu_seconds(self) -> float:
        """Estimated CPU time of the whole seed from an empty score cache."""
        start = WORKER_START * self.workers if self._in_workers() else 0.0
        return self._load() + start + sum(p.cost.total for p in self.levels)

    @property
    def seconds(self) -> float:
        """Estimated run time on `workers` processes (the parallel metrics share them)."""
        return self.fixed_seconds + sum(p.cost.seconds(self.workers) for p in self.levels)

    @property
    def fixed_seconds(self) -> float:
        """Estimated run time spent once: loading the encoder, starting the workers (side by
        side)."""
        return self._load() + (WORKER_START if self._in_workers() else 0.0)

    def _load(self) -> float:
        return ENCODER_LOAD if uses_encoder([m for p in self.levels for m in p.cost.names]) else 0

    def _in_workers(self) -> bool:
        return any(p.cost.parallel for p in self.levels)

    def unknown(self) -> list[str]:
        """Metrics without a measured cost, left out of the estimate."""
        return list(dict.fromkeys(m for p in self.levels for m in p.cost.unknown))

    def summary(self) -> str:
        """What the seed will do and how long it should take, e.g. 'seeding 15 benchmark
        levels (17,860 items): 118 baselines, estimated 2.6 min on 2 processes (3.8 min of
        CPU time) from an empty score cache'."""
        text = (
            f"seeding {len(self.levels)} benchmark levels ({self.items:,} items): "
            f"{self.baselines} baselines, estimated {duration(self.seconds)} on "
            f"{self.workers} processes ({duration(self.cpu_seconds)} of CPU time) from an "
            "empty score cache"
        )
        if unknown := self.unknown():
            text += f"; no measured cost of {', '.join(unknown)} (not in the estimate)"
        return text


def plan(
    metrics: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    full: bool = False,
) -> SeedPlan:
    """Load every benchmark level to seed and find the metrics that apply to it (default: its
    `baseline_metrics`). Without an explicit list of benchmarks, those whose raw files are
    absent are left out (in `missing`, with the reason); an asked-for one raises."""
    names = list(benchmarks) if benchmarks is not None else list_benchmarks()
    levels, missing, workers = [], {}, default_workers()
    for name in names:
        for level in stored_levels(name):
            try:
                bench = load_benchmark(name, level)
            except DataMissingError as exc:
                if benchmarks is not None:
                    raise
                missing[name] = str(exc)
                break
            chosen = list(metrics) if metrics is not None else list(baseline_metrics(level, full))
            levels.append(_level_plan(bench, chosen, workers))
    return SeedPlan(levels, missing, workers)


def _level_plan(bench: Benchmark, chosen: list[str], workers: int) -> LevelPlan:
    items = benchmark_items(bench)
    kept, skipped = [], {}
    for metric in resolve_metrics(chosen, bench.level):
        reason = skip_reason(metric, bench, items, bench.level)
        if reason is None:
            kept.append(metric)
        else:
            skipped[metric.name] = reason
    names = [cost_name(m.name) for m in kept]
    shared = [cost_name(m.name) for m in kept if m.parallel]
    in_workers = workers > 1 and len(shared) * len(bench) >= MIN_PARALLEL_SCORES
    parallel = set(shared) if in_workers else set()
    references = sum(len(nonblank_references(i)) for i in items if isinstance(i, TurnItem))
    aspects = len(bench.metadata.aspect_names)
    cost = level_cost(names, len(bench), aspects, references, parallel)
    return LevelPlan(bench, tuple(kept), skipped, cost)


@dataclass
class SeedCount:
    """How far a seed is: benchmark levels done, baselines stored of those planned, and the
    estimated seconds of the levels planned and of those done (for the time left)."""

    levels: int
    expected: int
    """Baselines planned: one per benchmark level and metric that applies to it."""
    levels_done: int = 0
    stored: int = 0
    estimate: float = 0.0
    estimated_done: float = 0.0

    def line(self, elapsed: float) -> str:
        """The overall progress line, e.g. 'seeding 7/14 benchmark levels, 31 of 120
        baselines, 1:42 elapsed, about 2.5 min left'."""
        text = (
            f"seeding {self.levels_done}/{self.levels} benchmark levels, {self.stored} of "
            f"{self.expected} baselines, {clock(elapsed)} elapsed"
        )
        if self.estimate and self.levels_done < self.levels:
            left = self.estimate - self.estimated_done
            if self.estimated_done:  # scaled by how fast this machine ran the levels done
                left *= elapsed / self.estimated_done
            text += f", about {duration(left)} left"
        return text


def seed(
    store: Store,
    metrics: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    progress: Callable[[str], None] = print,
    full: bool = False,
) -> list[Outcome]:
    """Score every metric (default: each level's `baseline_metrics`, the expensive ones too
    with `full`) on every benchmark level it applies to, one submission per metric and
    benchmark level, the metrics of a level scored together and stored as soon as they are (an
    interrupted seed keeps its work and its cached scores, and a repeated one recognises what
    is already there).

    Every level is loaded and every metric checked before anything is scored: `progress` gets
    what is skipped and why, then the plan's summary with its estimate; then one line on
    standard error says how far the seed is, against totals that do not change. Last, the
    verdicts of the views the app opens on are computed and kept (`keep_opening_verdicts`),
    so that no page load computes them.

    Without an explicit list of benchmarks, those whose raw files are absent are skipped and
    said so.
    """
    planned = plan(metrics, benchmarks, full)
    for name, reason in planned.missing.items():
        progress(wrap(f"skipped benchmark {name}: {reason}", indent="  "))
    for level in planned.levels:
        by_reason: dict[str, list[str]] = {}
        for metric_name, reason in level.skipped.items():
            by_reason.setdefault(reason, []).append(metric_name)
        for reason, names in by_reason.items():
            where = f"{level.bench.name} ({level.bench.level})"
            progress(wrap(f"skipped on {where}: {', '.join(names)}: {reason}", indent="  "))
    progress(planned.summary())
    count = SeedCount(len(planned.levels), planned.baselines, estimate=planned.seconds)
    index, cache = ItemIndex(), ScoreCache()
    outcomes: list[Outcome] = []
    started, done = time.monotonic(), planned.fixed_seconds
    with StatusLine() as status, process_pool(planned.workers) as pool:
        for level in planned.levels:
            status.show(count.line(time.monotonic() - started))
            stored = _seed_level(level, store, index, cache, pool)
            outcomes += stored
            count.stored += len(stored)
            count.levels_done += 1
            done += level.cost.seconds(planned.workers)
            count.estimated_done = done
        status.show(count.line(time.monotonic() - started))
    began = time.monotonic()
    views = keep_opening_verdicts(store, [level.bench.name for level in planned.levels])
    progress(
        f"kept the verdicts of {views} views the app opens on ({clock(time.monotonic() - began)})"
    )
    return outcomes


def _seed_level(
    level: LevelPlan, store: Store, index: ItemIndex, cache: ScoreCache, pool: Executor
) -> list[Outcome]:
    """Score the metrics on one benchmark level (in `pool` those scored in workers) and
    submit one file per metric."""
    bench = level.bench
    if not level.metrics:
        return []
    keep_level_items(bench)
    result = run_metrics(bench, level.metrics, cache=cache, pool=pool)
    uploads = [
        (
            f"{run.metric.name}-{bench.name}-{bench.level}.csv",
            _csv(result.item_ids, run.scores.tolist()),
            _baseline(run.metric),
        )
        for run in result.runs
    ]
    return submit_many(uploads, store, index)
