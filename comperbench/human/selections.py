"""Moved to `comperbench.human_io.selections`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.selections",
    {
        "SELECTION_COLUMNS": "comperbench.human_io.selections",
        "SETTINGS": "comperbench.human_io.selections",
        "SEPARATOR": "comperbench.human_io.selections",
        "selections_table": "comperbench.human_io.selections",
        "read_selections": "comperbench.human_io.selections",
    },
)
