"""Evaluation: running metrics on a benchmark and correlating them with people.

`evaluate` is the one call (`api`); `plan_evaluation` and `run_plan` are its two halves, which
the command uses to check its output folder before scoring (`plan`); `plan_each` and
`run_plans` do the same for several benchmarks in one process. `Evaluation` is the result, and
`Evaluations` those of several benchmarks (`result`); `RunOptions` says how the metrics run and
`GivenScores` holds the user's own scores (`options`). The correlation table is made by
`evaluate_run` (`run`, `table`, `document`) and kept for a re-run (`memo`), the judges' issue
reports by `judges` with each benchmark's `hooks`.

Names are imported on first use, so that importing this package loads no metric.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comperbench.evaluation.api import evaluate, plan_evaluation, run_plan, run_plans
    from comperbench.evaluation.document import table_document
    from comperbench.evaluation.judges import issue_reports
    from comperbench.evaluation.options import GivenScores, RunOptions
    from comperbench.evaluation.plan import EvaluationPlan, MetricSpec, plan_each
    from comperbench.evaluation.result import Evaluation, Evaluations
    from comperbench.evaluation.run import (
        GROUPED_CEILING,
        GroupInputs,
        evaluate_run,
        group_inputs,
        human_ceilings,
        protocol_groups,
    )
    from comperbench.evaluation.table import (
        EvaluationTable,
        ProtocolGroup,
        SignedStatistic,
        default_statistics,
    )

_HOMES = {
    "evaluate": "api",
    "plan_evaluation": "api",
    "run_plan": "api",
    "run_plans": "api",
    "Evaluations": "result",
    "plan_each": "plan",
    "Evaluation": "result",
    "EvaluationPlan": "plan",
    "MetricSpec": "plan",
    "GivenScores": "options",
    "RunOptions": "options",
    "EvaluationTable": "table",
    "ProtocolGroup": "table",
    "SignedStatistic": "table",
    "default_statistics": "table",
    "GROUPED_CEILING": "run",
    "GroupInputs": "run",
    "evaluate_run": "run",
    "group_inputs": "run",
    "human_ceilings": "run",
    "protocol_groups": "run",
    "issue_reports": "judges",
    "table_document": "document",
}
"""Each public name -> its module in this package."""

__all__ = [
    "GROUPED_CEILING",
    "Evaluation",
    "EvaluationPlan",
    "EvaluationTable",
    "Evaluations",
    "GivenScores",
    "GroupInputs",
    "MetricSpec",
    "ProtocolGroup",
    "RunOptions",
    "SignedStatistic",
    "default_statistics",
    "evaluate",
    "evaluate_run",
    "group_inputs",
    "human_ceilings",
    "issue_reports",
    "plan_each",
    "plan_evaluation",
    "protocol_groups",
    "run_plan",
    "run_plans",
    "table_document",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'comperbench.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return list(__all__)
