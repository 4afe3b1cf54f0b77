"""Moved to `comperbench.stats.human.votes.rating_votes`; this path works for one release, with
a DeprecationWarning."""

from comperbench.common.deprecation import renamed_names

__getattr__ = renamed_names(
    "comperbench.stats.human_votes.judgments",
    {
        "MEAN_JUDGE": "comperbench.stats.human.votes.rating_votes.MEAN_JUDGE",
        "as_comparisons": "comperbench.stats.human.votes.rating_votes.as_comparisons",
        "selections": "comperbench.stats.human.votes.rating_votes.selections",
        "pairwise_judgments": "comperbench.stats.human.votes.rating_votes.rating_votes",
    },
)
