"""Meta-evaluation statistics: correlations, significance, agreement, pairwise ranking, power.

Entry points: `correlate` / `correlation_table` (turn, dialogue, system level; grouped turn level;
bootstrap intervals), `significance_matrix` (PERM-BOTH, the pairwise permutation test, paired
bootstrap, Williams; early stopping; clusters), `Averaging` and `Conventions` (how grouped values
are averaged; mt-metrics-eval's conventions as `MT_METRICS_EVAL`),
`agreement` (Krippendorff's alpha, Fleiss', Cohen's kappa), pairwise human judgments (`pairwise`:
comparisons, win/tie/loss, WMT scores; `bradley_terry`, `online_ratings` (Elo, TrueSkill),
`pairwise_tests`, `votes`, `pairwise_analysis`), `multiplicity` (Holm, Benjamini-Hochberg),
`rates` (Wilson, z-tests, tests against an expected rate) and `power`.
Correlation statistics are registered `Statistic` objects (`CORRELATIONS`, `get_statistic`),
WMT's pairwise accuracy with tie calibration (`acc-eq`) and WMT20's Kendall-like tau
(`kendall_like_statistic`) among them; `soft_pairwise_accuracy` compares
the metric's and the humans' pairwise confidence between systems (WMT 2024).
Every result carries a `signature` string.
"""

from __future__ import annotations

from comperbench.stats.agreement import AgreementResult, agreement
from comperbench.stats.averaging import MT_METRICS_EVAL, Averaging, Conventions
from comperbench.stats.contexts import SystemContexts, system_unit_matrix
from comperbench.stats.correlation import (
    CorrelationResult,
    correlate,
    correlation_table,
    point_correlation,
)
from comperbench.stats.resampling import Interval, bootstrap_note
from comperbench.stats.signature import Signature, benchmark_tag
from comperbench.stats.significance import (
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
from comperbench.stats.soft_pairwise_accuracy import SoftPairwiseAccuracy, soft_pairwise_accuracy
from comperbench.stats.statistics import (
    CORRELATIONS,
    Point,
    Statistic,
    get_statistic,
    kendall_like_statistic,
    register_statistic,
    registered_statistics,
    statistic_names,
)

__all__ = [
    "CORRELATIONS",
    "MT_METRICS_EVAL",
    "AgreementResult",
    "Averaging",
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
    "assign_ranks",
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
