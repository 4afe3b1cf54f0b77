"""Deprecated: moved to `comperbench.stats.pair_ranking.pair_accuracy`."""

from comperbench.common.deprecation import moved_module

__getattr__ = moved_module(__name__, "comperbench.stats.pair_ranking.pair_accuracy")
