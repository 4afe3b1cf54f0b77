"""Moved to `comperbench.stats.human.votes.vote_tests`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.human_votes.vote_tests",
    {
        "MIN_EXPECTED": "comperbench.stats.human.votes.vote_tests",
        "sign_test": "comperbench.stats.human.votes.vote_tests",
        "mcnemar": "comperbench.stats.human.votes.vote_tests",
        "chi_square": "comperbench.stats.human.votes.vote_tests",
        "small_expected_reason": "comperbench.stats.human.votes.vote_tests",
        "empty_lines": "comperbench.stats.human.votes.vote_tests",
        "cochrans_q": "comperbench.stats.human.votes.vote_tests",
        "unit_bootstrap_p": "comperbench.stats.human.votes.vote_tests",
        "pair_tests": "comperbench.stats.human.votes.vote_tests",
    },
)
