"""The human ceiling: how well one annotator agrees with the others, on a metric's scale.

Each annotator's scores are correlated with the mean of the other annotators' scores on the same
items, and these correlations are averaged over the annotators (every annotator alike): the
inter-annotator agreement of FED and USR (Mehri & Eskenazi, SIGDIAL 2020 and ACL 2020) as
SODA-EVAL describes it ("the average Spearman Correlation between each individual annotation and
the mean of the annotations", Mendonça et al. 2024, section 4.2.2). At system level the held-out
annotator's system means are correlated with the others' system means over the same items. The
statistic is a registered correlation (`metric_correlation.statistics`), so the ceiling reads on
the scale of the metrics' correlations; the published USR Table 1 averages annotator pairs
instead (`comperbench reproduce`), which gives lower values than one annotator vs the mean of two.

Annotators: the annotator ids, where every rating has one (an annotator's repeated ratings of an
item are averaged). Without ids, the k-th rating of an item stands for annotator k only where
every rated item has the same number of ratings; otherwise the ceiling is not available.

An annotator counts where their correlation is defined (at least 3 items or systems, neither
side constant). The interval is a seeded bootstrap over the units (items, or systems), every
annotator's correlation recomputed in each resample; its resamples are those a metric's interval
draws on the same units with the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from comperbench.common.errors import ComperbenchError
from comperbench.stats.metric_correlation.statistics import Statistic, get_statistic
from comperbench.stats.resampling import (
    Interval,
    bootstrap_count_chunks,
    bootstrap_note,
    over_chunks,
    percentile_interval,
)
from comperbench.stats.settings import (
    DEFAULT_RESAMPLING,
    SETTINGS,
    Resampling,
    takes_resampling,
)
from comperbench.stats.signature import Signature, Tagged, signed_benchmark
from comperbench.stats.vectorised import MIN_PAIRS

if TYPE_CHECKING:
    import pandas as pd

    from comperbench.benchmark import Benchmark

METHOD = "one annotator vs the mean of the others"
LABEL = "human (one annotator vs the rest)"
"""The ceiling's row label in tables, beside the metrics' names."""
BY_ID = "annotator ids"
BY_POSITION = "k-th rating of an item as annotator k (no annotator ids)"
CITATION = (
    "Mehri & Eskenazi (SIGDIAL 2020, FED; ACL 2020, USR), as described by Mendonça et al. "
    "(2024, SODA-EVAL, section 4.2.2)"
)


class CeilingUnavailable(ComperbenchError):
    """The ratings cannot give a ceiling (no individual ratings, no annotators to tell apart)."""


class NoRatings(CeilingUnavailable):
    """No individual ratings of the aspect on the items (the benchmark publishes means only)."""


@dataclass(frozen=True)
class AnnotatorScores:
    """One aspect's ratings as an items x annotators matrix, NaN where an annotator did not rate
    an item."""

    values: np.ndarray
    annotators: tuple[str, ...]
    assignment: str
    """`BY_ID` or `BY_POSITION`."""
    repeated: int = 0
    """Ratings averaged into another because their annotator rated the item before."""

    @classmethod
    def of(cls, ratings: pd.DataFrame, aspect: str, item_ids: Sequence[str]) -> AnnotatorScores:
        """The matrix of `ratings` (`Benchmark.ratings()`'s columns) of `aspect` on `item_ids`, in
        their order; ratings of other items are ignored. Raises `CeilingUnavailable` with the
        reason when the ratings cannot tell annotators apart."""
        import pandas as pd

        rows = ratings[ratings["aspect"] == aspect]
        where = pd.Index(list(item_ids)).get_indexer(rows["item_id"])
        values = pd.to_numeric(rows["value"]).to_numpy(dtype=float)
        return cls.from_arrays(where, rows["annotator"].tolist(), values, item_ids, aspect)

    @classmethod
    def of_benchmark(
        cls, bench: Benchmark, aspect: str, positions: np.ndarray | None = None
    ) -> AnnotatorScores:
        """`of` the benchmark's ratings on its items (those at `positions`, in their order;
        default: all), read from its Arrow table."""
        import pyarrow.compute as pc

        from comperbench.common.arrow_arrays import text_array

        column = bench.table.column("ratings").combine_chunks()
        flat = pc.list_flatten(column)
        chosen = pc.is_in(pc.struct_field(flat, "aspect"), text_array([aspect]))
        parents = pc.filter(pc.list_parent_indices(column), chosen).to_pylist()
        flat = pc.filter(flat, chosen)
        values = np.array(pc.struct_field(flat, "value").to_pylist(), dtype=float)
        annotators = pc.struct_field(flat, "annotator").to_pylist()
        where = np.array(parents, dtype=np.int64)
        item_ids = bench.item_ids
        if positions is not None:
            index = np.full(len(bench), -1)
            index[positions] = np.arange(len(positions))
            where, item_ids = index[where], [item_ids[p] for p in positions]
        return cls.from_arrays(where, annotators, values, item_ids, aspect)

    @classmethod
    def from_arrays(
        cls,
        where: np.ndarray,
        annotators: Sequence[str | None],
        values: np.ndarray,
        item_ids: Sequence[str],
        aspect: str,
    ) -> AnnotatorScores:
        """The matrix of ratings given as each one's item position (-1: not one of `item_ids`,
        ignored), annotator (None: unknown) and value."""
        keep = np.asarray(where) >= 0
        where, values = np.asarray(where)[keep], np.asarray(values, dtype=float)[keep]
        names = [a for a, k in zip(annotators, keep, strict=True) if k]
        if where.size == 0:
            raise NoRatings(f"no individual ratings of {aspect} on these items")
        if not np.isfinite(values).all():
            bad = item_ids[int(where[np.flatnonzero(~np.isfinite(values))[0]])]
            raise ValueError(f"rating of item {bad!r}, aspect {aspect!r} is not a number")
        known = np.array([a is not None and a == a for a in names])  # NaN is unknown too
        if known.all():
            labels, column = np.unique(np.array(names, dtype=str), return_inverse=True)
            assignment = BY_ID
        elif known.any():
            raise CeilingUnavailable(
                f"annotator ids are known for only {int(known.sum())} of {known.size} ratings of "
                f"{aspect}: the rest cannot be told apart from them"
            )
        else:
            column = _positions(where)
            labels = np.array([f"rating {k + 1}" for k in range(int(column.max()) + 1)])
            assignment = BY_POSITION
        sums = np.zeros((len(item_ids), labels.size))
        counts = np.zeros_like(sums)
        np.add.at(sums, (where, column), values)
        np.add.at(counts, (where, column), 1)
        with np.errstate(invalid="ignore"):
            matrix = sums / counts
        repeated = int((counts - 1)[counts > 1].sum())
        return cls(matrix, tuple(labels.tolist()), assignment, repeated)


def _positions(where: np.ndarray) -> np.ndarray:
    """Each rating's position among its item's ratings (0, 1, ...), in the order given; raises
    `CeilingUnavailable` unless every rated item has the same number of ratings."""
    order = np.argsort(where, kind="stable")
    per_item = np.bincount(where)
    per_item = per_item[per_item > 0]
    if per_item.min() != per_item.max():
        raise CeilingUnavailable(
            f"no annotator ids, and items have {per_item.min()} to {per_item.max()} ratings: a "
            "rating's position stands for an annotator only when every item has as many"
        )
    starts = np.r_[0, np.cumsum(per_item)[:-1]]
    position = np.empty_like(where)
    position[order] = np.arange(where.size) - np.repeat(starts, per_item)
    return position


@dataclass(frozen=True)
class CeilingResult:
    """The mean over annotators of one annotator's correlation with the others, its interval,
    and what it rests on."""

    statistic: str
    level: str
    value: float
    n: int
    """Units the correlations are computed over: items rated by two annotators or more, or the
    systems of those items."""
    annotators: int
    """Annotators whose correlation is defined, the value's mean is over them."""
    ci: Interval | None
    reason: str | None
    """Why `value` is NaN (not available, or undefined for every annotator)."""
    assignment: str | None
    signature: str
    note: str | None = None
    """What else the value rests on: annotators left out, ratings averaged, rating positions."""
    ci_note: str | None = None
    """Set when the interval rests on too few units, or on fewer resamples than drawn."""
    method: str = METHOD

    @classmethod
    def unavailable(cls, statistic: str, level: str, reason: str, signature: str) -> CeilingResult:
        return cls(statistic, level, np.nan, 0, 0, None, reason, None, signature)

    def notes(self) -> list[str]:
        """The reason, the note and the interval's note, those that are set."""
        return [n for n in (self.reason, self.note, self.ci_note) if n]


def _signature(
    statistic: Statistic, level: str, resamples: int, seed: int, bench: str | None
) -> str:
    return str(
        Signature(
            statistic=f"{statistic.name}-ceiling",
            level=level,
            resampling="bootstrap-percentile" if resamples else None,
            n_resamples=resamples or None,
            seed=seed if resamples else None,
            benchmark=bench,
            extra=(("ceiling", "leave-one-annotator-out"),),
        )
    )


@dataclass(frozen=True)
class _Pairs:
    """Per annotator: their scores, the others' mean, and the units they are over."""

    held_out: list[np.ndarray]
    others: list[np.ndarray]
    units: list[np.ndarray]
    n_units: int
    """Units resampled (all of them, so that the resamples are the metrics')."""
    n_rated: int
    """Units with two annotators or more: those any correlation is over."""


def _item_pairs(values: np.ndarray) -> _Pairs:
    rated = np.isfinite(values)
    count = rated.sum(axis=1)
    total = np.where(rated, values, 0.0).sum(axis=1)
    held, others, units = [], [], []
    for a in range(values.shape[1]):
        rows = np.flatnonzero(rated[:, a] & (count >= 2))
        held.append(values[rows, a])
        others.append((total[rows] - values[rows, a]) / (count[rows] - 1))
        units.append(rows)
    return _Pairs(held, others, units, values.shape[0], int((count >= 2).sum()))


def _system_pairs(values: np.ndarray, systems: np.ndarray) -> _Pairs:
    """Per annotator, the system means of their scores and of the others' means over the items
    they rated; units are the systems of the items rated by two annotators or more."""
    items = _item_pairs(values)
    rated = np.isfinite(values).sum(axis=1) >= 2
    labels, codes = np.unique(systems[rated], return_inverse=True)
    code_of = np.full(systems.size, -1)
    code_of[rated] = codes
    held, others, units = [], [], []
    for x, o, rows in zip(items.held_out, items.others, items.units, strict=True):
        c = code_of[rows]
        present = np.unique(c)
        held.append(_means(c, x, labels.size)[present])
        others.append(_means(c, o, labels.size)[present])
        units.append(present)
    return _Pairs(held, others, units, labels.size, labels.size)


def _means(codes: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Mean of `values` per code, rounded to 12 decimals: means that are equal tie, whatever
    order their sums were added in (a rank statistic would break the tie at random)."""
    with np.errstate(invalid="ignore"):
        means = np.bincount(codes, weights=values, minlength=k) / np.bincount(codes, minlength=k)
    return np.round(means, 12)


@takes_resampling()
def annotator_ceiling(
    scores: AnnotatorScores,
    *,
    statistic: str | Statistic = "pearson",
    level: str = "turn",
    systems: Sequence[object] | np.ndarray | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = SETTINGS.confidence,
    benchmark: str | Tagged | None = None,
) -> CeilingResult:
    """The human ceiling of `scores`: one annotator's correlation with the mean of the others,
    averaged over the annotators, with a percentile bootstrap interval over the units.

    Args:
        scores: every annotator's scores of the items.
        statistic: a registered statistic's name or a `Statistic`.
        level: "turn"/"dialogue": over the items; "system": over the system means.
        systems: each item's system (system level).
        resampling: resamples of the units (0: no interval) and seed.
        confidence: the interval's confidence.
        benchmark: a Benchmark, or its tag, named in the signature.

    Returns:
        The `CeilingResult` (with the reason when it is not available).
    """
    n_resamples, seed = resampling.resamples, resampling.seed
    stat = get_statistic(statistic)
    tag = signed_benchmark(benchmark)
    signature = _signature(stat, level, n_resamples, seed, tag)
    if not stat.applies_to(level):
        raise ValueError(f"{stat.name} does not apply at {level} level")
    if stat.supports("over_contexts"):
        reason = f"{stat.name} is computed over contexts, not over one annotator's scores"
        return CeilingResult.unavailable(stat.name, level, reason, signature)
    if len(scores.annotators) < 2:
        reason = "one annotator: no other annotator to compare with"
        return CeilingResult.unavailable(stat.name, level, reason, signature)
    if level == "system":
        if systems is None:
            raise ValueError("a system-level ceiling needs the system of every item (systems=)")
        labels = np.asarray(systems, dtype=object)
        if labels.shape != (scores.values.shape[0],):
            raise ValueError(f"{labels.size} systems for {scores.values.shape[0]} items")
        pairs = _system_pairs(scores.values, labels.astype(str))
    else:
        pairs = _item_pairs(scores.values)
    values = np.array([stat.value(x, o) for x, o in zip(pairs.held_out, pairs.others, strict=True)])
    counted = np.flatnonzero(np.isfinite(values))
    unit = "systems" if level == "system" else "items"
    if counted.size == 0:
        reason = (
            f"the correlation is undefined for every annotator (fewer than {MIN_PAIRS} {unit} "
            "rated with another annotator, or constant scores)"
        )
        return CeilingResult(
            stat.name,
            level,
            np.nan,
            pairs.n_rated,
            0,
            None,
            reason,
            scores.assignment,
            signature,
            _note(scores, 0, unit),
        )
    interval = ci_note = None
    if n_resamples:
        boot = _resampled(stat, pairs, counted, n_resamples, seed)
        interval = percentile_interval(boot, confidence)
        notes = (bootstrap_note(pairs.n_rated, unit), interval.note)
        ci_note = "; ".join(n for n in notes if n) or None
    return CeilingResult(
        stat.name,
        level,
        float(values[counted].mean()),
        pairs.n_rated,
        int(counted.size),
        interval,
        None,
        scores.assignment,
        signature,
        _note(scores, len(values) - counted.size, unit),
        ci_note,
    )


def _note(scores: AnnotatorScores, left_out: int, unit: str) -> str | None:
    parts = []
    if scores.assignment == BY_POSITION:
        parts.append(f"annotators: {BY_POSITION}")
    if left_out:
        parts.append(
            f"{left_out} of {len(scores.annotators)} annotators left out (their correlation is "
            f"undefined: fewer than {MIN_PAIRS} {unit} rated with another annotator, or constant "
            "scores)"
        )
    if scores.repeated:
        parts.append(f"{scores.repeated} repeated ratings of an item by its annotator averaged")
    return "; ".join(parts) or None


def _resampled(
    stat: Statistic, pairs: _Pairs, counted: np.ndarray, n_resamples: int, seed: int
) -> np.ndarray:
    """(n_resamples,) the mean over the counted annotators of their correlations in each
    resample of the units (NaN where none is defined); each annotator's correlation is over the
    drawn units they rated."""
    scorers = [stat.resampler(pairs.held_out[a][None, :], pairs.others[a]) for a in counted]
    columns = [pairs.units[a] for a in counted]

    def score(W: np.ndarray) -> np.ndarray:
        per_annotator = np.vstack([s(W[:, c]) for s, c in zip(scorers, columns, strict=True)])
        defined = np.isfinite(per_annotator)
        total = np.where(defined, per_annotator, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / defined.sum(axis=0)

    chunks = bootstrap_count_chunks(pairs.n_units, n_resamples, seed)
    return over_chunks(chunks, [score])[0]


@takes_resampling()
def benchmark_ceiling(
    bench: Benchmark,
    aspect: str | None = None,
    *,
    statistic: str | Statistic = "pearson",
    level: str | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = SETTINGS.confidence,
) -> CeilingResult:
    """The human ceiling of a benchmark's ratings of one aspect on all its items. The caller
    chooses the items (e.g. `bench.without_systems(...)`).

    Args:
        bench: the benchmark.
        aspect: the rated aspect (default: the level's default aspect).
        statistic: a registered statistic's name or a `Statistic`.
        level: the level (default: the benchmark's; "system": over its systems' means).
        resampling: resamples of the units (0: no interval) and seed.
        confidence: the interval's confidence.

    Returns:
        The `CeilingResult`; when it is not available, its `reason` says why.
    """
    level = level or bench.level
    name = bench.metadata.aspect(aspect, bench.level).name
    try:
        scores = AnnotatorScores.of_benchmark(bench, name)
    except CeilingUnavailable as error:
        stat = get_statistic(statistic)
        signature = _signature(stat, level, resampling.resamples, resampling.seed, bench.tag)
        return CeilingResult.unavailable(stat.name, level, str(error), signature)
    return annotator_ceiling(
        scores,
        statistic=statistic,
        level=level,
        systems=bench.table.column("system").to_pylist(),
        resampling=resampling,
        confidence=confidence,
        benchmark=bench,
    )
