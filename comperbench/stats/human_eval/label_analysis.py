"""Moved to `comperbench.stats.human.judgments.label_analysis`; this path works for one release,
with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.label_analysis",
    {
        "LabelAnalysis": "comperbench.stats.human.judgments.label_analysis",
        "majority": "comperbench.stats.human.judgments.label_analysis",
        "majority_labels": "comperbench.stats.human.judgments.label_analysis",
        "analyse_labels": "comperbench.stats.human.judgments.label_analysis",
    },
)
