"""CPDScore as published (ComperDial, Appendix B) against the chat-completions test server: the
paper's forms read and scored by its rule, answers missing a field rejected and counted, and the
configuration's differences from the paper."""

from __future__ import annotations

import math
from typing import Any

import pytest
from llm_server import Handler, answer_with

from comperbench import metrics
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm.cpdscore_paper import parse_humanness_form, parse_simple_form
from comperbench.metrics.llm.parsing import Rejected, Verdict
from comperbench.schema import Utterance

pytestmark = pytest.mark.usefixtures("judge_server")

FULL = (
    "humanness - {h}\nfluency - 5\ncoherency - 4\nconsistency - 3\nengagingness - 2\noverall - {o}"
)


def _answer(model: str, body: dict[str, Any]) -> str | None:
    """The paper-form answers: `cpd-simple` gives overall 4 on even seeds and 2 on odd ones,
    `cpd-no-fluency` leaves out a rating, `cpd-detail` fills the humanness form and explains."""
    even = body["seed"] % 2 == 0
    return {
        "cpd-simple": FULL.format(h=5 if even else 1, o=4 if even else 2),
        "cpd-no-fluency": FULL.format(h=5, o=4).replace("fluency - 5\n", ""),
        "cpd-off-scale": FULL.format(h=6, o=4),
        "cpd-detail": "- Humanness: 4\nA natural, friendly reply.",
        "cpd-detail-bare": "The reply is natural.",
    }.get(model)


@pytest.fixture(autouse=True)
def paper_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    answer_with(monkeypatch, _answer)


def item(references: tuple[str, ...] = ()) -> TurnItem:
    context = (Utterance("User", "What do you eat?"),)
    return TurnItem(
        "t0", "I like pizza.", context, references=references, grounding=("I am a chef.",)
    )


def test_the_simple_form_scores_the_mean_overall_and_keeps_all_six_ratings() -> None:
    metric = metrics.get("cpdscore-paper[http:cpd-simple]")
    [score] = metric.score([item()])
    # seeds 0, 1, 2 -> overall 4, 2, 4 -> (4 + 2 + 4) / 3
    assert score == pytest.approx(10 / 3)
    [call, *_] = metric.explain([item()])["t0"]["calls"]
    assert call["ratings"] == {
        "humanness": 5.0,
        "fluency": 5.0,
        "coherency": 4.0,
        "consistency": 3.0,
        "engagingness": 2.0,
        "overall": 4.0,
    }
    sent = Handler.seen[0]["messages"]
    assert [m["role"] for m in sent] == ["user"]
    assert "### Output Format:\nhumanness - x\nfluency - x" in sent[0]["content"]
    assert "### Reference response:" not in sent[0]["content"]


def test_an_answer_missing_a_rating_is_rejected_counted_and_never_scored() -> None:
    metric = metrics.get("cpdscore-paper[http:cpd-no-fluency,n=2,retries=1]")
    [score] = metric.score([item()])
    assert math.isnan(score)
    assert metric.notes["rejected_by_reason"] == {"missing rating: fluency": 2}
    assert metric.notes["retried_calls"] == 2 and metric.notes["unscored_items"] == ["t0"]
    off = metrics.get("cpdscore-paper[http:cpd-off-scale,n=1,retries=0]")
    assert math.isnan(off.score([item()])[0])
    assert off.notes["rejected_by_reason"] == {"humanness score outside 1-5": 1}


def test_the_reference_variant_shows_the_reference_and_needs_one() -> None:
    metric = metrics.get("cpdscore-paper-ref[http:cpd-simple,n=1]")
    assert metric.score([item(("Pasta, mostly.",))]) == [4.0]
    prompt = Handler.seen[0]["messages"][0]["content"]
    assert "### Reference response:\nPasta, mostly.\n### Response:" in prompt
    with pytest.raises(ValueError, match="no reference response"):
        metric.score([item()])


def test_the_detail_form_scores_humanness_with_the_fact_and_keeps_the_explanation() -> None:
    metric = metrics.get("cpdscore-detail-paper-ref[http:cpd-detail,n=2]")
    assert metric.score([item(("Pasta, mostly.",))]) == [4.0]
    prompt = Handler.seen[0]["messages"][0]["content"]
    assert "### Corresponding Fact:\nI am a chef.\n" in prompt
    assert "### Corresponding Reference Response:\nPasta, mostly.\n" in prompt
    assert prompt.endswith("### Evaluation Form (scores ONLY):\n- Humanness:")
    calls = metric.explain([item(("Pasta, mostly.",))])["t0"]["calls"]
    assert [c["explanation"] for c in calls] == ["A natural, friendly reply."] * 2
    bare = metrics.get("cpdscore-detail-paper[http:cpd-detail-bare,n=1,retries=0]")
    assert math.isnan(bare.score([item()])[0])
    assert bare.notes["rejected_by_reason"] == {"missing rating: humanness": 1}


def test_the_configuration_lists_every_difference_from_the_paper() -> None:
    paper_like = metrics.get("cpdscore-paper[http:cpd-simple]").config()
    assert paper_like["paper"].endswith("Appendix B.1.3") and paper_like["score"] == "overall"
    differences = paper_like["differences_from_paper"]
    assert differences[0].startswith("model: http:cpd-simple (the paper used gpt-4-turbo")
    assert not any(d.startswith("n=") for d in differences)
    fewer = metrics.get("cpdscore-detail-paper[http:cpd-detail,n=1]").config()
    assert "n=1 calls per item (the paper averages 3)" in fewer["differences_from_paper"]
    assert any("corresponding-fact field" in d for d in fewer["differences_from_paper"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (FULL.format(h=3, o=5), Verdict),
        ("**Overall** - 4", Rejected),
        (FULL.format(h=3, o=0), Rejected),
    ],
)
def test_simple_form_reading(text: str, expected: type) -> None:
    assert isinstance(parse_simple_form(text), expected)


def test_humanness_form_reading_without_explanation() -> None:
    reading = parse_humanness_form("- **Humanness**: 2")
    assert reading == Verdict(2.0, {"ratings": {"humanness": 2.0}})
