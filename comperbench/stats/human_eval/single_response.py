"""Moved to `comperbench.stats.human.judgments.single_response`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.single_response",
    {
        "PAPER_NULL": "comperbench.stats.human.judgments.single_response",
        "SingleResponseAnalysis": "comperbench.stats.human.judgments.single_response",
        "wald_interval": "comperbench.stats.human.judgments.single_response",
        "single_response_rows": "comperbench.stats.human.judgments.single_response",
        "analyse_single_response": "comperbench.stats.human.judgments.single_response",
    },
)
