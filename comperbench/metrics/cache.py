"""The score cache: one SQLite file per metric configuration, one row per item content hash.

A score is found under sha256(metric name, configuration, library and implementation version) ->
file, and sha256(the item fields the metric reads) -> row, so a changed input or a changed metric
is never served a stale score, and an unrelated change (e.g. the context, for BLEU) keeps its
scores.
Lookups are done in bulk (chunked `IN` queries, or one pass over a file holding little more than
the keys asked), and the scores of a list of keys found whole are kept as one signed array (a
snapshot), so a cached re-run over 10,000 items reads one row per metric.

Every row carries a tag, a keyed MAC of (file, row key, score) under `comperbench.data.cache_key`,
since the cache folder may be writable by others than the key's owner: a row whose tag does not
verify (edited, copied from another file, or written before rows were tagged) is not served, and
its item is scored again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import sqlite3
import warnings
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

import numpy as np
import pyarrow as pa

from comperbench import data
from comperbench.common.version import package_digest
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
            "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, score REAL, tag BLOB)"
            " WITHOUT ROWID"
        )
        columns = {row[1] for row in connection.execute("PRAGMA table_info(scores)")}
        if "tag" not in columns:  # a file written before rows were tagged
            connection.execute("ALTER TABLE scores ADD COLUMN tag BLOB")
        connection.execute(
            "CREATE TABLE IF NOT EXISTS metric (name TEXT PRIMARY KEY, identity TEXT)"
        )
        connection.execute(
            "CREATE TABLE IF NOT EXISTS snapshots (keys BLOB UNIQUE, scores BLOB, tag BLOB)"
        )
        return connection

    def lookup(self, metric: Metric, keys: Sequence[str]) -> dict[str, float]:
        """Stored scores of the keys that have one whose tag verifies (NaN is stored as NULL and
        returned as NaN); a row that does not verify is left out, with a warning."""
        unique = list(dict.fromkeys(keys))
        with closing(self._connect(metric)) as connection:
            snapshot = _Snapshot(metric, unique)
            kept = snapshot.read(connection)
            if kept is not None:
                return kept
            (stored,) = connection.execute("SELECT count(*) FROM scores").fetchone()
            if stored <= SCAN_RATIO * len(unique):  # one pass over the file beats the lookups
                wanted = set(unique)
                rows = connection.execute("SELECT key, score, tag FROM scores")
                found = [row for row in rows if row[0] in wanted]
            else:
                found = []
                for start in range(0, len(unique), _CHUNK):
                    chunk = unique[start : start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    query = f"SELECT key, score, tag FROM scores WHERE key IN ({marks})"
                    found += connection.execute(query, chunk)
            verified = _verified(metric, found)
            if len(verified) == len(unique):
                snapshot.write(connection, verified)
        return verified

    def table_item_keys(
        self, table: pa.Table, items: Sequence[Item], needs: Iterable[str]
    ) -> list[str]:
        """`item_keys` of the items made from the rows of `table` (a benchmark's), kept in a
        verified file under a digest of the columns items are made of and of this code."""
        needs = sorted(needs)
        digest = _columns_digest(table, ITEM_COLUMNS, needs)
        if digest is None:
            return item_keys(items, needs)
        path = self.root / "item-keys" / f"{digest}.txt"
        kept = data.read_verified(path)
        if kept is not None and len(keys := kept.decode().split("\n")) == len(items):
            return keys
        keys = item_keys(items, needs)
        data.write_verified(path, "\n".join(keys).encode())
        return keys

    def store(self, metric: Metric, scores: Mapping[str, float]) -> None:
        identity = json.dumps(
            {"config": metric.config(), "library": metric.cache_version()}, default=str
        )
        with closing(self._connect(metric)) as connection, connection:
            connection.execute(
                "INSERT OR REPLACE INTO metric VALUES (?, ?)", (metric.name, identity)
            )
            connection.execute("DELETE FROM snapshots")  # they may hold a replaced score
            signing = _Signer(metric)
            connection.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?)",
                [
                    (k, None if math.isnan(v) else float(v), signing.tag(k, float(v)))
                    for k, v in scores.items()
                    if metric.cache_nan or not math.isnan(v)
                ],
            )


ITEM_COLUMNS = ("response", "references", "grounding", "context", "turns")
"""The columns of a benchmark table that items (and so their keys) are made of."""


def _columns_digest(table: pa.Table, columns: Sequence[str], needs: Sequence[str]) -> str | None:
    """A digest of the table's `columns` (those present) as stored (Arrow buffers, offsets and
    lengths: the same buffers always hold the same values), `needs` and this package's code;
    None for a dictionary-encoded column, whose buffers leave out its dictionary."""
    present = {name: table.column(name) for name in columns if name in table.column_names}
    if any("dictionary" in str(column.type) for column in present.values()):
        return None
    digest = hashlib.blake2b(digest_size=20)
    digest.update(json.dumps([package_digest(), needs, table.num_rows]).encode())
    for name, column in present.items():
        digest.update(f"\0{name}\0{column.type}".encode())
        for chunk in column.chunks:
            digest.update(f"{chunk.offset},{len(chunk)}".encode())
            for buffer in chunk.buffers():
                digest.update(b"-" if buffer is None else memoryview(buffer))
    return digest.hexdigest()


class _Signer:
    """Tags of one metric file's rows: keyed BLAKE2b (a MAC; 3x faster here than HMAC-SHA256)
    of (file, key, score), 16 bytes."""

    def __init__(self, metric: Metric) -> None:
        key = data.cache_key()
        key = key if len(key) <= 64 else hashlib.sha256(key).digest()  # BLAKE2b's key limit
        self.base = hashlib.blake2b(key=key, digest_size=16)
        self.base.update(metric_key(metric).encode() + b"\0")

    def tag(self, key: str, score: float) -> bytes:
        return self.tag_bytes(key.encode() + b"\0" + repr(score).encode())

    def tag_bytes(self, message: bytes) -> bytes:
        mac = self.base.copy()
        mac.update(message)
        return mac.digest()


class _Snapshot:
    """Every score of one list of keys as one signed array: a lookup of the same keys again
    (a warm re-run) reads one row and checks one tag instead of one per key. It is written
    when every key had a verified row, and the file's snapshots are deleted whenever a score is
    stored; the newest `KEPT` stay."""

    KEPT = 16

    def __init__(self, metric: Metric, keys: list[str]) -> None:
        self.signing, self.keys = _Signer(metric), keys
        self.digest = hashlib.blake2b("\n".join(keys).encode(), digest_size=16).digest()

    def _tag(self, scores: bytes) -> bytes:
        return self.signing.tag_bytes(b"\0snapshot\0" + self.digest + scores)

    def read(self, connection: sqlite3.Connection) -> dict[str, float] | None:
        query = "SELECT scores, tag FROM snapshots WHERE keys = ?"
        row = connection.execute(query, (self.digest,)).fetchone()
        if row is None or not hmac.compare_digest(row[1], self._tag(row[0])):
            return None
        scores = np.frombuffer(row[0], dtype=np.float64)
        if scores.size != len(self.keys):
            return None
        return dict(zip(self.keys, scores.tolist(), strict=True))

    def write(self, connection: sqlite3.Connection, found: Mapping[str, float]) -> None:
        scores = np.array([found[key] for key in self.keys], dtype=np.float64).tobytes()
        with connection:
            connection.execute(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)",
                (self.digest, scores, self._tag(scores)),
            )
            connection.execute(
                "DELETE FROM snapshots WHERE rowid NOT IN"
                " (SELECT rowid FROM snapshots ORDER BY rowid DESC LIMIT ?)",
                (self.KEPT,),
            )


def _verified(
    metric: Metric, rows: Iterable[tuple[str, float | None, bytes | None]]
) -> dict[str, float]:
    """The scores of the rows whose tag verifies; warns of the others, which are scored again."""
    signing, found, refused = _Signer(metric), {}, 0
    for key, stored, tag in rows:
        score = math.nan if stored is None else stored
        if tag is not None and hmac.compare_digest(tag, signing.tag(key, score)):
            found[key] = score
        else:
            refused += 1
    if refused:
        warnings.warn(
            f"score cache of {metric.name}: {refused} stored score(s) failed verification "
            "(edited, or written before scores were tagged); their items are scored again",
            stacklevel=3,
        )
    return found
