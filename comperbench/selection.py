"""Part of a benchmark for a quick run: a seeded sample stratified by system, or the first items.

A selection is part of every result's benchmark tag (`~sample:50/1200,seed:0,ids:<sha256>`), so
a number computed on it is never mistaken for one on the whole benchmark, and its item ids are
recorded so that the same items can be scored again.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from comperbench.common.errors import ComperbenchError


@dataclass(frozen=True)
class Selection:
    """Which items of a benchmark a run keeps, and how they were chosen."""

    kind: Literal["sample", "limit"]
    n: int
    of: int
    """Items the benchmark had before the selection."""
    item_ids: tuple[str, ...]
    strata: tuple[tuple[str, int], ...]
    """Items kept per system, by system name."""
    seed: int | None = None

    @property
    def digest(self) -> str:
        """The first 12 hex digits of the sha256 of the item ids, one per line, in table order."""
        return hashlib.sha256("\n".join(self.item_ids).encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        """The selection's part of a benchmark tag."""
        seed = f",seed:{self.seed}" if self.kind == "sample" else ""
        return f"~{self.kind}:{self.n}/{self.of}{seed},ids:{self.digest}"

    def describe(self) -> str:
        """One line for a run's header."""
        per_system = ", ".join(f"{system} {count}" for system, count in self.strata)
        if self.kind == "sample":
            how = f"a sample of {self.n} of {self.of} items (seed {self.seed}, stratified by system"
        else:
            how = f"the first {self.n} of {self.of} items (in table order"
        return (
            f"{how}: {per_system}); intervals and p-values describe these items, not the whole "
            "benchmark"
        )

    def document(self) -> dict[str, Any]:
        """The selection as JSON-ready data, item ids included."""
        return {
            "kind": self.kind,
            "n": self.n,
            "of": self.of,
            "seed": self.seed,
            "ids_sha256": self.digest,
            "strata": dict(self.strata),
            "item_ids": list(self.item_ids),
        }


def _check_size(kind: str, n: int, total: int) -> None:
    if n < 1:
        raise ComperbenchError(f"--{kind} must be at least 1, got {n}")
    if n >= total:
        raise ComperbenchError(
            f"--{kind} {n} keeps every one of the {total} items: leave --{kind} out"
        )


def stratified_rows(systems: Sequence[str], n: int, seed: int) -> np.ndarray:
    """Row indices (in table order) of a seeded sample of `n` rows, allocated to the systems in
    proportion to their rows (largest remainders first, ties by system name)."""
    _check_size("sample", n, len(systems))
    labels = np.asarray(systems, dtype=object)
    names = sorted(set(systems))
    sizes = np.array([int((labels == name).sum()) for name in names])
    quotas = sizes * n / len(systems)
    counts = np.floor(quotas).astype(int)
    order = sorted(range(len(names)), key=lambda k: (-(quotas[k] - counts[k]), names[k]))
    for k in order[: n - int(counts.sum())]:
        counts[k] += 1
    rng = np.random.default_rng(seed)
    rows = [
        rng.choice(np.flatnonzero(labels == name), size=count, replace=False)
        for name, count in zip(names, counts, strict=True)
    ]
    return np.sort(np.concatenate(rows))


def first_rows(total: int, n: int) -> np.ndarray:
    """The first `n` row indices."""
    _check_size("limit", n, total)
    return np.arange(n)


def selection_of(
    kind: Literal["sample", "limit"],
    rows: np.ndarray,
    item_ids: Sequence[str],
    systems: Sequence[str],
    seed: int | None = None,
) -> Selection:
    """The record of the rows kept."""
    kept = [systems[i] for i in rows]
    return Selection(
        kind,
        len(rows),
        len(item_ids),
        tuple(item_ids[i] for i in rows),
        tuple(sorted(Counter(kept).items())),
        seed,
    )
