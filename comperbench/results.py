"""Moved to the package `comperbench.evaluation`; the old path keeps working for one release
with a DeprecationWarning (`comperbench.evaluate` and `comperbench.Evaluation` are the names to
use)."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    dict.fromkeys(
        ["Evaluation", "EvaluationPlan", "MetricSpec", "evaluate", "plan_evaluation", "run_plan"],
        "comperbench.evaluation",
    ),
)
