"""Tests between metrics on a statistic over contexts (soft pairwise accuracy).

The units are every system's scores on the contexts that all systems answered with every
metric's and the human score. The paired bootstrap resamples contexts, with one count matrix for
all metrics. PERM-BOTH z-scores each metric's systems x contexts matrix and swaps the two
metrics' scores cell by cell, as mt-metrics-eval's `PermutationSigDiff` swaps the entries of its
flattened system x item vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from comperbench.stats.metric_correlation.contexts import SystemContexts, undefined_reason
from comperbench.stats.metric_correlation.statistics import Statistic
from comperbench.stats.metric_tests.pair_memo import PairInputs
from comperbench.stats.metric_tests.sequential import (
    NullOf,
    TestSettings,
    bootstrap_p_matrix,
    permutation_p_matrix,
)
from comperbench.stats.resampling import (
    bootstrap_indices,
    counts_from_indices,
    swap_masks,
    zscore,
)

CONTEXT_TESTS: tuple[str, ...] = ("perm-both", "paired-bootstrap")


@dataclass(frozen=True)
class ContextUnits:
    """Each metric's and the humans' matrices on the contexts complete for all of them."""

    metrics: np.ndarray
    """(metrics, systems, contexts)."""
    human: np.ndarray
    n_dropped: int
    """Items in the contexts left out."""

    @classmethod
    def of(
        cls, X: np.ndarray, y: np.ndarray, systems: np.ndarray, contexts: np.ndarray
    ) -> ContextUnits:
        data = SystemContexts.of(X, y, systems, contexts)
        complete = np.logical_and.reduce([data.complete(m) for m in range(X.shape[0])])
        dropped = int(data.items[~complete].sum())
        return cls(data.metrics[:, :, complete], data.human[:, complete], dropped)

    @property
    def n_contexts(self) -> int:
        return self.human.shape[1]

    def values(self, statistic: Statistic) -> tuple[np.ndarray, dict[int, str]]:
        """Each metric's value (NaN where undefined) and why the undefined ones are."""
        ones = np.ones((1, self.n_contexts))
        values, reasons = np.full(len(self.metrics), np.nan), {}
        for m, metric in enumerate(self.metrics):
            if reason := undefined_reason(metric, self.human):
                reasons[m] = reason
            else:
                values[m] = statistic.context_resampled(metric, self.human, ones)[0]
        return values, reasons


def context_p_values(
    settings: TestSettings, units: ContextUnits, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """p[i, j] of "metric i better than metric j" and the resamples each p-value used."""
    statistic = settings.statistic
    if settings.test == "paired-bootstrap":
        n = units.n_contexts
        W = counts_from_indices(bootstrap_indices(n, settings.n_resamples, settings.seed), n)
        human_side = statistic.context_side(units.human, W)
        boot = np.stack(
            [statistic.context_resampled(m, units.human, W, human_side) for m in units.metrics]
        )
        return bootstrap_p_matrix(values, boot, settings.conventions.p_value)
    Z = np.stack([zscore(metric) for metric in units.metrics])
    swaps = swap_masks(units.human.size, settings.n_resamples, settings.seed)
    human_side = statistic.context_side(units.human, np.ones((1, units.n_contexts)))

    def pair_null(i: int, j: int) -> tuple[float, NullOf]:
        return values[i] - values[j], _null(statistic, Z[i], Z[j], units.human, human_side, swaps)

    inputs = PairInputs([units.human], [(metric,) for metric in units.metrics])
    return permutation_p_matrix(len(values), pair_null, settings, units.human.size, inputs)


def _null(
    statistic: Statistic,
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    human_side: np.ndarray,
    swaps: np.ndarray,
) -> NullOf:
    """stat(A') - stat(B') for the swap rows asked for, a row per cell of the matrices."""
    ones = np.ones((1, a.shape[1]))

    def null_of(start: int, stop: int) -> np.ndarray:
        out = np.empty(stop - start)
        for r, swap in enumerate(swaps[start:stop]):
            cells = swap.reshape(a.shape)
            value_a = statistic.context_resampled(np.where(cells, b, a), human, ones, human_side)
            value_b = statistic.context_resampled(np.where(cells, a, b), human, ones, human_side)
            out[r] = value_a[0] - value_b[0]
        return out

    return null_of
