"""One verdict per comparison: every yes/no a page, a command or a report says about metrics.

`metric_verdicts` runs the pairwise tests of `significance_matrix` once, with as many
permutations as the multiple-comparison correction needs to be able to show a difference, and
adjusts their p-values as one family. `Verdicts` then answers every question from that one
adjusted matrix: which pairs differ, each metric's rank and rank range, whether it is tied with
the leader, and the significance clusters (the WMT metrics task's rank clusters, here on the
adjusted p-values). Nothing else decides a verdict.

Resolution: a permutation p-value is at least 1 / (k + 1), so Holm over m tests can never go
below m / (k + 1). The permutations are chosen so that this floor is at most half of alpha
(within a budget); a pair whose p-value is clearly above alpha after a block stops there, since
no correction can make it significant. A budget that caps the count, or an exact enumeration
with too few patterns (a handful of systems), is stated by `Resolution.note`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from comperbench.stats import multiplicity
from comperbench.stats.metric_correlation.correlation import Level, StatisticLike
from comperbench.stats.metric_tests.sequential import EarlyStopping
from comperbench.stats.metric_tests.significance import (
    PERMUTATION_TESTS,
    SignificanceMatrix,
    Test,
    assign_ranks,
    significance_matrix,
)
from comperbench.stats.resampling import exact_swaps
from comperbench.stats.settings import (
    DEFAULT_RESAMPLING,
    SETTINGS,
    Resampling,
    takes_resampling,
)

BLOCK = 1000
"""Permutations per block: every pair runs one, then only the pairs that may still differ."""
MAX_PERMUTATIONS = 20_000
"""The default budget: enough for Holm over 19 metrics (342 one-sided tests) at alpha 0.05."""


def smallest_p(permutations: int, n_units: int, count: str = "plus-one") -> float:
    """The smallest p-value a permutation test over `n_units` swapped units can give."""
    if exact_swaps(n_units, permutations):
        return 1.0 / 2**n_units
    return 1.0 / (permutations + (count == "plus-one"))


def smallest_adjusted(p_floor: float, family: int, correction: str) -> float:
    """The smallest adjusted p-value one test can reach in a family of `family` tests."""
    return p_floor if correction == "none" else min(1.0, family * p_floor)


def permutations_needed(family: int, alpha: float, correction: str, budget: int) -> int:
    """Whole blocks of permutations enough for one test's adjusted p-value to reach alpha / 2
    in a family of `family` tests (plus-one count), at most `budget` (at least one block)."""
    scale = 1 if correction == "none" else max(family, 1)
    needed = math.ceil(2 * scale / alpha) - 1
    return max(BLOCK, min(budget, BLOCK * math.ceil(needed / BLOCK)))


@dataclass(frozen=True)
class Resolution:
    """How finely the tests could decide: the permutations asked for, the smallest raw and
    adjusted p-values they can give, and whether a budget capped them."""

    permutations: int
    smallest_p: float
    smallest_adjusted: float
    alpha: float
    capped: bool
    exact: bool

    @property
    def can_differ(self) -> bool:
        """Whether any pair can be shown to differ at alpha."""
        return self.smallest_adjusted <= self.alpha

    @property
    def note(self) -> str | None:
        """What a reader must be told when no difference can be shown, else None."""
        if self.can_differ:
            return None
        how = (
            f"all {self.permutations} swap patterns"
            if self.exact
            else f"{self.permutations} permutations" + (" (the budget)" if self.capped else "")
        )
        return (
            f"with {how} the smallest achievable adjusted p-value is "
            f"{self.smallest_adjusted:.3g}, above alpha = {self.alpha:g}: no difference between "
            "these metrics can be shown"
        )


@dataclass(frozen=True)
class Verdicts:
    """Every comparison of a set of metrics, decided once from one adjusted p-value matrix.

    Metrics are ordered best first (`matrix.metrics`); `adjusted[i, j]` is the adjusted p-value
    of "metric i correlates better than metric j", significant when at most alpha."""

    matrix: SignificanceMatrix
    adjusted: np.ndarray
    correction: multiplicity.Correction
    test: str
    resolution: Resolution

    @property
    def metrics(self) -> list[str]:
        return self.matrix.metrics

    @property
    def values(self) -> np.ndarray:
        return self.matrix.values

    @property
    def alpha(self) -> float:
        return self.matrix.alpha

    @property
    def family(self) -> int:
        """The number of tests the correction counts."""
        return multiplicity.family_size(self.adjusted)

    @cached_property
    def better(self) -> np.ndarray:
        """better[i, j]: metric i is significantly better than metric j."""
        with np.errstate(invalid="ignore"):
            return np.nan_to_num(self.adjusted, nan=1.0) <= self.alpha

    def index(self, metric: str) -> int:
        return self.metrics.index(metric)

    def differs(self, a: str, b: str) -> bool:
        """Whether one of the two metrics is significantly better than the other."""
        i, j = self.index(a), self.index(b)
        return bool(self.better[i, j] or self.better[j, i])

    @cached_property
    def ranks(self) -> list[int]:
        """Each metric's place by its value (ties share the best place)."""
        values = self.values
        return [1 + int(np.count_nonzero(values > v)) for v in values]

    @cached_property
    def rank_ranges(self) -> list[tuple[int, int]]:
        """Each metric's possible places: 1 + the metrics significantly better than it, to the
        count of metrics less those significantly worse."""
        m = len(self.metrics)
        return [
            (1 + int(self.better[:, i].sum()), m - int(self.better[i, :].sum())) for i in range(m)
        ]

    @cached_property
    def tied_with_leader(self) -> list[bool]:
        """Whether no leader (a metric ranked first) is significantly better than the metric."""
        leaders = [k for k, rank in enumerate(self.ranks) if rank == 1]
        return [not any(self.better[k, i] for k in leaders) for i in range(len(self.metrics))]

    def p_vs_leader(self, i: int) -> float:
        """The adjusted p-value of "the leader is better than metric i" (NaN for a leader)."""
        if self.ranks[i] == 1:
            return math.nan
        return float(min(self.adjusted[k, i] for k, r in enumerate(self.ranks) if r == 1))

    def ordered_by(self, values: Mapping[str, float]) -> Verdicts:
        """These verdicts with the metrics placed, and led, by `values` (what a page shows of
        each, where the tests ran on fewer units: those all metrics share), best first; the
        tests, their deltas and p-values are unchanged, and the clusters follow the new order."""
        shown = np.array([values[name] for name in self.metrics], dtype=float)
        order = np.argsort(-shown, kind="stable")
        pick = np.ix_(order, order)
        m = self.matrix
        matrix = replace(
            m,
            metrics=[m.metrics[k] for k in order],
            values=shown[order],
            deltas=m.deltas[pick],
            p_values=m.p_values[pick],
            ranks=assign_ranks(m.p_values[pick], m.alpha),
            resamples_used=m.resamples_used[pick] if m.resamples_used.size else m.resamples_used,
        )
        return replace(self, matrix=matrix, adjusted=self.adjusted[pick])

    @cached_property
    def cluster_ranks(self) -> list[int]:
        """The significance cluster of each metric (1 = the best cluster), on adjusted p."""
        return assign_ranks(self.adjusted, self.alpha)

    def clusters(self) -> list[list[str]]:
        """The metrics of each significance cluster, best cluster first."""
        out: dict[int, list[str]] = {}
        for name, rank in zip(self.metrics, self.cluster_ranks, strict=True):
            out.setdefault(rank, []).append(name)
        return [out[r] for r in sorted(out)]

    def differing_pairs(self) -> list[tuple[str, str, float]]:
        """(better, worse, adjusted p) of every pair shown to differ, smallest p first."""
        m = len(self.metrics)
        found = [
            (self.metrics[i], self.metrics[j], float(self.adjusted[i, j]))
            for i in range(m)
            for j in range(m)
            if self.better[i, j]
        ]
        return sorted(found, key=lambda f: f[2])

    def describe(self) -> str:
        """One sentence naming the test, its resolution and the correction of the family."""
        r = self.resolution
        draws = "resamples" if self.test == "paired-bootstrap" else "permutations"
        if r.exact:
            drawn = f"all {r.permutations} swap patterns; "
        elif self.test == "williams":
            drawn = ""
        else:
            drawn = f"{r.permutations} {draws} at most; "
        correction = multiplicity.describe(self.correction, self.family, "one-sided pairwise tests")
        floor = "p" if self.correction == "none" else "adjusted p"
        return (
            f"{self.test.upper()} over {self.matrix.n} {self.matrix.unit} ({drawn}smallest "
            f"achievable {floor} {r.smallest_adjusted:.3g}), {correction}, significant at "
            f"alpha = {self.alpha:g}"
        )


def _resolution(
    sig: SignificanceMatrix, test: str, asked: int, correction: str, capped: bool, count: str
) -> Resolution:
    """The resolution of the tests behind `sig`: an analytic test (Williams) has none to speak
    of, a resampling test's smallest p-value is one over its draws."""
    m = len(sig.metrics)
    exact = test in PERMUTATION_TESTS and exact_swaps(sig.swapped_units, asked)
    if test == "williams":
        floor = 0.0
    elif test in PERMUTATION_TESTS:
        floor = smallest_p(asked, sig.swapped_units, count)
    else:
        floor = 1.0 / (asked + (count == "plus-one"))
    return Resolution(
        permutations=2**sig.swapped_units if exact else asked,
        smallest_p=floor,
        smallest_adjusted=smallest_adjusted(floor, m * (m - 1), correction),
        alpha=sig.alpha,
        capped=capped,
        exact=exact,
    )


@takes_resampling(method="statistic")
def metric_verdicts(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    statistic: StatisticLike = "pearson",
    test: Test = "perm-both",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    correction: multiplicity.Correction = SETTINGS.correction,
    alpha: float = SETTINGS.alpha,
    resampling: Resampling = DEFAULT_RESAMPLING,
    permutations: int | None = None,
    budget: int = MAX_PERMUTATIONS,
    benchmark: str | None = None,
    early_stopping: EarlyStopping | None = None,
) -> Verdicts:
    """Test every pair of metrics once and decide every comparison from the adjusted p-values.

    Permutation tests stop a pair after a block once its p-value is above twice alpha, unless
    `early_stopping` says otherwise.

    Args:
        metric_scores: as for `significance_matrix`.
        human_scores: as for `significance_matrix`.
        level: as for `significance_matrix`.
        statistic: as for `significance_matrix`.
        test: as for `significance_matrix`.
        groups: as for `significance_matrix`.
        systems: as for `significance_matrix`.
        correction: the multiplicity correction of the family of comparisons.
        alpha: the significance level.
        resampling: its seed and conventions (the number of resamples is `permutations`).
        permutations: resamples per test; None chooses enough for the family (see
            `permutations_needed`, capped at `budget`).
        budget: the most resamples `permutations` None may choose.
        benchmark: the benchmark's tag, named in the signature.
        early_stopping: when a permutation test may stop for a pair (default: see above).

    Returns:
        The `Verdicts`.
    """
    conventions = resampling.conventions
    m = len(metric_scores)
    family = m * (m - 1)
    wanted = permutations_needed(family, alpha, correction, 10**12)
    asked = permutations or min(wanted, budget)
    permutation = test in PERMUTATION_TESTS
    early = early_stopping or EarlyStopping(BLOCK, 0.0, min(1.0, 2 * alpha))
    sig = significance_matrix(
        metric_scores,
        human_scores,
        level=level,
        statistic=statistic,
        test=test,
        groups=groups,
        systems=systems,
        resampling=replace(resampling, resamples=asked),
        alpha=alpha,
        benchmark=benchmark,
        early_stopping=early if permutation else None,
    )
    adjusted = multiplicity.adjust_matrix(sig.p_values, correction)
    capped = permutations is None and asked < wanted
    resolution = _resolution(sig, test, asked, correction, capped, conventions.p_value)
    return Verdicts(sig, adjusted, correction, test, resolution)
