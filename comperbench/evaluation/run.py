"""The correlations of a metric run with the human scores, under the benchmark's evaluation
protocol: `evaluate_run` makes an `EvaluationTable` (see `evaluation.table`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from comperbench.evaluation.legacy import TABLE_KEYS, accepting_old_keywords, table_keywords
from comperbench.evaluation.table import (
    EvaluationTable,
    ProtocolGroup,
    SignedStatistic,
    default_statistics,
)
from comperbench.metrics.runner import RunResult
from comperbench.stats.annotator_agreement.ceiling import CeilingResult, benchmark_ceiling
from comperbench.stats.averaging import COMPERBENCH, Conventions
from comperbench.stats.metric_correlation.correlation import (
    CorrelationResult,
    Level,
    correlation_tables,
)
from comperbench.stats.metric_correlation.influence import distribution_note, p_interval_note
from comperbench.stats.metric_correlation.statistics import get_statistic, supports
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling


def protocol_groups(result: RunResult, apply_protocol: bool = True) -> list[ProtocolGroup]:
    """The metrics of a run grouped by the systems the protocol leaves out for them."""
    by_exclusion: dict[tuple[str, ...], list[str]] = {}
    for run in result.runs:
        excluded = result.benchmark.protocol_exclusions(run.metric.needs) if apply_protocol else ()
        by_exclusion.setdefault(excluded, []).append(run.metric.name)
    return [ProtocolGroup(excluded, tuple(names)) for excluded, names in by_exclusion.items()]


@dataclass(frozen=True)
class GroupInputs:
    """What `correlation_tables` is given for one protocol group and one kind of statistic."""

    scores: dict[str, np.ndarray]
    human: np.ndarray
    groups: np.ndarray | None
    systems: np.ndarray | None
    without: dict[str, str] = field(default_factory=dict)
    """Metrics of the group the statistic cannot be computed on, with the reason."""


_NO_CONTEXTS = "a corpus-level metric has no scores per context"


def group_inputs(
    result: RunResult, group: ProtocolGroup, aspect: str, grouped: bool, over_contexts: bool
) -> GroupInputs:
    """Metric scores, human scores, dialogue groups and system units of one protocol group:
    system means at system level, items (with their system and context) otherwise and for a
    statistic over contexts."""
    bench = result.benchmark
    if result.level == "system" and not over_contexts:
        frame = result.system_frame()
        frame = frame[~frame.index.isin(group.excluded)]
        human = bench.systems()[aspect].reindex(frame.index).to_numpy(dtype=float)
        units = np.arange(len(frame))  # one unit per system: the frame already holds the means
        scores = {name: frame[name].to_numpy(dtype=float) for name in group.metrics}
        return GroupInputs(scores, human, None, units)
    keep = ~np.isin(np.asarray(result.item_systems), group.excluded)
    item_runs = {run.metric.name: run for run in result.runs if not run.metric.corpus}
    human = bench.human_scores(aspect)[keep]
    dialogues = np.array(bench.table.column("dialogue_id").to_pylist(), dtype=object)[keep]
    scores = {
        name: np.asarray(item_runs[name].scores, dtype=float)[keep]
        for name in group.metrics
        if name in item_runs
    }
    without = {name: _NO_CONTEXTS for name in group.metrics if name not in item_runs}
    systems = np.asarray(result.item_systems, dtype=object)[keep]
    return GroupInputs(
        scores, human, dialogues if grouped or over_contexts else None, systems, without
    )


def _old_table(values: dict[str, Any], old: dict[str, Any]) -> EvaluationTable:
    table_keywords(values, old)
    return evaluate_run(**values)


@accepting_old_keywords(TABLE_KEYS, _old_table)
def evaluate_run(
    result: RunResult,
    aspect: str,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    grouped: bool = False,
    protocol: bool = True,
    statistics: Sequence[str] | None = None,
) -> EvaluationTable:
    """Each statistic of every metric with the human scores of an aspect, with p-values,
    bootstrap intervals and what the statistic chose from the data (acc-eq's epsilon), each
    metric on the systems the protocol keeps for it.

    System level resamples systems; grouped turn level averages the correlations within each
    dialogue (as `resampling.conventions` say) and resamples dialogues.

    Args:
        result: the scores of a metric run.
        aspect: the human aspect correlated with.
        resampling: the bootstrap's resamples (0: no interval), seed, interval method and
            conventions.
        grouped: turn level: correlate within each dialogue, then average.
        protocol: apply the benchmark's evaluation protocol.
        statistics: registered statistic names (default: the reported ones, Pearson,
            Spearman and Kendall tau-b).

    Returns:
        The `EvaluationTable`: one row per metric, the signatures and the human ceiling.
    """
    # only the averaging of grouped values reaches the correlations (as `averaging=` did)
    averaging = Conventions(resampling.conventions.averaging) if grouped else COMPERBENCH
    correlating = replace(resampling, conventions=averaging)
    bench = result.benchmark
    names = tuple(get_statistic(s).name for s in (statistics or default_statistics()))
    groups = protocol_groups(result, protocol)
    table = EvaluationTable(
        result.level, aspect, grouped, bench.metadata.protocol, protocol, groups, names
    )
    rows: dict[str, dict[str, Any]] = {
        run.metric.name: {"metric": run.metric.name, "nan_scores": run.nans} for run in result.runs
    }
    for group in groups:
        tag = bench.without_systems(group.excluded).tag
        for name in group.metrics:
            rows[name]["protocol_excluded"] = list(group.excluded)
        kinds = {m: supports(m, "over_contexts") for m in table.statistics}
        by_kind: dict[bool, GroupInputs] = {}  # built once per group for each kind of statistic
        correlations: dict[str, list[CorrelationResult]] = {}
        for over_contexts in dict.fromkeys(kinds.values()):
            inputs = group_inputs(result, group, aspect, grouped, over_contexts)
            by_kind[over_contexts] = inputs
            methods = [m for m in table.statistics if kinds[m] == over_contexts]
            if inputs.scores:
                tables = correlation_tables(
                    inputs.scores,
                    inputs.human,
                    level=cast(Level, result.level),
                    statistics=methods,
                    groups=inputs.groups,
                    systems=inputs.systems,
                    resampling=correlating,
                    benchmark=tag,
                )
                correlations.update(zip(methods, tables, strict=True))
        for method in table.statistics:
            inputs = by_kind[kinds[method]]
            for name, reason in inputs.without.items():
                rows[name].update(_undefined_columns(method, reason))
            if not inputs.scores:
                continue
            _note_distributions(rows, inputs)
            for r in correlations[method]:
                _fill_row(rows[r.metric], method, r)
            signature = correlations[method][0].signature
            table.signatures.append(SignedStatistic(method, group.excluded, signature))
    table.rows = [rows[run.metric.name] for run in result.runs]
    table.ceilings = human_ceilings(result, aspect, names, resampling, grouped)
    return table


GROUPED_CEILING = (
    "the human ceiling is computed over items or systems, not within dialogues (run without "
    "--grouped to see it)"
)


def human_ceilings(
    result: RunResult,
    aspect: str,
    statistics: Sequence[str],
    resampling: Resampling,
    grouped: bool,
) -> dict[str, CeilingResult]:
    """The human ceiling of each statistic at the run's level, on the items the protocol keeps
    for reference-free metrics (the ceiling compares with people, not with references), with a
    percentile bootstrap of `resampling`'s resamples drawn as the metrics' are (same seed)."""
    bench = result.benchmark
    bench = bench.without_systems(bench.protocol_exclusions(frozenset()))
    out = {}
    for name in statistics:
        if grouped:
            out[name] = CeilingResult.unavailable(name, result.level, GROUPED_CEILING, "")
            continue
        out[name] = benchmark_ceiling(
            bench,
            aspect,
            statistic=name,
            level=result.level,
            resampling=Resampling(resampling.resamples, resampling.seed),
        )
    return out


def _note_distributions(rows: dict[str, dict[str, Any]], inputs: GroupInputs) -> None:
    """A metric's `distribution_note` (see `influence.distribution_note`), once per row."""
    for name, scores in inputs.scores.items():
        if "distribution_note" not in rows[name] and (
            note := distribution_note(scores, inputs.human)
        ):
            rows[name]["distribution_note"] = note


def _undefined_columns(method: str, reason: str) -> dict[str, Any]:
    """A statistic's columns for a metric it cannot be computed on."""
    return {
        method: np.nan,
        f"{method}_p": np.nan,
        f"{method}_p_method": None,
        f"{method}_ci": None,
        f"{method}_note": reason,
    }


def _fill_row(row: dict[str, Any], method: str, r: CorrelationResult) -> None:
    """One statistic's columns of a metric's row: value, p-value, interval, choices, notes."""
    row["n"] = r.n
    if r.contexts is None:
        row["dropped"] = r.n_dropped
    else:
        row.update({f"{method}_contexts": r.contexts, f"{method}_dropped": r.n_dropped})
    row[method], row[f"{method}_p"] = r.value, r.p_value
    row[f"{method}_p_method"] = r.p_method
    row[f"{method}_ci"] = [r.ci.low, r.ci.high] if r.ci else None
    if r.ci:
        row[f"{method}_ci_resamples"] = r.ci.n_valid
    row.update({f"{method}_{key}": value for key, value in r.chosen.items()})
    if notes := [note for note in (r.reason, r.ci_note) if note]:
        row[f"{method}_note"] = "; ".join(notes)
    if r.ci and (disagree := p_interval_note(r.p_value, r.ci.low, r.ci.high)):
        row[f"{method}_p_ci_note"] = disagree
