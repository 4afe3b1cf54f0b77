"""Pairwise tests between the ranked metrics of a view, as `comperbench compare` makes them: the
test and multiplicity correction of `stats.settings` (PERM-BOTH, Holm) through
`significance_matrix`, on the items every ranked row is correlated on."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from comperbench.leaderboard.items import scored_items, source_level
from comperbench.leaderboard.store import Store
from comperbench.stats import multiplicity
from comperbench.stats.metric_comparison.significance import SignificanceMatrix, significance_matrix
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.settings import SETTINGS

Metrics = tuple[tuple[int, str, str], ...]
"""(metric id, label, benchmark version) of each metric compared."""


@lru_cache(maxsize=32)
def pairwise_tests(
    store: Store, benchmark: str, level: str, aspect: str, statistic: str, metrics: Metrics
) -> tuple[SignificanceMatrix, np.ndarray]:
    """The significance matrix of the metrics (best first) and its p-values adjusted as one
    family; kept for the view's metrics and their benchmark versions (the store only adds)."""
    items = scored_items(benchmark, source_level(benchmark, level))
    item_level = source_level(benchmark, level)
    scores = {}
    for metric_id, label, _ in metrics:
        found = store.item_scores(metric_id, benchmark, item_level)
        if found is None:
            raise ValueError(f"{label} has no stored scores on {benchmark} ({item_level})")
        scores[label] = found[items.positions]
    over_contexts = get_statistic(statistic).over_contexts is not None
    sig = significance_matrix(
        scores,
        items.human_scores(aspect),
        level=level,  # type: ignore[arg-type]
        method=statistic,
        test=SETTINGS.test,  # type: ignore[arg-type]
        groups=items.contexts if over_contexts else None,
        systems=items.systems,
        n_resamples=SETTINGS.n_resamples,
        alpha=SETTINGS.alpha,
        seed=SETTINGS.seed,
        benchmark=items.tag,
    )
    return sig, multiplicity.adjust_matrix(sig.p_values, SETTINGS.correction)
