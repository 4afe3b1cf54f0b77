"""Moved to `comperbench.stats.human.judgments.dialogue_labels`; this path works for one
release, with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_eval.dialogue_labels",
    {
        "PAPER_DIALOGUES": "comperbench.stats.human.judgments.dialogue_labels",
        "POWER": "comperbench.stats.human.judgments.dialogue_labels",
        "dialogue_rates": "comperbench.stats.human.judgments.dialogue_labels",
        "system_dialogue_rates": "comperbench.stats.human.judgments.dialogue_labels",
        "separation": "comperbench.stats.human.judgments.dialogue_labels",
        "sensitivity": "comperbench.stats.human.judgments.dialogue_labels",
    },
)
