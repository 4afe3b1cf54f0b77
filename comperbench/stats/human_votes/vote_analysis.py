"""Moved to `comperbench.stats.human.votes.vote_analysis`; this path works for one release, with
a DeprecationWarning."""

from comperbench.common.deprecation import renamed_names

__getattr__ = renamed_names(
    "comperbench.stats.human_votes.vote_analysis",
    {
        "OmnibusTest": "comperbench.stats.human.votes.vote_analysis.OmnibusTest",
        "analyse": "comperbench.stats.human.votes.vote_analysis.analyse",
        "PairwiseAnalysis": "comperbench.stats.human.votes.vote_analysis.VoteAnalysis",
    },
)
