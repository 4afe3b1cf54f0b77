"""The metric registry: `get("bleu-4")`, `get("bertscore-f1[all-MiniLM-L6-v2:L6]")`, `info`.

Metric modules register a factory per base name with `register_metric`, each with the
`MetricInfo` its card is made of. The registry imports the modules of `METRIC_MODULES` on its
first lookup, then the plugin modules named under the entry-point group `comperbench.metrics`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from comperbench.common.errors import MetricOptionError, UnknownNameError
from comperbench.common.registry import Registry
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Metric

MetricFactory = Callable[[str | None], Metric]
"""Builds a metric from the text between the brackets of its name (None when there are none)."""

METRIC_MODULES = (
    "comperbench.metrics.lexical.bleu",
    "comperbench.metrics.lexical.corpus_bleu",
    "comperbench.metrics.lexical.chrf",
    "comperbench.metrics.lexical.rouge",
    "comperbench.metrics.lexical.meteor",
    "comperbench.metrics.lexical.f1",
    "comperbench.metrics.lexical.distinct",
    "comperbench.metrics.lexical.length",
    "comperbench.metrics.lexical.literature",
    "comperbench.metrics.embeddings.embedding",
    "comperbench.metrics.dialogue",
    "comperbench.metrics.learned.checkpoint",
    "comperbench.metrics.learned.fed",
    "comperbench.metrics.learned.usr_style",
    "comperbench.metrics.llm.cpdscore",
    "comperbench.metrics.llm.cpdscore_paper",
    "comperbench.metrics.llm.cpds_dial_paper",
    "comperbench.metrics.llm.geval",
    "comperbench.metrics.llm.soda_eval",
    "comperbench.metrics.llm.soda_eval_paper",
)
"""Every module that registers built-in metrics (a test holds that no other module does)."""

METRIC_PLUGINS = "comperbench.metrics"
"""The entry-point group of plugin modules that register metrics when imported."""


@dataclass(frozen=True)
class RegisteredMetric:
    """A registered base name: the factory of its metrics and what they say of themselves.

    Args:
        build: makes the metric from the text in the brackets of its name (None without).
        info: the facts of its card (None only for a plugin registered without them).
    """

    build: MetricFactory
    info: MetricInfo | None

    def __call__(self, arg: str | None) -> Metric:
        """The metric of `base[arg]`.

        Args:
            arg: the text between the brackets, None without brackets.

        Returns:
            The metric.
        """
        return self.build(arg)


METRICS: Registry[RegisteredMetric] = Registry(
    "metric", METRIC_MODULES, group=METRIC_PLUGINS, listed_by="comperbench list metrics"
)

_NAME = re.compile(r"^(?P<base>[^\[\]]+?)(?:\[(?P<arg>[^\[\]]*)\])?$")


def register_metric(
    base_name: str, info: MetricInfo | None = None
) -> Callable[[MetricFactory], MetricFactory]:
    """A decorator registering a factory under `base_name`; `get("base[arg]")` calls it with "arg".

    Args:
        base_name: the name before any brackets (`bertscore-f1`).
        info: what the metric says of itself; its `name` must be `base_name`. Leaving it out is
            deprecated: such a metric has no card.

    Returns:
        A decorator that registers the factory and returns it unchanged.

    Raises:
        ValueError: `info.name` is not `base_name`, or the name is already registered.
    """
    if info is None:
        warnings.warn(
            f"register_metric({base_name!r}) without info= is deprecated: pass a MetricInfo",
            DeprecationWarning,
            stacklevel=2,
        )
    elif info.name != base_name:
        raise ValueError(f"metric {base_name!r} registered with the info of {info.name!r}")

    def decorate(factory: MetricFactory) -> MetricFactory:
        METRICS.add(base_name, RegisteredMetric(factory, info))
        return factory

    return decorate


def register_plain_metric(name: str, build: Callable[[], Metric], info: MetricInfo) -> None:
    """Register a metric whose name takes no bracketed argument.

    Args:
        name: its registry name.
        build: makes the metric.
        info: what the metric says of itself.
    """

    def factory(arg: str | None) -> Metric:
        if arg is not None:
            raise UnknownNameError(f"metric {name!r} takes no bracketed argument (got [{arg}])")
        return build()

    register_metric(name, info)(factory)


def _split(name: str) -> tuple[str, str | None]:
    """`base[arg]` -> (base, arg); `base` -> (base, None)."""
    match = _NAME.match(name.strip())
    if match is None:
        raise UnknownNameError(
            f"malformed metric name {name!r}: expected 'name' or 'name[argument]'"
        )
    return match["base"], match["arg"]


def get(name: str) -> Metric:
    """The metric called `name`.

    Args:
        name: a registered base name, with text in brackets that selects a model or variant
            (`fed-overall[path]`) where the metric takes one.

    Returns:
        The metric, its `spelling` set to `name`.

    Raises:
        UnknownNameError: no metric has that base name, or the name is malformed.
        MetricOptionError: the text in brackets is not one the metric accepts.
    """
    base, arg = _split(name)
    registered = METRICS.get(base)
    try:
        metric = registered(arg)
    except ValueError as error:
        if isinstance(error, MetricOptionError):
            raise
        raise MetricOptionError(f"metric {name!r}: {error}") from error
    metric.spelling = name.strip()
    return metric


def info(name: str) -> MetricInfo:
    """What the metric called `name` says of itself; a bracketed name has its base's info.

    Args:
        name: a metric name (`bleu-4`, `bertscore-f1[all-MiniLM-L6-v2:L6]`).

    Returns:
        Its `MetricInfo`.

    Raises:
        UnknownNameError: no metric has that base name, or it was registered without info.
    """
    base, _ = _split(name)
    found = METRICS.get(base).info
    if found is None:
        raise UnknownNameError(f"metric {base!r} was registered without a MetricInfo")
    return found


def available() -> list[str]:
    """Base names of every registered metric.

    Returns:
        The names, sorted.
    """
    return METRICS.names()
