"""Moved to `comperbench.stats.human.judgments.selection_analysis`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.selection_analysis",
    {
        "OMNIBUS": "comperbench.stats.human.judgments.selection_analysis",
        "PAIR_TEST": "comperbench.stats.human.judgments.selection_analysis",
        "SelectionAnalysis": "comperbench.stats.human.judgments.selection_analysis",
        "SATA_OUTCOMES": "comperbench.stats.human.judgments.selection_analysis",
        "sata_pair_outcomes": "comperbench.stats.human.judgments.selection_analysis",
        "selection_comparisons": "comperbench.stats.human.judgments.selection_analysis",
        "selection_rates": "comperbench.stats.human.judgments.selection_analysis",
        "analyse_selections": "comperbench.stats.human.judgments.selection_analysis",
    },
)
