"""Is metric A better than metric B here? PERM-BOTH, the permutation test of pair verdicts,
Williams, paired bootstrap, rank clusters.

PERM-BOTH (Deutsch et al. 2021, the WMT metrics-task test): both metrics are z-scored, each
item's pair of scores is swapped with probability 1/2, and the p-value of "A correlates better
than B" is the share of permutations whose difference is at least the observed one, counted as
(b + 1) / (k + 1) so that it is never 0 (b / k under mt-metrics-eval's conventions). All pairs of
metrics share one seeded swap matrix, drawn and scored in chunks of rows, and every permutation
in a chunk is scored at once (see `vectorised`). The permutation test of pair verdicts
(`permutation_test`, the "pairwise permutation test" of Deutsch, Foster and Freitag 2023) swaps
the two metrics' verdicts on each pair of items instead, so that each metric keeps its own tie
threshold. Either test can stop early, at a block boundary where its p-value is clearly small or
large.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Literal

import numpy as np
from scipy import special

from comperbench.common.deprecation import renamed_names
from comperbench.stats.averaging import (
    WilliamsSign,
    p_at_least,
)
from comperbench.stats.metric_correlation.analytic import average_ranks
from comperbench.stats.metric_correlation.correlation import (
    Level,
    StatisticLike,
    _as_matrix,
    _system_means,
    resolve,
)
from comperbench.stats.metric_correlation.statistics import (
    PEARSON,
    SPEARMAN,
    Statistic,
    get_statistic,
    rounding_reason,
    undefined_reason,
    verdict_statistics,
)
from comperbench.stats.metric_tests.context_tests import (
    CONTEXT_TESTS,
    ContextUnits,
    context_p_values,
)
from comperbench.stats.metric_tests.pair_memo import PairInputs
from comperbench.stats.metric_tests.sequential import (
    EarlyStopping,
    NullOf,
    TestResult,
    TestSettings,
    bootstrap_p_matrix,
    permutation_p_matrix,
    permutation_plan,
    sequential_p,
)
from comperbench.stats.resampling import (
    all_swaps,
    bootstrap_count_chunks,
    exact_swaps,
    over_chunks,
    swap_row_source,
    transposed_swaps,
    zscore,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling
from comperbench.stats.signature import Signature
from comperbench.stats.vectorised import Groups, _compiled, centred

Test = Literal["perm-both", "pairwise-permutation", "paired-bootstrap", "williams"]
TESTS: tuple[str, ...] = ("perm-both", "pairwise-permutation", "paired-bootstrap", "williams")
PERMUTATION_TESTS: tuple[str, ...] = ("perm-both", "pairwise-permutation")
LANES = 64
"""Swap rows the compiled Spearman kernel counts at once."""
_CELLS = 20_000_000
"""Permutation-by-pair cells drawn per chunk of the pairwise permutation test."""


def _verdict_null(
    verdicts_a: tuple[np.ndarray, np.ndarray],
    verdicts_b: tuple[np.ndarray, np.ndarray],
    seed: int,
    n_resamples: int,
) -> tuple[float, NullOf]:
    """delta and null differences of the pairwise permutation test: each pair's verdicts are
    swapped between the two metrics with probability 1/2, so a swapped pair adds -d, not d;
    every swap pattern once when there are no more than `n_resamples` (`exact_swaps`)."""
    d_share = (verdicts_a[0] - verdicts_b[0]) * verdicts_a[1]
    delta = float(d_share.sum())
    rng = np.random.default_rng(seed)
    rows_per_chunk = max(1, _CELLS // max(d_share.size, 1))
    patterns = all_swaps(d_share.size) if exact_swaps(d_share.size, n_resamples) else None

    def null_of(start: int, stop: int) -> np.ndarray:
        out = [np.empty(0)]
        for lo in range(start, stop, rows_per_chunk):
            rows = min(rows_per_chunk, stop - lo)
            if patterns is None:
                swapped = rng.random((rows, d_share.size)) < 0.5
            else:
                swapped = patterns[lo : lo + rows]
            out.append(delta - 2.0 * (swapped @ d_share))
        return np.concatenate(out)

    return delta, null_of


def _statistic(x: np.ndarray, y: np.ndarray, statistic: Statistic, layout: Groups | None) -> float:
    if layout is None:
        return statistic.value(x, y)
    if rounding_reason(x, y):
        return np.nan
    return float(statistic.rows(x, y, layout)[0])


def _undefined_reason(x: np.ndarray, y: np.ndarray, layout: Groups | None, unit: str) -> str:
    if layout is not None:
        return rounding_reason(x, y) or "the correlation is undefined in every group"
    return undefined_reason(x, y, unit) or "the correlation is undefined"


SwapScorer = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""(swap rows) -> correlations of the permuted (A', B') rows with the human scores."""


def perm_both_rows(
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    swaps: np.ndarray,
    statistic: StatisticLike,
    layout: Groups | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Correlations of the permuted (A', B') rows with the human scores, for every swap row."""
    return _swap_scorer(a, b, human, get_statistic(statistic), layout)(swaps)


def _swap_scorer(
    a: np.ndarray, b: np.ndarray, human: np.ndarray, statistic: Statistic, layout: Groups | None
) -> SwapScorer:
    """`perm_both_rows` of A and B as a function of the swap rows alone.

    Without groups a permuted row is a 0/1-weighted sample of the 2n candidate scores, so the
    weighted kernels score all rows at once (the candidates sorted once); with groups the rows
    are scored directly.
    """
    if layout is not None:

        def grouped(swaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            rows_a, rows_b = np.where(swaps, b, a), np.where(swaps, a, b)
            return statistic.rows(rows_a, human, layout), statistic.rows(rows_b, human, layout)

        return grouped
    score = statistic.resampler(np.r_[a, b][None, :], np.r_[human, human])

    def weighted(swaps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keep_a = (~swaps).astype(float)
        w_a = np.hstack([keep_a, 1.0 - keep_a])
        return score(w_a)[0], score(np.hstack([1.0 - keep_a, keep_a]))[0]

    return weighted


@takes_resampling(method="statistic")
def perm_both(
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    *,
    statistic: StatisticLike = "pearson",
    groups: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    early_stopping: EarlyStopping | None = None,
) -> TestResult:
    """PERM-BOTH on complete items: delta = corr(A) - corr(B) and the p-value of "A correlates
    better than B".

    Args:
        a: metric A's score of every item.
        b: metric B's score of every item.
        human: the human score of every item.
        statistic: a registered statistic's name or a `Statistic`.
        groups: each item's group, for a statistic averaged over groups, or None.
        resampling: permutations (`resamples`), seed, and the conventions (averaging of
            groups, counting of p-values).
        early_stopping: when to stop permuting early, or None.

    Returns:
        The `TestResult` (delta, p-value, permutations used).
    """
    a, b, human = (np.asarray(v, dtype=float) for v in (a, b, human))
    conventions = resampling.conventions
    layout = Groups.of(np.asarray(groups)) if groups is not None else None
    found = get_statistic(statistic).with_averaging(conventions.averaging)
    za, zb = zscore(a), zscore(b)
    delta = _statistic(za, human, found, layout) - _statistic(zb, human, found, layout)
    swaps = swap_row_source(a.size, resampling.resamples, resampling.seed)
    null_of = _perm_both_null(_swap_scorer(za, zb, human, found, layout), swaps)
    plan = permutation_plan(a.size, resampling.resamples, early_stopping, conventions.p_value)
    p, used = sequential_p(null_of, plan[0], delta, *plan[1:])
    return TestResult(delta, p, used)


@takes_resampling(method="statistic")
def permutation_test(
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    *,
    statistic: StatisticLike = "acc-eq",
    groups: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    early_stopping: EarlyStopping | None = None,
) -> TestResult:
    """The permutation test of pair verdicts ("pairwise permutation test", Deutsch, Foster and
    Freitag 2023) on complete items: the two metrics' verdicts on each pair of items, each at
    its own tie threshold, are swapped with probability 1/2.

    Args:
        a: metric A's score of every item.
        b: metric B's score of every item.
        human: the human score of every item.
        statistic: a statistic that is a weighted sum of pair verdicts (`acc-eq`, ...).
        groups: each item's group (pairs are formed within groups), or None.
        resampling: permutations (`resamples`), seed and conventions.
        early_stopping: when to stop permuting early, or None.

    Returns:
        The `TestResult` (delta, p-value, permutations used).
    """
    a, b, human = (np.asarray(v, dtype=float) for v in (a, b, human))
    conventions = resampling.conventions
    found = get_statistic(statistic).with_averaging(conventions.averaging)
    layout = Groups.of(np.asarray(groups)) if groups is not None else Groups.single(human.size)
    verdicts = [found.pair_verdicts(v, human, layout) for v in (a, b)]
    delta, null_of = _verdict_null(*verdicts, resampling.seed, resampling.resamples)
    plan = permutation_plan(
        layout.n_pairs, resampling.resamples, early_stopping, conventions.p_value
    )
    p, used = sequential_p(null_of, plan[0], delta, *plan[1:])
    return TestResult(delta, p, used)


def _perm_both_pearson_all(
    Z: np.ndarray, y: np.ndarray, swaps: Iterator[np.ndarray]
) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    """Permuted Pearson correlations of every pair (i < j) from one matrix product per chunk
    of swap rows.

    A permuted row of A is a + s(b - a) with s in {0, 1}, so its sum, sum of squares and
    cross-product with the human scores are linear in the swap matrix: S @ [z, z^2, z h] of
    every metric gives them for all permutations (b's minus a's for a pair of metrics); B's
    follow as totals minus A's.
    """
    m, n = Z.shape
    h = centred(y)  # the cross-products below take sum(h) = 0
    shh = h @ h
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    if not pairs:
        return {}
    first = np.array([i for i, _ in pairs])
    second = np.array([j for _, j in pairs])
    per_metric = np.hstack([Z.T, (Z * Z).T, (Z * h).T])
    swapped = over_chunks(swaps, [lambda s: (s.astype(float) @ per_metric).T])[0].T
    s1, s2, s3 = (v[:, second] - v[:, first] for v in np.split(swapped, 3, axis=1))
    total, squares, cross = Z.sum(axis=1), (Z * Z).sum(axis=1), Z @ h
    sum_a = total[first] + s1
    sq_a = squares[first] + s2
    cross_a = cross[first] + s3
    sum_b = total[first] + total[second] - sum_a
    sq_b = squares[first] + squares[second] - sq_a
    cross_b = cross[first] + cross[second] - cross_a
    with np.errstate(invalid="ignore", divide="ignore"):
        r_a = cross_a / np.sqrt((sq_a - sum_a**2 / n) * shh)
        r_b = cross_b / np.sqrt((sq_b - sum_b**2 / n) * shh)
    return {pair: (r_a[:, c], r_b[:, c]) for c, pair in enumerate(pairs)}


def williams_test(
    r_ah: float,
    r_bh: float,
    r_ab: float,
    n: int,
    one_sided: bool = True,
    sign: WilliamsSign = "directional",
) -> float:
    """Williams' test (Steiger 1980, eq. 7) that corr(A, H) > corr(B, H) for dependent
    correlations.

    Args:
        r_ah: the correlation of metric A with the humans.
        r_bh: the correlation of metric B with the humans.
        r_ab: the correlation of the two metrics.
        n: the number of items.
        one_sided: the one-sided p-value (else the two-sided one).
        sign: "directional" (p of "A better than B") or "absolute" (sf(|t|), the same for
            (A, B) and (B, A), as mt-metrics-eval's WilliamsTest; `Conventions.williams`).

    Returns:
        The p-value (NaN for 3 items or fewer).
    """
    if n <= 3:
        return np.nan
    det = 1 - r_ah**2 - r_bh**2 - r_ab**2 + 2 * r_ah * r_bh * r_ab
    mean = (r_ah + r_bh) / 2
    t = (r_ah - r_bh) * np.sqrt((n - 1) * (1 + r_ab))
    t /= np.sqrt(2 * det * (n - 1) / (n - 3) + mean**2 * (1 - r_ab) ** 3)
    p = float(special.stdtr(n - 3, -(abs(t) if sign == "absolute" else t)))  # t.sf, as scipy
    return p if one_sided else float(2 * min(p, 1 - p))


@takes_resampling(method="statistic")
def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    human: np.ndarray,
    *,
    statistic: StatisticLike = "pearson",
    resampling: Resampling = DEFAULT_RESAMPLING,
) -> tuple[float, float, tuple[float, float]]:
    """The paired bootstrap test, items resampled.

    The null distribution is the bootstrap distribution of delta shifted to mean 0 at the
    observed delta (Koehn 2004; Berg-Kirkpatrick et al. 2012): p = (1 + #{d* - d >= d}) / (k + 1).

    Args:
        a: metric A's score of every item.
        b: metric B's score of every item.
        human: the human score of every item.
        statistic: a registered statistic's name or a `Statistic`.
        resampling: resamples, seed, and the conventions' counting of p-values.

    Returns:
        delta, the p-value of "A better than B", and the 95% percentile interval of delta.
    """
    a, b, human = (np.asarray(v, dtype=float) for v in (a, b, human))
    found = get_statistic(statistic)
    boot = _bootstrap(found, np.vstack([a, b]), human, resampling.resamples, resampling.seed)
    deltas = boot[0] - boot[1]
    delta = found.value(a, human) - found.value(b, human)
    valid = deltas[np.isfinite(deltas)]
    low, high = np.quantile(valid, [0.025, 0.975]) if valid.size else (np.nan, np.nan)
    p = p_at_least(deltas - delta, delta, resampling.conventions.p_value)
    return delta, p, (float(low), float(high))


def assign_ranks(p_values: np.ndarray, alpha: float) -> list[int]:
    """Cluster ranks for metrics sorted best first, as MTME's `AssignRanks`.

    p_values[i, j] is the p-value of "metric i better than metric j". A new cluster starts at
    the first metric that is significantly worse than some metric of the current cluster;
    significant means p <= alpha, as in MTME (`any(sig_matrix[:, i][start_index:i] <= pval)`).

    Args:
        p_values: (metrics, metrics) p-values, the metrics sorted best first.
        alpha: the significance level.

    Returns:
        Each metric's cluster rank, 1 for the best cluster.
    """
    ranks = [1] if len(p_values) else []
    start = 0
    for i in range(1, len(p_values)):
        if any(p_values[j, i] <= alpha for j in range(start, i)):
            start = i
            ranks.append(ranks[-1] + 1)
        else:
            ranks.append(ranks[-1])
    return ranks


@dataclass(frozen=True)
class SignificanceMatrix:
    """Metrics sorted best first, their correlations, pairwise deltas, p-values and clusters."""

    metrics: list[str]
    values: np.ndarray
    deltas: np.ndarray
    """deltas[i, j] = values[i] - values[j] as tested (on the `n` units; `values` may be those
    shown, on more units: see `Verdicts.ordered_by`)."""
    p_values: np.ndarray
    """p_values[i, j]: p-value of "metric i correlates better than metric j" (NaN on the diagonal)."""
    ranks: list[int]
    alpha: float
    n: int
    """Units used (items, groups, systems, or the contexts of a statistic over contexts) after
    dropping incomplete items."""
    n_dropped: int
    signature: str
    undefined: dict[str, str] = field(default_factory=dict)
    """Metrics whose correlation is undefined (NaN), with the reason; they are left out of
    `metrics`, the p-values and the clusters."""
    unit: str = "items"
    """What `n` counts: items, groups, systems or contexts."""
    resamples_used: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=int))
    """resamples_used[i, j]: resamples behind p_values[i, j] (fewer than asked where a
    permutation test stopped early; 0 for Williams and on the diagonal)."""
    swapped_units: int = 0
    """The units a permutation test swaps (items, item pairs or system-context cells; 0 for
    the other tests): all 2^swapped_units patterns are enumerated when they are few enough."""

    def clusters(self) -> list[list[str]]:
        """Metrics grouped by rank: the first group is not significantly worse than the best."""
        out: dict[int, list[str]] = {}
        for name, rank in zip(self.metrics, self.ranks, strict=True):
            out.setdefault(rank, []).append(name)
        return [out[r] for r in sorted(out)]


def _units(
    X: np.ndarray,
    y: np.ndarray,
    level: str,
    test: str,
    groups: Sequence[object] | np.ndarray | None,
    systems: Sequence[object] | np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, Groups | None, np.ndarray]:
    """Metric rows, human scores and group layout of the units tested, and the items kept."""
    keep = np.isfinite(y) & np.isfinite(X).all(axis=0)
    X, y = X[:, keep], y[keep]
    if level == "system":
        if systems is None:
            raise ValueError("system-level tests need the system of every item (systems=)")
        _, means = _system_means(np.vstack([X, y[None, :]]), np.asarray(systems)[keep])
        return means[:-1], means[-1], None, keep
    if groups is None:
        return X, y, None, keep
    if test == "williams":
        raise ValueError("the Williams test does not apply to per-group averaged correlations")
    return X, y, Groups.of(np.asarray(groups)[keep]), keep


def _permutation_p(
    settings: TestSettings, X: np.ndarray, y: np.ndarray, values: np.ndarray, layout: Groups | None
) -> tuple[np.ndarray, np.ndarray]:
    """p[i, j] of "i better than j" by a permutation test, and the permutations each used."""
    statistic, m = settings.statistic, len(values)
    if settings.test == "pairwise-permutation":
        pair_layout = layout or Groups.single(y.size)
        verdicts = [statistic.pair_verdicts(x, y, pair_layout) for x in X]

        def verdict_null(i: int, j: int) -> tuple[float, NullOf]:
            return _verdict_null(verdicts[i], verdicts[j], settings.seed, settings.n_resamples)

        inputs = PairInputs(_layout_arrays(pair_layout), verdicts)
        return permutation_p_matrix(m, verdict_null, settings, pair_layout.n_pairs, inputs)
    Z = np.vstack([zscore(x) for x in X]) if m else X
    swaps = swap_row_source(y.size, settings.n_resamples, settings.seed)
    pearson_all = statistic.name == PEARSON.name and layout is None

    @cache
    def fast() -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """Every pair's Pearson null at once, computed when a first pair is not kept."""
        return _perm_both_pearson_all(Z, y, swaps(0, settings.n_resamples))

    ranked = statistic.name == SPEARMAN.name and layout is None and _compiled(y.size)
    human_ranks = average_ranks(y) if ranked else None
    swaps_t = transposed_swaps(swaps)

    def perm_both_null(i: int, j: int) -> tuple[float, NullOf]:
        if pearson_all:
            r_i, r_j = fast()[i, j]
            return values[i] - values[j], _stored_null(r_i - r_j)
        if human_ranks is not None:
            return values[i] - values[j], _spearman_null(Z[i], Z[j], human_ranks, swaps_t)
        scorer = _swap_scorer(Z[i], Z[j], y, statistic, layout)
        return values[i] - values[j], _perm_both_null(scorer, swaps)

    shared = [y, *(_layout_arrays(layout) if layout is not None else ())]
    inputs = PairInputs(shared, [(x,) for x in X])
    return permutation_p_matrix(m, perm_both_null, settings, y.size, inputs)


def _layout_arrays(layout: Groups) -> tuple[np.ndarray, ...]:
    return layout.order, layout.starts, layout.sizes


def _spearman_null(
    a: np.ndarray,
    b: np.ndarray,
    human_ranks: np.ndarray,
    swaps_t: Callable[[int, int], list[np.ndarray]],
) -> NullOf:
    """PERM-BOTH null differences of Spearman's rho from the compiled kernel: the candidates
    sorted once per pair, the human ranks fixed (every item is in A' and in B' once); `swaps_t`
    gives the swap rows transposed (`transposed_swaps`), shared by every pair."""
    from comperbench.stats.rank_kernels import perm_both_spearman

    candidates = np.r_[a, b]
    order = np.argsort(candidates, kind="stable")
    ordered = candidates[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])

    def null_of(start: int, stop: int) -> np.ndarray:
        rows = [
            perm_both_spearman(order, starts, human_ranks, block, LANES)
            for block in swaps_t(start, stop)
        ]
        return np.concatenate([np.empty(0), *(r[0] - r[1] for r in rows)])

    return null_of


def _stored_null(null: np.ndarray) -> NullOf:
    return lambda start, stop: null[start:stop]


def _perm_both_null(
    scorer: SwapScorer, swaps: Callable[[int, int], Iterator[np.ndarray]]
) -> NullOf:
    """PERM-BOTH null differences stat(A') - stat(B') of the swap rows asked for."""

    def null_of(start: int, stop: int) -> np.ndarray:
        return np.concatenate([np.empty(0), *(np.subtract(*scorer(s)) for s in swaps(start, stop))])

    return null_of


def _bootstrap(
    statistic: Statistic, X: np.ndarray, y: np.ndarray, n_resamples: int, seed: int
) -> np.ndarray:
    """(metrics, resamples) values of the statistic in seeded item-level bootstrap resamples."""
    chunks = bootstrap_count_chunks(y.size, n_resamples, seed)
    return over_chunks(chunks, [statistic.resampler(X, y)])[0]


def _pairwise_p(
    settings: TestSettings, X: np.ndarray, y: np.ndarray, values: np.ndarray, layout: Groups | None
) -> tuple[np.ndarray, np.ndarray]:
    """p[i, j]: p-value of "metric i correlates better than metric j" (NaN on the diagonal),
    and the resamples each p-value used."""
    if settings.test in PERMUTATION_TESTS:
        return _permutation_p(settings, X, y, values, layout)
    m, statistic = len(values), settings.statistic
    if settings.test == "paired-bootstrap":
        if layout is not None:
            raise ValueError("the paired bootstrap over groups is not supported; use perm-both")
        boot = _bootstrap(statistic, X, y, settings.n_resamples, settings.seed)
        return bootstrap_p_matrix(values, boot, settings.conventions.p_value)
    p = np.full((m, m), np.nan)
    used = np.zeros((m, m), dtype=int)
    for i in range(m):
        for j in range(m):
            if i != j:
                r_ab = PEARSON.value(X[i], X[j])
                p[i, j] = williams_test(
                    values[i], values[j], r_ab, y.size, sign=settings.conventions.williams
                )
    return p, used


@takes_resampling(method="statistic")
def significance_matrix(
    metric_scores: Mapping[str, Sequence[float] | np.ndarray],
    human_scores: Sequence[float] | np.ndarray,
    *,
    level: Level = "turn",
    statistic: StatisticLike = "pearson",
    test: Test = "perm-both",
    groups: Sequence[object] | np.ndarray | None = None,
    systems: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    alpha: float = 0.05,
    benchmark: str | None = None,
    early_stopping: EarlyStopping | None = None,
) -> SignificanceMatrix:
    """The tests between every two metrics and the significance clusters, on the items where
    every metric and the human score exist. One swap (or index) matrix serves every pair; a
    permutation test may stop early for a pair (`early_stopping`).

    Args:
        metric_scores: each metric's score of every item (NaN where missing).
        human_scores: the human score of every item.
        level: "turn", "dialogue" or "system" (over the system means, `systems` required).
        statistic: a registered statistic's name or a `Statistic`.
        test: one of `TESTS` ("perm-both", "pairwise-permutation", "bootstrap", "williams").
        groups: each item's group (grouped statistics; contexts for a statistic over
            contexts), or None.
        systems: each item's system (system level).
        resampling: resamples, seed and conventions.
        alpha: the significance level of the clusters.
        benchmark: the benchmark's tag, named in the signature.
        early_stopping: when a permutation test may stop for a pair, or None.

    Returns:
        The `SignificanceMatrix`.
    """
    conventions = resampling.conventions
    grouped = groups is not None and level != "system"
    statistic = resolve(statistic, level, conventions.averaging if grouped else None)
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if test == "williams" and statistic.name != PEARSON.name:
        raise ValueError("the Williams test is defined for Pearson correlations only")
    if test == "pairwise-permutation" and not statistic.supports("pair_verdicts"):
        raise ValueError(
            f"the pairwise permutation test swaps pair verdicts; {statistic.name} has none "
            f"(use one of {', '.join(verdict_statistics())})"
        )
    if early_stopping is not None and test not in PERMUTATION_TESTS:
        raise ValueError(f"early stopping applies to permutation tests, not {test}")
    names, X = _as_matrix(metric_scores)
    y = np.asarray(human_scores, dtype=float)
    if y.shape != (X.shape[1],):
        raise ValueError(f"{y.size} human scores for {X.shape[1]} metric scores")
    settings = TestSettings(
        test, statistic, resampling.resamples, resampling.seed, early_stopping, conventions
    )
    if statistic.supports("over_contexts"):
        return _context_matrix(names, X, y, systems, groups, settings, alpha, benchmark)
    X, y, layout, keep = _units(X, y, level, test, groups, systems)
    values = np.array([_statistic(x, y, statistic, layout) for x in X])
    unit = "systems" if level == "system" else "items"
    reasons = {
        i: _undefined_reason(X[i], y, layout, unit) for i in np.flatnonzero(np.isnan(values))
    }
    order = _defined_best_first(values)
    p, used = _pairwise_p(settings, X[order], y, values[order], layout)
    return _matrix(
        names,
        values,
        reasons,
        order,
        (p, used),
        n=layout.starts.size if layout is not None else y.size,
        unit="groups" if layout is not None else unit,
        n_dropped=int(keep.size - keep.sum()),
        alpha=alpha,
        signature=_signature(settings, level, layout is not None, alpha, benchmark),
        swapped_units=_swapped_units(test, y.size, layout),
    )


def _swapped_units(test: str, n_items: int, layout: Groups | None) -> int:
    if test == "pairwise-permutation":
        return (layout or Groups.single(n_items)).n_pairs
    return n_items if test == "perm-both" else 0


def _context_matrix(
    names: list[str],
    X: np.ndarray,
    y: np.ndarray,
    systems: Sequence[object] | np.ndarray | None,
    contexts: Sequence[object] | np.ndarray | None,
    settings: TestSettings,
    alpha: float,
    benchmark: str | None,
) -> SignificanceMatrix:
    """The matrix of a statistic over contexts, on the contexts complete for every metric."""
    name = settings.statistic.name
    if systems is None or contexts is None:
        raise ValueError(f"{name} needs the system and the context of every item")
    if settings.test not in CONTEXT_TESTS:
        raise ValueError(
            f"{name} is compared with {' or '.join(CONTEXT_TESTS)}, not {settings.test}"
        )
    units = ContextUnits.of(X, y, np.asarray(systems), np.asarray(contexts))
    values, reasons = units.values(settings.statistic)
    order = _defined_best_first(values)
    p, used = context_p_values(
        settings, replace(units, metrics=units.metrics[order]), values[order]
    )
    return _matrix(
        names,
        values,
        reasons,
        order,
        (p, used),
        n=units.n_contexts,
        unit="contexts",
        n_dropped=units.n_dropped,
        alpha=alpha,
        signature=_signature(settings, "system", False, alpha, benchmark),
        swapped_units=units.human.size if settings.test == "perm-both" else 0,
    )


def _defined_best_first(values: np.ndarray) -> np.ndarray:
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    return order[np.isfinite(values[order])]


def _matrix(
    names: list[str],
    values: np.ndarray,
    reasons: dict[int, str],
    order: np.ndarray,
    tested: tuple[np.ndarray, np.ndarray],
    *,
    n: int,
    unit: str,
    n_dropped: int,
    alpha: float,
    signature: str,
    swapped_units: int,
) -> SignificanceMatrix:
    """The significance matrix of the defined metrics in `order` (best first)."""
    p, used = tested
    kept = values[order]
    return SignificanceMatrix(
        metrics=[names[i] for i in order],
        values=kept,
        deltas=kept[:, None] - kept[None, :],
        p_values=p,
        ranks=assign_ranks(p, alpha),
        alpha=alpha,
        n=int(n),
        unit=unit,
        n_dropped=n_dropped,
        signature=signature,
        undefined={names[i]: reason for i, reason in reasons.items()},
        resamples_used=used,
        swapped_units=swapped_units,
    )


_RESAMPLING = {"perm-both": "swap", "pairwise-permutation": "pair-swap"}


def _signature(
    settings: TestSettings, level: str, grouped: bool, alpha: float, benchmark: str | None
) -> str:
    resampled = settings.test != "williams"
    extra = [("alpha", f"{alpha:g}")]
    if settings.early is not None:
        e = settings.early
        extra.append(("early-stop", f"{e.block_size}:{e.below:g}-{e.above:g}"))
    extra.extend(settings.statistic.signature_extra)
    if settings.conventions.test_label:
        extra.append(("conv", settings.conventions.test_label))
    return str(
        Signature(
            statistic=f"{settings.test}:{settings.statistic.signature_name(grouped)}",
            level=level,
            resampling=_RESAMPLING.get(settings.test, "bootstrap") if resampled else None,
            n_resamples=settings.n_resamples if resampled else None,
            seed=settings.seed if resampled else None,
            benchmark=benchmark,
            extra=tuple(extra),
        )
    )


__getattr__ = renamed_names(__name__, {"pairwise_permutation": f"{__name__}.permutation_test"})
