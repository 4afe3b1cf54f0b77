"""Moved to `comperbench.stats.human.votes.online_ratings`; this path works for one release,
with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.online_ratings",
    {
        "DEFAULT_PERMUTATIONS": "comperbench.stats.human.votes.online_ratings",
        "replay_orders": "comperbench.stats.human.votes.online_ratings",
        "replay_sequence": "comperbench.stats.human.votes.online_ratings",
        "elo": "comperbench.stats.human.votes.online_ratings",
        "trueskill_ratings": "comperbench.stats.human.votes.online_ratings",
    },
)
