"""The metrics: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `info`, `available()`.

Families live in subpackages (`lexical`, `embeddings`, `learned`, `llm` with its `backends`);
what a metric is, the registry, the runner with its cache, workers and cluster, and the scores a
user brings stay here; `about` holds what metrics say of themselves (`MetricInfo`, cards). The
registry imports the metric modules it declares, and plugins, on its first lookup, so importing
this package imports none of them.
"""

from __future__ import annotations

from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import DialogueItem, Item, Metric, MetricResult, TurnItem
from comperbench.metrics.registry import METRICS, available, get, info, register_metric

__all__ = [
    "METRICS",
    "DialogueItem",
    "Item",
    "Metric",
    "MetricInfo",
    "MetricResult",
    "TurnItem",
    "available",
    "get",
    "info",
    "register_metric",
]
