"""What a metric is: a name, a family, what it needs, its configuration, and a batched `score`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from comperbench.registry import Registry
from comperbench.schema import Utterance

Family = Literal["ngram", "embedding", "learned", "llm"]
Need = Literal["response", "references", "context", "grounding", "dialogue"]


@dataclass(frozen=True)
class TurnItem:
    """What a turn-level metric sees of one scored response."""

    item_id: str
    response: str
    context: tuple[Utterance, ...] = ()
    references: tuple[str, ...] = ()
    grounding: tuple[str, ...] = ()
    system: str = ""


@dataclass(frozen=True)
class DialogueItem:
    """What a dialogue-level metric sees of one scored dialogue."""

    item_id: str
    turns: tuple[Utterance, ...]
    system: str = ""


Item = TurnItem | DialogueItem


@dataclass
class MetricResult:
    """Scores of one metric run, aligned with the items, plus what went wrong where."""

    name: str
    scores: list[float]
    notes: dict[str, Any] = field(default_factory=dict)
    """Counts and messages a user must see (NaNs, truncations, unparsable outputs)."""


class Metric(ABC):
    """A metric scores a batch of items, one float per item (NaN only with a counted reason)."""

    family: ClassVar[Family]
    needs: ClassVar[frozenset[Need]] = frozenset({"response"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"

    @property
    @abstractmethod
    def name(self) -> str:
        """The registry name, including the model when there is one (`bertscore-f1[model:L6]`)."""

    def config(self) -> dict[str, Any]:
        """Everything that changes the scores besides the item content (part of the cache key)."""
        return {}

    def library_version(self) -> str:
        """Version of the library that computes the metric (part of the cache key)."""
        from comperbench import __version__

        return __version__

    @abstractmethod
    def score(self, items: Sequence[Item]) -> list[float]:
        """One float per item, in order."""


MetricFactory = Callable[[str | None], Metric]
"""Builds a metric from the text between the brackets of its name (None when there are none)."""

METRICS: Registry[MetricFactory] = Registry("metric")


def register_metric(base_name: str) -> Callable[[MetricFactory], MetricFactory]:
    """Register a factory under `base_name`; `get("base[arg]")` calls it with "arg"."""
    return METRICS.register(base_name)
