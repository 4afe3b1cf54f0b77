"""The metric registry: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `available()`.

Metric modules register a factory per base name with `register_metric`; importing
`comperbench.metrics` imports every metric module, so the registry is complete before any of its
submodules (this one included) is used.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from comperbench.common.errors import MetricOptionError, UnknownNameError
from comperbench.common.registry import Registry
from comperbench.metrics.base import Metric

MetricFactory = Callable[[str | None], Metric]
"""Builds a metric from the text between the brackets of its name (None when there are none)."""

METRICS: Registry[MetricFactory] = Registry("metric")

_NAME = re.compile(r"^(?P<base>[^\[\]]+?)(?:\[(?P<arg>[^\[\]]*)\])?$")


def register_metric(base_name: str) -> Callable[[MetricFactory], MetricFactory]:
    """Register a factory under `base_name`; `get("base[arg]")` calls it with "arg"."""
    return METRICS.register(base_name)


def register_plain_metric(name: str, build: Callable[[], Metric]) -> None:
    """Register a metric whose name takes no bracketed argument; `build` makes it."""

    def factory(arg: str | None) -> Metric:
        if arg is not None:
            raise UnknownNameError(f"metric {name!r} takes no bracketed argument (got [{arg}])")
        return build()

    register_metric(name)(factory)


def get(name: str) -> Metric:
    """The metric called `name`; text in brackets selects a model or variant
    (`fed-overall[path]`)."""
    match = _NAME.match(name.strip())
    if match is None:
        raise UnknownNameError(
            f"malformed metric name {name!r}: expected 'name' or 'name[argument]'"
        )
    factory = METRICS.get(match["base"])
    try:
        metric = factory(match["arg"])
    except ValueError as error:
        if isinstance(error, MetricOptionError):
            raise
        raise MetricOptionError(f"metric {name!r}: {error}") from error
    metric.spelling = name.strip()
    return metric


def available() -> list[str]:
    """Base names of every registered metric."""
    return METRICS.names()
