"""Correlation tables kept for a warm re-run: the same evaluation again reads its table (every
value, interval and human ceiling) instead of resampling it all again.

A table is kept in the cache folder under a digest of everything it is computed from: the
benchmark's ratings and human scores (as stored), its tag, each metric's name, needs and scores,
the items' ids and systems, the settings, the package's code and the versions of the numeric
libraries. It is a verified file (`data.write_verified`): one edited by someone without the
cache key is a miss, and the table is computed again.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from comperbench import data
from comperbench.common.arrow_arrays import float_values, list_offsets
from comperbench.common.version import distribution_version, package_digest
from comperbench.evaluation.table import EvaluationTable
from comperbench.metrics.runner import RunResult
from comperbench.stats.metric_correlation.statistics import get_statistic, own_code_identity

LIBRARIES = ("numpy", "scipy", "numba")


def memoised_table(
    result: RunResult,
    settings: dict[str, object],
    statistics: Sequence[str],
    compute: Callable[[], EvaluationTable],
) -> EvaluationTable:
    """The table kept for `result` and `settings` (everything else that changes it), else
    `compute()`, kept; always `compute()` when a statistic is another package's (its code may
    change while this package's digest does not)."""
    if any(own_code_identity(get_statistic(name)) is None for name in statistics):
        return compute()
    path = data.cache_dir() / "tables" / f"{table_key(result, settings)}.pickle"
    kept = data.read_verified(path)
    if kept is not None:
        table = pickle.loads(kept)  # signed with this user's key: written below
        if isinstance(table, EvaluationTable):
            return table
    table = compute()
    data.write_verified(path, pickle.dumps(table))
    return table


def table_key(result: RunResult, settings: dict[str, object]) -> str:
    """The digest of everything a correlation table is computed from."""
    digest = hashlib.sha256()
    described = {
        "settings": settings,
        "benchmark": result.benchmark.tag,
        "split": result.benchmark.split,
        "level": result.level,
        "code": package_digest(),
        "libraries": {name: distribution_version(name) for name in LIBRARIES},
        "metrics": [[r.metric.name, sorted(r.metric.needs), r.metric.corpus] for r in result.runs],
        "items": [list(result.item_ids), list(result.item_systems), list(result.systems)],
    }
    digest.update(json.dumps(described, sort_keys=True, default=str).encode())
    for run in result.runs:
        digest.update(np.ascontiguousarray(run.scores, dtype=np.float64).tobytes())
    for part in _human_bytes(result.benchmark.table):
        digest.update(part)
    return digest.hexdigest()


def _human_bytes(table: pa.Table) -> Iterator[bytes]:
    """The benchmark's item ids, systems, dialogues, human scores and ratings, in a form that
    does not depend on how the table was laid out (as parsed, as cached, as selected)."""
    for name in ("item_id", "system", "dialogue_id"):
        if name in table.column_names:
            yield json.dumps(table.column(name).to_pylist()).encode()
    scores = table.column("scores").combine_chunks()
    for field in scores.type:
        yield field.name.encode() + b"\0" + _floats(scores.field(field.name))
    if "ratings" in table.column_names:
        ratings = table.column("ratings").combine_chunks()
        yield list_offsets(ratings).tobytes()
        flat = ratings.flatten()
        yield json.dumps([flat.field(n).to_pylist() for n in ("aspect", "annotator")]).encode()
        yield _floats(flat.field("value"))


def _floats(values: pa.Array) -> bytes:
    return float_values(values.cast(pa.float64())).tobytes()
