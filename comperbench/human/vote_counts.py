"""Moved to `comperbench.human_io.vote_counts`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import renamed_names

__getattr__ = renamed_names(
    "comperbench.human.vote_counts",
    {
        "SYSTEM_COLUMNS": "comperbench.human_io.vote_counts.SYSTEM_COLUMNS",
        "COUNT_COLUMNS": "comperbench.human_io.vote_counts.COUNT_COLUMNS",
        "VOTE_COLUMNS": "comperbench.human_io.vote_counts.VOTE_COLUMNS",
        "MAX_VOTES": "comperbench.human_io.vote_counts.MAX_VOTES",
        "votes_table": "comperbench.human_io.vote_counts.vote_counts_table",
        "read_votes": "comperbench.human_io.vote_counts.read_vote_counts",
        "comparisons_from_votes": "comperbench.human_io.vote_counts.comparisons_from_vote_counts",
    },
)
