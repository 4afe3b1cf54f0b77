"""Numbers from LLM judge outputs: a `Score: N` line, the SODA-EVAL JSON verdict, a G-Eval form.

Each parser returns None for output it cannot read; the judges retry such output and count it,
never turning it into a score.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from comperbench.metrics import prompts
from comperbench.metrics.llm_requests import Completion

Parser = Callable[[Completion], float | None]

_SCORE_LINE = re.compile(r"score\s*[:=]\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"^\s*\**\s*(\d+(?:\.\d+)?)\s*\**\s*\.?\s*$")
_FORM_SCORE = re.compile(r"\s*\**\s*([1-5])\b")


def parse_score(text: str, low: float = 1, high: float = 5, integer: bool = True) -> float | None:
    """The score of a `Score: N` line (or of an answer that is only a number); None if absent."""
    match = _SCORE_LINE.search(text) or _BARE_NUMBER.match(text)
    if match is None:
        return None
    value = float(match.group(1))
    if not low <= value <= high or (integer and not value.is_integer()):
        return None
    return value


def score_parser(low: float = 1, high: float = 5, integer: bool = True) -> Parser:
    """`parse_score` of a completion's text, with these bounds."""
    return lambda out: parse_score(out.text, low, high, integer)


def parse_soda_eval(text: str) -> dict[str, Any] | None:
    """The JSON verdict of the SODA-EVAL prompt (issues, score 1-5, comment); None if malformed."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        verdict = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(verdict, dict):
        return None
    score, issues = verdict.get("score"), verdict.get("issues")
    if isinstance(score, str):
        score = parse_score(score)
    if isinstance(score, bool) or not isinstance(score, int | float) or not 1 <= score <= 5:
        return None
    if not isinstance(issues, list) or not all(
        isinstance(i, dict) and isinstance(i.get("type"), str) for i in issues
    ):
        return None
    types = [i["type"].strip().lower() for i in issues]
    unknown = [t for t in types if t not in prompts.SODA_EVAL_ISSUES]
    return {
        "score": float(score),
        "issues": types,
        "unknown_issue_types": unknown,
        "comment": str(verdict.get("comment", "")),
    }


def soda_eval_score(out: Completion) -> float | None:
    """The score of a completion's SODA-EVAL verdict."""
    verdict = parse_soda_eval(out.text)
    return None if verdict is None else verdict["score"]


def form_score(out: Completion) -> float | None:
    """A G-Eval form's score: sum_s p(s)*s over the score tokens when the completion has their
    probabilities, else the score 1-5 its text starts with."""
    if out.option_probs:
        return math.fsum(p * int(s) for s, p in out.option_probs.items())
    match = _FORM_SCORE.match(out.text)
    return float(match.group(1)) if match else None
