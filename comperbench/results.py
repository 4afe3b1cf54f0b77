"""One call from a benchmark to its evaluation: `evaluate("usr-topical", ["meteor"])`.

`evaluate` loads the benchmark, scores it (or takes the user's scores), and correlates every
metric with the human scores under the benchmark's evaluation protocol, exactly as the command
`comperbench evaluate` does (the command calls the same functions). The `Evaluation` it returns
holds the table, as a DataFrame or as `table.json`'s document, its figures and an HTML report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from comperbench.benchmark import Benchmark, load_benchmark
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import write_new_file
from comperbench.common.textutil import interval, number
from comperbench.evaluation import (
    EvaluationTable,
    ProtocolGroup,
    default_statistics,
    evaluate_run,
    group_inputs,
    issue_reports,
    table_document,
)
from comperbench.metrics.base import Metric
from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import DEFAULT_BATCH, RunResult, resolve_metrics, run_metrics
from comperbench.stats.annotator_agreement.ceiling import LABEL
from comperbench.stats.averaging import CONVENTIONS, Conventions
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.statistics import get_statistic, supports
from comperbench.stats.resampling import CIMethod
from comperbench.stats.settings import SETTINGS, Resampling

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from comperbench.stats.metric_tests.verdicts import Verdicts

    Scores = pd.DataFrame | Mapping[str, pd.Series]

MetricSpec = str | Metric


@dataclass
class EvaluationPlan:
    """Everything an evaluation decides before scoring: the benchmark (with its selection), the
    metrics and how they are correlated."""

    benchmark: Benchmark
    level: str
    aspect: str
    metrics: list[Metric]
    statistics: list[str]
    resamples: int = SETTINGS.resamples
    seed: int = SETTINGS.seed
    ci: CIMethod = "percentile"
    grouped: bool = False
    apply_protocol: bool = True
    conventions: Conventions = field(default_factory=lambda: CONVENTIONS["comperbench"])
    judge_options: dict[str, str] = field(default_factory=dict)
    data_dir: str | Path | None = None
    """The raw-data root the benchmark was read from (None: the default root)."""

    def settings(self) -> dict[str, Any]:
        """Everything that changes the table besides the data: two runs with equal settings on
        the same benchmark version give the same table (`table.json`'s `run`)."""
        averaging = self.conventions.averaging
        return {
            "benchmark": self.benchmark.tag,
            "split": self.benchmark.split,
            "level": self.level,
            "aspect": self.aspect,
            "metrics": sorted(m.name for m in self.metrics),
            "grouped": self.grouped,
            "resamples": self.resamples,
            "seed": self.seed,
            "ci": self.ci,
            "protocol_applied": self.apply_protocol,
            "statistics": self.statistics,
            "averaging": averaging.label if self.grouped else "",
            "judge_options": self.judge_options,
        }


def plan_evaluation(
    benchmark: str | Benchmark,
    metrics: str | Sequence[MetricSpec] | None = None,
    *,
    scores: Scores | None = None,
    reference_free: bool = False,
    level: str | None = None,
    aspect: str | None = None,
    statistics: Sequence[str] | None = None,
    resamples: int = SETTINGS.resamples,
    seed: int = SETTINGS.seed,
    ci: CIMethod = "percentile",
    grouped: bool = False,
    all_systems: bool = False,
    exclude_systems: Sequence[str] = (),
    split: str | None = None,
    data_dir: str | Path | None = None,
    sample: int | None = None,
    sample_seed: int = 0,
    limit: int | None = None,
    conventions: Conventions | str = "comperbench",
    judge_options: Mapping[str, str] | None = None,
) -> EvaluationPlan:
    """The plan of `evaluate` (see there), checked before anything is scored."""
    bench = _benchmark(benchmark, level, split, data_dir, exclude_systems)
    if sample is not None and limit is not None:
        raise ComperbenchError("give at most one of sample and limit")
    if sample is not None:
        bench = bench.sample(sample, sample_seed)
    elif limit is not None:
        bench = bench.head(limit)
    level = level or bench.level
    options = dict(judge_options or {})
    if scores is not None:
        if metrics is not None:
            raise ComperbenchError("give metrics or scores, not both")
        from comperbench.metrics.provided import given_scores, provided_metrics

        chosen: list[Metric] = list(
            provided_metrics(given_scores(scores, bench), bench, reference_free)
        )
    else:
        chosen = _metrics(metrics, level, options)
    if isinstance(conventions, str):
        if conventions not in CONVENTIONS:
            raise ComperbenchError(
                f"unknown convention {conventions!r}; choose from {', '.join(CONVENTIONS)}"
            )
        conventions = CONVENTIONS[conventions]
    return EvaluationPlan(
        benchmark=bench,
        level=level,
        aspect=bench.metadata.aspect(aspect, level).name,
        metrics=chosen,
        statistics=[get_statistic(s).name for s in (statistics or default_statistics())],
        resamples=resamples,
        seed=seed,
        ci=ci,
        grouped=grouped,
        apply_protocol=not all_systems,
        conventions=conventions,
        judge_options=options,
        data_dir=data_dir,
    )


def _benchmark(
    benchmark: str | Benchmark,
    level: str | None,
    split: str | None,
    data_dir: str | Path | None,
    exclude_systems: Sequence[str],
) -> Benchmark:
    """The benchmark by name (loaded at `level`; system level scores its first stored level), or
    the one given, without `exclude_systems`."""
    if isinstance(benchmark, Benchmark):
        if split is not None or data_dir is not None:
            raise ComperbenchError("split and data_dir apply to a benchmark given by name")
        return benchmark.without_systems(exclude_systems)
    stored = None if level == "system" else level
    return load_benchmark(
        benchmark, stored, split, data_dir=data_dir, exclude_systems=exclude_systems
    )


def _metrics(
    metrics: str | Sequence[MetricSpec] | None, level: str, options: dict[str, str]
) -> list[Metric]:
    """Registry names (a list, or one comma-separated string; None: the default suite) and
    Metric objects, in the order given."""
    if metrics is None or isinstance(metrics, str):
        return resolve_metrics(metrics or "default", level, options)
    chosen: list[Metric] = []
    for metric in metrics:
        chosen += (
            [metric] if isinstance(metric, Metric) else resolve_metrics([metric], level, options)
        )
    names = [m.name for m in chosen]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ComperbenchError(f"metric {twice[0]} is given twice")
    return chosen


def run_plan(
    plan: EvaluationPlan,
    *,
    cache: bool | ScoreCache = True,
    batch_size: int = DEFAULT_BATCH,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Evaluation:
    """Score the plan's benchmark with its metrics (scores cached on disk unless `cache` is
    False; on the Dask cluster at `scheduler` when given) and correlate them."""
    from comperbench.metrics.cluster import connect

    store = cache if isinstance(cache, ScoreCache) else (ScoreCache() if cache else None)
    with connect(scheduler) if scheduler else nullcontext() as client:
        result = run_metrics(
            plan.benchmark,
            plan.metrics,
            plan.level,
            cache=store,
            batch_size=batch_size,
            workers=workers,
            client=client,
        )
    table = evaluate_run(
        result,
        plan.aspect,
        n_resamples=plan.resamples,
        ci=plan.ci,
        seed=plan.seed,
        grouped=plan.grouped,
        apply_protocol=plan.apply_protocol,
        statistics=plan.statistics,
        averaging=plan.conventions.averaging,
    )
    issues = issue_reports(result, plan.resamples, plan.seed, plan.data_dir)
    return Evaluation(plan, result, table, issues)


def evaluate(
    benchmark: str | Benchmark,
    metrics: str | Sequence[MetricSpec] | None = None,
    *,
    scores: Scores | None = None,
    reference_free: bool = False,
    level: str | None = None,
    aspect: str | None = None,
    statistics: Sequence[str] | None = None,
    resamples: int = SETTINGS.resamples,
    seed: int = SETTINGS.seed,
    ci: CIMethod = "percentile",
    grouped: bool = False,
    all_systems: bool = False,
    exclude_systems: Sequence[str] = (),
    split: str | None = None,
    data_dir: str | Path | None = None,
    sample: int | None = None,
    sample_seed: int = 0,
    limit: int | None = None,
    conventions: Conventions | str = "comperbench",
    judge_options: Mapping[str, str] | None = None,
    cache: bool | ScoreCache = True,
    batch_size: int = DEFAULT_BATCH,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Evaluation:
    """Score a benchmark with metrics and correlate them with the human scores, under the
    benchmark's evaluation protocol, as `comperbench evaluate` does.

    `metrics`: registry names (a list or a comma-separated string; default: the default suite
    of the level) or Metric objects. `scores` instead gives your own scores: a DataFrame with
    an `item_id` column and one column per metric, or a mapping from metric name to a Series
    indexed by item_id; every item needs one score (NaN allowed) and an unknown id is refused.
    Such metrics are taken to need references (the protocol leaves out what it leaves out for
    reference-based metrics) unless `reference_free`.

    `level` ("turn", "dialogue", "system"; default: the benchmark's first), `aspect` (default:
    the protocol's), `statistics` (default: Pearson, Spearman, Kendall tau-b), `resamples`,
    `seed` and `ci` of the bootstrap, `grouped` (correlate within each dialogue, then average),
    `all_systems` (ignore the protocol), `exclude_systems`, `split`, `sample`/`limit` (a quick
    run on part of the items), `conventions` ("comperbench" or "mt-metrics-eval"),
    `judge_options` (settings of every LLM judge), `cache` (False: recompute every score).
    """
    plan = plan_evaluation(
        benchmark,
        metrics,
        scores=scores,
        reference_free=reference_free,
        level=level,
        aspect=aspect,
        statistics=statistics,
        resamples=resamples,
        seed=seed,
        ci=ci,
        grouped=grouped,
        all_systems=all_systems,
        exclude_systems=exclude_systems,
        split=split,
        data_dir=data_dir,
        sample=sample,
        sample_seed=sample_seed,
        limit=limit,
        conventions=conventions,
        judge_options=judge_options,
    )
    return run_plan(plan, cache=cache, batch_size=batch_size, workers=workers, scheduler=scheduler)


@dataclass
class Evaluation:
    """The result of `evaluate`: the scores (`result`), the correlation table (`table`) and the
    judges' issue reports, with the plan that made them."""

    plan: EvaluationPlan
    result: RunResult
    table: EvaluationTable
    issues: dict[str, dict[str, Any]]

    @property
    def benchmark(self) -> Benchmark:
        return self.result.benchmark

    def document(self) -> dict[str, Any]:
        """What `table.json` holds: the run's settings, every value and its provenance."""
        return {"run": self.plan.settings(), **table_document(self.result, self.table, self.issues)}

    def signature(self, statistic: str, excluded: Sequence[str]) -> str:
        """The signature of `statistic` on the metrics that leave out `excluded`."""
        for signed in self.table.signatures:
            if signed.statistic == statistic and list(signed.excluded) == list(excluded):
                return signed.signature
        return ""

    def to_pandas(self) -> pd.DataFrame:
        """One row per metric: n, NaN scores, the systems the protocol left out, and per
        statistic its value, interval, p-value, p-value method, note and signature."""
        import pandas as pd

        records = []
        for row in self.table.rows:
            excluded = row.get("protocol_excluded", [])
            record: dict[str, Any] = {
                "metric": row["metric"],
                "n": row.get("n"),
                "nan_scores": row["nan_scores"],
                "protocol_excluded": ", ".join(excluded),
            }
            for s in self.table.statistics:
                low, high = row.get(f"{s}_ci") or (np.nan, np.nan)
                record |= {
                    s: row.get(s, np.nan),
                    f"{s}_ci_low": low,
                    f"{s}_ci_high": high,
                    f"{s}_p": row.get(f"{s}_p", np.nan),
                    f"{s}_p_method": row.get(f"{s}_p_method"),
                    f"{s}_note": row.get(f"{s}_note"),
                    f"{s}_signature": self.signature(s, excluded),
                }
            records.append(record)
        return pd.DataFrame.from_records(records)

    def _statistic(self, statistic: str | None) -> str:
        if statistic is None:
            return self.table.statistics[0]
        name = get_statistic(statistic).name
        if name not in self.table.statistics:
            raise ComperbenchError(
                f"{name} was not computed; this evaluation has {', '.join(self.table.statistics)}"
            )
        return name

    def plot_forest(self, statistic: str | None = None) -> Figure:
        """Each metric's value of `statistic` (default: the first computed) with its interval,
        and the human ceiling as a reference line where there is one."""
        from comperbench.report.figures import Reference, forest_plot

        name = self._statistic(statistic)
        rows = self.table.rows
        bounds = [row.get(f"{name}_ci") or (None, None) for row in rows]
        ceiling = self.table.ceilings.get(name)
        reference = None
        if ceiling is not None and ceiling.assignment is not None:
            low, high = (ceiling.ci.low, ceiling.ci.high) if ceiling.ci else (None, None)
            reference = Reference(f"{LABEL} {number(ceiling.value)}", ceiling.value, low, high)
        return forest_plot(
            [row["metric"] for row in rows],
            [float(row.get(name, np.nan)) for row in rows],
            [b[0] for b in bounds],
            [b[1] for b in bounds],
            xlabel=f"{name} with {self.table.aspect} ({self.result.level} level), 95% CI",
            title=f"{self.benchmark.label}: {name} per metric",
            reference=reference,
        )

    def system_points(self, metric: str) -> pd.DataFrame:
        """Per system: the metric's mean score, the mean human score (over the items where both
        exist; a corpus metric's own value at system level) and whether the protocol left the
        system out for this metric."""
        import pandas as pd

        row = next((r for r in self.table.rows if r["metric"] == metric), None)
        if row is None:
            names = ", ".join(r["metric"] for r in self.table.rows)
            raise ComperbenchError(f"no metric {metric!r} in this evaluation; it has {names}")
        excluded = set(row.get("protocol_excluded", []))
        if self.result.level == "system":
            frame = self.result.system_frame()[[metric]].rename(columns={metric: "metric"})
            human = self.benchmark.systems()[self.table.aspect]
            frame["human"] = human.reindex(frame.index).to_numpy(dtype=float)
        else:
            items = self.result.item_frame()
            if metric not in items:
                raise ComperbenchError(f"{metric} has no item scores to average per system")
            pairs = pd.DataFrame(
                {
                    "system": items["system"],
                    "metric": items[metric],
                    "human": self.benchmark.human_scores(self.table.aspect),
                }
            ).dropna()
            frame = pairs.groupby("system", sort=True)[["metric", "human"]].mean()
        frame["left_out"] = frame.index.isin(excluded)
        return frame.dropna(subset=["metric", "human"])

    def plot_scatter(self, metric: str) -> Figure:
        """System level: each system's mean `metric` score against its mean human score, with
        Pearson's r over the systems the protocol keeps (and its bootstrap interval over
        systems); systems it leaves out for this metric are drawn apart."""
        from comperbench.report.figures import scatter_plot

        points = self.system_points(metric)
        kept = points[~points["left_out"]]
        r = correlation_table(
            {metric: kept["metric"].to_numpy()},
            kept["human"].to_numpy(),
            level="system",
            statistic="pearson",
            systems=np.arange(len(kept)),
            resampling=Resampling(self.plan.resamples, self.plan.seed, self.plan.ci),
        )[0]
        ci = f" {interval(r.ci.low, r.ci.high)}" if r.ci else ""
        annotation = f"Pearson r = {number(r.value)}{ci}, n = {len(kept)} systems"
        annotation += "".join(f"\n{note}" for note in (r.reason, r.ci_note) if note)
        return scatter_plot(
            points["metric"].to_numpy(),
            points["human"].to_numpy(),
            labels=list(points.index),
            left_out=points["left_out"].to_numpy(),
            xlabel=f"{metric} (system mean)",
            ylabel=f"human {self.table.aspect} (system mean)",
            title=f"{self.benchmark.label}: {metric} per system",
            annotation=annotation,
        )

    def significance(self, statistic: str | None = None) -> Verdicts:
        """The verdicts between the metrics on `statistic` (`metric_verdicts`: PERM-BOTH with
        as many permutations as Holm's correction needs, the verdicts of `compare`), on the
        systems the protocol keeps for all of them."""
        from comperbench.stats.metric_tests.verdicts import metric_verdicts

        name = self._statistic(statistic)
        excluded = tuple(sorted({s for g in self.table.groups for s in g.excluded}))
        group = ProtocolGroup(excluded, tuple(r["metric"] for r in self.table.rows))
        over_contexts = supports(name, "over_contexts")
        inputs = group_inputs(
            self.result, group, self.table.aspect, self.plan.grouped, over_contexts
        )
        if len(inputs.scores) < 2:
            raise ComperbenchError("a significance test needs two metrics with scores")
        return metric_verdicts(
            inputs.scores,
            inputs.human,
            level=self.result.level,  # type: ignore[arg-type]
            statistic=name,
            groups=inputs.groups,
            systems=inputs.systems,
            resampling=Resampling(seed=self.plan.seed, conventions=self.plan.conventions),
            benchmark=self.benchmark.without_systems(excluded).tag,
        )

    def plot_significance(self, statistic: str | None = None) -> Figure:
        """The significance clusters and the pairs shown to differ (`significance`)."""
        from comperbench.report.figures import verdicts_figure

        name = self._statistic(statistic)
        verdicts = self.significance(name)
        return verdicts_figure(
            verdicts, xlabel=name, title=f"{self.benchmark.label}: which metrics differ"
        )

    def report(self, path: str | Path) -> Path:
        """Write the evaluation as one self-contained HTML page to `path` (a new file)."""
        from comperbench.report.html import evaluation_page

        write_new_file(path, evaluation_page(self))
        return Path(path)
