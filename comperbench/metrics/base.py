"""What a metric is: a name, a family, what it needs, its configuration, and a batched `score`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from comperbench.common.errors import ComperbenchError
from comperbench.schema import Utterance

Family = Literal["ngram", "embedding", "learned", "llm"]
Need = Literal["response", "references", "context", "grounding", "dialogue"]


@dataclass(frozen=True)
class TurnItem:
    """What a turn-level metric sees of one scored response.

    Args:
        item_id: the benchmark's id of the item.
        response: the scored response.
        context: the turns before it, oldest first.
        references: reference responses (blank ones are ignored).
        grounding: facts or persona lines the response may use.
        system: the system that wrote the response.
    """

    item_id: str
    response: str
    context: tuple[Utterance, ...] = ()
    references: tuple[str, ...] = ()
    grounding: tuple[str, ...] = ()
    system: str = ""


@dataclass(frozen=True)
class DialogueItem:
    """What a dialogue-level metric sees of one scored dialogue.

    Args:
        item_id: the benchmark's id of the item.
        turns: the dialogue's turns, in order.
        system: the system that took part in it.
    """

    item_id: str
    turns: tuple[Utterance, ...]
    system: str = ""


Item = TurnItem | DialogueItem


@dataclass
class MetricResult:
    """Scores of one metric run, aligned with the items, plus what went wrong where.

    Args:
        name: the metric's name.
        scores: one score per item, in the items' order.
        notes: counts and messages a user must see.
    """

    name: str
    scores: list[float]
    notes: dict[str, Any] = field(default_factory=dict)
    """Counts and messages a user must see (NaNs, truncations, unparsable outputs)."""


class MetricInputError(ComperbenchError, ValueError):
    """An item a metric cannot score (wrong type, missing field); the message names the item."""


class Metric(ABC):
    """A metric scores a batch of items, one float per item (NaN only with a counted reason)."""

    family: ClassVar[Family]
    needs: ClassVar[frozenset[Need]] = frozenset({"response"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    corpus: ClassVar[bool] = False
    """True for metrics defined on a whole set of responses (corpus BLEU, distinct-n): they are
    computed per system with `score_corpus` and have no per-item score."""
    implementation: ClassVar[int] = 1
    """Version of comperbench's own code that computes this metric's scores: raise it when the
    scoring code changes (part of the cache key, with `library_version`), so scores computed by
    the old code are not served."""
    cache_nan: ClassVar[bool] = True
    """False where a NaN may be a passing failure (a judge server down, output that could not be
    parsed): such NaNs are not cached, so the next run asks again."""
    parallel: ClassVar[bool] = False
    """True for pure-Python, CPU-bound metrics that the runner may score in worker processes
    (rebuilt there from their name with `comperbench.metrics.get`)."""
    spelling: str | None = None
    """The name `comperbench.metrics.get` built this metric from (`bertscore-f1[/models/x:L9]`,
    whose `name` says only `x`); None for a metric built directly."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The registry name, including the model when there is one (`bertscore-f1[model:L6]`)."""

    def config(self) -> dict[str, Any]:
        """Everything that changes the scores besides the item content (part of the cache key).

        Returns:
            Setting -> value ({} for a metric without settings).
        """
        return {}

    def run_notes(self) -> dict[str, Any]:
        """What the user must be told about the scoring so far.

        Returns:
            Counts and messages (truncated contexts, unparsable or refused judge outputs, the
            backend used): a copy of the metric's `notes` attribute, {} without one.
        """
        return dict(getattr(self, "notes", {}))

    def explain(self, items: Sequence[Item]) -> dict[str, dict[str, Any]] | None:
        """What the metric said of each item besides its score, rebuilt without scoring again.

        Args:
            items: items the metric has scored.

        Returns:
            Item id -> explanation (a judge's verdicts); None for metrics that say nothing more.
        """
        return None

    def unreadable_item(self, item: Item) -> bool:
        """Whether the metric's tokenizer cannot read the item's text, so that it scores NaN.

        Args:
            item: an item to score.

        Returns:
            True when its text is in a script the tokenizer does not segment (the runner counts
            such items in the run's notes).
        """
        return False

    def library_version(self) -> str:
        """Version of the library that computes the metric (part of the cache key).

        Returns:
            `name==version` of the libraries (comperbench's version by default).
        """
        from comperbench.common.version import __version__

        return __version__

    def cache_version(self) -> str:
        """The version part of the cache key.

        Returns:
            `library_version` and `implementation`, as `LIBRARY;implementation=N`.
        """
        return f"{self.library_version()};implementation={self.implementation}"

    def signature(self) -> str:
        """How the scores were made, as one line.

        Returns:
            `name|library versions|key:value...` of the configuration.
        """
        settings = "|".join(f"{key}:{value}" for key, value in self.config().items())
        return "|".join(part for part in (self.name, self.cache_version(), settings) if part)

    @abstractmethod
    def score(self, items: Sequence[Item]) -> list[float]:
        """Score a batch of items.

        Args:
            items: turn or dialogue items, as the metric's `level` says.

        Returns:
            One float per item, in order (NaN only with a counted reason).
        """

    def score_corpus(self, items: Sequence[Item]) -> float:
        """Score a whole set of items at once (only metrics with `corpus = True`).

        Args:
            items: a system's items.

        Returns:
            One float for the set.
        """
        raise NotImplementedError(f"{self.name} is not a corpus-level metric")


def check_turn_items(items: Sequence[Item], needs: frozenset[Need]) -> list[TurnItem]:
    """The items as TurnItems whose needed text fields are strings.

    Args:
        items: the items to score.
        needs: the fields the metric reads.

    Returns:
        The items, checked.

    Raises:
        MetricInputError: an item is not a TurnItem or a field it needs is of the wrong type;
            the message names the item and the field.
    """
    checked: list[TurnItem] = []
    for item in items:
        if not isinstance(item, TurnItem):
            raise MetricInputError(
                f"item {getattr(item, 'item_id', item)!r}: a turn-level metric needs a TurnItem, "
                f"got {type(item).__name__}"
            )
        if not isinstance(item.response, str):
            raise MetricInputError(
                f"item {item.item_id!r}, field 'response': expected a string, "
                f"got {type(item.response).__name__}"
            )
        lists = {"references": item.references, "grounding": item.grounding}
        for field_name in ("references", "grounding"):
            if field_name in needs:
                values = lists[field_name]
                if isinstance(values, str) or not all(isinstance(v, str) for v in values):
                    raise MetricInputError(
                        f"item {item.item_id!r}, field {field_name!r}: expected a list of "
                        f"strings, got {values!r:.80}"
                    )
        if "context" in needs and not all(is_utterance(u) for u in item.context):
            raise MetricInputError(
                f"item {item.item_id!r}, field 'context': expected utterances with string "
                "speaker and text"
            )
        checked.append(item)
    return checked


def is_utterance(value: object) -> bool:
    """Whether `value` is an `Utterance` whose speaker and text are strings.

    Args:
        value: anything.

    Returns:
        True for such an utterance.
    """
    return (
        isinstance(value, Utterance)
        and isinstance(value.speaker, str)
        and isinstance(value.text, str)
    )


def nonblank_references(item: TurnItem) -> tuple[str, ...]:
    """The item's references that are not blank. The one rule for every reference-based metric:
    blank references are ignored, and an item whose references are all blank has no references
    (its score is NaN, counted by the runner).

    Args:
        item: a turn item.

    Returns:
        Its non-blank references, in order.
    """
    return tuple(r for r in item.references if r.strip())
