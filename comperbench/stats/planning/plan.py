"""Moved to `comperbench.stats.human.planning.plan`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.planning.plan",
    {
        "T": "comperbench.stats.human.planning.plan",
        "Goal": "comperbench.stats.human.planning.plan",
        "Plan": "comperbench.stats.human.planning.plan",
        "Solution": "comperbench.stats.human.planning.plan",
        "Setting": "comperbench.stats.human.planning.plan",
        "READINGS": "comperbench.stats.human.planning.plan",
        "COCHRAN_METHODS": "comperbench.stats.human.planning.plan",
        "SIGN_TEST": "comperbench.stats.human.planning.plan",
        "WIN_RATE": "comperbench.stats.human.planning.plan",
        "SETTINGS": "comperbench.stats.human.planning.plan",
    },
)
