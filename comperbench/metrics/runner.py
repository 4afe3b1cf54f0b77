"""Scoring a benchmark: items from its table, metrics it can feed, cached scores, NaN counts.

`run_metrics` scores every applicable metric on every item (or, for corpus metrics at system
level, on every system's responses) and says why each skipped metric was skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from comperbench.benchmark import Benchmark
from comperbench.common.errors import ComperbenchError
from comperbench.common.progress import progress
from comperbench.metrics import cluster
from comperbench.metrics.base import DialogueItem, Item, Metric, TurnItem, nonblank_references
from comperbench.metrics.cache import ScoreCache, item_key, item_keys
from comperbench.metrics.llm.judge import LlmJudge
from comperbench.metrics.registry import get
from comperbench.metrics.workers import (
    MIN_PARALLEL_SCORES,
    by_shared_references,
    default_workers,
    process_pool,
    rebuild_name,
    score_in_workers,
)
from comperbench.schema import Utterance

if TYPE_CHECKING:
    import pandas as pd
    from distributed import Client

NGRAM_SUITE = (
    "bleu-1",
    "bleu-2",
    "bleu-3",
    "bleu-4",
    "chrf",
    "chrf++",
    "rouge-1",
    "rouge-2",
    "rouge-l",
    "meteor",
    "f1",
    "length",
)
EMBEDDING_SUITE = (
    "bertscore-p",
    "bertscore-r",
    "bertscore-f1",
    "embedding-average",
    "greedy-matching",
    "vector-extrema",
    "context-cosine",
)
TURN_SUITE = (*NGRAM_SUITE, *EMBEDDING_SUITE)
SYSTEM_SUITE = (*TURN_SUITE, "corpus-bleu", "distinct-1", "distinct-2")
DIALOGUE_SUITE = (
    "dialogue-distinct-1",
    "dialogue-distinct-2",
    "dialogue-length",
    "dialogue-coherence",
)
DEFAULT_BATCH = 256


def default_suite(level: str) -> tuple[str, ...]:
    """The metric names `--metrics default` runs at a level (corpus metrics only at system,
    the metrics of the system's turns at dialogue level)."""
    suites = {"system": SYSTEM_SUITE, "dialogue": DIALOGUE_SUITE}
    return suites.get(level, TURN_SUITE)


_LIST_COMMA = re.compile(r",(?![^\[]*\])")
"""A comma outside brackets: `geval[coherence,n=1],bleu-4` is two metric names."""


def split_metric_list(spec: str) -> list[str]:
    """The names of a comma-separated metric list; commas inside brackets belong to a name."""
    if spec.count("[") != spec.count("]"):
        raise ComperbenchError(f"unbalanced brackets in the metric list {spec!r}")
    return [s.strip() for s in _LIST_COMMA.split(spec) if s.strip()]


def resolve_metrics(
    spec: str | Sequence[str], level: str, judge_options: Mapping[str, str] | None = None
) -> list[Metric]:
    """Metrics from a comma-separated list of names (or a list of names); `default` expands to
    the default suite. `judge_options` (`llm.settings.CLI_OPTIONS` keys) set every LLM judge's
    settings that its brackets leave open. Two metrics that would share a name are refused."""
    names = split_metric_list(spec) if isinstance(spec, str) else list(spec)
    expanded: list[str] = []
    for name in names:
        if not name:
            continue
        expanded += default_suite(level) if name == "default" else [name]
    if not expanded:
        raise ComperbenchError(
            "no metric named: give --metrics default or a list such as bleu-4,f1"
        )
    given = list(dict.fromkeys(expanded))
    metrics = [get(name) for name in given]
    if judge_options:
        metrics = [m.with_options(judge_options) if isinstance(m, LlmJudge) else m for m in metrics]
    spelled: dict[str, str] = {}
    for spelling, metric in zip(given, metrics, strict=True):
        if metric.name in spelled:
            raise ComperbenchError(
                f"{spelled[metric.name]!r} and {spelling!r} are the same metric, {metric.name}: "
                "give it once, or make them differ (e.g. another seed)"
            )
        spelled[metric.name] = spelling
    return metrics


def _utterances(rows: list[dict[str, str]] | None) -> tuple[Utterance, ...]:
    return tuple(Utterance(u["speaker"], u["text"]) for u in rows or ())


def benchmark_items(bench: Benchmark) -> list[Item]:
    """What metrics see of each row of a benchmark (turn or dialogue level)."""
    table = bench.table
    if bench.level == "dialogue":
        return [
            DialogueItem(item_id=i, turns=_utterances(t), system=s)
            for i, t, s in zip(
                table.column("item_id").to_pylist(),
                table.column("turns").to_pylist(),
                table.column("system").to_pylist(),
                strict=True,
            )
        ]
    columns = table.select(
        ["item_id", "response", "context", "references", "grounding", "system"]
    ).to_pydict()
    return [
        TurnItem(
            item_id=columns["item_id"][k],
            response=columns["response"][k],
            context=_utterances(columns["context"][k]),
            references=tuple(columns["references"][k] or ()),
            grounding=tuple(columns["grounding"][k] or ()),
            system=columns["system"][k],
        )
        for k in range(table.num_rows)
    ]


def skip_reason(metric: Metric, bench: Benchmark, items: Sequence[Item], level: str) -> str | None:
    """Why a metric cannot run on a benchmark at a level, or None when it can."""
    if metric.corpus and level != "system":
        return "scores a whole set of responses: run it with --level system"
    if metric.level != bench.level:
        return f"a {metric.level}-level metric; {bench.name} is scored at {bench.level} level"
    turns = [i for i in items if isinstance(i, TurnItem)]
    for need, present in (
        ("references", any(nonblank_references(t) for t in turns)),
        ("grounding", any(t.grounding for t in turns)),
        ("context", any(t.context for t in turns)),
    ):
        if need in metric.needs and not present:
            return f"needs {need}, and {bench.name} has none"
    return None


@dataclass
class MetricRun:
    """One metric's scores over a benchmark and what the user must be told about them."""

    metric: Metric
    scores: np.ndarray
    """Per item (turn/dialogue level) or per system in `systems` order (corpus metrics)."""
    cached: int = 0
    computed: int = 0
    notes: dict[str, Any] = field(default_factory=dict)
    """The metric's `run_notes` after scoring (empty when every score came from the cache)."""
    explanations: dict[str, dict[str, Any]] | None = None
    """Per item id, what the metric said besides its score (a judge's verdicts), when it says
    anything more."""
    place: str = "this process"
    """Where the computed scores were computed ("2 worker processes", "the Dask cluster at ...")."""

    @property
    def nans(self) -> int:
        return int(np.isnan(self.scores).sum())


@dataclass
class _Pending:
    """One metric's cache lookup: the stored scores, and the first item of every key to compute."""

    metric: Metric
    keys: Sequence[str]
    found: dict[str, float]
    todo: dict[str, int]
    """key -> index of the first item with that key."""


def _lookup(
    metric: Metric, items: Sequence[Item], cache: ScoreCache | None, keys: Sequence[str] | None
) -> _Pending:
    keys = keys if keys is not None else item_keys(items, metric.needs)
    found = cache.lookup(metric, keys) if cache else {}
    todo: dict[str, int] = {}
    for index, key in enumerate(keys):
        if key not in found:
            todo.setdefault(key, index)
    return _Pending(metric, keys, found, todo)


def _finish(
    pending: _Pending, items: Sequence[Item], fresh: dict[str, float], cache: ScoreCache | None
) -> MetricRun:
    if cache and fresh:
        cache.store(pending.metric, fresh)
    merged = {**pending.found, **fresh}
    scores = np.array([merged[key] for key in pending.keys], dtype=float)
    cached = sum(key in pending.found for key in pending.keys)
    return MetricRun(
        pending.metric,
        scores,
        cached=cached,
        computed=len(pending.keys) - cached,
        notes=_notes(pending.metric, items, scores, fresh),
    )


def _notes(
    metric: Metric, items: Sequence[Item], scores: np.ndarray, fresh: dict[str, float]
) -> dict[str, Any]:
    notes = metric.run_notes() if fresh else {}
    # An item the metric's tokenizer cannot read scores NaN, so only NaN items are checked.
    unreadable = sum(metric.unreadable_item(items[i]) for i in np.flatnonzero(np.isnan(scores)))
    if unreadable:
        notes["unreadable_script"] = unreadable
    return notes


def _compute(pending: _Pending, items: Sequence[Item], batch_size: int) -> dict[str, float]:
    metric = pending.metric
    key_of = {index: key for key, index in pending.todo.items()}
    todo = [(key_of[i], i) for i in by_shared_references(key_of, items)]
    fresh: dict[str, float] = {}
    with progress(len(todo), metric.name) as bar:
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            values = metric.score([items[index] for _, index in batch])
            if len(values) != len(batch):
                raise ComperbenchError(
                    f"metric {metric.name} returned {len(values)} scores for {len(batch)} items"
                )
            fresh.update((key, float(v)) for (key, _), v in zip(batch, values, strict=True))
            bar.update(len(batch))
    return fresh


def _compute_elsewhere(
    pendings: Sequence[_Pending],
    items: Sequence[Item],
    batch_size: int,
    workers: int,
    client: Client | None,
    pool: Executor | None = None,
) -> tuple[list[dict[str, float]], str]:
    """The pendings' scores computed in a local pool of `workers` processes (`pool` when
    given, else one started for them), or on the cluster of `client`; and where that was."""
    todo = [list(p.todo.values()) for p in pendings]
    metrics = [p.metric for p in pendings]
    place = f"{workers} worker processes" if client is None else cluster.describe(client)
    with progress(sum(len(t) for t in todo), f"{len(pendings)} metrics on {place}") as bar:
        if client is None and pool is not None:
            by_index = score_in_workers(
                metrics, items, todo, [pool], workers, batch_size, bar.update
            )
        elif client is None:
            with process_pool(workers) as own:
                by_index = score_in_workers(
                    metrics, items, todo, [own], workers, batch_size, bar.update
                )
        else:
            by_index = _score_on_cluster(client, metrics, items, todo, batch_size, bar.update)
    fresh = [
        {p.keys[index]: value for index, value in scores.items()}
        for p, scores in zip(pendings, by_index, strict=True)
    ]
    return fresh, place


def _score_on_cluster(
    client: Client,
    metrics: Sequence[Metric],
    items: Sequence[Item],
    todo: Sequence[Sequence[int]],
    batch_size: int,
    done: Callable[[int], object],
) -> list[dict[int, float]]:
    executors = cluster.executors(client)
    try:
        return score_in_workers(
            metrics, items, todo, executors, len(executors), batch_size, done, cluster.watch(client)
        )
    except cluster.ClusterError:
        raise
    except Exception as error:
        raise cluster.ClusterError(
            f"scoring on {cluster.describe(client)} failed, nothing was written to the cache: "
            f"{type(error).__name__}: {error}"
        ) from error


def _on_cluster(metric: Metric) -> bool:
    """Whether a cluster worker scores `metric`: one it can rebuild by name, and not an LLM judge
    (a judge keeps its raw answers in this machine's store)."""
    return not isinstance(metric, LlmJudge) and rebuild_name(metric) is not None


def score_items(
    metric: Metric,
    items: Sequence[Item],
    cache: ScoreCache | None,
    batch_size: int = DEFAULT_BATCH,
    keys: Sequence[str] | None = None,
) -> MetricRun:
    """Scores of one metric on items, looked up in bulk in the cache, the rest computed.

    `keys` are the items' `item_key`s for the metric's needs, when the caller has them already.
    """
    pending = _lookup(metric, items, cache, keys)
    return _finish(pending, items, _compute(pending, items, batch_size), cache)


def score_systems(
    metric: Metric, items: Sequence[Item], systems: Sequence[str], cache: ScoreCache | None
) -> MetricRun:
    """A corpus metric on each system's items (cached under a hash of the items' keys)."""
    values, computed = [], 0
    for system in systems:
        group = [item for item in items if item.system == system]
        digest = hashlib.sha256()
        for item in group:
            digest.update(item_key(item, metric.needs).encode())
        key = f"corpus:{digest.hexdigest()}"
        found = cache.lookup(metric, [key]) if cache else {}
        if key in found:
            values.append(found[key])
            continue
        value = float(metric.score_corpus(group))
        computed += 1
        if cache:
            cache.store(metric, {key: value})
        values.append(value)
    return MetricRun(metric, np.array(values), cached=len(systems) - computed, computed=computed)


def _scored_elsewhere(
    pendings: Sequence[_Pending], workers: int, client: Client | None
) -> list[_Pending]:
    """The pendings to compute on the cluster, or in the local pool of `workers` processes."""
    if client is not None:
        return [p for p in pendings if p.todo and _on_cluster(p.metric)]
    shared = [p for p in pendings if p.metric.parallel and p.todo]
    if workers < 2 or sum(len(p.todo) for p in shared) < MIN_PARALLEL_SCORES:
        return []
    return shared


@dataclass
class RunResult:
    """Scores of the metrics that ran, and the reason of each metric that did not."""

    benchmark: Benchmark
    level: str
    item_ids: list[str]
    systems: list[str]
    item_systems: list[str]
    runs: list[MetricRun]
    skipped: dict[str, str]

    def require_a_run(self) -> None:
        """Raise `ComperbenchError` saying why each metric was skipped when none ran."""
        if not self.runs:
            reasons = "; ".join(f"{name}: {reason}" for name, reason in self.skipped.items())
            raise ComperbenchError(f"no metric can run on {self.benchmark.name}: {reasons}")

    def item_frame(self) -> pd.DataFrame:
        """item_id, system, one column per item-level metric."""
        import pandas as pd

        frame = pd.DataFrame({"item_id": self.item_ids, "system": self.item_systems})
        for run in self.runs:
            if not run.metric.corpus:
                frame[run.metric.name] = run.scores
        return frame

    def system_frame(self) -> pd.DataFrame:
        """One row per system: mean item score of each item metric (NaNs left out) and the
        corpus metrics' own per-system values."""
        items = self.item_frame().drop(columns="item_id")
        means = items.groupby("system", sort=True).mean()
        means = means.reindex(self.systems)
        for run in self.runs:
            if run.metric.corpus:
                means[run.metric.name] = run.scores
        means.index.name = "system"
        return means


def run_metrics(
    bench: Benchmark,
    metrics: Sequence[Metric],
    level: str | None = None,
    *,
    cache: ScoreCache | None = None,
    batch_size: int = DEFAULT_BATCH,
    workers: int | None = None,
    client: Client | None = None,
    pool: Executor | None = None,
) -> RunResult:
    """Score a benchmark with each metric it can feed; system level adds the corpus metrics.

    With a Dask `client`, every metric a worker can rebuild from its name is scored on the
    cluster. Without one, metrics marked `parallel` share a pool of `workers` processes
    (default: one per CPU) when they have at least `MIN_PARALLEL_SCORES` uncached scores between
    them: `pool` when given (a caller scoring several benchmarks starts its workers, and loads
    their metrics, once), else one started for this call. The client writes every score to the
    cache once all are in.
    """
    level = level or bench.level
    if level not in (bench.level, "system"):
        raise ComperbenchError(
            f"{bench.name} was loaded at {bench.level} level; it cannot be scored at {level} level"
        )
    workers = workers or default_workers()
    items = benchmark_items(bench)
    systems = sorted({item.system for item in items})
    runs: dict[str, MetricRun] = {}
    skipped: dict[str, str] = {}
    pendings: list[_Pending] = []
    keys: dict[frozenset[str], list[str]] = {}  # metrics with the same needs share item keys
    for metric in metrics:
        reason = skip_reason(metric, bench, items, level)
        if reason is not None:
            skipped[metric.name] = reason
        elif metric.corpus:
            runs[metric.name] = score_systems(metric, items, systems, cache)
        else:
            needs = frozenset(metric.needs)
            if needs not in keys:
                keys[needs] = (
                    cache.table_item_keys(bench.table, items, needs)
                    if cache
                    else item_keys(items, needs)
                )
            pendings.append(_lookup(metric, items, cache, keys[needs]))
    shared = _scored_elsewhere(pendings, workers, client)
    if shared:
        computed, place = _compute_elsewhere(shared, items, batch_size, workers, client, pool)
        for pending, fresh in zip(shared, computed, strict=True):
            runs[pending.metric.name] = _finish(pending, items, fresh, cache)
            runs[pending.metric.name].place = place
    for pending in pendings:
        if pending.metric.name not in runs:
            fresh = _compute(pending, items, batch_size)
            runs[pending.metric.name] = _finish(pending, items, fresh, cache)
    for run in runs.values():
        if not run.metric.corpus:
            run.explanations = run.metric.explain(items)
    return RunResult(
        benchmark=bench,
        level=level,
        item_ids=[item.item_id for item in items],
        systems=systems,
        item_systems=[item.system for item in items],
        runs=[runs[m.name] for m in metrics if m.name in runs],
        skipped=skipped,
    )
