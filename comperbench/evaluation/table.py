"""The correlation table of an evaluation: one row per metric, the protocol groups its metrics
were correlated in, the signature of each statistic on each group, and the human ceiling.

A protocol may leave systems out for some metrics (USR's ground truth, whose response is the
reference, for every metric that needs references). Metrics are correlated in groups that share
the systems they leave out; each group has its own signature, whose benchmark tag names them.
Where people rated individually, the human ceiling (one annotator against the others, on the
items the protocol keeps for reference-free metrics) stands beside the metrics as a reference
row: not a metric, not ranked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from comperbench.metadata import EvaluationProtocol
from comperbench.metrics.runner import RunResult
from comperbench.stats.annotator_agreement.ceiling import CITATION, LABEL, METHOD, CeilingResult
from comperbench.stats.metric_correlation.statistics import statistic_names


def default_statistics() -> tuple[str, ...]:
    """The correlations `evaluate` computes unless asked.

    Returns:
        The registered statistics reported by default (looked up at call time, so a statistic
        registered later is included).
    """
    return tuple(statistic_names(reported_only=True))


@dataclass(frozen=True)
class ProtocolGroup:
    """Metrics that leave out the same systems (none, or those the protocol names)."""

    excluded: tuple[str, ...]
    metrics: tuple[str, ...]


@dataclass(frozen=True)
class SignedStatistic:
    """The signature of one statistic computed on one protocol group."""

    statistic: str
    excluded: tuple[str, ...]
    signature: str


@dataclass
class EvaluationTable:
    """One row per metric (correlations, p-values, intervals, notes) and how they were computed.

    Args:
        level: the correlation level.
        aspect: the human aspect correlated with.
        grouped: whether correlations were computed within dialogues, then averaged.
        protocol: the benchmark's evaluation protocol.
        protocol_applied: whether it was applied.
        groups: the metrics grouped by the systems the protocol leaves out for them.
        statistics: the statistics computed, in column order.
        rows: one dict per metric: value, p-value, interval and notes of each statistic.
        signatures: the signature of each statistic on each group.
        ceilings: the human ceiling of each statistic (see `ceiling_row`).
    """

    level: str
    aspect: str
    grouped: bool
    protocol: EvaluationProtocol
    protocol_applied: bool
    groups: list[ProtocolGroup]
    statistics: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    signatures: list[SignedStatistic] = field(default_factory=list)
    ceilings: dict[str, CeilingResult] = field(default_factory=dict)
    """The human ceiling of each statistic (see `ceiling_row`); not one of the metric rows."""

    def ceiling_row(self) -> dict[str, Any] | None:
        """The human ceiling in the columns of a metric row.

        Returns:
            Value, interval, note and signature per statistic, n and annotators; None when
            there is none to show (`ceiling_reason` says why).
        """
        shown = [r for r in self.ceilings.values() if r.assignment is not None]
        if not shown:
            return None
        row: dict[str, Any] = {
            "metric": LABEL,
            "reference": True,
            "method": METHOD,
            "citation": CITATION,
            "n": shown[0].n,
            "nan_scores": "-",
            "assignment": shown[0].assignment,
        }
        for method, r in self.ceilings.items():
            row[method] = r.value
            row[f"{method}_ci"] = [r.ci.low, r.ci.high] if r.ci else None
            if r.ci:
                row[f"{method}_ci_resamples"] = r.ci.n_valid
            row[f"{method}_annotators"] = r.annotators
            row[f"{method}_signature"] = r.signature
            if notes := r.notes():
                row[f"{method}_note"] = "; ".join(notes)
        return row

    def ceiling_reason(self) -> str | None:
        """Why no human ceiling is shown.

        Returns:
            The reason (no individual ratings, ...), None when one is shown.
        """
        if not self.ceilings or self.ceiling_row() is not None:
            return None
        return next(iter(self.ceilings.values())).reason

    def excluded_items(self, result: RunResult) -> dict[str, int]:
        """The items of each system the protocol left out for some metric.

        Args:
            result: the run this table was computed from.

        Returns:
            Item counts by system name.
        """
        systems = np.asarray(result.item_systems)
        left_out = {s for g in self.groups for s in g.excluded}
        return {s: int((systems == s).sum()) for s in sorted(left_out)}
