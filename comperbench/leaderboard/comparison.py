"""The verdicts of a leaderboard view: `metric_verdicts` (the test, correction and resolution of
`stats.settings`, as `comperbench compare` runs it) between its ranked rows, on the items every
one of them scored, ordered and led by the values the rows show (a reference-free row's value is
on more items than the tests with a reference-based one). Rank ranges, "tied with leader", the
comparison matrix and the clusters of every page are read from this one object.

A view's verdicts are kept in memory and on disk (verified), keyed by the rows' stored scores,
so that a page computes them once per set of rows; the store only adds rows, so a new
submission makes a new key. Each pair's test is kept as well (`pair_memo`, in the cache folder),
so that the verdicts with a new row test only its pairs, in this process or another."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from comperbench import data
from comperbench.leaderboard.items import LevelItems, scored_items, source_level
from comperbench.leaderboard.scoring import stats_code
from comperbench.leaderboard.store import Row, Store
from comperbench.stats.metric_correlation.statistics import supports
from comperbench.stats.metric_tests.pair_memo import PAIRS
from comperbench.stats.metric_tests.significance import SignificanceMatrix
from comperbench.stats.metric_tests.verdicts import Resolution, Verdicts, metric_verdicts
from comperbench.stats.settings import SETTINGS, Resampling

FORMAT = 1
"""Version of the kept verdicts' file layout."""


def _shared_items(benchmark: str, level: str, rows: Sequence[Row]) -> LevelItems:
    """The items every row is correlated on: all of them for reference-free metrics only, else
    those of a reference-based metric (`items.scored_items`)."""
    reference_free = all(r.reference_free for r in rows)
    return scored_items(benchmark, source_level(benchmark, level), reference_free)


def _scores(
    store: Store, benchmark: str, items: LevelItems, rows: Sequence[Row]
) -> dict[str, np.ndarray]:
    """Each row's stored item scores on `items`, by metric id."""
    item_level, positions = items.level, items.positions
    scores = {}
    for row in rows:
        found = store.item_scores(row.metric_id, benchmark, item_level)
        if found is None:
            raise ValueError(f"{row.metric} has no stored scores on {benchmark} ({item_level})")
        scores[str(row.metric_id)] = found[positions]
    return scores


def _key(view: tuple[str, str, str, str], scores: dict[str, np.ndarray], tag: str) -> str:
    digest = hashlib.sha256(repr((FORMAT, view, tag, SETTINGS)).encode())
    for metric_id, values in scores.items():
        digest.update(metric_id.encode() + b"\0" + values.tobytes())
    digest.update(stats_code().encode())
    return digest.hexdigest()[:32]


def _path(benchmark: str, key: str) -> Path:
    return data.cache_dir() / "leaderboard" / benchmark / "verdicts" / f"{key}.json"


def _to_json(v: Verdicts) -> bytes:
    m = v.matrix
    matrix = {**vars(m), "values": m.values, "deltas": m.deltas, "p_values": m.p_values}
    fields = {
        "matrix": {
            k: np.asarray(x).tolist() if isinstance(x, np.ndarray) else x for k, x in matrix.items()
        },
        "adjusted": v.adjusted.tolist(),
        "correction": v.correction,
        "test": v.test,
        "resolution": vars(v.resolution),
    }
    return json.dumps(fields).encode()


def _from_json(payload: bytes) -> Verdicts:
    fields = json.loads(payload)
    m = fields["matrix"]
    for name in ("values", "deltas", "p_values"):
        m[name] = np.asarray(m[name], dtype=float)
    m["resamples_used"] = np.asarray(m["resamples_used"], dtype=int)
    return Verdicts(
        SignificanceMatrix(**m),
        np.asarray(fields["adjusted"], dtype=float),
        fields["correction"],
        fields["test"],
        Resolution(**fields["resolution"]),
    )


@lru_cache(maxsize=64)
def _computed(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    ids: tuple[int, ...],
    tag: str,
) -> Verdicts:
    rows = {r.metric_id: r for r in store.view(benchmark, level, aspect, statistic)}
    chosen = [rows[i] for i in ids]
    return _tested(store, benchmark, level, aspect, statistic, chosen, tag).ordered_by(
        {str(r.metric_id): r.value for r in chosen}
    )


def _tested(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    chosen: Sequence[Row],
    tag: str,
) -> Verdicts:
    """The verdicts of the tests between `chosen` on the items they all share (kept on disk)."""
    items = _shared_items(benchmark, level, chosen)
    scores = _scores(store, benchmark, items, chosen)
    path = _path(benchmark, _key((benchmark, level, aspect, statistic), scores, tag))
    kept = data.read_verified(path)
    if kept is not None:
        try:
            return _from_json(kept)
        except (ValueError, KeyError, TypeError):
            pass  # another layout: computed again below
    over_contexts = supports(statistic, "over_contexts")
    PAIRS.keep_in(data.cache_dir() / "leaderboard" / "pairs.sqlite", data.keyed_digest)
    verdicts = metric_verdicts(
        scores,
        items.human_scores(aspect),
        level=level,  # type: ignore[arg-type]
        statistic=statistic,
        test=SETTINGS.test,  # type: ignore[arg-type]
        groups=items.contexts if over_contexts else None,
        systems=items.systems,
        correction=SETTINGS.correction,
        alpha=SETTINGS.alpha,
        resampling=Resampling(seed=SETTINGS.seed),
        benchmark=items.tag,
    )
    data.write_verified(path, _to_json(verdicts))
    return verdicts


def view_verdicts(
    store: Store, benchmark: str, level: str, aspect: str, statistic: str, rows: Sequence[Row]
) -> Verdicts:
    """The verdicts between `rows` of one view (metrics named by their metric id, best first)."""
    ids = tuple(sorted(r.metric_id for r in rows))
    tag = scored_items(benchmark, source_level(benchmark, level)).tag
    return _computed(store, benchmark, level, aspect, statistic, ids, tag)
