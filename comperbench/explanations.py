"""What LLM judges said besides their scores, for a run's outputs: per item, their verdicts as
JSON text (a column of scores.parquet); per system, the rate of each issue type a judge flagged,
with Wilson intervals; and, where the benchmark has human issue labels (Soda-Eval's `issue_*`
aspects), the judge's issue detection against them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from comperbench.loaders.soda_eval import ISSUE_TYPES
from comperbench.metrics.runner import MetricRun, RunResult
from comperbench.stats.issue_detection import Detection, detection_table
from comperbench.stats.rates import rates

HUMAN_ISSUE_ASPECT = "issue_{}"
"""The aspect that holds the human label of an issue type (1: listed, 0: not)."""


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
    result: RunResult, run: MetricRun, *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, Any] | None:
    """Issue-type rates per system and, against human labels where the benchmark has them,
    issue detection; None for a judge that lists no issues."""
    flags = issue_flags(run, result.item_ids)
    if flags is None:
        return None
    systems = np.asarray(result.item_systems)
    rows = []
    for issue, values in flags.items():
        table = rates(systems, values)
        rows += [{"issue": issue, "system": s, **r} for s, r in table.to_dict("index").items()]
    report: dict[str, Any] = {"rates": rows}
    human = human_issue_labels(result)
    if human:
        found = detection_table(flags, human, n_resamples=n_resamples, seed=seed)
        report["detection"] = [_detection_row(d) for d in found]
    return report


def human_issue_labels(result: RunResult) -> dict[str, np.ndarray]:
    """Per issue type, the benchmark's human 0/1 labels, where it has the aspect."""
    bench = result.benchmark
    aspects = {a.name for a in bench.metadata.aspects}
    return {
        t: bench.human_scores(HUMAN_ISSUE_ASPECT.format(t))
        for t in ISSUE_TYPES
        if HUMAN_ISSUE_ASPECT.format(t) in aspects
    }


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
