"""A small example file of each human-evaluation format, valid as written, to fill in."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from comperbench.human_io.selections import SEPARATOR


@dataclass(frozen=True)
class Template:
    kind: str
    command: str
    """The `comperbench human` action that reads this format."""
    rows: tuple[dict, ...]


def _selection(dialogue: str, turn: int, shown: str, selected: str, setting: str) -> dict:
    return {
        "dialogue": dialogue,
        "turn": turn,
        "shown": shown.replace(",", SEPARATOR),
        "selected": selected.replace(",", SEPARATOR),
        "annotator": "user-1",
        "setting": setting,
    }


TEMPLATES = {
    t.kind: t
    for t in (
        Template(
            "votes",
            "votes",
            (
                {
                    "item": "p1",
                    "system_a": "bot-a",
                    "system_b": "bot-b",
                    "outcome": "a",
                    "annotator": "w1",
                },
                {
                    "item": "p1",
                    "system_a": "bot-a",
                    "system_b": "bot-b",
                    "outcome": "tie",
                    "annotator": "w2",
                },
                {
                    "item": "p2",
                    "system_a": "bot-b",
                    "system_b": "bot-a",
                    "outcome": "a",
                    "annotator": "w1",
                },
            ),
        ),
        Template(
            "vote-counts",
            "votes",
            (
                {"system_a": "bot-a", "system_b": "bot-b", "wins_a": 12, "wins_b": 7, "ties": 3},
                {"system_a": "bot-a", "system_b": "bot-c", "wins_a": 9, "wins_b": 10, "ties": 1},
            ),
        ),
        Template(
            "selections",
            "selections",
            (
                _selection("d1", 1, "bot-a,bot-b,bot-c", "bot-b", "soba"),
                _selection("d1", 2, "bot-c,bot-a,bot-b", "bot-a", "soba"),
                _selection("d2", 1, "bot-b,bot-a,bot-c", "bot-a,bot-c", "sata"),
                _selection("d2", 2, "bot-a,bot-c,bot-b", "", "sata"),
                _selection("d3", 1, "bot-a", "bot-a", "sata"),
                _selection("d3", 2, "bot-a", "", "sata"),
            ),
        ),
        Template(
            "labels",
            "labels",
            (
                {
                    "dialogue": "d1",
                    "turn": 1,
                    "system": "bot-a",
                    "behaviour": "irrelevant",
                    "value": 0,
                    "annotator": "w1",
                },
                {
                    "dialogue": "d1",
                    "turn": 1,
                    "system": "bot-a",
                    "behaviour": "irrelevant",
                    "value": 1,
                    "annotator": "w2",
                },
                {
                    "dialogue": "d2",
                    "turn": 1,
                    "system": "bot-b",
                    "behaviour": "empathetic",
                    "value": 1,
                    "annotator": "w1",
                },
            ),
        ),
        Template(
            "ratings",
            "ratings",
            (
                {
                    "item": "p1",
                    "system": "bot-a",
                    "aspect": "engaging",
                    "value": 4,
                    "annotator": "w1",
                    "level": "turn",
                },
                {
                    "item": "p1",
                    "system": "bot-a",
                    "aspect": "engaging",
                    "value": 5,
                    "annotator": "w2",
                    "level": "turn",
                },
                {
                    "item": "d1",
                    "system": "bot-b",
                    "aspect": "overall",
                    "value": 3,
                    "annotator": "w1",
                    "level": "dialogue",
                },
            ),
        ),
    )
}


def render(kind: str, suffix: str = ".csv") -> str:
    """The template of `kind` as CSV (with a header line) or JSON lines (`.jsonl`).

    Args:
        kind: a format of `TEMPLATES` (votes, selections, labels, ratings).
        suffix: `.csv` or `.jsonl`.

    Returns:
        The template's text.
    """
    rows = TEMPLATES[kind].rows
    if suffix == ".jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
