"""Dialogue-level reference-free metrics on the system's turns: distinct-n, length, coherence.

The system's turns are those spoken by "System", the speaker the dialogue benchmarks (DSTC9, FED)
give the rated chatbot. Each metric applies a turn-level metric's definition to those turns, so
tokenisation and encoder are the turn level's; a dialogue without a system turn scores NaN.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from itertools import islice
from typing import Any, ClassVar, Literal

import numpy as np

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import DialogueItem, Item, Metric, Need, TurnItem
from comperbench.metrics.embeddings.embedding import ContextCosine
from comperbench.metrics.lexical.distinct import Distinct
from comperbench.metrics.lexical.length import Length
from comperbench.metrics.llm.cpdscore import SYSTEM_SPEAKER
from comperbench.metrics.llm.judge import as_dialogue
from comperbench.metrics.registry import register_metric, register_plain_metric

SYSTEM_TURNS = f"turns whose speaker is {SYSTEM_SPEAKER!r} (the rated chatbot)"


def system_turns(dialogue: DialogueItem) -> list[TurnItem]:
    """The system's turns as turn items, each with the turn before it (if any) as context."""
    return [
        TurnItem(
            item_id=f"{dialogue.item_id}#{index}",
            response=turn.text,
            context=dialogue.turns[max(index - 1, 0) : index],
            system=dialogue.system,
        )
        for index, turn in enumerate(dialogue.turns)
        if turn.speaker == SYSTEM_SPEAKER
    ]


class SystemTurnsMetric(Metric):
    """A turn-level metric's definition applied to the system's turns of each dialogue."""

    needs: ClassVar[frozenset[Need]] = frozenset({"dialogue"})
    level: ClassVar[Literal["turn", "dialogue"]] = "dialogue"
    aggregate: ClassVar[str]
    """How the turn-level definition makes one score of a dialogue's system turns."""

    def __init__(self, name: str, turn_metric: Metric) -> None:
        self._name, self.turn_metric = name, turn_metric

    @property
    def name(self) -> str:
        return self._name

    def config(self) -> dict[str, Any]:
        turn = self.turn_metric
        return {
            "turns": SYSTEM_TURNS,
            "turn_metric": f"{turn.name} (implementation {turn.implementation})",
            **turn.config(),
            "aggregate": self.aggregate,
            "no_system_turn": "NaN",
        }

    def library_version(self) -> str:
        return self.turn_metric.library_version()

    def score(self, items: Sequence[Item]) -> list[float]:
        return self.score_turns([system_turns(as_dialogue(self.name, item)) for item in items])

    @abstractmethod
    def score_turns(self, dialogues: list[list[TurnItem]]) -> list[float]:
        """One score per dialogue from its system turns."""


class DialogueDistinct(SystemTurnsMetric):
    """distinct-n over the n-grams of all the system's turns of a dialogue."""

    family = "ngram"
    aggregate = "distinct n-grams / all n-grams, pooled over the turns (none: NaN)"

    def __init__(self, n: int) -> None:
        super().__init__(f"dialogue-distinct-{n}", Distinct(n))

    def score_turns(self, dialogues: list[list[TurnItem]]) -> list[float]:
        return [self.turn_metric.score_corpus(turns) for turns in dialogues]


class SystemTurnsMean(SystemTurnsMetric):
    """The mean of a turn-level metric over the system's turns it scores."""

    aggregate = "mean over the turns"

    def scored(self, turn: TurnItem) -> bool:
        """Whether a system turn enters the mean."""
        return True

    def score_turns(self, dialogues: list[list[TurnItem]]) -> list[float]:
        kept = [[t for t in turns if self.scored(t)] for turns in dialogues]
        values = iter(self.turn_metric.score([t for turns in kept for t in turns]))
        return [
            float(np.mean(list(islice(values, len(turns))))) if turns else math.nan
            for turns in kept
        ]


class DialogueLength(SystemTurnsMean):
    """Mean length of the system's turns in 13a tokens."""

    family = "ngram"

    def __init__(self) -> None:
        super().__init__("dialogue-length", Length())


class DialogueCoherence(SystemTurnsMean):
    """Mean cosine of the sentence embeddings of each system turn and the turn before it."""

    family = "embedding"
    aggregate = "mean over the system turns that follow a non-blank turn (none: NaN)"

    def __init__(self, arg: str | None) -> None:
        cosine = ContextCosine(arg)
        super().__init__(f"dialogue-coherence[{cosine.encoder.label}]", cosine)

    def scored(self, turn: TurnItem) -> bool:
        return bool(turn.context and turn.context[-1].text.strip())


def _register() -> None:
    for n in (1, 2):
        distinct = MetricInfo(
            name=f"dialogue-distinct-{n}",
            description=(
                f"distinct-{n} of the system's turns of a dialogue: distinct {n}-grams over all "
                f"{n}-grams of those turns (13a tokens, lower-cased); no reference."
            ),
            family=DialogueDistinct.family,
            needs=DialogueDistinct.needs,
            citation=citations.DISTINCT,
            link="https://aclanthology.org/N16-1014",
            implementation=DialogueDistinct.implementation,
            library="sacrebleu==2.6.0",
        )
        register_plain_metric(distinct.name, lambda n=n: DialogueDistinct(n), distinct)
    length = MetricInfo(
        name="dialogue-length",
        description=(
            "Mean length of the system's turns of a dialogue in 13a tokens: a baseline that a "
            "dialogue-level metric should beat."
        ),
        family=DialogueLength.family,
        needs=DialogueLength.needs,
        citation="",
        link="https://github.com/mjpost/sacrebleu",
        implementation=DialogueLength.implementation,
        library="sacrebleu==2.6.0",
    )
    register_plain_metric(length.name, DialogueLength, length)
    coherence = MetricInfo(
        name="dialogue-coherence",
        description=(
            "Mean cosine similarity of the sentence embeddings of each system turn and the turn "
            "before it (`context-cosine` over a dialogue); `[model]` picks the encoder."
        ),
        family=DialogueCoherence.family,
        needs=DialogueCoherence.needs,
        citation=citations.SENTENCE_BERT,
        link="https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        implementation=DialogueCoherence.implementation,
        library="transformers==5.23.0",
    )
    register_metric(coherence.name, coherence)(DialogueCoherence)


_register()
