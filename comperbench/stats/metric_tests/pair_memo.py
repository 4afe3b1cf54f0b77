"""The p-values of the pairs of metrics already tested, so that a comparison matrix with one
metric more (a leaderboard view after a new submission) runs only the new pairs' permutation
tests.

A pair's p-values are a function of the test settings (statistic, test, resamples, seed, early
stopping, conventions), the number of swapped units, the arrays every pair shares (the human
scores, the group layout) and the two metrics' own arrays, in that order: the key is a digest
of all of them and of this package's code. Only statistics wholly of this package's code are
kept (another package's code may change under the same key). The matrix's correction is
applied afterwards, over every pair, so a kept p-value changes no verdict's computation.

Pairs are kept in memory and, once `keep_in` names a file, in an SQLite table there, shared by
processes (a server's restarts, `comperbench submit`): each row is signed, and a row whose
signature does not match is a miss.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from comperbench.common.version import package_digest

PairPValues = tuple[float, int, float, int]
"""p[i, j], its permutations, p[j, i], its permutations."""
MAX_PAIRS = 200_000
"""Pairs kept in memory (about 150 bytes each); the least recently used are forgotten first."""
Signer = Callable[[bytes], str]


def digest(arrays: Sequence[np.ndarray]) -> bytes:
    """A digest of the arrays' dtypes, shapes and values."""
    hashed = hashlib.blake2b(digest_size=16)
    for array in arrays:
        values = np.ascontiguousarray(array)
        hashed.update(f"{values.dtype.str}{values.shape}".encode())
        hashed.update(values.tobytes())
    return hashed.digest()


@dataclass(frozen=True)
class PairInputs:
    """What a pair's null is computed from besides the settings: the arrays every pair shares
    and each metric's own (in the matrix's order)."""

    shared: Sequence[np.ndarray]
    metrics: Sequence[Sequence[np.ndarray]]

    def keys(self, context: str) -> Callable[[int, int], bytes]:
        """(i, j) -> the key of that ordered pair under `context` (settings, units)."""
        shared = digest(self.shared)
        rows = [digest(arrays) for arrays in self.metrics]
        head = hashlib.sha256(f"{context}\0{package_digest()}".encode()).digest() + shared
        return lambda i, j: hashlib.sha256(head + rows[i] + rows[j]).digest()


class PairMemo:
    """Pairs' p-values by key: in memory (the least recently used forgotten beyond
    `max_pairs`) and in the file `keep_in` names; safe to share between threads."""

    def __init__(self, max_pairs: int = MAX_PAIRS) -> None:
        self._kept: OrderedDict[bytes, PairPValues] = OrderedDict()
        self._max_pairs = max_pairs
        self._lock = threading.Lock()
        self._file: tuple[Path, sqlite3.Connection, Signer] | None = None

    def keep_in(self, path: Path, sign: Signer) -> None:
        """Keep pairs in the SQLite file `path` as well, each row signed by `sign`."""
        with self._lock:
            if self._file is not None and self._file[0] == path:
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(path, timeout=60, check_same_thread=False)
            connection.execute(
                "CREATE TABLE IF NOT EXISTS pairs (key BLOB PRIMARY KEY, tested TEXT, tag TEXT)"
            )
            connection.commit()
            if self._file is not None:
                self._file[1].close()
            self._file = (path, connection, sign)

    def get(self, key: bytes) -> PairPValues | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
            found = self._read(key)
            if found is not None:
                self._remember(key, found)
            return found

    def put(self, key: bytes, tested: PairPValues) -> None:
        with self._lock:
            self._remember(key, tested)
            if self._file is not None:
                _, connection, sign = self._file
                payload = json.dumps(tested)
                row = (key, payload, sign(key + payload.encode()))
                connection.execute("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)", row)
                connection.commit()

    def _remember(self, key: bytes, tested: PairPValues) -> None:
        self._kept[key] = tested
        self._kept.move_to_end(key)
        while len(self._kept) > self._max_pairs:
            self._kept.popitem(last=False)

    def _read(self, key: bytes) -> PairPValues | None:
        if self._file is None:
            return None
        _, connection, sign = self._file
        query = "SELECT tested, tag FROM pairs WHERE key = ?"
        found = connection.execute(query, (key,)).fetchone()
        if found is None:
            return None
        payload, tag = (str(value) for value in found)
        if not hmac.compare_digest(tag, sign(key + payload.encode())):
            return None  # edited, or damaged: tested again
        p_ij, used_ij, p_ji, used_ji = json.loads(payload)  # as signed: written by `put`
        return float(p_ij), int(used_ij), float(p_ji), int(used_ji)

    def forget(self) -> None:
        """Forget every pair held in memory (the file's rows stay)."""
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


PAIRS = PairMemo()
"""The process's kept pairs."""
