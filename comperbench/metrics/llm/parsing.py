"""Verdicts from LLM judge outputs: a `Score: N` line (or `{"score": N}`), the SODA-EVAL JSON
verdict, a G-Eval form.

A parser returns a `Verdict` (the score and the fields worth keeping) or a `Rejected` with the
reason; the judges retry rejected output and count each reason, never turning it into a score.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from comperbench.loaders.hub.soda_eval import ISSUE_TYPES, issue_key
from comperbench.metrics.llm.backends.chat_requests import Completion


@dataclass(frozen=True)
class Verdict:
    """A usable answer: its score and what else the judge said (issues, comment, probabilities)."""

    score: float
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rejected:
    """An answer that gives no valid score, and why."""

    reason: str


Reading = Verdict | Rejected
Parser = Callable[[Completion], Reading]

_SCORE_LINE = re.compile(r"score\"?\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"^\s*\**\s*(-?\d+(?:\.\d+)?)\s*\**\s*\.?\s*$")
_FORM_SCORE = re.compile(r"\s*\**\s*([1-5])\b(?!\.\d)")  # not the 4 of 4.5


def check_score(value: float, low: float = 1, high: float = 5, integer: bool = True) -> Reading:
    """A verdict for `value`, or why it is not a score on the scale."""
    if not low <= value <= high:
        return Rejected(f"score outside {low:g}-{high:g}")
    if integer and not value.is_integer():
        return Rejected("score not a whole number")
    return Verdict(value)


def parse_score(text: str, low: float = 1, high: float = 5, integer: bool = True) -> Reading:
    """The score of a `Score: N` line, of `{"score": N}`, or of an answer that is only a number."""
    match = _SCORE_LINE.search(text) or _BARE_NUMBER.match(text)
    if match is None:
        return Rejected("no score")
    return check_score(float(match.group(1)), low, high, integer)


def score_parser(low: float = 1, high: float = 5, integer: bool = True) -> Parser:
    """`parse_score` of a completion's text, with these bounds."""
    return lambda out: parse_score(out.text, low, high, integer)


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object an answer holds (fences and prose around it ignored), or None."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1], strict=False)  # raw tabs in strings
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def json_score(verdict: dict[str, Any]) -> Reading:
    """The 1-5 whole-number `score` of a JSON verdict (a number, or text such as "4")."""
    score = verdict.get("score")
    if isinstance(score, str):
        reading = parse_score(score)
        if isinstance(reading, Rejected):
            return reading
        score = reading.score
    if isinstance(score, bool) or not isinstance(score, int | float):
        return Rejected("no score")
    return check_score(float(score))


def typed_issues(raw: Any, text_field: str) -> list[dict[str, str]] | Rejected:
    """A verdict's issue list as `{"type": taxonomy key, text_field: text}` entries, or why it is
    not a list of issues typed from the taxonomy."""
    if not isinstance(raw, list) or not all(
        isinstance(i, dict) and isinstance(i.get("type"), str) for i in raw
    ):
        return Rejected("issues not a list of typed issues")
    keys = [issue_key(i["type"]) for i in raw]
    if any(k not in ISSUE_TYPES for k in keys):
        return Rejected("unknown issue type")
    return [
        {"type": key, text_field: str(i.get(text_field, ""))}
        for key, i in zip(keys, raw, strict=True)
    ]


def parse_soda_eval(text: str) -> Reading:
    """The JSON verdict of the SODA-EVAL prompt: issues from the taxonomy (each with its
    explanation), a score 1-5 and a non-empty comment."""
    verdict = json_object(text)
    if verdict is None:
        return Rejected("not a JSON object")
    checked = json_score(verdict)
    if isinstance(checked, Rejected):
        return checked
    listed = typed_issues(verdict.get("issues"), "explanation")
    if isinstance(listed, Rejected):
        return listed
    comment = verdict.get("comment")
    if not isinstance(comment, str) or not comment.strip():
        return Rejected("empty comment")
    return Verdict(checked.score, {"issues": listed, "comment": comment.strip()})


def soda_eval_reading(out: Completion) -> Reading:
    """`parse_soda_eval` of a completion's text."""
    return parse_soda_eval(out.text)


def form_reading(out: Completion) -> Reading:
    """A G-Eval form's score: sum_s p(s)*s over the score tokens when the completion has their
    probabilities, else the score 1-5 its text starts with."""
    if out.option_probs:
        score = math.fsum(p * int(s) for s, p in out.option_probs.items())
        return Verdict(score, {"probabilities": out.option_probs})
    match = _FORM_SCORE.match(out.text)
    return Verdict(float(match.group(1))) if match else Rejected("no score")
