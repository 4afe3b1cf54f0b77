"""Deprecated: moved to `comperbench.stats.metric_tests.verdicts`."""

from comperbench.common.deprecation import moved_module

__getattr__ = moved_module(__name__, "comperbench.stats.metric_tests.verdicts")
