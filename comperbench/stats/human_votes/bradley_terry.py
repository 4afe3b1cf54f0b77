"""Moved to `comperbench.stats.human.votes.bradley_terry`; this path works for one release, with
a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.bradley_terry",
    {
        "bradley_terry": "comperbench.stats.human.votes.bradley_terry",
    },
)
