"""Moved to `comperbench.human_io.ratings`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.ratings",
    {
        "RATING_FILE_COLUMNS": "comperbench.human_io.ratings",
        "LEVELS": "comperbench.human_io.ratings",
        "ratings_table": "comperbench.human_io.ratings",
        "read_ratings": "comperbench.human_io.ratings",
    },
)
