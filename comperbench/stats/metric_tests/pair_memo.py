"""The p-values of the pairs of metrics already tested in this process, so that a comparison
matrix with one metric more (a leaderboard view after a new submission) runs only the new
pairs' permutation tests.

A pair's p-values are a function of the test settings (statistic, test, resamples, seed, early
stopping, conventions), the number of swapped units, the arrays every pair shares (the human
scores, the group layout) and the two metrics' own arrays, in that order: the key is all of
them, the arrays by digest. The matrix's correction is applied afterwards, over every pair, so
a kept p-value changes no verdict's computation.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

PairPValues = tuple[float, int, float, int]
"""p[i, j], its permutations, p[j, i], its permutations."""
MAX_PAIRS = 200_000
"""Pairs kept (about 100 bytes each); the least recently used are forgotten first."""


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

    def keys(self, context: Hashable) -> Callable[[int, int], Hashable]:
        """(i, j) -> the key of that ordered pair under `context` (settings, units)."""
        shared = digest(self.shared)
        rows = [digest(arrays) for arrays in self.metrics]
        return lambda i, j: (context, shared, rows[i], rows[j])


class PairMemo:
    """Pairs' p-values by key, the least recently used forgotten beyond `max_pairs`; safe to
    share between threads (a server's requests)."""

    def __init__(self, max_pairs: int = MAX_PAIRS) -> None:
        self._kept: OrderedDict[Hashable, PairPValues] = OrderedDict()
        self._max_pairs = max_pairs
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> PairPValues | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: Hashable, tested: PairPValues) -> None:
        with self._lock:
            self._kept[key] = tested
            self._kept.move_to_end(key)
            while len(self._kept) > self._max_pairs:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


PAIRS = PairMemo()
"""The process's kept pairs."""
