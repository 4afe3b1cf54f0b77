"""Scores the user brings (a file, a DataFrame, a Series per metric) as metrics of a run.

The scores are checked against the benchmark's items: every item has exactly one score row,
no row names an unknown item, and every value is a number (NaN stays NaN).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from comperbench.common.errors import ComperbenchError, DataFormatError
from comperbench.metrics.base import Family, Item, Metric, Need

if TYPE_CHECKING:
    import pandas as pd

    from comperbench.benchmark import Benchmark

ID_COLUMNS = ("item_id", "system")
"""Columns of a scores table that are not metrics."""


def aligned_scores(
    frame: pd.DataFrame,
    bench: Benchmark,
    source: str,
    line: Callable[[int], int] | None = None,
) -> dict[str, np.ndarray]:
    """Each metric column of `frame` (an `item_id` column plus one column per metric) as floats
    in the order of the benchmark's items. `source` names the input in errors: a file, whose
    row positions `line` maps to line numbers, or (without `line`) an object in memory, whose
    rows are counted from 0."""
    import pandas as pd

    fail = _failure(source, line)
    if "item_id" not in frame.columns:
        raise fail("no 'item_id' column")
    ids = frame["item_id"].astype(str)
    duplicated = ids.duplicated()
    if duplicated.any():
        i = int(np.flatnonzero(duplicated)[0])
        raise fail(f"duplicate item_id {ids.iloc[i]!r}", i)
    known = set(bench.item_ids)
    unknown = ~ids.isin(known)
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        raise fail(f"item_id {ids.iloc[i]!r} is not an item of {bench.name}", i)
    missing = known - set(ids)
    if missing:
        raise fail(
            f"{len(missing)} item(s) of {bench.name} have no scores, e.g. {sorted(missing)[:3]}"
        )
    frame = frame.set_index(ids).reindex(bench.item_ids)
    scores = {}
    for column in frame.columns:
        if column in ID_COLUMNS:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna()
        if bad.any():
            item = values.index[int(np.flatnonzero(bad)[0])]
            value = frame.at[item, column]
            raise fail(f"value {value!r} is not a number", record=str(item), field=str(column))
        scores[str(column)] = values.to_numpy(dtype=float)
    if not scores:
        raise fail("no metric columns besides item_id")
    return scores


def _failure(source: str, line: Callable[[int], int] | None) -> Callable[..., ComperbenchError]:
    """The error of a problem in row `i`, or the `record` (item) and `field`, of the scores
    from `source`."""

    def fail(
        message: str, i: int | None = None, record: str | None = None, field: str | None = None
    ) -> ComperbenchError:
        if line is not None:
            where = None if i is None else line(i)
            return DataFormatError(message, file=source, line=where, record=record, field=field)
        place = [source]
        place += [f"row {i}"] if i is not None else []
        place += [f"item {record!r}"] if record is not None else []
        place += [f"column {field!r}"] if field is not None else []
        return DataFormatError(f"{', '.join(place)}: {message}")

    return fail


def given_scores(
    scores: pd.DataFrame | Mapping[str, pd.Series], bench: Benchmark
) -> dict[str, np.ndarray]:
    """`aligned_scores` of a DataFrame (`item_id` and one column per metric) or of a mapping
    from metric name to a Series indexed by item_id."""
    import pandas as pd

    if isinstance(scores, pd.DataFrame):
        return aligned_scores(scores, bench, "scores")
    aligned: dict[str, np.ndarray] = {}
    for name, series in scores.items():
        if not isinstance(series, pd.Series):
            raise TypeError(f"scores[{name!r}] is a {type(series).__name__}, not a pandas Series")
        frame = pd.DataFrame({"item_id": series.index.astype(str), name: series.to_numpy()})
        aligned |= aligned_scores(frame, bench, f"scores[{name!r}]")
    return aligned


class ProvidedScores(Metric):
    """A metric whose scores are given per item id instead of computed."""

    family: ClassVar[Family] = "learned"
    needs: ClassVar[frozenset[Need]] = frozenset({"response", "references"})
    """Taken to need references (so a protocol leaves out what it leaves out for such metrics)
    unless built with `reference_free=True`."""

    def __init__(self, name: str, scores: Mapping[str, float], reference_free: bool = False):
        self._name, self._scores = name, dict(scores)
        self.reference_free = reference_free
        if reference_free:
            self.needs = frozenset({"response"})  # type: ignore[misc]

    @property
    def name(self) -> str:
        return self._name

    def config(self) -> dict[str, Any]:
        return {"scores": "provided", "reference_free": self.reference_free}

    def score(self, items: Sequence[Item]) -> list[float]:
        return [self._scores[item.item_id] for item in items]


def provided_metrics(
    scores: Mapping[str, np.ndarray], bench: Benchmark, reference_free: bool
) -> list[ProvidedScores]:
    """One `ProvidedScores` per column of `aligned_scores`' result."""
    ids = bench.item_ids
    return [
        ProvidedScores(name, dict(zip(ids, values.tolist(), strict=True)), reference_free)
        for name, values in scores.items()
    ]
