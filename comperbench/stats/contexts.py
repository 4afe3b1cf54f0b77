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
    """(system labels, (systems, units) matrix) of item values: the mean where a system has
    several items in a unit, NaN where it has none."""
    system_labels, s = np.unique(np.asarray(systems), return_inverse=True)
    _, u = np.unique(np.asarray(units), return_inverse=True)
    shape = (system_labels.size, int(u.max()) + 1 if u.size else 0)
    values = np.asarray(values, dtype=float)
    known = np.isfinite(values)
    sums = np.zeros(shape)
    counts = np.zeros(shape)
    np.add.at(sums, (s[known], u[known]), values[known])
    np.add.at(counts, (s[known], u[known]), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return system_labels, np.where(counts > 0, sums / counts, np.nan)


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
        labels, human = system_unit_matrix(y, systems, contexts)
        metrics = np.stack([system_unit_matrix(x, systems, contexts)[1] for x in X])
        _, codes = np.unique(contexts, return_inverse=True)
        return cls(labels, metrics, human, np.bincount(codes, minlength=human.shape[1]))

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
