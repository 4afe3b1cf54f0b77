"""Meta-evaluation statistics, one subpackage per question a reader has:

- `metric_correlation`: how well does a metric agree with human scores? `correlate` and
  `correlation_table` (turn, dialogue, system level; grouped turn level; bootstrap intervals) and
  the registered correlation `Statistic`s (`CORRELATIONS`, `get_statistic`), each declaring
  its capabilities (`OnScores`, `Grouped`, `PairVerdicts`, `OverContexts`, ...; `supports`);
- `pair_ranking`: does it order pairs as the humans do? Pair accuracy (WMT's pairwise accuracy)
  with tie calibration (`acc-eq`), `soft_pairwise_accuracy` (WMT 2024), WMT20's Kendall-like tau
  (`kendall_like_statistic`), pair difference;
- `metric_tests`: is one metric better than another? `significance_matrix` (PERM-BOTH, the
  permutation test of pair verdicts between two metrics, paired bootstrap, Williams; early
  stopping; clusters);
- `annotator_agreement`: do the people agree? `agreement` (Krippendorff's alpha, Fleiss', Cohen's
  kappa) and the human ceiling (`annotator_ceiling`, `benchmark_ceiling`: one annotator's
  correlation with the mean of the others, on the metrics' scale);
- `human`: what does the user's own human evaluation say? `human.votes` (A/B votes between
  systems: win rates, their tests, Bradley-Terry, Elo, TrueSkill, ChatEval), `human.judgments`
  (labels, ratings, selections) and `human.planning` (power, sample size);

Shared by all, here: `Averaging` and `Conventions` (how grouped values are averaged;
mt-metrics-eval's conventions as `MT_METRICS_EVAL`), resampling and bootstrap intervals,
`multiplicity` (Holm, Benjamini-Hochberg), `rates` (Wilson, z-tests), the vectorised kernels, the
shared `settings` (`Resampling`: resamples, seed, interval and conventions in one object), and the
`signature` string every result carries.
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are the exports, for type checkers)
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from comperbench.common.deprecation import deprecated

if TYPE_CHECKING:  # the names of EXPORTS, for type checkers (a test keeps the two equal)
    from comperbench.stats.annotator_agreement.agreement import AgreementResult, agreement
    from comperbench.stats.annotator_agreement.ceiling import (
        AnnotatorScores,
        CeilingResult,
        annotator_ceiling,
        benchmark_ceiling,
    )
    from comperbench.stats.averaging import MT_METRICS_EVAL, Averaging, Conventions
    from comperbench.stats.metric_correlation.contexts import SystemContexts, system_unit_matrix
    from comperbench.stats.metric_correlation.correlation import (
        CorrelationResult,
        correlate,
        correlation_table,
        point_correlation,
    )
    from comperbench.stats.metric_correlation.statistics import (
        CORRELATIONS,
        Chooses,
        Grouped,
        OnScores,
        OverContexts,
        PairVerdicts,
        Point,
        SharedSides,
        Statistic,
        get_statistic,
        kendall_like_statistic,
        register_statistic,
        registered_statistics,
        statistic_names,
        supports,
    )
    from comperbench.stats.metric_tests.significance import (
        EarlyStopping,
        SignificanceMatrix,
        TestResult,
        assign_ranks,
        paired_bootstrap,
        perm_both,
        permutation_test,
        significance_matrix,
        williams_test,
    )
    from comperbench.stats.pair_ranking.soft_pairwise_accuracy import (
        SoftPairwiseAccuracy,
        soft_pairwise_accuracy,
    )
    from comperbench.stats.resampling import Interval, bootstrap_note
    from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling
    from comperbench.stats.signature import Signature, benchmark_tag

EXPORTS: dict[str, tuple[str, ...]] = {
    "annotator_agreement.agreement": ("AgreementResult", "agreement"),
    "annotator_agreement.ceiling": (
        "AnnotatorScores",
        "CeilingResult",
        "annotator_ceiling",
        "benchmark_ceiling",
    ),
    "averaging": ("MT_METRICS_EVAL", "Averaging", "Conventions"),
    "metric_correlation.contexts": ("SystemContexts", "system_unit_matrix"),
    "metric_correlation.correlation": (
        "CorrelationResult",
        "correlate",
        "correlation_table",
        "point_correlation",
    ),
    "metric_correlation.statistics": (
        "CORRELATIONS",
        "Chooses",
        "Grouped",
        "OnScores",
        "OverContexts",
        "PairVerdicts",
        "Point",
        "SharedSides",
        "Statistic",
        "get_statistic",
        "kendall_like_statistic",
        "register_statistic",
        "registered_statistics",
        "statistic_names",
        "supports",
    ),
    "metric_tests.significance": (
        "EarlyStopping",
        "SignificanceMatrix",
        "TestResult",
        "assign_ranks",
        "paired_bootstrap",
        "perm_both",
        "permutation_test",
        "significance_matrix",
        "williams_test",
    ),
    "pair_ranking.soft_pairwise_accuracy": ("SoftPairwiseAccuracy", "soft_pairwise_accuracy"),
    "resampling": ("Interval", "bootstrap_note"),
    "settings": ("DEFAULT_RESAMPLING", "Resampling"),
    "signature": ("Signature", "benchmark_tag"),
}
"""Each module of the package (relative to `comperbench.stats`) with the public names it
defines; a name is imported on first use, so that `import comperbench.stats` loads no
scipy.stats and each module loads only what it needs."""

RENAMED: dict[str, str] = {"pairwise_permutation": "permutation_test"}
"""Old public names that keep working for one release, with a warning naming the new one."""

_HOMES = {name: module for module, names in EXPORTS.items() for name in names}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    """The names of `__all__`, each imported from its module on first use (an old name of
    `RENAMED` with a DeprecationWarning).

    Args:
        name: the attribute asked for.

    Returns:
        The public object of that name.
    """
    if name in RENAMED:
        deprecated(f"comperbench.stats.{name}", f"comperbench.stats.{RENAMED[name]}")
        name = RENAMED[name]
    if name not in _HOMES:
        raise AttributeError(f"module 'comperbench.stats' has no attribute {name!r}")
    return getattr(importlib.import_module(f"comperbench.stats.{_HOMES[name]}"), name)
