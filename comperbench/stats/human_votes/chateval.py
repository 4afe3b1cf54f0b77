"""Moved to `comperbench.stats.human.votes.chateval`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.chateval",
    {
        "pair_scores": "comperbench.stats.human.votes.chateval",
        "win_count_ranking": "comperbench.stats.human.votes.chateval",
        "ChatEvalScores": "comperbench.stats.human.votes.chateval",
    },
)
