"""Moved to `comperbench.stats.human.judgments.predictive_validity`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.predictive_validity",
    {
        "BEAM": "comperbench.stats.human.judgments.predictive_validity",
        "Kind": "comperbench.stats.human.judgments.predictive_validity",
        "Fit": "comperbench.stats.human.judgments.predictive_validity",
        "univariate": "comperbench.stats.human.judgments.predictive_validity",
        "stepwise": "comperbench.stats.human.judgments.predictive_validity",
    },
)
