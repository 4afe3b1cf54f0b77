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

from comperbench.stats.averaging import PValueCount, p_at_least
from comperbench.stats.contexts import SystemContexts, undefined_reason
from comperbench.stats.resampling import (
    bootstrap_indices,
    counts_from_indices,
    swap_masks,
    zscore,
)
from comperbench.stats.sequential import EarlyStopping, NullOf, SharedNull, sequential_p
from comperbench.stats.statistics import Statistic

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


@dataclass(frozen=True)
class ContextTest:
    test: str
    statistic: Statistic
    n_resamples: int
    seed: int
    early: EarlyStopping | None
    count: PValueCount

    def p_values(self, units: ContextUnits, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """p[i, j] of "metric i better than metric j" and the resamples each p-value used."""
        if self.test == "paired-bootstrap":
            return self._bootstrap(units, values)
        return self._perm_both(units, values)

    def _bootstrap(self, units: ContextUnits, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, k = units.n_contexts, self.n_resamples
        W = counts_from_indices(bootstrap_indices(n, k, self.seed), n)
        human_side = self.statistic.context_side(units.human, W)
        boot = [
            self.statistic.context_resampled(m, units.human, W, human_side) for m in units.metrics
        ]
        m = len(values)
        p, used = np.full((m, m), np.nan), np.zeros((m, m), dtype=int)
        for i in range(m):
            for j in range(m):
                if i != j:
                    delta = values[i] - values[j]
                    p[i, j] = p_at_least(boot[i] - boot[j] - delta, delta, self.count)
                    used[i, j] = k
        return p, used

    def _perm_both(self, units: ContextUnits, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Z = np.stack([zscore(metric) for metric in units.metrics])
        swaps = swap_masks(units.human.size, self.n_resamples, self.seed)
        human_side = self.statistic.context_side(units.human, np.ones((1, units.n_contexts)))
        m = len(values)
        p, used = np.full((m, m), np.nan), np.zeros((m, m), dtype=int)
        for i in range(m):
            for j in range(i + 1, m):
                shared = SharedNull(self._null(Z[i], Z[j], units.human, human_side, swaps))
                delta = values[i] - values[j]
                p[i, j], used[i, j] = sequential_p(
                    shared.direction(1.0), self.n_resamples, delta, self.early, self.count
                )
                p[j, i], used[j, i] = sequential_p(
                    shared.direction(-1.0), self.n_resamples, -delta, self.early, self.count
                )
        return p, used

    def _null(
        self,
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
                value_a = self.statistic.context_resampled(
                    np.where(cells, b, a), human, ones, human_side
                )
                value_b = self.statistic.context_resampled(
                    np.where(cells, a, b), human, ones, human_side
                )
                out[r] = value_a[0] - value_b[0]
            return out

        return null_of
