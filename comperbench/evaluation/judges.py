"""What LLM judges said besides their scores, for a run's outputs: per item, their verdicts as
JSON text (a column of scores.parquet); per system, the rate of each issue type a judge flagged,
with Wilson intervals; where the benchmark has issue labels (`issue_*` aspects), the judge's
issue detection against them; and where the benchmark holds reference explanations (its
`BenchmarkHooks`), the agreement of the judge's explanations with them (BLEU-4 and a semantic
score, as SODA-EVAL's explanation analysis)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc

from comperbench.benchmark_hooks import hooks_of
from comperbench.common.errors import DataMissingError
from comperbench.evaluation.explanation_agreement import explanation_agreement
from comperbench.metrics.llm.parsing import ISSUE_TYPES
from comperbench.metrics.runner import MetricRun, RunResult
from comperbench.stats.human.judgments.issue_detection import Detection, detection_table
from comperbench.stats.rates import rates
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling

ISSUE_LABEL_ASPECT = "issue_{}"
"""The aspect that holds the benchmark's label of an issue type (1: listed, 0: not)."""

EXPLANATION_PARTS = ("issues and overall comment", "overall comment")
"""What of an explanation is compared: every issue's `type: comment` line then the overall
comment, or the overall comment alone."""


def explanation_column(name: str) -> str:
    """The scores.parquet column of a metric's explanations."""
    return f"{name} explanation"


def explanation_columns(result: RunResult) -> dict[str, list[str | None]]:
    """Per metric that explains its scores, each item's explanation as JSON text (None where it
    has none)."""
    columns: dict[str, list[str | None]] = {}
    for run in result.runs:
        if run.explanations is None:
            continue
        columns[explanation_column(run.metric.name)] = [
            json.dumps(run.explanations[i], ensure_ascii=False) if i in run.explanations else None
            for i in result.item_ids
        ]
    return columns


def flags_of(explained: dict[str, Any] | None) -> np.ndarray:
    """One item's 0/1 flag per issue type: listed by at least half of the judge's usable calls;
    NaN without a call that lists issues."""
    calls = [c for c in (explained or {}).get("calls", []) if "issues" in c]
    if not calls:
        return np.full(len(ISSUE_TYPES), np.nan)
    listed = np.array(
        [[any(i["type"] == t for i in c["issues"]) for t in ISSUE_TYPES] for c in calls]
    )
    return (listed.mean(axis=0) >= 0.5).astype(float)


def issue_flags(run: MetricRun, item_ids: Sequence[str]) -> dict[str, np.ndarray] | None:
    """Per issue type, the judge's 0/1 flag of every item (NaN where it gave none); None for a
    judge whose explanations list no issues."""
    if not run.explanations or not any(
        "issues" in c for e in run.explanations.values() for c in e.get("calls", [])
    ):
        return None
    matrix = np.array([flags_of(run.explanations.get(i)) for i in item_ids])
    return {t: matrix[:, k] for k, t in enumerate(ISSUE_TYPES)}


def issue_report(
    result: RunResult,
    run: MetricRun,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    data_dir: str | Path | None = None,
) -> dict[str, Any] | None:
    """Issue-type rates per system; against the benchmark's issue labels where it has them,
    issue detection; where the benchmark holds reference explanations, the explanations'
    agreement with them (read from `data_dir`); None for a judge that lists no issues."""
    flags = issue_flags(run, result.item_ids)
    if flags is None:
        return None
    systems = np.asarray(result.item_systems)
    rows = []
    for issue, values in flags.items():
        table = rates(systems, values)
        rows += [{"issue": issue, "system": s, **r} for s, r in table.to_dict("index").items()]
    report: dict[str, Any] = {"rates": rows}
    labels = benchmark_issue_labels(result)
    if labels:
        found = detection_table(
            flags, labels, resampling=Resampling(resampling.resamples, resampling.seed)
        )
        report["detection"] = [_detection_row(d) for d in found]
        report["labels"] = label_source(result)
    if (explanations := explanation_report(result, run, data_dir)) is not None:
        report["explanations"] = explanations
    return report


def benchmark_issue_labels(result: RunResult) -> dict[str, np.ndarray]:
    """Per issue type, the benchmark's 0/1 labels, where it has the aspect."""
    bench = result.benchmark
    aspects = {a.name for a in bench.metadata.aspects}
    return {
        t: bench.human_scores(ISSUE_LABEL_ASPECT.format(t))
        for t in ISSUE_TYPES
        if ISSUE_LABEL_ASPECT.format(t) in aspects
    }


def label_source(result: RunResult) -> str:
    """Who gave the benchmark's issue labels, from the annotators of its ratings."""
    ratings = result.benchmark.table.column("ratings").combine_chunks().flatten()
    aspects = pc.struct_field(ratings, "aspect")
    issue = pc.starts_with(aspects, ISSUE_LABEL_ASPECT.format(""))
    annotators = pc.unique(pc.struct_field(ratings, "annotator").filter(issue)).to_pylist()
    named = ", ".join(sorted(str(a) for a in annotators)) or "unnamed annotators"
    hook = hooks_of(result.benchmark.name).label_source
    given = hook([str(a) for a in annotators]) if hook else None
    return given or f"the benchmark's issue labels (annotators: {named})"


def explanation_text(issues: list[tuple[str, str]], comment: str | None, part: str) -> str | None:
    """The compared text of an explanation: `type: comment` lines of the issues, then the overall
    comment (`part` "issues and overall comment"), or the overall comment alone."""
    lines = [f"{t}: {c}" for t, c in issues if c] if part == EXPLANATION_PARTS[0] else []
    lines += [comment] if comment else []
    return "\n".join(lines) or None


def judge_explanation(explained: dict[str, Any] | None, part: str) -> str | None:
    """The explanation of an item's first usable call (SODA-EVAL judges: issue comments or
    explanations, then `overall_comment` or `comment`); None without one."""
    calls = (explained or {}).get("calls") or [None]
    call = calls[0]
    if call is None or "issues" not in call:
        return None
    issues = [(i["type"], i.get("comment", i.get("explanation", ""))) for i in call["issues"]]
    return explanation_text(issues, call.get("overall_comment", call.get("comment")), part)


def explanation_report(
    result: RunResult, run: MetricRun, data_dir: str | Path | None
) -> dict[str, Any] | None:
    """Per compared part, BLEU-4 and the semantic score of the judge's explanations against the
    benchmark's reference explanations of the same items (read from `data_dir`); undefined with
    its reason when they cannot be read; None for a benchmark without reference explanations."""
    hooks = hooks_of(result.benchmark.name)
    if hooks.reference_explanations is None:
        return None
    try:
        references = hooks.reference_explanations(None if data_dir is None else Path(data_dir))
    except DataMissingError as missing:
        why = f"{hooks.explained_by}'s comments cannot be read: {missing}"
        return {part: {"pairs": 0, "undefined": why} for part in EXPLANATION_PARTS}
    explained = run.explanations or {}
    report = {}
    for part in EXPLANATION_PARTS:
        judged = {i: judge_explanation(explained.get(i), part) for i in result.item_ids}
        reference = {
            i: explanation_text(list(c.issues), c.overall_comment, part)
            for i, c in references.items()
        }
        report[part] = explanation_agreement(judged, reference).document()
    return report


def issue_reports(
    result: RunResult, resampling: Resampling, data_dir: str | Path | None = None
) -> dict[str, dict[str, Any]]:
    """The issue report of every judge whose explanations list issues.

    Args:
        result: the scores of the run, with the judges' explanations.
        resampling: the resamples and seed of the issue detection's intervals.
        data_dir: the data root the benchmark's reference explanations are read from.

    Returns:
        Each such judge's `issue_report`, by metric name.
    """
    reports = {}
    for run in result.runs:
        report = issue_report(result, run, resampling=resampling, data_dir=data_dir)
        if report is not None:
            reports[run.metric.name] = report
    return reports


def _detection_row(found: Detection) -> dict[str, Any]:
    return {
        "issue": found.issue,
        "items": found.items,
        "true_positives": found.true_positives,
        "false_positives": found.false_positives,
        "false_negatives": found.false_negatives,
        "precision": found.precision,
        "precision_ci": list(found.precision_ci),
        "recall": found.recall,
        "recall_ci": list(found.recall_ci),
        "f1": found.f1,
        "f1_ci": list(found.f1_ci),
    }
