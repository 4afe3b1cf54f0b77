"""Moved to `comperbench.stats.human.judgments.selection_effects`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.selection_effects",
    {
        "CASCADING_TEST": "comperbench.stats.human.judgments.selection_effects",
        "ANCHORING_TESTS": "comperbench.stats.human.judgments.selection_effects",
        "CASCADING_COLUMNS": "comperbench.stats.human.judgments.selection_effects",
        "Cascading": "comperbench.stats.human.judgments.selection_effects",
        "PositionTest": "comperbench.stats.human.judgments.selection_effects",
        "Anchoring": "comperbench.stats.human.judgments.selection_effects",
        "consecutive_pairs": "comperbench.stats.human.judgments.selection_effects",
        "Event": "comperbench.stats.human.judgments.selection_effects",
        "cascading": "comperbench.stats.human.judgments.selection_effects",
        "anchoring": "comperbench.stats.human.judgments.selection_effects",
    },
)
