"""The score cache: one SQLite file per metric configuration, one row per item content hash.

A score is found under sha256(metric name, configuration, library and implementation version) ->
file, and sha256(the item fields the metric reads) -> row, so a changed input or a changed metric
is never served a stale score, and an unrelated change (e.g. the context, for BLEU) keeps its
scores.
Lookups are done in bulk (chunked `IN` queries, or one pass over a file holding little more than
the keys asked) so a cached re-run over 10,000 items is instant.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from comperbench import data
from comperbench.metrics.base import (
    DialogueItem,
    Item,
    Metric,
    MetricInputError,
    TurnItem,
    check_turn_items,
    is_utterance,
)

_CHUNK = 900  # below SQLite's default limit of bound parameters
SCAN_RATIO = 2
"""A lookup reads the whole file when it holds at most this many rows per key asked."""


def metric_key(metric: Metric) -> str:
    """sha256 of what determines a metric's scores besides the items."""
    identity = {
        "name": metric.name,
        "config": metric.config(),
        "library": metric.cache_version(),
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def item_key(item: Item, needs: Iterable[str]) -> str:
    """sha256 of the item content a metric reads (its needs), not of its id.

    The fields read are validated first, so a value of the wrong type (bytes for a response) is a
    `MetricInputError` naming the item and the field, not a JSON encoding error.
    """
    needs = frozenset(needs)
    if isinstance(item, DialogueItem):
        for index, u in enumerate(item.turns):
            if not is_utterance(u):
                raise MetricInputError(
                    f"item {item.item_id!r}, field 'turns' (turn {index}): expected an utterance "
                    f"with string speaker and text, got {u!r:.80}"
                )
        content: dict[str, object] = {"turns": [[u.speaker, u.text] for u in item.turns]}
    else:
        (item,) = check_turn_items([item], needs)  # type: ignore[arg-type]
        content = {"response": item.response}
        if "references" in needs:
            content["references"] = list(item.references)
        if "grounding" in needs:
            content["grounding"] = list(item.grounding)
        if "context" in needs:
            content["context"] = [[u.speaker, u.text] for u in item.context]
    return hashlib.sha256(json.dumps(content, ensure_ascii=False).encode()).hexdigest()


def item_keys(items: Sequence[Item], needs: Iterable[str]) -> list[str]:
    """`item_key` of every item; each distinct list field (references, grounding, context) is
    checked and encoded once, since on dstc7 ten responses share each set of ~33 references."""
    needs = frozenset(needs)
    fields = [f for f in ("references", "grounding", "context") if f in needs]
    encoded: dict[tuple[str, object], str] = {}
    keys = []
    for item in items:
        if not isinstance(item, TurnItem) or not isinstance(item.response, str):
            keys.append(item_key(item, needs))  # a dialogue, or a located error
            continue
        # json.dumps of item_key's dict, written field by field: the same bytes, the same key
        parts = [f'"response": {json.dumps(item.response, ensure_ascii=False)}']
        for name in fields:
            value = getattr(item, name)
            text = encoded.get((name, value))
            if text is None:
                (checked,) = check_turn_items([item], needs)
                text = encoded[(name, value)] = _encode_list(name, getattr(checked, name))
            parts.append(f'"{name}": {text}')
        keys.append(hashlib.sha256(("{" + ", ".join(parts) + "}").encode()).hexdigest())
    return keys


def _encode_list(name: str, value: Sequence[object]) -> str:
    listed = [[u.speaker, u.text] for u in value] if name == "context" else list(value)  # type: ignore[attr-defined]
    return json.dumps(listed, ensure_ascii=False)


class ScoreCache:
    """Item scores on disk under `<cache>/scores/` (default: `comperbench.data.cache_dir()`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or data.cache_dir() / "scores"

    def _connect(self, metric: Metric) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.root / f"{metric_key(metric)}.sqlite", timeout=30)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, score REAL) WITHOUT ROWID"
        )
        connection.execute(
            "CREATE TABLE IF NOT EXISTS metric (name TEXT PRIMARY KEY, identity TEXT)"
        )
        return connection

    def lookup(self, metric: Metric, keys: Sequence[str]) -> dict[str, float]:
        """Stored scores of the keys that have one (NaN is stored as NULL and returned as NaN)."""
        unique = list(dict.fromkeys(keys))
        with closing(self._connect(metric)) as connection:
            (stored,) = connection.execute("SELECT count(*) FROM scores").fetchone()
            if stored <= SCAN_RATIO * len(unique):  # one pass over the file beats the lookups
                wanted = set(unique)
                rows = connection.execute("SELECT key, score FROM scores")
                found = {k: v for k, v in rows if k in wanted}
            else:
                found = {}
                for start in range(0, len(unique), _CHUNK):
                    chunk = unique[start : start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    query = f"SELECT key, score FROM scores WHERE key IN ({marks})"
                    found.update(connection.execute(query, chunk))
        for key, score in found.items():
            if score is None:
                found[key] = math.nan
        return found

    def store(self, metric: Metric, scores: Mapping[str, float]) -> None:
        identity = json.dumps(
            {"config": metric.config(), "library": metric.cache_version()}, default=str
        )
        with closing(self._connect(metric)) as connection, connection:
            connection.execute(
                "INSERT OR REPLACE INTO metric VALUES (?, ?)", (metric.name, identity)
            )
            connection.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?)",
                [
                    (k, None if math.isnan(v) else v)
                    for k, v in scores.items()
                    if metric.cache_nan or not math.isnan(v)
                ],
            )
