"""Reading judge answers: signed scores, JSON verdicts, and properties on any text (hypothesis):
a parser never crashes and never returns a score the answer does not contain."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comperbench.metrics.llm.backends.chat_requests import Completion
from comperbench.metrics.llm.parsing import (
    Rejected,
    Verdict,
    form_reading,
    parse_score,
    parse_soda_eval,
)

FAST = settings(max_examples=200, deadline=None)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
answers = st.lists(
    st.sampled_from(["Score", "score", '"', ":", "=", "*", " ", "\n", "-", ".", "{", "}"])
    | st.sampled_from(["0", "1", "3", "4.5", "5", "7", "-2", "-3.0"])
    | st.text(max_size=4),
    max_size=12,
).map("".join)


@pytest.mark.parametrize("text", ["Score: -3", '{"score": -3}', "**-3**", "  -3.0 ."])
def test_a_negative_score_keeps_its_sign(text: str) -> None:
    assert parse_score(text, low=-5, high=5) == Verdict(-3.0)
    assert parse_score(text) == Rejected("score outside 1-5")


def test_a_form_score_is_a_whole_number_at_the_start() -> None:
    assert form_reading(Completion("4. Coherent and on topic.")) == Verdict(4.0)
    assert form_reading(Completion("4.5")) == Rejected("no score")


def _soda(score: object) -> str:
    return json.dumps({"issues": [], "score": score, "comment": "Fine."})


def test_a_soda_eval_verdict_needs_a_number_for_its_score() -> None:
    assert parse_soda_eval(_soda(4)) == Verdict(4.0, {"issues": [], "comment": "Fine."})
    assert parse_soda_eval(_soda(True)) == Rejected("no score")
    assert parse_soda_eval(_soda(-4)) == Rejected("score outside 1-5")


def _in_text(score: float, text: str) -> bool:
    return any(float(number) == score for number in NUMBER.findall(text))


@FAST
@given(answers)
def test_a_score_read_from_any_text_is_a_number_in_it(text: str) -> None:
    reading = parse_score(text, low=-10, high=10, integer=False)
    assert isinstance(reading, Verdict | Rejected)
    if isinstance(reading, Verdict):
        assert -10 <= reading.score <= 10 and _in_text(reading.score, text)


@FAST
@given(answers)
def test_a_form_score_read_from_any_text_is_a_number_in_it(text: str) -> None:
    reading = form_reading(Completion(text))
    if isinstance(reading, Verdict):
        assert reading.score in (1, 2, 3, 4, 5) and _in_text(reading.score, text)


@FAST
@given(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 9), st.floats(), st.text(max_size=8)),
    answers,
)
def test_a_soda_eval_score_is_the_one_in_the_verdict(score: object, prose: str) -> None:
    text = f"{prose}{_soda(score)}{prose}"
    reading = parse_soda_eval(text)
    if isinstance(reading, Verdict):
        assert reading.score in (1, 2, 3, 4, 5) and _in_text(reading.score, text)
