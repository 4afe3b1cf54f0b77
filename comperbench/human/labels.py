"""Moved to `comperbench.human_io.labels`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.labels",
    {
        "LABEL_COLUMNS": "comperbench.human_io.labels",
        "RATING_COLUMNS": "comperbench.human_io.labels",
        "labels_table": "comperbench.human_io.labels",
        "read_labels": "comperbench.human_io.labels",
        "as_ratings": "comperbench.human_io.labels",
    },
)
