"""Moved to `comperbench.stats.human.judgments.issue_detection`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.issue_detection",
    {
        "CHUNK": "comperbench.stats.human.judgments.issue_detection",
        "Detection": "comperbench.stats.human.judgments.issue_detection",
        "detection": "comperbench.stats.human.judgments.issue_detection",
        "detection_table": "comperbench.stats.human.judgments.issue_detection",
    },
)
