"""What an evaluation decides before anything is scored (`plan_evaluation`; `plan_each` for
several benchmarks, every one planned before any is scored)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from comperbench.benchmark import Benchmark, load_benchmark
from comperbench.common.deprecation import deprecated
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation.options import GivenScores
from comperbench.evaluation.table import default_statistics
from comperbench.metrics.base import Metric
from comperbench.metrics.runner import resolve_metrics
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling

if TYPE_CHECKING:
    from comperbench.evaluation.options import Scores

MetricSpec = str | Metric
"""A metric by registry name (options in its brackets) or a Metric object."""


@dataclass(frozen=True)
class EvaluationPlan:
    """Everything an evaluation decides before scoring: the benchmark (with its selection), the
    metrics and how they are correlated.

    Args:
        benchmark: the benchmark, as selected (split, systems, sample).
        level: the correlation level, "turn", "dialogue" or "system".
        aspect: the human aspect correlated with.
        metrics: the metrics, in the order given.
        statistics: the registered names of the statistics computed.
        resampling: the bootstrap's resamples, seed, interval method and conventions.
        grouped: correlate within each dialogue, then average (turn level).
        protocol: apply the benchmark's evaluation protocol.
        judge_options: the `--judge-*` options the metrics were built with (recorded in
            table.json's `run`; the metrics carry them).
    """

    benchmark: Benchmark
    level: str
    aspect: str
    metrics: list[Metric]
    statistics: list[str]
    resampling: Resampling = DEFAULT_RESAMPLING
    grouped: bool = False
    protocol: bool = True
    judge_options: dict[str, str] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        """The old attributes (`resamples`, `seed`, `ci`, `conventions`, `apply_protocol`), with
        a DeprecationWarning naming the new one."""
        if name in ("resamples", "seed", "ci", "conventions"):
            deprecated(f"EvaluationPlan.{name}", f"EvaluationPlan.resampling.{name}")
            return getattr(self.resampling, name)
        if name == "apply_protocol":
            deprecated("EvaluationPlan.apply_protocol", "EvaluationPlan.protocol")
            return self.protocol
        raise AttributeError(f"'EvaluationPlan' object has no attribute {name!r}")

    def settings(self) -> dict[str, Any]:
        """Everything that changes the table besides the data (`table.json`'s `run`).

        Returns:
            The settings; two runs with equal settings on the same benchmark version give
            the same table.
        """
        resampling = self.resampling
        return {
            "benchmark": self.benchmark.tag,
            "split": self.benchmark.split,
            "level": self.level,
            "aspect": self.aspect,
            "metrics": sorted(m.name for m in self.metrics),
            "grouped": self.grouped,
            "resamples": resampling.resamples,
            "seed": resampling.seed,
            "ci": resampling.ci,
            "protocol_applied": self.protocol,
            "statistics": self.statistics,
            "averaging": resampling.conventions.averaging.label if self.grouped else "",
            "judge_options": self.judge_options,
        }


def plan_evaluation(
    benchmark: str | Benchmark,
    metrics: str | Sequence[MetricSpec] | None = None,
    *,
    scores: Scores | GivenScores | None = None,
    level: str | None = None,
    aspect: str | None = None,
    statistics: Sequence[str] | None = None,
    grouped: bool = False,
    resampling: Resampling = DEFAULT_RESAMPLING,
    protocol: bool = True,
) -> EvaluationPlan:
    """The plan of `evaluate`, checked before anything is scored.

    Args:
        benchmark: a `Benchmark` (select items and systems on it: `sample`, `head`,
            `without_systems`), or a benchmark's name, loaded at `level`.
        metrics: registry names (a list or a comma-separated string; None: the default suite
            of the level) or Metric objects.
        scores: the user's own scores instead of metrics (see `GivenScores`; a DataFrame or
            mapping alone is taken to need references).
        level: "turn", "dialogue" or "system" (default: the benchmark's level).
        aspect: the human aspect (default: the protocol's).
        statistics: registered statistic names (default: Pearson, Spearman, Kendall tau-b).
        grouped: turn level: correlate within each dialogue, then average as
            `resampling.conventions` say, and resample dialogues.
        resampling: the bootstrap's resamples, seed, interval method and conventions.
        protocol: apply the benchmark's evaluation protocol (False: every metric on every
            system).

    Returns:
        The plan, for `run_plan`.
    """
    bench = (
        load_benchmark(benchmark, None if level == "system" else level)
        if isinstance(benchmark, str)
        else benchmark
    )
    level = level or bench.level
    if scores is not None:
        if metrics is not None:
            raise ComperbenchError("give metrics or scores, not both")
        chosen = _given_metrics(scores, bench)
    else:
        chosen = _metrics(metrics, level)
    return EvaluationPlan(
        benchmark=bench,
        level=level,
        aspect=bench.metadata.aspect(aspect, level).name,
        metrics=chosen,
        statistics=[get_statistic(s).name for s in (statistics or default_statistics())],
        resampling=resampling,
        grouped=grouped,
        protocol=protocol,
    )


def _given_metrics(scores: Scores | GivenScores, bench: Benchmark) -> list[Metric]:
    from comperbench.metrics.provided import given_scores, provided_metrics

    given = scores if isinstance(scores, GivenScores) else GivenScores(scores)
    return list(provided_metrics(given_scores(given.scores, bench), bench, given.reference_free))


def _metrics(metrics: str | Sequence[MetricSpec] | None, level: str) -> list[Metric]:
    """Registry names (a list, or one comma-separated string; None: the default suite) and
    Metric objects, in the order given."""
    if metrics is None or isinstance(metrics, str):
        return resolve_metrics(metrics or "default", level)
    chosen: list[Metric] = []
    for metric in metrics:
        chosen += [metric] if isinstance(metric, Metric) else resolve_metrics([metric], level)
    names = [m.name for m in chosen]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ComperbenchError(f"metric {twice[0]} is given twice")
    return chosen


def plan_each(
    benchmarks: Sequence[str | Benchmark], plan: Callable[[str | Benchmark], EvaluationPlan]
) -> dict[str, EvaluationPlan]:
    """The plan of every benchmark, by name, made before any is scored; a benchmark named
    twice is refused, and an error names the benchmark it came from."""
    if not benchmarks:
        raise ComperbenchError("no benchmark to evaluate: name at least one")
    plans: dict[str, EvaluationPlan] = {}
    for benchmark in benchmarks:
        name = benchmark if isinstance(benchmark, str) else benchmark.name
        if name in plans:
            raise ComperbenchError(f"benchmark {name} is named twice")
        plans[name] = within(name, lambda b=benchmark: plan(b))
    return plans


def within(name: str, work: Callable[[], Any]) -> Any:
    """`work()`, its ComperbenchError said again after the benchmark's name."""
    try:
        return work()
    except ComperbenchError as error:
        raise ComperbenchError(f"{name}: {error}") from error
