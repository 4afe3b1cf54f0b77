"""Meta-evaluation statistics, one subpackage per question a reader has:

- `metric_correlation`: how well does a metric agree with human scores? `correlate` and
  `correlation_table` (turn, dialogue, system level; grouped turn level; bootstrap intervals) and
  the registered correlation `Statistic`s (`CORRELATIONS`, `get_statistic`);
- `pair_ranking`: does it order pairs as the humans do? WMT's pairwise accuracy with tie
  calibration (`acc-eq`), `soft_pairwise_accuracy` (WMT 2024), WMT20's Kendall-like tau
  (`kendall_like_statistic`), pairwise difference;
- `metric_comparison`: is one metric better than another? `significance_matrix` (PERM-BOTH, the
  pairwise permutation test between two metrics, paired bootstrap, Williams; early stopping;
  clusters);
- `annotator_agreement`: do the people agree? `agreement` (Krippendorff's alpha, Fleiss', Cohen's
  kappa) and the human ceiling (`annotator_ceiling`, `benchmark_ceiling`: one annotator's
  correlation with the mean of the others, on the metrics' scale);
- `human`: what does the user's own human evaluation say? `human.votes` (A/B votes between
  systems: win rates, their tests, Bradley-Terry, Elo, TrueSkill, ChatEval), `human.judgments`
  (labels, ratings, selections) and `human.planning` (power, sample size);

Shared by all, here: `Averaging` and `Conventions` (how grouped values are averaged;
mt-metrics-eval's conventions as `MT_METRICS_EVAL`), resampling and bootstrap intervals,
`multiplicity` (Holm, Benjamini-Hochberg), `rates` (Wilson, z-tests), the vectorised kernels, the
shared `settings`, and the `signature` string every result carries.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comperbench.stats.annotator_agreement.agreement import AgreementResult, agreement
    from comperbench.stats.annotator_agreement.ceiling import (
        AnnotatorScores,
        CeilingResult,
        annotator_ceiling,
        benchmark_ceiling,
    )
    from comperbench.stats.averaging import MT_METRICS_EVAL, Averaging, Conventions
    from comperbench.stats.metric_comparison.significance import (
        EarlyStopping,
        SignificanceMatrix,
        TestResult,
        assign_ranks,
        paired_bootstrap,
        pairwise_permutation,
        perm_both,
        significance_matrix,
        williams_test,
    )
    from comperbench.stats.metric_correlation.contexts import SystemContexts, system_unit_matrix
    from comperbench.stats.metric_correlation.correlation import (
        CorrelationResult,
        correlate,
        correlation_table,
        point_correlation,
    )
    from comperbench.stats.metric_correlation.statistics import (
        CORRELATIONS,
        Point,
        Statistic,
        get_statistic,
        kendall_like_statistic,
        register_statistic,
        registered_statistics,
        statistic_names,
    )
    from comperbench.stats.pair_ranking.soft_pairwise_accuracy import (
        SoftPairwiseAccuracy,
        soft_pairwise_accuracy,
    )
    from comperbench.stats.resampling import Interval, bootstrap_note
    from comperbench.stats.signature import Signature, benchmark_tag

_HOMES = {
    "AgreementResult": "annotator_agreement.agreement",
    "agreement": "annotator_agreement.agreement",
    "AnnotatorScores": "annotator_agreement.ceiling",
    "CeilingResult": "annotator_agreement.ceiling",
    "annotator_ceiling": "annotator_agreement.ceiling",
    "benchmark_ceiling": "annotator_agreement.ceiling",
    "Averaging": "averaging",
    "Conventions": "averaging",
    "MT_METRICS_EVAL": "averaging",
    "SystemContexts": "metric_correlation.contexts",
    "system_unit_matrix": "metric_correlation.contexts",
    "CorrelationResult": "metric_correlation.correlation",
    "correlate": "metric_correlation.correlation",
    "correlation_table": "metric_correlation.correlation",
    "point_correlation": "metric_correlation.correlation",
    "Interval": "resampling",
    "bootstrap_note": "resampling",
    "Signature": "signature",
    "benchmark_tag": "signature",
    "EarlyStopping": "metric_comparison.significance",
    "SignificanceMatrix": "metric_comparison.significance",
    "TestResult": "metric_comparison.significance",
    "assign_ranks": "metric_comparison.significance",
    "paired_bootstrap": "metric_comparison.significance",
    "pairwise_permutation": "metric_comparison.significance",
    "perm_both": "metric_comparison.significance",
    "significance_matrix": "metric_comparison.significance",
    "williams_test": "metric_comparison.significance",
    "SoftPairwiseAccuracy": "pair_ranking.soft_pairwise_accuracy",
    "soft_pairwise_accuracy": "pair_ranking.soft_pairwise_accuracy",
    "CORRELATIONS": "metric_correlation.statistics",
    "Point": "metric_correlation.statistics",
    "Statistic": "metric_correlation.statistics",
    "get_statistic": "metric_correlation.statistics",
    "kendall_like_statistic": "metric_correlation.statistics",
    "register_statistic": "metric_correlation.statistics",
    "registered_statistics": "metric_correlation.statistics",
    "statistic_names": "metric_correlation.statistics",
}
"""Where each public name is defined; imported on first use, so that `import comperbench.stats`
loads no scipy.stats and each module loads only what it needs."""

__all__ = [
    "CORRELATIONS",
    "MT_METRICS_EVAL",
    "AgreementResult",
    "AnnotatorScores",
    "Averaging",
    "CeilingResult",
    "Conventions",
    "CorrelationResult",
    "EarlyStopping",
    "Interval",
    "Point",
    "Signature",
    "SignificanceMatrix",
    "SoftPairwiseAccuracy",
    "Statistic",
    "SystemContexts",
    "TestResult",
    "agreement",
    "annotator_ceiling",
    "assign_ranks",
    "benchmark_ceiling",
    "benchmark_tag",
    "bootstrap_note",
    "correlate",
    "correlation_table",
    "get_statistic",
    "kendall_like_statistic",
    "paired_bootstrap",
    "pairwise_permutation",
    "perm_both",
    "point_correlation",
    "register_statistic",
    "registered_statistics",
    "significance_matrix",
    "soft_pairwise_accuracy",
    "statistic_names",
    "system_unit_matrix",
    "williams_test",
]


def __getattr__(name: str) -> Any:
    """The names of `__all__`, each imported from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module 'comperbench.stats' has no attribute {name!r}")
    return getattr(importlib.import_module(f"comperbench.stats.{_HOMES[name]}"), name)
