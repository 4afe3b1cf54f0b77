"""Meta-evaluation statistics: correlations, significance, agreement, pairwise ranking, power.

Entry points: `correlate` / `correlation_table` (turn, dialogue, system level; grouped turn level;
bootstrap intervals), `significance_matrix` (PERM-BOTH, paired bootstrap, Williams; clusters),
`agreement` (Krippendorff's alpha, Fleiss', Cohen's kappa), `pairwise` (win/tie/loss,
Bradley-Terry, Elo, TrueSkill and their tests), `rates` (Wilson, z-tests) and `power`.
Every result carries a `signature` string.
"""

from __future__ import annotations

from comperbench.stats.agreement import AgreementResult, agreement
from comperbench.stats.correlation import (
    CorrelationResult,
    correlate,
    correlation_table,
    point_correlation,
)
from comperbench.stats.resampling import Interval
from comperbench.stats.signature import Signature, benchmark_tag
from comperbench.stats.significance import (
    SignificanceMatrix,
    assign_ranks,
    paired_bootstrap,
    perm_both,
    significance_matrix,
    williams_test,
)

__all__ = [
    "AgreementResult",
    "CorrelationResult",
    "Interval",
    "Signature",
    "SignificanceMatrix",
    "agreement",
    "assign_ranks",
    "benchmark_tag",
    "correlate",
    "correlation_table",
    "paired_bootstrap",
    "perm_both",
    "point_correlation",
    "significance_matrix",
    "williams_test",
]
