"""Correlation statistics as registered objects, the way mt-metrics-eval passes a `corr_fcn`.

A `Statistic` bundles everything the package computes with one correlation: its point value and
p-value, its value over bootstrap resamples given as a count matrix, its value within groups (and
over permuted rows), the levels it applies to, and whether resampling it over thousands of items
is affordable. Correlation tables, significance tests, the leaderboard and the command line take
their statistics from `CORRELATIONS`; adding one is one `register_statistic` call. Functions
that take a statistic accept its registered name or a `Statistic` object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np

from comperbench.common.registry import Registry
from comperbench.stats.averaging import Averaging, two_item_values
from comperbench.stats.metric_correlation import analytic
from comperbench.stats.metric_correlation.permutation import EXACT_MAX_N, TwoSided, exact_p_value
from comperbench.stats.pair_ranking import kendall_like, pairwise_accuracy, pairwise_difference
from comperbench.stats.pair_ranking.soft_pairwise_accuracy import DEFAULT_PERMUTATIONS, confidences
from comperbench.stats.pair_ranking.soft_pairwise_accuracy import agreement as spa_agreement
from comperbench.stats.vectorised import (
    MIN_PAIRS,
    Groups,
    ResampledRanks,
    Resampler,
    below_resolution,
    centred,
    group_kendall,
    group_pearson,
    group_spearman,
    kendall_resampler,
    pearson_resampler,
    spearman_of_ranks,
    spearman_resampler,
    unit_scaled,
    weighted_kendall,
    weighted_pearson,
    weighted_spearman,
)

LEVELS: tuple[str, ...] = ("turn", "dialogue", "system")
EXACT_PERMUTATION = "exact-permutation"

AnalyticFn = Callable[[np.ndarray, np.ndarray], tuple[float, float, str | None]]
"""(x, y) -> (value, analytic p-value, name of the p-value's method; NaN and None if none)."""
WeightedFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""(X metrics x items, y, W resamples x items counts) -> (metrics, resamples) values."""
ResamplerFn = Callable[[np.ndarray, np.ndarray], Resampler]
"""(X metrics x items, y) -> the weighted function of W alone, X and y prepared once."""
GroupedFn = Callable[[np.ndarray, np.ndarray, Groups], np.ndarray]
"""(M rows x items, y, groups) -> (rows, groups) values, NaN where undefined."""
GroupedResampledFn = Callable[[np.ndarray, np.ndarray, Groups, np.ndarray, np.ndarray], np.ndarray]
"""(M rows x items, y, groups, C resamples x groups counts, group weights) -> (rows, resamples)."""
PairVerdictsFn = Callable[
    [np.ndarray, np.ndarray, Groups, np.ndarray], tuple[np.ndarray, np.ndarray]
]
"""(x, y, groups, group weights) -> each within-group pair's verdict and its share of the value
(value = verdicts @ shares); pairs in the same order for every x."""
ChosenFn = Callable[[np.ndarray, np.ndarray, Groups, np.ndarray], dict[str, float]]
"""(x, y, groups, group weights) -> what the statistic chose from the data, e.g. a tie threshold."""


@dataclass(frozen=True)
class OverContexts:
    """How a system-level statistic is computed from every system's scores on the contexts they
    all answered (a systems x contexts matrix) rather than from the system means."""

    side: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """(systems x contexts matrix, W resamples x contexts counts) -> what the matrix contributes
    to every resample (computed once for the human scores and shared by every metric); for a
    stack of such matrices (matrices, systems, contexts), each one's side, stacked."""
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """(metric side, human side) -> (resamples,) values."""
    signature_extra: tuple[tuple[str, str], ...] = ()
    """Settings of the statistic written into signatures."""


@dataclass(frozen=True)
class Point:
    """A point estimate with its p-value, the method of the p-value, and why it is undefined."""

    value: float
    p_value: float
    p_method: str | None
    reason: str | None


def undefined_reason(x: np.ndarray, y: np.ndarray, unit: str = "pairs") -> str | None:
    """Why a correlation of x and y (over `unit`, e.g. "systems") is undefined, or None."""
    if x.size < MIN_PAIRS:
        name = unit.removesuffix("s") if x.size == 1 else unit
        why = " (two points always correlate perfectly)" if x.size == 2 else ""
        return f"only {x.size} {name}; a correlation needs at least {MIN_PAIRS}{why}"
    if np.all(x == x[0]):
        return "metric scores are constant"
    if np.all(y == y[0]):
        return "human scores are constant"
    return rounding_reason(x, y)


def rounding_reason(x: np.ndarray, y: np.ndarray) -> str | None:
    """Why the metric scores x or the human scores y, not constant, differ by rounding only (a
    correlation of them would measure the rounding; see `below_resolution`), or None."""
    for scores, who in ((x, "metric"), (y, "human")):
        if scores.size and np.any(scores != scores[0]) and (below := below_resolution(scores)):
            return (
                f"{who} scores are nearly constant: their standard deviation {below[0]:.3g} is "
                f"below the floating-point resolution {below[1]:.3g} of their magnitude "
                f"{np.abs(scores).max():.3g}, so they differ by rounding only"
            )
    return None


@dataclass(frozen=True)
class Statistic:
    """One correlation statistic and every way the package computes it."""

    name: str
    display_name: str
    analytic: AnalyticFn
    weighted_fn: WeightedFn
    grouped_fn: GroupedFn
    levels: tuple[str, ...] = LEVELS
    item_resampling: bool = True
    """Whether a bootstrap over thousands of items is affordable (the leaderboard's budget)."""
    reported: bool = True
    """Part of `evaluate`'s default table."""
    ranked: bool = True
    """Offered as a ranking statistic on the leaderboard."""
    resampler_fn: ResamplerFn | None = None
    """Set when `weighted_fn` starts with work on X and y alone (sorting them), which
    `resampler` then does once for all chunks of resamples."""
    side_fn: Callable[[np.ndarray, np.ndarray], Any] | None = None
    paired_fn: Callable[[Any, Any, np.ndarray], np.ndarray] | None = None
    """Optional split of `resampled` into a per-vector part (computed once, cached by callers)
    and a combination of two such parts; see `side` and `paired`."""
    grouped_resampled_fn: GroupedResampledFn | None = None
    """Set when a resample of groups is not the mean of fixed group values (a statistic that
    calibrates itself over all groups, or pools its pairs); see `grouped_resampled`."""
    chosen_fn: ChosenFn | None = None
    description: str = ""
    """What the statistic measures, in a sentence (shown on the leaderboard's About page)."""
    value_range: tuple[float, float] = (-1.0, 1.0)
    """The values the statistic can take (an uninformative interval is drawn over all of them)."""
    min_items: int = MIN_PAIRS
    """Fewest items of a group the statistic is defined on (two points always correlate +-1)."""
    averaging: Averaging = field(default_factory=Averaging)
    """How per-group values are combined; see `with_averaging`."""
    pools_groups: bool = False
    """Whether the statistic pools its pairs over groups itself, so that only the default
    averaging applies (WMT's Kendall-like)."""
    pair_verdicts_fn: PairVerdictsFn | None = None
    """Set for a statistic that is a weighted sum of verdicts on pairs of items; the pairwise
    permutation test swaps those verdicts."""
    over_contexts: OverContexts | None = None
    """Set for a system-level statistic of systems x contexts matrices (soft pairwise accuracy);
    its value over system means (`analytic`, `weighted_fn`, `grouped_fn`) is undefined."""
    two_sided: TwoSided = "absolute"
    """How the exact p-value counts an ordering as extreme: |value| for a statistic centred at
    0 under the null (a correlation), both tails for one that is not (a pairwise accuracy)."""

    def signature_name(self, grouped: bool) -> str:
        """The name in signatures: "-grouped" for an average over groups, then the averaging
        when it is not the default, e.g. "pearson-grouped~items-weighted"."""
        if not grouped:
            return self.name
        extra = f"~{self.averaging.label}" if self.averaging.label else ""
        return f"{self.name}-grouped{extra}"

    @property
    def signature_extra(self) -> tuple[tuple[str, str], ...]:
        """The statistic's own settings written into signatures (none for most)."""
        return self.over_contexts.signature_extra if self.over_contexts else ()

    def with_averaging(self, averaging: Averaging) -> Statistic:
        """The same statistic, its groups combined as `averaging` says."""
        if averaging.groups_of_two and self.min_items <= 2:
            averaging = replace(averaging, groups_of_two=False)  # already defined on two items
        if averaging == self.averaging:
            return self
        if self.pools_groups:
            raise ValueError(
                f"{self.name} pools its pairs over all groups; group averaging options do not apply"
            )
        return replace(self, averaging=averaging)

    def applies_to(self, level: str) -> bool:
        return level in self.levels

    def value(self, x: np.ndarray, y: np.ndarray) -> float:
        """The point value (NaN when undefined), without a p-value."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        return np.nan if undefined_reason(x, y) else float(self.analytic(x, y)[0])

    def point(self, x: np.ndarray, y: np.ndarray, unit: str = "pairs") -> Point:
        """Value and two-sided p-value: exact over all n! orderings up to EXACT_MAX_N units,
        else the analytic one; NaN with the reason when undefined."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        reason = undefined_reason(x, y, unit)
        if reason:
            return Point(np.nan, np.nan, None, reason)
        value, p_value, p_method = self.analytic(x, y)
        if x.size <= EXACT_MAX_N:
            p_value = exact_p_value(x, y, self.rows, self.two_sided)
            p_method = EXACT_PERMUTATION
        return Point(float(value), float(p_value), p_method, None)

    def resampled(self, X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
        """(m, k): the statistic of every metric row of X with y in every count row of W."""
        return self.resampler(X, y)(W)

    def resampler(self, X: np.ndarray, y: np.ndarray) -> Resampler:
        """`resampled` as a function of count rows W alone, for resamples scored chunk by chunk."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        y = np.asarray(y, dtype=float)
        if y.size == 0:
            return lambda W: np.full((X.shape[0], W.shape[0]), np.nan)
        if self.resampler_fn is not None:
            return self.resampler_fn(X, y)
        return partial(self.weighted_fn, X, y)

    def grouped(self, M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
        """(k, groups): the statistic of each row of M with y within each group (with the
        averaging's groups of two, their +-1)."""
        M = np.atleast_2d(np.asarray(M, dtype=float))
        values = self.grouped_fn(M, y, layout)
        if self.averaging.groups_of_two:
            two = two_item_values(M, np.asarray(y, dtype=float), layout)
            values = np.where(layout.sizes == 2, two, values)
        return values

    def grouped_resampled(
        self, M: np.ndarray, y: np.ndarray, layout: Groups, C: np.ndarray
    ) -> np.ndarray:
        """(rows, k): the averaged value over the groups drawn in each row of counts C."""
        if self.grouped_resampled_fn is not None:
            weights = self.averaging.weights(layout.sizes)
            return self.grouped_resampled_fn(np.atleast_2d(M), y, layout, C, weights)
        return self.averaging.resampled(self.grouped(M, y, layout), layout.sizes, C)

    def chosen(self, x: np.ndarray, y: np.ndarray, layout: Groups | None = None) -> dict:
        """What the statistic chose from the data (e.g. {"epsilon": ...}); empty for most."""
        if self.chosen_fn is None:
            return {}
        layout = layout or Groups.single(np.asarray(y).size)
        return self.chosen_fn(x, y, layout, self.averaging.weights(layout.sizes))

    def pair_verdicts(
        self, x: np.ndarray, y: np.ndarray, layout: Groups
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each within-group pair's verdict on x and its share of the value."""
        if self.pair_verdicts_fn is None:
            raise ValueError(f"{self.name} is not a sum of verdicts on pairs of items")
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        return self.pair_verdicts_fn(x, y, layout, self.averaging.weights(layout.sizes))

    def rows(self, M: np.ndarray, y: np.ndarray, layout: Groups | None = None) -> np.ndarray:
        """(k,): the statistic of each row of M with y, or its average over the groups."""
        layout = layout or Groups.single(np.asarray(y).size)
        return self.grouped_resampled(M, y, layout, np.ones((1, layout.sizes.size)))[:, 0]

    def averaged(
        self, M: np.ndarray, y: np.ndarray, layout: Groups
    ) -> tuple[np.ndarray, np.ndarray]:
        """(k,) values over the groups, as `rows`, and (k,) number of groups that count,
        from one computation of the per-group values."""
        per_group = self.grouped(M, y, layout)
        counted = self.averaging.counted(per_group, layout.sizes).sum(axis=1)
        if self.grouped_resampled_fn is not None:
            return self.rows(M, y, layout), counted
        return self.averaging.mean(per_group, layout.sizes), counted

    def context_resampled(
        self, metric: np.ndarray, human: np.ndarray, W: np.ndarray, human_side: Any = None
    ) -> np.ndarray:
        """(k,): the statistic of two systems x contexts matrices in every row of context
        counts W (`human_side`: the human matrix's side, when already computed for W)."""
        human_side = self.context_side(human, W) if human_side is None else human_side
        return self.context_values(self.context_side(metric, W), human_side)

    def context_side(self, matrix: np.ndarray, W: np.ndarray) -> np.ndarray:
        """What one systems x contexts matrix contributes to every row of context counts W (for
        a stack of matrices, each one's, stacked)."""
        return self._over_contexts().side(matrix, W)

    def context_values(self, metric_side: Any, human_side: Any) -> np.ndarray:
        """(k,): the statistic from a metric's and the humans' `context_side`s."""
        return self._over_contexts().combine(metric_side, human_side)

    def _over_contexts(self) -> OverContexts:
        if self.over_contexts is None:
            raise ValueError(f"{self.name} is computed from system means, not from contexts")
        return self.over_contexts

    def side(self, v: np.ndarray, W: np.ndarray) -> Any:
        """What one score vector contributes to every resample of W (reusable across pairs)."""
        v = np.asarray(v, dtype=float)
        return v if self.side_fn is None else self.side_fn(v, W)

    def paired(self, x_side: Any, y_side: Any, W: np.ndarray) -> np.ndarray:
        """(k,): the statistic of two vectors in every resample of W, from their `side`s."""
        if self.paired_fn is None:
            return self.resampled(x_side[None, :], y_side, W)[0]
        return self.paired_fn(x_side, y_side, W)


CORRELATIONS: Registry[Statistic] = Registry(
    "correlation statistic", listed_by="comperbench list statistics"
)
_ORDER: list[str] = []


def register_statistic(statistic: Statistic) -> Statistic:
    """Add a statistic to the registry; listings keep the order of registration."""
    CORRELATIONS.add(statistic.name, statistic)
    _ORDER.append(statistic.name)
    return statistic


def get_statistic(statistic: str | Statistic) -> Statistic:
    """The registered statistic of that name (a `Statistic` object is returned as it is)."""
    return statistic if isinstance(statistic, Statistic) else CORRELATIONS.get(statistic)


def registered_statistics(reported_only: bool = False) -> list[Statistic]:
    """Registered statistics in registration order (only the reported ones if asked)."""
    found = [CORRELATIONS.get(name) for name in _ORDER]
    return [s for s in found if s.reported or not reported_only]


def statistic_names(reported_only: bool = False) -> list[str]:
    return [s.name for s in registered_statistics(reported_only)]


def resampled_unit(statistic: str, level: str) -> str:
    """What the bootstrap of a registered statistic resamples at `level` (ungrouped): items,
    systems, or the contexts of a statistic over contexts."""
    if level != "system":
        return "items"
    over_contexts = statistic in CORRELATIONS and get_statistic(statistic).over_contexts
    return "contexts" if over_contexts else "systems"


def verdict_statistics() -> list[str]:
    """Registered statistics the pairwise permutation test applies to."""
    return [s.name for s in registered_statistics() if s.pair_verdicts_fn is not None]


def _pearson(x: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    """scipy's r and p-value of the scores scaled down (scipy's mean would overflow near the
    end of the float range) and `centred` (scipy centres once, which a large common offset
    defeats)."""
    x, y = (unit_scaled(centred(unit_scaled(v))) for v in (x, y))
    r, p_value = analytic.pearsonr(x, y)
    return r, p_value, "normal-theory"


def _spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    rho, p_value = analytic.spearmanr(x, y)
    return rho, p_value, "asymptotic"


def _kendall(variant: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    """scipy's tau and p-value, named as scipy chooses it: exact without ties when n <= 33 or
    at most one pair is discordant (or concordant), asymptotic otherwise."""
    tau, p_value = analytic.kendalltau(x, y, variant=variant)
    n = x.size
    pairs = n * (n - 1) // 2
    untied = np.unique(x).size == n and np.unique(y).size == n
    discordant = round(pairs * (1 - tau) / 2)  # without ties tau-b = tau-c = (C - D) / pairs
    exact = untied and (n <= 33 or min(discordant, pairs - discordant) <= 1)
    return tau, p_value, "exact" if exact else "asymptotic"


PEARSON = register_statistic(
    Statistic(
        "pearson",
        "Pearson r",
        _pearson,
        weighted_pearson,
        group_pearson,
        resampler_fn=pearson_resampler,
        description="linear agreement of the metric's and the humans' scores",
    )
)
SPEARMAN = register_statistic(
    Statistic(
        "spearman",
        "Spearman rho",
        _spearman,
        weighted_spearman,
        group_spearman,
        resampler_fn=spearman_resampler,
        side_fn=ResampledRanks.of,
        paired_fn=spearman_of_ranks,
        description="agreement of the two rankings (Pearson of the ranks, ties averaged)",
    )
)
KENDALL_B = register_statistic(
    Statistic(
        "kendall-b",
        "Kendall tau-b",
        partial(_kendall, "b"),
        partial(weighted_kendall, variant="b"),
        partial(group_kendall, variant="b"),
        item_resampling=False,
        resampler_fn=partial(kendall_resampler, variant="b"),
        description="concordant minus discordant pairs, corrected for ties on either side",
    )
)
KENDALL_C = register_statistic(
    Statistic(
        "kendall-c",
        "Kendall tau-c",
        partial(_kendall, "c"),
        partial(weighted_kendall, variant="c"),
        partial(group_kendall, variant="c"),
        item_resampling=False,
        resampler_fn=partial(kendall_resampler, variant="c"),
        reported=False,
        ranked=False,
        description="Kendall's tau for rectangular tables of ties (Stuart)",
    )
)


def _pairwise_accuracy(
    name: str, display_name: str, calibrate: bool, tau: bool, ranked: bool, description: str
) -> Statistic:
    options = {"calibrate": calibrate, "tau": tau}
    return Statistic(
        name,
        display_name,
        partial(pairwise_accuracy.point, **options),
        partial(pairwise_accuracy.resampled, **options),
        partial(pairwise_accuracy.grouped, **options),
        item_resampling=False,
        reported=False,
        ranked=ranked,
        grouped_resampled_fn=partial(pairwise_accuracy.grouped_resampled, **options),
        chosen_fn=pairwise_accuracy.chosen_epsilon if calibrate else None,
        description=description,
        min_items=2,
        pair_verdicts_fn=partial(pairwise_accuracy.pair_verdicts, **options),
        two_sided="tails",
        value_range=(-1.0, 1.0) if tau else (0.0, 1.0),
    )


# WMT's pairwise statistics with ties (Deutsch, Foster and Freitag, EMNLP 2023).
_CALIBRATED = "metric differences up to a threshold epsilon count as ties, epsilon chosen to "
ACC_EQ = register_statistic(
    _pairwise_accuracy(
        "acc-eq",
        "Pairwise accuracy (acc_eq)",
        calibrate=True,
        tau=False,
        ranked=True,
        description="share of pairs (of items, or of systems) the metric orders as the humans "
        f"do or ties where they tie; {_CALIBRATED}maximise it (WMT 2023 on)",
    )
)
ACC23 = register_statistic(
    _pairwise_accuracy(
        "acc23",
        "Pairwise accuracy, no tie calibration (acc23)",
        calibrate=False,
        tau=False,
        ranked=False,
        description="acc-eq with epsilon 0: only exactly equal metric scores tie",
    )
)
TAU_EQ = register_statistic(
    _pairwise_accuracy(
        "tau-eq",
        "Kendall tau_eq",
        calibrate=True,
        tau=True,
        ranked=False,
        description=f"tau_23 = 2 acc23 - 1 (right pairs +1, wrong pairs -1); {_CALIBRATED}"
        "maximise it",
    )
)


def kendall_like_statistic(threshold: float = 0.0) -> Statistic:
    """WMT20's Kendall-like tau over pairs whose human scores differ by at least `threshold`
    (0: every pair the humans order); registered at 0 as "kendall-like"."""
    name = "kendall-like" if threshold == 0 else f"kendall-like-{threshold:g}"
    options = {"threshold": float(threshold)}
    return Statistic(
        name,
        "WMT Kendall-like tau",
        partial(kendall_like.point, **options),
        partial(kendall_like.resampled, **options),
        partial(kendall_like.grouped, **options),
        item_resampling=False,
        reported=False,
        grouped_resampled_fn=partial(kendall_like.grouped_resampled, **options),
        description="pairs the humans order (by at least a threshold) the metric orders the same "
        "way minus those it does not, a metric tie counting against it, over all such pairs "
        "(WMT 2020)",
        min_items=2,
        pools_groups=True,
        pair_verdicts_fn=partial(kendall_like.pair_verdicts, **options),
    )


KENDALL_LIKE = register_statistic(kendall_like_statistic())


PAIRWISE_DIFFERENCE_PEARSON = register_statistic(
    Statistic(
        "pdp",
        "Pairwise difference Pearson",
        _pearson,
        weighted_pearson,
        group_pearson,
        reported=False,
        ranked=False,
        resampler_fn=pearson_resampler,
        grouped_resampled_fn=pairwise_difference.grouped_resampled,
        description="Pearson correlation of the metric's and the humans' differences between "
        "items of the same group, pooled over groups (Pearson's r without groups; EMNLP 2025)",
        pools_groups=True,
    )
)


def _needs_contexts(*_: Any) -> Any:
    raise ValueError(
        "soft pairwise accuracy needs every system's scores on shared contexts (a systems x "
        "contexts matrix), not system means or item pairs"
    )


SOFT_PAIRWISE_ACCURACY = register_statistic(
    Statistic(
        "spa",
        "Soft pairwise accuracy (SPA)",
        _needs_contexts,
        _needs_contexts,
        _needs_contexts,
        levels=("system",),
        reported=False,
        over_contexts=OverContexts(
            confidences,
            spa_agreement,
            (("permutations", str(DEFAULT_PERMUTATIONS)),),
        ),
        description="how closely the metric's confidence that one system beats another (a "
        "paired permutation test over the contexts every system answered) matches the humans' "
        "confidence, averaged over all pairs of systems (1 - pairwise confidence error; WMT 2024)",
        value_range=(0.0, 1.0),
    )
)
