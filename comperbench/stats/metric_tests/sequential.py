"""The p-value matrices of tests between metrics: permutation tests run block by block, with
mt-metrics-eval's early stopping, and the paired bootstrap.

A test's null differences are produced on demand (`NullOf`); `sequential_p` asks for them a
block at a time and stops once the p-value is clearly small or large. `SharedNull` computes the
null of one pair of metrics once and reads it in both directions; `permutation_p_matrix` runs
every pair so, and `bootstrap_p_matrix` reads every pair from shared bootstrap replicates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from comperbench.stats.averaging import Conventions, PValueCount, p_at_least
from comperbench.stats.metric_correlation.statistics import Statistic, own_code_identity
from comperbench.stats.metric_tests.pair_memo import PAIRS, PairInputs
from comperbench.stats.resampling import exact_swaps


@dataclass(frozen=True)
class EarlyStopping:
    """Stop a permutation test at the end of a block of `block_size` permutations once its
    p-value is below `below` or above `above` (mt-metrics-eval's PermutationSigDiffParams)."""

    block_size: int = 1000
    below: float = 0.02
    above: float = 0.5

    def __post_init__(self) -> None:
        if self.block_size < 1:
            raise ValueError(
                f"early stopping needs blocks of at least 1 permutation, not {self.block_size}"
            )
        if not 0 <= self.below <= self.above <= 1:
            raise ValueError(
                f"early stopping needs 0 <= below <= above <= 1, got {self.below}, {self.above}"
            )


class TestResult(NamedTuple):
    """delta = stat(A) - stat(B), the p-value of "A better than B", and the permutations used."""

    delta: float
    p_value: float
    n_resamples: int


NullOf = Callable[[int, int], np.ndarray]
"""(start, stop) -> the null differences stat(A') - stat(B') of permutations start..stop-1,
asked for in order."""


def sequential_p(
    null_of: NullOf,
    n_resamples: int,
    observed: float,
    early: EarlyStopping | None,
    count: PValueCount = "plus-one",
) -> tuple[float, int]:
    """p-value of a permutation test run block by block, and the permutations it used."""
    size = n_resamples if early is None else early.block_size
    null = np.empty(0)
    p = p_at_least(null, observed, count)
    for start in range(0, n_resamples, max(size, 1)):
        null = np.r_[null, null_of(start, min(start + size, n_resamples))]
        p = p_at_least(null, observed, count)
        if early is not None and not early.below <= p <= early.above:
            break
    return p, int(null.size)


def permutation_plan(
    n_units: int, n_resamples: int, early: EarlyStopping | None, count: PValueCount
) -> tuple[int, EarlyStopping | None, PValueCount]:
    """The permutations a paired test over `n_units` swapped units runs, its early stopping
    and its p-value count: all 2^n_units swap patterns, to the end and counted b / k (the
    observed pattern is among them), when they are no more than the `n_resamples` asked."""
    if exact_swaps(n_units, n_resamples):
        return 2**n_units, None, "fraction"
    return n_resamples, early, count


class SharedNull:
    """The null differences of one pair of metrics, computed once, block by block as asked,
    and read in both directions (B against A is the negation of A against B)."""

    def __init__(self, null_of: NullOf) -> None:
        self._null_of = null_of
        self._done = np.empty(0)

    def direction(self, sign: float) -> NullOf:
        def null_of(start: int, stop: int) -> np.ndarray:
            if stop > self._done.size:
                self._done = np.r_[self._done, self._null_of(self._done.size, stop)]
            return sign * self._done[start:stop]

        return null_of


@dataclass(frozen=True)
class TestSettings:
    """How the tests between every pair of metrics are run."""

    test: str
    statistic: Statistic
    n_resamples: int
    seed: int
    early: EarlyStopping | None
    conventions: Conventions


PairNull = Callable[[int, int], tuple[float, NullOf]]
"""(i, j) -> delta = stat(i) - stat(j) and the null differences of that pair."""


def permutation_p_matrix(
    m: int, pair_null: PairNull, settings: TestSettings, n_units: int, inputs: PairInputs
) -> tuple[np.ndarray, np.ndarray]:
    """p[i, j] of "metric i better than metric j" by a permutation test swapping `n_units`
    units, and the permutations each used (see `permutation_plan`); the null of each pair is
    computed once and serves both directions. A pair tested before in this process on the same
    `inputs` and settings is read from `pair_memo.PAIRS`."""
    k, early, count = permutation_plan(
        n_units, settings.n_resamples, settings.early, settings.conventions.p_value
    )
    identity = own_code_identity(settings.statistic)
    plan = (settings.test, settings.n_resamples, settings.seed, settings.early, n_units)
    context = repr((identity, plan, settings.conventions))
    key = None if identity is None else inputs.keys(context)
    p, used = np.full((m, m), np.nan), np.zeros((m, m), dtype=int)
    for i in range(m):
        for j in range(i + 1, m):
            pair_key = None if key is None else key(i, j)
            tested = None if pair_key is None else PAIRS.get(pair_key)
            if tested is None:
                delta, null_of = pair_null(i, j)
                shared = SharedNull(null_of)
                tested = (
                    *sequential_p(shared.direction(1.0), k, delta, early, count),
                    *sequential_p(shared.direction(-1.0), k, -delta, early, count),
                )
                if pair_key is not None:
                    PAIRS.put(pair_key, tested)
            p[i, j], used[i, j], p[j, i], used[j, i] = tested
    return p, used


def bootstrap_p_matrix(
    values: np.ndarray, boot: np.ndarray, count: PValueCount
) -> tuple[np.ndarray, np.ndarray]:
    """p[i, j] of "metric i better than metric j" by the paired bootstrap: the replicates'
    deltas (boot: metrics x resamples) shifted to mean 0 at the observed delta; and the
    resamples each used."""
    m = len(values)
    p, used = np.full((m, m), np.nan), np.zeros((m, m), dtype=int)
    for i in range(m):
        for j in range(m):
            if i != j:
                delta = values[i] - values[j]
                p[i, j] = p_at_least(boot[i] - boot[j] - delta, delta, count)
                used[i, j] = boot.shape[1]
    return p, used
