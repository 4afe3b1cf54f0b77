"""The metrics: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `available()`.

Importing this package imports every metric module, which registers its metrics in
`comperbench.metrics.registry`; the runner, the workers and the `evaluate` modules are imported
only by those who use them.
"""

from __future__ import annotations

from comperbench.metrics import (  # noqa: F401  (imported for their registrations)
    checkpoint,
    dialogue,
    embedding,
    fed,
    literature,
    llm_cpds_dial_paper,
    llm_cpdscore,
    llm_cpdscore_paper,
    llm_geval,
    llm_soda_eval,
    llm_soda_eval_paper,
    ngram,
    usr_style,
)
from comperbench.metrics.base import DialogueItem, Item, Metric, MetricResult, TurnItem
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
