"""Moved to `comperbench.stats.human.votes.system_ratings`; this path works for one release,
with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.system_ratings",
    {
        "Ratings": "comperbench.stats.human.votes.system_ratings",
        "with_intervals": "comperbench.stats.human.votes.system_ratings",
        "compared_groups": "comperbench.stats.human.votes.system_ratings",
        "comparison_groups": "comperbench.stats.human.votes.system_ratings",
        "groups_note": "comperbench.stats.human.votes.system_ratings",
        "small_sample_note": "comperbench.stats.human.votes.system_ratings",
        "grouped_ratings": "comperbench.stats.human.votes.system_ratings",
        "rating_signature": "comperbench.stats.human.votes.system_ratings",
    },
)
