"""`table.json`'s document: everything an evaluation computed, with its provenance."""

from __future__ import annotations

from typing import Any

from comperbench.common.textutil import json_ready
from comperbench.common.version import __version__
from comperbench.evaluation.table import EvaluationTable
from comperbench.metrics.runner import RunResult
from comperbench.stats.annotator_agreement.ceiling import LABEL


def _protocol_document(table: EvaluationTable, result: RunResult) -> dict[str, Any]:
    protocol = table.protocol
    return {
        "applied": table.protocol_applied,
        "source": protocol.source,
        "reference_excluded_systems": list(protocol.reference_excluded_systems),
        "reason": protocol.reason,
        "excluded_items": table.excluded_items(result),
    }


def table_document(
    result: RunResult, table: EvaluationTable, issues: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything `evaluate` computed, with its provenance.

    Args:
        result: the scores of the run.
        table: its correlation table.
        issues: the judges' `issue_reports`.

    Returns:
        JSON-ready data (NaN is null): `table.json` without its `run` settings.
    """
    bench = result.benchmark
    issues = issues or {}
    document = {
        "comperbench_version": __version__,
        "benchmark": bench.name,
        "benchmark_version": bench.metadata.version,
        "fingerprint": bench.fingerprint,
        "data": bench.provenance,
        "split": bench.split,
        "excluded_systems": list(bench.excluded_systems),
        "selection": bench.selection.document() if bench.selection else None,
        "protocol": _protocol_document(table, result),
        "level": result.level,
        "aspect": table.aspect,
        "correlation": f"{', '.join(table.statistics)} with p-values (exact over all orderings "
        "up to 8 units, else scipy's) and bootstrap intervals (comperbench.stats); pairs with a "
        "missing score dropped",
        "signatures": [
            {
                "statistic": s.statistic,
                "protocol_excluded": list(s.excluded),
                "signature": s.signature,
            }
            for s in table.signatures
        ],
        "metrics": {
            run.metric.name: {
                "family": run.metric.family,
                "needs": sorted(run.metric.needs),
                "config": run.metric.config(),
                "library": run.metric.cache_version(),
                "signature": run.metric.signature(),
                "nan_scores": run.nans,
                "scores": {"cached": run.cached, "computed": run.computed, "on": run.place},
                "notes": run.notes,
                **({"issues": issues[run.metric.name]} if run.metric.name in issues else {}),
            }
            for run in result.runs
        },
        "skipped": result.skipped,
        "rows": table.rows,
        "human_ceiling": table.ceiling_row() or {"metric": LABEL, "reason": table.ceiling_reason()},
    }
    return json_ready(document)
