"""Correlation statistics as registered objects, the way mt-metrics-eval passes a `corr_fcn`.

A `Statistic` is a name, the levels it applies to, and the capabilities it declares: `OnScores` (its
point value and p-value on paired scores, and its value over bootstrap resamples given as a count
matrix), `Grouped` (values within groups), `PairVerdicts` (a sum of verdicts on pairs),
`OverContexts` (computed from systems x contexts matrices), `Chooses` and `SharedSides`. Callers ask
`supports(statistic, kind)` rather than test for a missing function. Correlation tables,
significance tests, the leaderboard and the command line take their statistics from `CORRELATIONS`;
adding one is one `register_statistic` call. Functions that take a statistic accept its registered
name or a `Statistic` object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, ClassVar, TypeVar

import numpy as np

from comperbench.common.deprecation import deprecated, renamed_names
from comperbench.common.registry import Registry
from comperbench.stats.averaging import Averaging, two_item_values
from comperbench.stats.metric_correlation import analytic
from comperbench.stats.metric_correlation.permutation import EXACT_MAX_N, TwoSided, exact_p_value
from comperbench.stats.pair_ranking import kendall_like, pair_accuracy, pair_difference
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


class Capability:
    """Something a statistic can do beyond its core (a point value and resampled values on
    paired scores); a statistic declares its capabilities, each under its `kind`."""

    kind: ClassVar[str]


@dataclass(frozen=True)
class OnScores(Capability):
    """The value of paired score vectors: point (with an analytic p-value) and resampled."""

    kind: ClassVar[str] = "scores"
    analytic: AnalyticFn
    weighted: WeightedFn
    resampler: ResamplerFn | None = None
    """Set when `weighted` starts with work on X and y alone (sorting them), which the
    resampler then does once for all chunks of resamples."""


@dataclass(frozen=True)
class Grouped(Capability):
    """Values within groups (contexts, systems), averaged over the groups."""

    kind: ClassVar[str] = "grouped"
    values: GroupedFn
    resampled: GroupedResampledFn | None = None
    """Set when a resample of groups is not the mean of fixed group values (a statistic that
    calibrates itself over all groups, or pools its pairs)."""


@dataclass(frozen=True)
class SharedSides(Capability):
    """A split of the resampled value into a per-vector part (computed once, cached by callers)
    and a combination of two such parts; see `Statistic.side` and `Statistic.paired`."""

    kind: ClassVar[str] = "sides"
    side: Callable[[np.ndarray, np.ndarray], Any]
    paired: Callable[[Any, Any, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class PairVerdicts(Capability):
    """A statistic that is a weighted sum of verdicts on pairs of items; the permutation test
    of pair verdicts swaps them."""

    kind: ClassVar[str] = "pair_verdicts"
    verdicts: PairVerdictsFn


@dataclass(frozen=True)
class Chooses(Capability):
    """A statistic that chooses a setting from the data (e.g. acc-eq's tie threshold)."""

    kind: ClassVar[str] = "chosen"
    chosen: ChosenFn


@dataclass(frozen=True)
class OverContexts(Capability):
    """How a system-level statistic is computed from every system's scores on the contexts they
    all answered (a systems x contexts matrix) rather than from the system means."""

    kind: ClassVar[str] = "over_contexts"
    side: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """(systems x contexts matrix, W resamples x contexts counts) -> what the matrix contributes
    to every resample (computed once for the human scores and shared by every metric); for a
    stack of such matrices (matrices, systems, contexts), each one's side, stacked."""
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray]
    """(metric side, human side) -> (resamples,) values."""
    signature_extra: tuple[tuple[str, str], ...] = ()
    """Settings of the statistic written into signatures."""


CAPABILITIES: dict[str, type[Capability]] = {
    c.kind: c for c in (OnScores, Grouped, SharedSides, PairVerdicts, Chooses, OverContexts)
}
"""Every capability a statistic can declare, by kind."""

C = TypeVar("C", bound=Capability)


@dataclass(frozen=True)
class Statistic:
    """One correlation statistic: its name, levels and the capabilities it declares.

    Args:
        name: the registered name (in signatures, tables and cache keys).
        display_name: the name shown to readers.
        capabilities: what it computes: `OnScores` (point and resampled values of paired
            scores), `Grouped`, `SharedSides`, `PairVerdicts`, `Chooses`, `OverContexts`.
        levels: the levels it applies to.
        item_resampling: whether a bootstrap over thousands of items is affordable (the
            leaderboard's budget).
        reported: part of `evaluate`'s default table.
        ranked: offered as a ranking statistic on the leaderboard.
        description: what it measures, in a sentence (the leaderboard's About page).
        value_range: the values it can take (an uninformative interval is drawn over them).
        min_items: fewest items of a group it is defined on (two points always correlate +-1).
        averaging: how per-group values are combined; see `with_averaging`.
        pools_groups: whether it pools its pairs over groups itself, so that only the default
            averaging applies (WMT's Kendall-like).
        two_sided: how the exact p-value counts an ordering as extreme: |value| for a
            statistic centred at 0 under the null (a correlation), both tails for one that is
            not (a pairwise accuracy).
    """

    name: str
    display_name: str
    capabilities: tuple[Capability, ...]
    levels: tuple[str, ...] = LEVELS
    item_resampling: bool = True
    reported: bool = True
    ranked: bool = True
    description: str = ""
    value_range: tuple[float, float] = (-1.0, 1.0)
    min_items: int = MIN_PAIRS
    averaging: Averaging = field(default_factory=Averaging)
    pools_groups: bool = False
    two_sided: TwoSided = "absolute"

    def __post_init__(self) -> None:
        kinds = [c.kind for c in self.capabilities]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"{self.name} declares a capability twice: {', '.join(kinds)}")

    def supports(self, kind: str) -> bool:
        """Whether the statistic declares the capability `kind` (see `CAPABILITIES`).

        Args:
            kind: "scores", "grouped", "sides", "pair_verdicts", "chosen" or "over_contexts".

        Returns:
            True when it does.
        """
        if kind not in CAPABILITIES:
            raise ValueError(f"unknown capability {kind!r}; choose from {', '.join(CAPABILITIES)}")
        return any(c.kind == kind for c in self.capabilities)

    def capability(self, kind: type[C]) -> C:
        """The capability of that class the statistic declares.

        Args:
            kind: a capability class, e.g. `Grouped`.

        Returns:
            The statistic's capability.

        Raises:
            ValueError: when the statistic does not declare it.
        """
        for c in self.capabilities:
            if isinstance(c, kind):
                return c
        raise ValueError(f"{self.name} {_LACKS[kind.kind]}")

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
        if not self.supports("over_contexts"):
            return ()
        return self.capability(OverContexts).signature_extra

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
        """Whether the statistic applies at `level`."""
        return level in self.levels

    def value(self, x: np.ndarray, y: np.ndarray) -> float:
        """The point value (NaN when undefined), without a p-value."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if undefined_reason(x, y):
            return np.nan
        return float(self.capability(OnScores).analytic(x, y)[0])

    def point(self, x: np.ndarray, y: np.ndarray, unit: str = "pairs") -> Point:
        """Value and two-sided p-value: exact over all n! orderings up to EXACT_MAX_N units,
        else the analytic one; NaN with the reason when undefined."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        reason = undefined_reason(x, y, unit)
        if reason:
            return Point(np.nan, np.nan, None, reason)
        value, p_value, p_method = self.capability(OnScores).analytic(x, y)
        if x.size <= EXACT_MAX_N:
            p_value = exact_p_value(x, y, self.rows, self.two_sided)
            p_method = EXACT_PERMUTATION
        return Point(float(value), float(p_value), p_method, None)

    def resampled(self, X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
        """(m, k): the statistic of every metric row of X with y in every count row of W."""
        return self.resampler(X, y)(W)

    def resampler(self, X: np.ndarray, y: np.ndarray) -> Resampler:
        """`resampled` as a function of count rows W alone, for resamples scored chunk by chunk."""
        on_scores = self.capability(OnScores)
        X = np.atleast_2d(np.asarray(X, dtype=float))
        y = np.asarray(y, dtype=float)
        if y.size == 0:
            return lambda W: np.full((X.shape[0], W.shape[0]), np.nan)
        if on_scores.resampler is not None:
            return on_scores.resampler(X, y)
        return partial(on_scores.weighted, X, y)

    def grouped(self, M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
        """(k, groups): the statistic of each row of M with y within each group (with the
        averaging's groups of two, their +-1)."""
        M = np.atleast_2d(np.asarray(M, dtype=float))
        values = self.capability(Grouped).values(M, y, layout)
        if self.averaging.groups_of_two:
            two = two_item_values(M, np.asarray(y, dtype=float), layout)
            values = np.where(layout.sizes == 2, two, values)
        return values

    def grouped_resampled(
        self, M: np.ndarray, y: np.ndarray, layout: Groups, C: np.ndarray
    ) -> np.ndarray:
        """(rows, k): the averaged value over the groups drawn in each row of counts C."""
        resampled = self.capability(Grouped).resampled
        if resampled is not None:
            weights = self.averaging.weights(layout.sizes)
            return resampled(np.atleast_2d(M), y, layout, C, weights)
        return self.averaging.resampled(self.grouped(M, y, layout), layout.sizes, C)

    def chosen(self, x: np.ndarray, y: np.ndarray, layout: Groups | None = None) -> dict:
        """What the statistic chose from the data (e.g. {"epsilon": ...}); empty for most."""
        if not self.supports("chosen"):
            return {}
        layout = layout or Groups.single(np.asarray(y).size)
        return self.capability(Chooses).chosen(x, y, layout, self.averaging.weights(layout.sizes))

    def pair_verdicts(
        self, x: np.ndarray, y: np.ndarray, layout: Groups
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each within-group pair's verdict on x and its share of the value."""
        verdicts = self.capability(PairVerdicts).verdicts
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        return verdicts(x, y, layout, self.averaging.weights(layout.sizes))

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
        if self.capability(Grouped).resampled is not None:
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
        return self.capability(OverContexts).side(matrix, W)

    def context_values(self, metric_side: Any, human_side: Any) -> np.ndarray:
        """(k,): the statistic from a metric's and the humans' `context_side`s."""
        return self.capability(OverContexts).combine(metric_side, human_side)

    def side(self, v: np.ndarray, W: np.ndarray) -> Any:
        """What one score vector contributes to every resample of W (reusable across pairs)."""
        v = np.asarray(v, dtype=float)
        return self.capability(SharedSides).side(v, W) if self.supports("sides") else v

    def paired(self, x_side: Any, y_side: Any, W: np.ndarray) -> np.ndarray:
        """(k,): the statistic of two vectors in every resample of W, from their `side`s."""
        if not self.supports("sides"):
            return self.resampled(x_side[None, :], y_side, W)[0]
        return self.capability(SharedSides).paired(x_side, y_side, W)

    def __getattr__(self, name: str) -> Any:
        """The attributes of the statistic before capabilities (e.g. `over_contexts`,
        `pair_verdicts_fn`), for one release, with a DeprecationWarning: the capability's
        function, or None when the statistic does not declare it."""
        if name not in _OLD_ATTRIBUTES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        kind, attribute = _OLD_ATTRIBUTES[name]
        capability = CAPABILITIES[kind]
        deprecated(f"Statistic.{name}", f"Statistic.capability({capability.__name__})")
        if not self.supports(kind):
            return None
        found = self.capability(capability)
        return getattr(found, attribute) if attribute else found


_OLD_ATTRIBUTES: dict[str, tuple[str, str | None]] = {
    "analytic": ("scores", "analytic"),
    "weighted_fn": ("scores", "weighted"),
    "resampler_fn": ("scores", "resampler"),
    "grouped_fn": ("grouped", "values"),
    "grouped_resampled_fn": ("grouped", "resampled"),
    "side_fn": ("sides", "side"),
    "paired_fn": ("sides", "paired"),
    "pair_verdicts_fn": ("pair_verdicts", "verdicts"),
    "chosen_fn": ("chosen", "chosen"),
    "over_contexts": ("over_contexts", None),
}
"""Each attribute of the statistic before capabilities: (capability kind, its attribute)."""

_LACKS = {
    "scores": "is computed over systems x contexts matrices, not from paired scores",
    "grouped": "has no values within groups",
    "sides": "does not split its resampled values into sides",
    "pair_verdicts": "is not a sum of verdicts on pairs of items",
    "chosen": "chooses nothing from the data",
    "over_contexts": "is computed from system means, not from contexts",
}


def own_code_identity(statistic: Statistic) -> str | None:
    """The statistic described alike in every process running this code (its fields, and its
    capabilities' functions by qualified name and bound arguments), or None when a function of
    it is another package's (its code may change while this package's does not)."""
    described: list[object] = [replace(statistic, capabilities=())]
    for capability in statistic.capabilities:
        for value in vars(capability).values():
            function = getattr(value, "func", value)  # a functools.partial's function
            module = getattr(function, "__module__", None) or ""
            if not callable(function):
                described.append(value)
            elif module.split(".")[0] != "comperbench":
                return None
            else:
                bound = (getattr(value, "args", ()), getattr(value, "keywords", {}))
                described.append((capability.kind, module, function.__qualname__, bound))
    return repr(described)


def supports(statistic: str | Statistic, kind: str) -> bool:
    """Whether a statistic declares the capability `kind`.

    Args:
        statistic: a registered statistic's name or a `Statistic`.
        kind: a capability kind of `CAPABILITIES`, e.g. "grouped" or "over_contexts".

    Returns:
        True when it does.
    """
    return get_statistic(statistic).supports(kind)


CORRELATIONS: Registry[Statistic] = Registry(
    "correlation statistic", listed_by="comperbench list statistics"
)
_ORDER: list[str] = []


def register_statistic(statistic: Statistic) -> Statistic:
    """Add a statistic to the registry; listings keep the order of registration.

    Args:
        statistic: the statistic, registered under its name.

    Returns:
        The statistic.
    """
    CORRELATIONS.add(statistic.name, statistic)
    _ORDER.append(statistic.name)
    return statistic


def get_statistic(statistic: str | Statistic) -> Statistic:
    """The registered statistic of that name.

    Args:
        statistic: a registered name, or a `Statistic` (returned as it is).

    Returns:
        The `Statistic`.
    """
    return statistic if isinstance(statistic, Statistic) else CORRELATIONS.get(statistic)


def registered_statistics(reported_only: bool = False) -> list[Statistic]:
    """The registered statistics.

    Args:
        reported_only: only those of `evaluate`'s default table.

    Returns:
        The statistics in registration order.
    """
    found = [CORRELATIONS.get(name) for name in _ORDER]
    return [s for s in found if s.reported or not reported_only]


def statistic_names(reported_only: bool = False) -> list[str]:
    """The names of the registered statistics.

    Args:
        reported_only: only those of `evaluate`'s default table.

    Returns:
        The names in registration order.
    """
    return [s.name for s in registered_statistics(reported_only)]


def resampled_unit(statistic: str, level: str) -> str:
    """What the bootstrap of a registered statistic resamples at `level` (ungrouped): items,
    systems, or the contexts of a statistic over contexts."""
    if level != "system":
        return "items"
    over_contexts = statistic in CORRELATIONS and supports(statistic, "over_contexts")
    return "contexts" if over_contexts else "systems"


def verdict_statistics() -> list[str]:
    """Registered statistics the permutation test of pair verdicts applies to."""
    return [s.name for s in registered_statistics() if s.supports("pair_verdicts")]


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
        (OnScores(_pearson, weighted_pearson, pearson_resampler), Grouped(group_pearson)),
        description="linear agreement of the metric's and the humans' scores",
    )
)
SPEARMAN = register_statistic(
    Statistic(
        "spearman",
        "Spearman rho",
        (
            OnScores(_spearman, weighted_spearman, spearman_resampler),
            Grouped(group_spearman),
            SharedSides(ResampledRanks.of, spearman_of_ranks),
        ),
        description="agreement of the two rankings (Pearson of the ranks, ties averaged)",
    )
)
KENDALL_B = register_statistic(
    Statistic(
        "kendall-b",
        "Kendall tau-b",
        (
            OnScores(
                partial(_kendall, "b"),
                partial(weighted_kendall, variant="b"),
                partial(kendall_resampler, variant="b"),
            ),
            Grouped(partial(group_kendall, variant="b")),
        ),
        item_resampling=False,
        description="concordant minus discordant pairs, corrected for ties on either side",
    )
)
KENDALL_C = register_statistic(
    Statistic(
        "kendall-c",
        "Kendall tau-c",
        (
            OnScores(
                partial(_kendall, "c"),
                partial(weighted_kendall, variant="c"),
                partial(kendall_resampler, variant="c"),
            ),
            Grouped(partial(group_kendall, variant="c")),
        ),
        item_resampling=False,
        reported=False,
        ranked=False,
        description="Kendall's tau for rectangular tables of ties (Stuart)",
    )
)


def _pair_accuracy(
    name: str, display_name: str, calibrate: bool, tau: bool, ranked: bool, description: str
) -> Statistic:
    options = {"calibrate": calibrate, "tau": tau}
    chooses = (Chooses(pair_accuracy.chosen_epsilon),) if calibrate else ()
    return Statistic(
        name,
        display_name,
        (
            OnScores(
                partial(pair_accuracy.point, **options),
                partial(pair_accuracy.resampled, **options),
            ),
            Grouped(
                partial(pair_accuracy.grouped, **options),
                partial(pair_accuracy.grouped_resampled, **options),
            ),
            PairVerdicts(partial(pair_accuracy.pair_verdicts, **options)),
            *chooses,
        ),
        item_resampling=False,
        reported=False,
        ranked=ranked,
        description=description,
        min_items=2,
        two_sided="tails",
        value_range=(-1.0, 1.0) if tau else (0.0, 1.0),
    )


# WMT's pairwise statistics with ties (Deutsch, Foster and Freitag, EMNLP 2023).
_CALIBRATED = "metric differences up to a threshold epsilon count as ties, epsilon chosen to "
ACC_EQ = register_statistic(
    _pair_accuracy(
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
    _pair_accuracy(
        "acc23",
        "Pairwise accuracy, no tie calibration (acc23)",
        calibrate=False,
        tau=False,
        ranked=False,
        description="acc-eq with epsilon 0: only exactly equal metric scores tie",
    )
)
TAU_EQ = register_statistic(
    _pair_accuracy(
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
    """WMT20's Kendall-like tau over pairs whose human scores differ by at least a threshold.

    Args:
        threshold: the least human difference of a counted pair (0: every pair the humans
            order; registered at 0 as "kendall-like").

    Returns:
        The `Statistic`, named "kendall-like" or "kendall-like-<threshold>".
    """
    name = "kendall-like" if threshold == 0 else f"kendall-like-{threshold:g}"
    options = {"threshold": float(threshold)}
    return Statistic(
        name,
        "WMT Kendall-like tau",
        (
            OnScores(
                partial(kendall_like.point, **options),
                partial(kendall_like.resampled, **options),
            ),
            Grouped(
                partial(kendall_like.grouped, **options),
                partial(kendall_like.grouped_resampled, **options),
            ),
            PairVerdicts(partial(kendall_like.pair_verdicts, **options)),
        ),
        item_resampling=False,
        reported=False,
        description="pairs the humans order (by at least a threshold) the metric orders the same "
        "way minus those it does not, a metric tie counting against it, over all such pairs "
        "(WMT 2020)",
        min_items=2,
        pools_groups=True,
    )


KENDALL_LIKE = register_statistic(kendall_like_statistic())


PAIR_DIFFERENCE_PEARSON = register_statistic(
    Statistic(
        "pdp",
        "Pairwise difference Pearson",
        (
            OnScores(_pearson, weighted_pearson, pearson_resampler),
            Grouped(group_pearson, pair_difference.grouped_resampled),
        ),
        reported=False,
        ranked=False,
        description="Pearson correlation of the metric's and the humans' differences between "
        "items of the same group, pooled over groups (Pearson's r without groups; EMNLP 2025)",
        pools_groups=True,
    )
)


SOFT_PAIRWISE_ACCURACY = register_statistic(
    Statistic(
        "spa",
        "Soft pairwise accuracy (SPA)",
        (
            OverContexts(
                confidences,
                spa_agreement,
                (("permutations", str(DEFAULT_PERMUTATIONS)),),
            ),
        ),
        levels=("system",),
        reported=False,
        description="how closely the metric's confidence that one system beats another (a "
        "paired permutation test over the contexts every system answered) matches the humans' "
        "confidence, averaged over all pairs of systems (1 - pairwise confidence error; WMT 2024)",
        value_range=(0.0, 1.0),
    )
)


__getattr__ = renamed_names(
    __name__, {"PAIRWISE_DIFFERENCE_PEARSON": f"{__name__}.PAIR_DIFFERENCE_PEARSON"}
)
