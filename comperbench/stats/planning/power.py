"""Moved to `comperbench.stats.human.planning.power`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.stats.planning.power",
    {
        "MAX_N": "comperbench.stats.human.planning.power",
        "BinomialMethod": "comperbench.stats.human.planning.power",
        "Alternative": "comperbench.stats.human.planning.power",
        "BINOMIAL_METHODS": "comperbench.stats.human.planning.power",
        "binomial_power": "comperbench.stats.human.planning.power",
        "binomial_sample_size": "comperbench.stats.human.planning.power",
        "mcnemar_sample_size": "comperbench.stats.human.planning.power",
        "mcnemar_power": "comperbench.stats.human.planning.power",
        "two_proportion_sample_size": "comperbench.stats.human.planning.power",
        "two_proportion_power": "comperbench.stats.human.planning.power",
        "chisquare_power": "comperbench.stats.human.planning.power",
        "chisquare_sample_size": "comperbench.stats.human.planning.power",
        "effect_w": "comperbench.stats.human.planning.power",
        "ttest_power": "comperbench.stats.human.planning.power",
        "ttest_sample_size": "comperbench.stats.human.planning.power",
        "cochrans_q_noncentrality": "comperbench.stats.human.planning.power",
        "cochrans_q_power": "comperbench.stats.human.planning.power",
        "MonteCarloPower": "comperbench.stats.human.planning.power",
        "MC_CHUNK": "comperbench.stats.human.planning.power",
        "cochrans_q_power_mc": "comperbench.stats.human.planning.power",
        "cochrans_q_sample_size": "comperbench.stats.human.planning.power",
    },
)
