"""The metrics: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `available()`.

Families live in subpackages (`lexical`, `embeddings`, `learned`, `llm` with its `backends`);
what a metric is, the registry, the runner with its cache, workers and cluster, and the scores a
user brings stay here. Importing this package imports every metric module, which registers its
metrics in `comperbench.metrics.registry`; the runner, the workers and the `evaluate` modules are
imported only by those who use them.
"""

from __future__ import annotations

from comperbench.metrics import dialogue  # noqa: F401
from comperbench.metrics.base import DialogueItem, Item, Metric, MetricResult, TurnItem
from comperbench.metrics.embeddings import embedding  # noqa: F401
from comperbench.metrics.learned import checkpoint, fed, usr_style  # noqa: F401
from comperbench.metrics.lexical import literature, ngram  # noqa: F401
from comperbench.metrics.llm import (  # noqa: F401
    cpds_dial_paper,
    cpdscore,
    cpdscore_paper,
    geval,
    soda_eval,
    soda_eval_paper,
)
from comperbench.metrics.registry import METRICS, available, get, register_metric

__all__ = [
    "METRICS",
    "DialogueItem",
    "Item",
    "Metric",
    "MetricResult",
    "TurnItem",
    "available",
    "get",
    "register_metric",
]
