"""Record types of the unified schema and their Arrow layout.

Two stored levels, turn and dialogue, one row per scored item. `scores` is a struct with one
nullable float per aspect of the benchmark (the mean of its valid ratings); `ratings` keeps every
individual rating so that agreement can be computed from the same table. The system level is
derived from these tables (see `Benchmark.systems`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

SCHEMA_VERSION = "1"
LEVELS = ("turn", "dialogue", "system")
STORED_LEVELS = ("turn", "dialogue")

UTTERANCE_TYPE = pa.struct([("speaker", pa.string()), ("text", pa.string())])
RATING_TYPE = pa.struct(
    [("aspect", pa.string()), ("annotator", pa.string()), ("value", pa.float64())]
)


@dataclass(frozen=True)
class Utterance:
    speaker: str
    text: str


@dataclass(frozen=True)
class Rating:
    aspect: str
    value: float
    annotator: str | None = None


@dataclass
class TurnRecord:
    """One scored response in its context."""

    item_id: str
    dialogue_id: str
    system: str
    context: list[Utterance]
    response: str
    ratings: list[Rating]
    references: list[str] = field(default_factory=list)
    grounding: list[str] = field(default_factory=list)
    split: str = "test"
    turn_index: int | None = None
    published_scores: dict[str, float] | None = None
    """Scores as published, for sources that release only averages (no individual ratings)."""


@dataclass
class DialogueRecord:
    """One scored dialogue."""

    item_id: str
    dialogue_id: str
    system: str
    turns: list[Utterance]
    ratings: list[Rating]
    split: str = "test"
    published_scores: dict[str, float] | None = None


def mean_scores(
    ratings: Iterable[Rating], aspects: Sequence[str], published: dict[str, float] | None = None
) -> dict[str, float | None]:
    """Mean of the valid ratings per aspect; None where an aspect has none."""
    if published is not None:
        return {a: published.get(a) for a in aspects}
    sums: dict[str, list[float]] = defaultdict(list)
    for rating in ratings:
        sums[rating.aspect].append(rating.value)
    return {a: (math.fsum(sums[a]) / len(sums[a]) if sums[a] else None) for a in aspects}


def scores_type(aspects: Sequence[str]) -> pa.StructType:
    return pa.struct([(a, pa.float64()) for a in aspects])


def turn_schema(aspects: Sequence[str]) -> pa.Schema:
    return pa.schema(
        [
            ("item_id", pa.string()),
            ("benchmark", pa.string()),
            ("split", pa.string()),
            ("dialogue_id", pa.string()),
            ("turn_index", pa.int32()),
            ("system", pa.string()),
            ("context", pa.list_(UTTERANCE_TYPE)),
            ("response", pa.string()),
            ("references", pa.list_(pa.string())),
            ("grounding", pa.list_(pa.string())),
            ("scores", scores_type(aspects)),
            ("ratings", pa.list_(RATING_TYPE)),
        ]
    )


def dialogue_schema(aspects: Sequence[str]) -> pa.Schema:
    return pa.schema(
        [
            ("item_id", pa.string()),
            ("benchmark", pa.string()),
            ("split", pa.string()),
            ("dialogue_id", pa.string()),
            ("system", pa.string()),
            ("turns", pa.list_(UTTERANCE_TYPE)),
            ("scores", scores_type(aspects)),
            ("ratings", pa.list_(RATING_TYPE)),
        ]
    )


def _utterances(utts: Sequence[Utterance]) -> list[dict[str, str]]:
    return [{"speaker": u.speaker, "text": u.text} for u in utts]


def _ratings(ratings: Sequence[Rating]) -> list[dict[str, object]]:
    return [{"aspect": r.aspect, "annotator": r.annotator, "value": r.value} for r in ratings]


def turn_table(benchmark: str, records: Sequence[TurnRecord], aspects: Sequence[str]) -> pa.Table:
    rows = {
        "item_id": [r.item_id for r in records],
        "benchmark": [benchmark] * len(records),
        "split": [r.split for r in records],
        "dialogue_id": [r.dialogue_id for r in records],
        "turn_index": [
            r.turn_index if r.turn_index is not None else len(r.context) for r in records
        ],
        "system": [r.system for r in records],
        "context": [_utterances(r.context) for r in records],
        "response": [r.response for r in records],
        "references": [list(r.references) for r in records],
        "grounding": [list(r.grounding) for r in records],
        "scores": [mean_scores(r.ratings, aspects, r.published_scores) for r in records],
        "ratings": [_ratings(r.ratings) for r in records],
    }
    return pa.Table.from_pydict(rows, schema=turn_schema(aspects))


def dialogue_table(
    benchmark: str, records: Sequence[DialogueRecord], aspects: Sequence[str]
) -> pa.Table:
    rows = {
        "item_id": [r.item_id for r in records],
        "benchmark": [benchmark] * len(records),
        "split": [r.split for r in records],
        "dialogue_id": [r.dialogue_id for r in records],
        "system": [r.system for r in records],
        "turns": [_utterances(r.turns) for r in records],
        "scores": [mean_scores(r.ratings, aspects, r.published_scores) for r in records],
        "ratings": [_ratings(r.ratings) for r in records],
    }
    return pa.Table.from_pydict(rows, schema=dialogue_schema(aspects))
