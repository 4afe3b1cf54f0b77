"""Moved to `comperbench.stats.human.votes.vote_agreement`; this path works for one release,
with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.vote_agreement",
    {
        "MIN_SHARED": "comperbench.stats.human.votes.vote_agreement",
        "ASPECT": "comperbench.stats.human.votes.vote_agreement",
        "vote_kappa": "comperbench.stats.human.votes.vote_agreement",
        "annotator_correlations": "comperbench.stats.human.votes.vote_agreement",
        "prompt_validity": "comperbench.stats.human.votes.vote_agreement",
    },
)
