"""How well a judge detects issues: precision, recall and F1 of its 0/1 issue flags against human
0/1 labels, per issue type and pooled over types (micro average), as the Soda-Eval paper reports
issue detection.

Precision and recall are proportions, with Wilson intervals; F1 has a percentile bootstrap
interval over items (resampled in chunks, so memory grows with the items).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from comperbench.stats.human.percentile import percentile_only
from comperbench.stats.rates import wilson_interval
from comperbench.stats.resampling import bootstrap_indices, percentile_interval
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

CHUNK = 100
"""Resamples drawn at a time."""


@dataclass(frozen=True)
class Detection:
    """Counts, precision, recall and F1 of one issue type (or the pooled types) with intervals."""

    issue: str
    items: int
    true_positives: int
    false_positives: int
    false_negatives: int
    precision: float
    precision_ci: tuple[float, float]
    recall: float
    recall_ci: tuple[float, float]
    f1: float
    f1_ci: tuple[float, float]


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """F1 = 2 tp / (2 tp + fp + fn); NaN where there is neither a flag nor a label."""
    denominator = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * tp / np.maximum(denominator, 1), np.nan)


@takes_resampling()
def detection(
    issue: str,
    judge: np.ndarray,
    human: np.ndarray,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
) -> Detection:
    """Detection of one issue type; an item missing either side is left out.

    Args:
        issue: the issue type's name.
        judge: the judge's flags, (items,) or (items, types) 0/1 (types pooled).
        human: the human labels, shaped as `judge`.
        resampling: resamples and seed of F1's interval; percentile intervals only.
        confidence: the intervals' confidence level.

    Returns:
        The `Detection`.
    """
    percentile_only(resampling, "detection")
    n_resamples, seed = resampling.resamples, resampling.seed
    judge, human = np.atleast_2d(judge.T).T, np.atleast_2d(human.T).T
    keep = ~(np.isnan(judge).any(axis=1) | np.isnan(human).any(axis=1))
    flagged, labelled = judge[keep] > 0.5, human[keep] > 0.5
    per_item = np.stack(
        [(flagged & labelled).sum(1), (flagged & ~labelled).sum(1), (~flagged & labelled).sum(1)]
    ).astype(float)
    tp, fp, fn = (int(v) for v in per_item.sum(axis=1))
    boot = np.full(n_resamples, np.nan)
    n = per_item.shape[1]
    for start in range(0, n_resamples if n else 0, CHUNK):
        size = min(CHUNK, n_resamples - start)
        rows = bootstrap_indices(n, size, seed + start)
        sums = per_item[:, rows].sum(axis=2)
        boot[start : start + size] = _f1(*sums)
    f1_ci = percentile_interval(boot, confidence)
    return Detection(
        issue,
        n,
        tp,
        fp,
        fn,
        tp / (tp + fp) if tp + fp else np.nan,
        wilson_interval(tp, tp + fp, confidence),
        tp / (tp + fn) if tp + fn else np.nan,
        wilson_interval(tp, tp + fn, confidence),
        float(_f1(np.array(tp), np.array(fp), np.array(fn))),
        (f1_ci.low, f1_ci.high),
    )


@takes_resampling()
def detection_table(
    judge: Mapping[str, np.ndarray],
    human: Mapping[str, np.ndarray],
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
) -> list[Detection]:
    """Detection per issue type the judge and the human labels both have, then `micro` (every
    type pooled).

    Args:
        judge: the judge's 0/1 flags per issue type.
        human: the human 0/1 labels per issue type.
        resampling: resamples and seed of F1's interval; percentile intervals only.
        confidence: the intervals' confidence level.

    Returns:
        One `Detection` per shared issue type, then `micro` when there are several.
    """
    types = [t for t in judge if t in human]
    rows = [
        detection(t, judge[t], human[t], resampling=resampling, confidence=confidence)
        for t in types
    ]
    if len(types) > 1:
        pooled = detection(
            "micro",
            np.column_stack([judge[t] for t in types]),
            np.column_stack([human[t] for t in types]),
            resampling=resampling,
            confidence=confidence,
        )
        rows.append(pooled)
    return rows
