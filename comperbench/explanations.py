"""Moved to `comperbench.evaluation.judges`; the old path keeps working for one release with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    dict.fromkeys(
        [
            "EXPLANATION_PARTS",
            "ISSUE_LABEL_ASPECT",
            "benchmark_issue_labels",
            "explanation_column",
            "explanation_columns",
            "explanation_report",
            "explanation_text",
            "flags_of",
            "issue_flags",
            "issue_report",
            "judge_explanation",
            "label_source",
        ],
        "comperbench.evaluation.judges",
    ),
)
