"""Moved to `comperbench.human_io.templates`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.templates",
    {
        "Template": "comperbench.human_io.templates",
        "TEMPLATES": "comperbench.human_io.templates",
        "render": "comperbench.human_io.templates",
    },
)
