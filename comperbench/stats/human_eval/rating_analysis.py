"""Moved to `comperbench.stats.human.judgments.rating_analysis`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.rating_analysis",
    {
        "RATING_AGREEMENT": "comperbench.stats.human.judgments.rating_analysis",
        "RatingAnalysis": "comperbench.stats.human.judgments.rating_analysis",
        "interval_note": "comperbench.stats.human.judgments.rating_analysis",
        "system_means": "comperbench.stats.human.judgments.rating_analysis",
        "analyse_ratings": "comperbench.stats.human.judgments.rating_analysis",
        "likert_t_tests": "comperbench.stats.human.judgments.rating_analysis",
    },
)
