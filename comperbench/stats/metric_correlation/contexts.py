"""Every system's scores on each context: the input of system-level statistics over contexts.

A benchmark whose systems answer the same contexts gives, for the humans and for each metric, a
systems x contexts matrix; a cell is the mean of the system's items in that context, NaN where
it has none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def system_unit_matrix(
    values: np.ndarray, systems: np.ndarray, units: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Item values as a systems x units matrix: the mean where a system has several items in a
    unit, NaN where it has none.

    Args:
        values: each item's value.
        systems: each item's system.
        units: each item's unit (e.g. its context).

    Returns:
        The system labels (sorted) and the (systems, units) matrix.
    """
    system_labels, cells, shape = _cells(systems, units)
    return system_labels, _cell_means(np.asarray(values, dtype=float)[None, :], cells, shape)[0]


def _cells(systems: np.ndarray, units: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(system labels, each item's cell in a flattened systems x units matrix, its shape)."""
    system_labels, s = sorted_codes(systems)
    _, u = sorted_codes(units)
    shape = (system_labels.size, int(u.max()) + 1 if u.size else 0)
    return system_labels, s * shape[1] + u, shape


def sorted_codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(labels, return_inverse=True)`: the distinct labels sorted, and each label's
    index among them. Object labels (strings) are told apart by hashing and only the distinct
    ones sorted, several times faster than sorting every item's label."""
    labels = np.asarray(labels)
    if labels.dtype != object:
        return np.unique(labels, return_inverse=True)
    values = labels.ravel().tolist()
    distinct = sorted(dict.fromkeys(values))
    index = {label: i for i, label in enumerate(distinct)}
    codes = np.fromiter(map(index.__getitem__, values), np.int64, len(values))
    return np.fromiter(distinct, dtype=object, count=len(distinct)), codes


def _cell_means(rows: np.ndarray, cells: np.ndarray, shape: tuple) -> np.ndarray:
    """(rows, systems, units): per row of item values, the mean of each cell's finite values
    (summed in item order), NaN for a cell without any."""
    size = shape[0] * shape[1]
    known = np.isfinite(rows)
    flat = (cells + size * np.arange(len(rows))[:, None])[known]
    sums = np.bincount(flat, weights=rows[known], minlength=size * len(rows))
    counts = np.bincount(flat, minlength=size * len(rows))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / counts, np.nan)
    return means.reshape(len(rows), *shape)


@dataclass(frozen=True)
class SystemContexts:
    """The humans' and each metric's systems x contexts matrices, and the items per context."""

    systems: np.ndarray
    metrics: np.ndarray
    """(metrics, systems, contexts)."""
    human: np.ndarray
    """(systems, contexts)."""
    items: np.ndarray
    """(contexts,): items in each context, to count those a dropped context leaves out."""

    @classmethod
    def of(
        cls, X: np.ndarray, y: np.ndarray, systems: np.ndarray, contexts: np.ndarray
    ) -> SystemContexts:
        """From item scores X (metrics x items) and y, and each item's system and context."""
        labels, cells, shape = _cells(systems, contexts)
        means = _cell_means(
            np.vstack([np.asarray(X, dtype=float), np.asarray(y, dtype=float)[None, :]]),
            cells,
            shape,
        )
        items = np.bincount(cells % shape[1], minlength=shape[1])
        return cls(labels, means[:-1], means[-1], items)

    def complete(self, metric: int) -> np.ndarray:
        """Contexts where every system has a human and a metric score."""
        return np.isfinite(self.metrics[metric]).all(axis=0) & np.isfinite(self.human).all(axis=0)


def undefined_reason(metric: np.ndarray, human: np.ndarray) -> str | None:
    """Why a statistic over these systems x contexts matrices (complete contexts only) is
    undefined, or None."""
    if metric.shape[0] < 2:
        return f"only {metric.shape[0]} system; a comparison of systems needs at least 2"
    if metric.shape[1] == 0:
        return "no context has a human and a metric score of every system"
    if np.all(metric == metric.flat[0]):
        return "metric scores are constant"
    if np.all(human == human.flat[0]):
        return "human scores are constant"
    return None
