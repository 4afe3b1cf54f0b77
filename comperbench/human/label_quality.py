"""Moved to `comperbench.human_io.label_quality`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.label_quality",
    {
        "dialogue_ratings": "comperbench.human_io.label_quality",
        "quality_aspect": "comperbench.human_io.label_quality",
        "join_quality": "comperbench.human_io.label_quality",
        "join_comparisons": "comperbench.human_io.label_quality",
    },
)
