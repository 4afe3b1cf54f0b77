"""Moved to `comperbench.stats.human.votes.comparisons`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.comparisons",
    {
        "Comparisons": "comperbench.stats.human.votes.comparisons",
        "win_tie_loss": "comperbench.stats.human.votes.comparisons",
        "majority": "comperbench.stats.human.votes.comparisons",
        "wmt_scores": "comperbench.stats.human.votes.comparisons",
        "canonical": "comperbench.stats.human.votes.comparisons",
        "pair_counts": "comperbench.stats.human.votes.comparisons",
    },
)
