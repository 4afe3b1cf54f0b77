"""Recompute published numbers from the raw data and set them beside the published ones.

Correlations are computed as `comperbench evaluate` computes them (the benchmark's evaluation
protocol applied) with the metric variant the publication used (`REPRODUCED_BY`); facts (counts,
means, agreement) with `facts.fact_computer`. A benchmark whose files are absent is reported as
skipped with the reason, never as a number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from comperbench.benchmark import Benchmark, load_benchmark
from comperbench.common.errors import DataMissingError
from comperbench.evaluation.run import evaluate_run
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import resolve_metrics, run_metrics
from comperbench.reproduction.chateval_table import CHATEVAL_FACTS
from comperbench.reproduction.facts import fact_computer, is_lower_bound
from comperbench.reproduction.known_differences import KNOWN_DIFFERENCES
from comperbench.reproduction.published import (
    CORRELATIONS,
    FACTS,
    PublishedCorrelation,
    PublishedFact,
)
from comperbench.reproduction.seed_tables import SEED_CORRELATIONS, SEED_FACTS
from comperbench.stats.settings import Resampling

ALL_CORRELATIONS = CORRELATIONS + SEED_CORRELATIONS
ALL_FACTS = FACTS + SEED_FACTS + CHATEVAL_FACTS

REPRODUCED_BY = {
    "BLEU-1": "coco-bleu-1",
    "BLEU-2": "coco-bleu-2",
    "BLEU-3": "coco-bleu-3",
    "BLEU-4": "coco-bleu-4",
    "METEOR": "coco-meteor",
    "ROUGE-L": "coco-rouge-l",
}
"""The metric that computes each published metric as the publications did (nlg-eval's
pycocoevalcap scorers: see the README's reproduction section)."""

TOLERANCE = 0.01
"""A difference above this needs a cause, fixed or stated in the known differences."""


@dataclass(frozen=True)
class Reproduced:
    """One published number beside ours; `ours` is None when it could not be computed."""

    benchmark: str
    what: str
    """The cell: metric, aspect, level and statistic, or the fact's quantity."""
    published: float
    ours: float | None
    source: str
    skipped: str | None = None
    """Why `ours` is missing (the benchmark's files are absent, or no computation exists)."""
    lower_bound: bool = False

    @property
    def difference(self) -> float | None:
        return None if self.ours is None else self.ours - self.published

    @property
    def agrees(self) -> bool | None:
        """Within `TOLERANCE` (at least the published value for a lower bound); None if skipped;
        False when ours is undefined (NaN)."""
        if self.ours is None:
            return None
        if self.lower_bound:
            return self.ours >= self.published
        return bool(abs(self.ours - self.published) <= TOLERANCE)

    @property
    def known_cause(self) -> str | None:
        """The established cause of a difference listed in `KNOWN_DIFFERENCES`."""
        return KNOWN_DIFFERENCES.get((self.benchmark, self.what))

    @property
    def status(self) -> str:
        """`ok`, `known` (an explained difference), `differs` or `skipped`."""
        if self.agrees is None:
            return "skipped"
        if self.agrees:
            return "ok"
        return "known" if self.known_cause else "differs"


def _cell(entry: PublishedCorrelation) -> str:
    cell = f"{entry.metric} {entry.aspect} {entry.level} {entry.statistic}"
    return f"{entry.table}: {cell}" if entry.table else cell


def _missing_data(benchmark: str, load: Callable[..., Benchmark]) -> str | None:
    """Why the benchmark's files cannot be read (the file it needs), or None if they can."""
    try:
        load(benchmark, None)
    except DataMissingError as exc:
        return str(exc)
    return None


def _not_computed(entry: PublishedCorrelation, load: Callable[..., Benchmark]) -> Reproduced:
    """A cell whose metric comperbench does not run as published: skipped, naming the missing
    file first when the benchmark's data are absent too."""
    reason = _missing_data(entry.benchmark, load) or (
        f"comperbench has no metric that computes {entry.metric} as the paper ran it"
    )
    return Reproduced(entry.benchmark, _cell(entry), entry.value, None, entry.source, reason)


def _selected(entries: Iterable, benchmarks: Sequence[str] | None) -> list:
    return [e for e in entries if benchmarks is None or e.benchmark in benchmarks]


@dataclass(frozen=True)
class _Setting:
    benchmark: str
    level: str
    aspect: str


def _our_correlations(
    setting: _Setting, metrics: tuple[str, ...], load: Callable[..., Benchmark], cache: ScoreCache
) -> dict[tuple[str, str], float]:
    """(metric, statistic) -> our value, protocol applied, as `evaluate` computes it."""
    bench = load(setting.benchmark, None)
    result = run_metrics(
        bench, resolve_metrics(list(metrics), setting.level), setting.level, cache=cache
    )
    table = evaluate_run(result, setting.aspect, resampling=Resampling(resamples=0))
    values = {}
    for row in table.rows:
        for statistic in ("pearson", "spearman", "kendall-b"):
            values[(row["metric"], statistic)] = row[statistic]
    return values


def reproduce_correlations(
    benchmarks: Sequence[str] | None = None,
    load: Callable[..., Benchmark] | None = None,
    cache: ScoreCache | None = None,
) -> list[Reproduced]:
    """Every published correlation (of `benchmarks`, default all) beside ours."""
    load = load or _cached_loader()
    cache = cache or ScoreCache()
    selected: list[PublishedCorrelation] = _selected(ALL_CORRELATIONS, benchmarks)
    entries = [e for e in selected if e not in SEED_CORRELATIONS]
    settings: dict[_Setting, set[str]] = {}
    for e in entries:
        settings.setdefault(_Setting(e.benchmark, e.level, e.aspect), set()).add(
            REPRODUCED_BY[e.metric]
        )
    ours: dict[_Setting, dict[tuple[str, str], float] | str] = {}
    for setting, metrics in settings.items():
        try:
            ours[setting] = _our_correlations(setting, tuple(sorted(metrics)), load, cache)
        except DataMissingError as exc:
            ours[setting] = str(exc)
    out = []
    for e in entries:
        found = ours[_Setting(e.benchmark, e.level, e.aspect)]
        value = None if isinstance(found, str) else found[(REPRODUCED_BY[e.metric], e.statistic)]
        skipped = found if isinstance(found, str) else None
        out.append(Reproduced(e.benchmark, _cell(e), e.value, value, e.source, skipped))
    return out + [_not_computed(e, load) for e in selected if e in SEED_CORRELATIONS]


def _fact(entry: PublishedFact, load: Callable[..., Benchmark]) -> Reproduced:
    compute = fact_computer(entry.quantity)
    row = Reproduced(
        entry.benchmark,
        entry.quantity,
        entry.value,
        None,
        entry.source,
        lower_bound=is_lower_bound(entry.quantity),
    )
    if compute is None:
        missing = _missing_data(entry.benchmark, load)
        return replace(
            row, skipped=missing or "documented only: the data does not tell this quantity"
        )
    try:
        return replace(row, ours=compute(load, entry.benchmark))
    except DataMissingError as exc:
        return replace(row, skipped=str(exc))


def reproduce_facts(
    benchmarks: Sequence[str] | None = None, load: Callable[..., Benchmark] | None = None
) -> list[Reproduced]:
    """Every published count, mean and agreement figure (of `benchmarks`) beside ours."""
    load = load or _cached_loader()
    return [_fact(e, load) for e in _selected(ALL_FACTS, benchmarks)]


def _cached_loader() -> Callable[..., Benchmark]:
    @cache
    def load(name: str, level: str | None, split: str | None = None) -> Benchmark:
        return load_benchmark(name, level, split)

    return load
