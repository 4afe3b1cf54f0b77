"""One call from a benchmark to its evaluation: `evaluate("usr-topical", ["meteor"])`.

`evaluate` scores a benchmark (or takes the user's scores) and correlates every metric with the
human scores under the benchmark's evaluation protocol, exactly as the command
`comperbench evaluate` does (the command calls the same functions, `plan_evaluation` then
`run_plan`). Items and systems are chosen on the `Benchmark`:
`evaluate(load_benchmark("usr-topical").sample(100), ["meteor"])`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from comperbench.benchmark import Benchmark
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation import plan as _plan
from comperbench.evaluation.judges import issue_reports
from comperbench.evaluation.legacy import (
    PLAN_KEYS,
    RUN_KEYS,
    accepting_old_keywords,
    plan_keywords,
    run_keywords,
)
from comperbench.evaluation.memo import memoised_table
from comperbench.evaluation.options import DEFAULT_RUN, GivenScores, RunOptions
from comperbench.evaluation.plan import EvaluationPlan, plan_each, within
from comperbench.evaluation.result import Evaluation, Evaluations
from comperbench.evaluation.run import evaluate_run
from comperbench.evaluation.table import EvaluationTable
from comperbench.metrics.runner import run_metrics
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from distributed import Client

    from comperbench.evaluation.options import Scores
    from comperbench.evaluation.plan import MetricSpec


def _old_plan(values: dict[str, Any], old: dict[str, Any]) -> EvaluationPlan:
    options = plan_keywords(values, old)
    return replace(_plan.plan_evaluation(**values), judge_options=options)


def _old_run(values: dict[str, Any], old: dict[str, Any]) -> Evaluation:
    run_keywords(values, old)
    return run_plan(**values)


def _old_evaluate(values: dict[str, Any], old: dict[str, Any]) -> Evaluation:
    run_keywords(values, old)
    run = values.pop("run")
    options = plan_keywords(values, old)
    return run_plan(replace(_plan.plan_evaluation(**values), judge_options=options), run)


@accepting_old_keywords(RUN_KEYS, _old_run)
def run_plan(plan: EvaluationPlan, run: RunOptions = DEFAULT_RUN) -> Evaluation:
    """Score the plan's benchmark with its metrics and correlate them with the human scores.

    Args:
        plan: what `plan_evaluation` decided.
        run: how the metrics run (cache, batches, workers, cluster, data root of the hooks).

    Returns:
        The `Evaluation`: scores, correlation table and the judges' issue reports.
    """
    with _cluster(run) as client:
        return _evaluated(plan, run, client)


def run_plans(
    plans: Mapping[str, EvaluationPlan], run: RunOptions = DEFAULT_RUN
) -> Iterator[tuple[str, Evaluation]]:
    """`run_plan` of each plan in turn, on one connection to the cluster, or in one pool of
    worker processes that keep their metrics loaded from one benchmark to the next.

    Args:
        plans: by benchmark name, as `plan_each` makes them.
        run: how the metrics run.

    Yields:
        Each benchmark's name and `Evaluation`, as soon as it is done (an error names the
        benchmark).
    """
    from comperbench.metrics.embeddings.embedding import forget_texts
    from comperbench.metrics.workers import default_workers, process_pool

    with _cluster(run) as client, process_pool(run.workers or default_workers()) as pool:
        for name, plan in plans.items():
            forget_texts()  # each benchmark gets the values it gets alone
            yield name, within(name, lambda p=plan: _evaluated(p, run, client, pool))


def _cluster(run: RunOptions) -> AbstractContextManager[Client | None]:
    """A client of the Dask cluster `run` names, or None."""
    from comperbench.metrics.cluster import connect

    return connect(run.scheduler) if run.scheduler else nullcontext()


def _evaluated(
    plan: EvaluationPlan, run: RunOptions, client: Client | None, pool: Executor | None = None
) -> Evaluation:
    result = run_metrics(
        plan.benchmark,
        plan.metrics,
        plan.level,
        cache=run.score_cache(),
        batch_size=run.batch_size,
        workers=run.workers,
        client=client,
        pool=pool,
    )
    resampling = plan.resampling

    def table() -> EvaluationTable:
        return evaluate_run(
            result,
            plan.aspect,
            resampling=resampling,
            grouped=plan.grouped,
            protocol=plan.protocol,
            statistics=plan.statistics,
        )

    settings = plan.settings()
    kept = memoised_table(result, settings, plan.statistics, table) if run.cache else table()
    issues = issue_reports(result, resampling, run.data_dir)
    return Evaluation(plan, result, kept, issues)


plan_evaluation = accepting_old_keywords(PLAN_KEYS, _old_plan)(_plan.plan_evaluation)


@accepting_old_keywords((*PLAN_KEYS, *RUN_KEYS), _old_evaluate)
def evaluate(
    benchmark: str | Benchmark | Sequence[str | Benchmark],
    metrics: str | Sequence[MetricSpec] | None = None,
    *,
    scores: Scores | GivenScores | None = None,
    level: str | None = None,
    aspect: str | None = None,
    statistics: Sequence[str] | None = None,
    grouped: bool = False,
    resampling: Resampling = DEFAULT_RESAMPLING,
    protocol: bool = True,
    run: RunOptions = DEFAULT_RUN,
) -> Evaluation | Evaluations:
    """Score a benchmark with metrics and correlate them with the human scores, under the
    benchmark's evaluation protocol, as `comperbench evaluate` does.

    Args:
        benchmark: a `Benchmark`, or a benchmark's name (loaded at `level`). Choose its items
            and systems on the object: `load_benchmark(name, split=..., data_dir=...)`,
            `.sample(n, seed)`, `.head(n)`, `.without_systems([...])`. A list of them is
            evaluated in this process, each model loaded once (every one is planned before
            any is scored); `list_benchmarks(present=True)` names all those at hand.
        metrics: registry names (a list or a comma-separated string; None: the default suite
            of the level; an LLM judge's settings in its brackets) or Metric objects.
        scores: your own scores instead of metrics: a DataFrame with an `item_id` column and
            one column per metric, or a mapping from metric name to a Series indexed by
            item_id (taken to need references), or `GivenScores(scores, reference_free=True)`.
        level: "turn", "dialogue" or "system" (default: the benchmark's level).
        aspect: the human aspect (default: the protocol's).
        statistics: registered statistic names (default: Pearson, Spearman, Kendall tau-b).
        grouped: turn level: correlate within each dialogue, then average as
            `resampling.conventions` say, and resample dialogues.
        resampling: the bootstrap's resamples, seed, interval method and conventions
            (`comperbench.Resampling`).
        protocol: apply the benchmark's evaluation protocol (False: every metric on every
            system, e.g. keep USR's ground truth).
        run: how the metrics run: score cache, batches, workers, Dask cluster, and the data
            root the benchmark's hooks read (`comperbench.RunOptions`).

    Returns:
        The `Evaluation`: the scores, the correlation table, the judges' issue reports and
        the plan that made them. For a list, `Evaluations`: each benchmark's, by name.

    Raises:
        ComperbenchError: a keyword it does not take (with the closest one), an unknown
            metric, statistic, level or aspect, or scores that do not fit the items.
    """

    def plan(chosen: str | Benchmark) -> EvaluationPlan:
        return _plan.plan_evaluation(
            chosen,
            metrics,
            scores=scores,
            level=level,
            aspect=aspect,
            statistics=statistics,
            grouped=grouped,
            resampling=resampling,
            protocol=protocol,
        )

    if isinstance(benchmark, str | Benchmark):
        return run_plan(plan(benchmark), run)
    if scores is not None:
        raise ComperbenchError("scores belong to one benchmark: evaluate them one at a time")
    return Evaluations(dict(run_plans(plan_each(list(benchmark), plan), run)))
