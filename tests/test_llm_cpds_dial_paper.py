"""CPDS-Dial as published (ComperDial, Appendix B.3) against the chat-completions test server:
turn scores from the paper's simple prompt, the three-score form scored by its Final Score, the
length check recorded, a missing field rejected and counted, the differences configured."""

from __future__ import annotations

import math
from typing import Any

import pytest
from llm_server import Handler, answer_with

from comperbench import metrics
from comperbench.metrics.base import DialogueItem
from comperbench.metrics.llm.cpds_dial_paper import parse_dial_form
from comperbench.metrics.llm.parsing import Rejected
from comperbench.schema import Utterance

pytestmark = pytest.mark.usefixtures("judge_server")

TURN = "humanness - 4\nfluency - 4\ncoherency - 4\nconsistency - 4\nengagingness - 4\noverall - {o}"
DIAL = "Overall Dialogue Turn Score - 3.5\nDialogue Interaction Score - 2\nFinal Score - {f}"
LONG = " ".join(["word"] * 21)


def _answer(model: str, body: dict[str, Any]) -> str | None:
    """`cpd-dial` rates every turn overall 4 on even seeds and 2 on odd ones, then gives a Final
    Score of 2.5 on even seeds and 3 on odd ones; `cpd-dial-no-final` leaves the Final Score out."""
    if not model.startswith("cpd-dial"):
        return None
    even = body["seed"] % 2 == 0
    if "### Evaluation Form:" not in body["messages"][-1]["content"]:
        return TURN.format(o=4 if even else 2)
    answer = DIAL.format(f=2.5 if even else 3)
    return answer.rsplit("\n", 1)[0] if model == "cpd-dial-no-final" else answer


@pytest.fixture(autouse=True)
def paper_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    answer_with(monkeypatch, _answer)


def dialogue() -> DialogueItem:
    turns = (
        Utterance("User", "Hi, how are you?"),
        Utterance("System", "Great, thanks."),
        Utterance("User", "What did you do today?"),
        Utterance("System", LONG),
    )
    return DialogueItem("d0", turns)


def test_the_final_score_of_the_form_is_the_score_and_every_field_is_kept() -> None:
    metric = metrics.get("cpdscore-dial-paper[http:cpd-dial]")
    [score] = metric.score([dialogue()])
    # step two, seeds 0, 1, 2: Final Score 2.5, 3, 2.5 -> 8 / 3
    assert score == pytest.approx(8 / 3)
    # 2 system turns x 3 calls, then 3 calls of the B.3 prompt
    assert len(Handler.seen) == 9
    [dial] = [s for s in Handler.seen if "### Evaluation Form:" in s["messages"][-1]["content"]][:1]
    prompt = dial["messages"][-1]["content"]
    # each turn: overall 4, 2, 4 over seeds 0, 1, 2 -> 10 / 3
    assert "### Dialogue Turn Scores:\nTurn1 Score - 3.33\nTurn2 Score - 3.33\n" in prompt
    assert f"### Responses:\nTurn1: Great, thanks.\nTurn2: {LONG}\n" in prompt
    assert "The dialogue has 2 turns" in prompt and "more than 20 words" in prompt
    [explained] = metric.explain([dialogue()]).values()
    assert explained["turn_scores"] == pytest.approx([10 / 3, 10 / 3])
    assert explained["responses_too_long"] == 1
    assert explained["calls"][0]["scores"] == {
        "Overall Dialogue Turn Score": 3.5,
        "Dialogue Interaction Score": 2.0,
        "Final Score": 2.5,
    }


def test_a_form_without_its_final_score_is_rejected_counted_and_never_scored() -> None:
    metric = metrics.get("cpdscore-dial-paper[http:cpd-dial-no-final,n=1,retries=0]")
    [score] = metric.score([dialogue()])
    assert math.isnan(score)
    assert metric.notes["rejected_by_reason"] == {"missing rating: Final Score": 1}
    assert isinstance(parse_dial_form("Final Score - 4"), Rejected)


def test_the_configuration_lists_the_differences_from_the_paper() -> None:
    config = metrics.get("cpdscore-dial-paper[http:cpd-dial,n=1]").config()
    assert config["paper"].endswith("Appendix B.3") and config["score"] == "Final Score"
    differences = config["differences_from_paper"]
    assert "n=1 calls per item (the paper averages 3)" in differences
    assert any("the paper's prompt says 7" in d for d in differences)
    assert any(d.startswith("step one uses CPDScore-Simple") for d in differences)
