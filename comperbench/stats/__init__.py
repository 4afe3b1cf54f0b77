"""Meta-evaluation statistics: correlations, significance, agreement, pairwise ranking, power."""

from __future__ import annotations

from comperbench.stats.correlation import (
    CorrelationResult,
    correlate,
    correlation_table,
    point_correlation,
)
from comperbench.stats.resampling import Interval
from comperbench.stats.signature import Signature
from comperbench.stats.significance import (
    SignificanceMatrix,
    assign_ranks,
    paired_bootstrap,
    perm_both,
    significance_matrix,
    williams_test,
)

__all__ = [
    "CorrelationResult",
    "Interval",
    "Signature",
    "SignificanceMatrix",
    "assign_ranks",
    "correlate",
    "correlation_table",
    "paired_bootstrap",
    "perm_both",
    "point_correlation",
    "significance_matrix",
    "williams_test",
]
