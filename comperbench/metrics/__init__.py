"""The metric registry: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `available()`.

Importing this package imports every metric module in it, which registers its metrics.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from comperbench.errors import UnknownNameError
from comperbench.metrics.base import (
    METRICS,
    DialogueItem,
    Item,
    Metric,
    MetricResult,
    TurnItem,
    register_metric,
)

_NAME = re.compile(r"^(?P<base>[^\[\]]+?)(?:\[(?P<arg>[^\[\]]*)\])?$")

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_") and _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")


def get(name: str) -> Metric:
    """The metric called `name`; text in brackets selects a model or variant (`fed-overall[path]`)."""
    match = _NAME.match(name.strip())
    if match is None:
        raise UnknownNameError(
            f"malformed metric name {name!r}: expected 'name' or 'name[argument]'"
        )
    return METRICS.get(match["base"])(match["arg"])


def available() -> list[str]:
    """Base names of every registered metric."""
    return METRICS.names()


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
