"""CPDScore as published (Wakaki et al. 2024, ComperDial, Section 4 and Appendix B): the paper's
turn-level prompts with their fields, scales and answer forms, each call's every rating kept.

- `cpdscore-paper`, `cpdscore-paper-ref`: CPDScore-Simple without / with the reference response
  (B.1.3 / B.1.2). The answer rates humanness, fluency, coherency, consistency, engagingness and
  overall, each 1-5, as `aspect - x` lines; the score is the `overall` rating.
- `cpdscore-detail-paper`, `cpdscore-detail-paper-ref`: CPDScore-Detail without / with the
  reference (B.2.3 / B.2.2): the humanness criterion with its five anchors, the corresponding-fact
  field and the form `- Humanness: x`; the score is the humanness rating.

An item's CPDScore is the mean over its calls (Section 4: "the average of the results from three
API calls"). An answer missing any field of the paper's form is rejected with its reason and
counted, never scored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backends.chat_requests import ChatRequest
from comperbench.metrics.llm.judge import LlmJudge
from comperbench.metrics.llm.parsing import Parser, Reading, Rejected, Verdict, check_score
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance

PAPER_CALLS = 3
"""Calls averaged per item in the paper (Section 4)."""
PAPER_MODELS = "gpt-4-turbo-2024-04-09 and gpt-3.5-turbo-0125"
"""The API versions the paper compares (Section 4, footnotes)."""

_NUMBER = r"\**\s*(-?\d+(?:\.\d+)?)"


def rating(text: str, field: str, name: str | None = None) -> Reading:
    """The 1-5 rating the answer gives the field matched by the pattern `field` (`field - x` or
    `field: x`, at a line's start), or why there is none; reasons call the field `name`."""
    name = name or field
    match = re.search(rf"^[\s*#-]*{field}\**\s*[-:]\s*{_NUMBER}", text, re.I | re.M)
    if match is None:
        return Rejected(f"missing rating: {name}")
    checked = check_score(float(match.group(1)), integer=False)
    return Rejected(f"{name} {checked.reason}") if isinstance(checked, Rejected) else checked


def parse_simple_form(text: str) -> Reading:
    """The six ratings of the simple prompt's output format (B.1.2, B.1.3); the score is
    `overall`. Rejected when any of the six is missing or off the 1-5 scale."""
    ratings: dict[str, float] = {}
    for aspect in prompts.CPD_PAPER_ASPECTS:
        reading = rating(text, aspect)
        if isinstance(reading, Rejected):
            return reading
        ratings[aspect] = reading.score
    return Verdict(ratings["overall"], {"ratings": ratings})


def parse_humanness_form(text: str) -> Reading:
    """The humanness rating of the detailed prompt's evaluation form (B.2.2, B.2.3), and any
    explanation written after it (the prompt's step 3)."""
    reading = rating(text, "humanness")
    if isinstance(reading, Rejected):
        return reading
    rest = re.split(rf"humanness\**\s*[-:]\s*{_NUMBER}", text, maxsplit=1, flags=re.I)[-1]
    fields: dict[str, Any] = {"ratings": {"humanness": reading.score}}
    said = rest.lstrip(" \n*.-").rstrip()
    if said:
        fields["explanation"] = said
    return Verdict(reading.score, fields)


class CpdScorePaper(LlmJudge):
    """CPDScore-Simple as published (Appendix B.1.3): six 1-5 ratings; the score is `overall`."""

    base_name: ClassVar[str] = "cpdscore-paper"
    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    max_tokens: ClassVar[int] = 64
    default_n: ClassVar[int] = PAPER_CALLS
    answer_prefix: ClassVar[str] = ""
    with_reference: ClassVar[bool] = False
    section: ClassVar[str] = "B.1.3"
    score_field: ClassVar[str] = "overall"

    def template(self) -> str:
        return prompts.CPD_PAPER_SIMPLE + prompts.CPD_PAPER_SIMPLE_REFERENCE

    def prompt_fingerprint(self) -> str:
        return hashlib.sha256(self.template().encode()).hexdigest()[:16]

    def reference(self, item: TurnItem) -> str:
        """The reference response of an item, for the `-ref` variants; '' otherwise."""
        if not self.with_reference:
            return ""
        if not item.references:
            raise ValueError(f"{self.name}: item {item.item_id} has no reference response")
        return item.references[0]

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        reference = self.reference(item)
        block = prompts.CPD_PAPER_SIMPLE_REFERENCE.format(reference=reference) if reference else ""
        form = "\n".join(f"{aspect} - x" for aspect in prompts.CPD_PAPER_ASPECTS)
        return prompts.CPD_PAPER_SIMPLE.format(
            context=prompts.render_dialogue(context),
            reference=block,
            response=item.response,
            form=form,
        )

    def reader(self) -> Parser:
        return lambda out: parse_simple_form(out.text)

    def request(self, user: str, seed: int) -> ChatRequest:
        """The paper's prompt alone, as the user message: Appendix B shows no system message."""
        return replace(super().request(user, seed), messages=(("user", user),))

    def differences(self) -> list[str]:
        """Where this judge, as configured, differs from the paper, and why."""
        return self.common_differences() + self.own_differences()

    def common_differences(self) -> list[str]:
        """The differences every judge of this module shares, as configured."""
        settings = self.settings
        found = [
            f"model: {settings.backend} (the paper used {PAPER_MODELS}, API models this package "
            "does not require)",
            f"temperature {settings.temperature:g} and seed {settings.seed}: the paper states "
            "neither",
            "instruction sentences reworded; headings, fields, scales and answer form as in "
            f"Appendix {self.section}",
            "the conversation is written as `Speaker: text` lines; the paper does not show how it "
            "filled its history field",
            "a prompt longer than a local model's window loses its oldest turns; the paper's API "
            "models needed no shortening",
            f"an unusable answer is retried up to {settings.retries} times with a new seed; the "
            "paper does not say how it handled one",
        ]
        if settings.n != PAPER_CALLS:
            found.insert(1, f"n={settings.n} calls per item (the paper averages {PAPER_CALLS})")
        return found

    def own_differences(self) -> list[str]:
        """The differences of this variant alone."""
        return [
            "the score is the `overall` rating: the paper's CPDScore is an overall score "
            "(Section 4) but it does not say which of the six ratings it reports"
        ]

    def config(self) -> dict[str, Any]:
        return {
            **super().config(),
            "paper": f"ComperDial (Wakaki et al. 2024), Appendix {self.section}",
            "score": self.score_field,
            "differences_from_paper": self.differences(),
        }


class CpdScorePaperRef(CpdScorePaper):
    """CPDScore-Simple with the reference response (Appendix B.1.2)."""

    base_name: ClassVar[str] = "cpdscore-paper-ref"
    needs: ClassVar = frozenset({"response", "context", "references"})
    with_reference: ClassVar[bool] = True
    section: ClassVar[str] = "B.1.2"


class CpdScoreDetailPaper(CpdScorePaper):
    """CPDScore-Detail as published (Appendix B.2.3): the humanness criterion, the fact field and
    the form `- Humanness: x`; the score is the humanness rating."""

    base_name: ClassVar[str] = "cpdscore-detail-paper"
    needs: ClassVar = frozenset({"response", "context"})
    max_tokens: ClassVar[int] = 256
    """Room for the brief explanation of the prompt's step 3."""
    section: ClassVar[str] = "B.2.3"
    score_field: ClassVar[str] = "humanness"

    def template(self) -> str:
        return (
            prompts.CPD_PAPER_DETAIL
            + prompts.CPD_PAPER_DETAIL_REFERENCE
            + prompts.CPD_PAPER_HUMANNESS
            + prompts.CPD_PAPER_NO_FACT
        )

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        reference = self.reference(item)
        block = prompts.CPD_PAPER_DETAIL_REFERENCE.format(reference=reference) if reference else ""
        fact = "\n".join(item.grounding) if item.grounding else prompts.CPD_PAPER_NO_FACT
        return prompts.CPD_PAPER_DETAIL.format(
            criterion=prompts.CPD_PAPER_HUMANNESS,
            read="the corresponding reference response, " if reference else "",
            context=prompts.render_dialogue(context),
            reference=block,
            fact=fact,
            response=item.response,
        )

    def reader(self) -> Parser:
        return lambda out: parse_humanness_form(out.text)

    def own_differences(self) -> list[str]:
        return [
            "the corresponding-fact field holds the item's knowledge or persona lines, or "
            f"{prompts.CPD_PAPER_NO_FACT!r}: the paper does not say what it filled the field with",
            f"answers are capped at {self.max_tokens} tokens, room for the step-3 explanation the "
            "paper asks for although its form says scores only",
        ]


class CpdScoreDetailPaperRef(CpdScoreDetailPaper):
    """CPDScore-Detail with the reference response (Appendix B.2.2)."""

    base_name: ClassVar[str] = "cpdscore-detail-paper-ref"
    needs: ClassVar = frozenset({"response", "context", "references"})
    with_reference: ClassVar[bool] = True
    section: ClassVar[str] = "B.2.2"


_CPDSCOREPAPER = MetricInfo(
    name=CpdScorePaper.base_name,
    description=(
        "CPDScore-Simple as published (ComperDial Appendix B.1.3): the LLM judge rates "
        "humanness, fluency, coherency, consistency, engagingness and overall 1-5; the score "
        "is the overall rating, mean of n calls."
    ),
    family=CpdScorePaper.family,
    needs=CpdScorePaper.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScorePaper.implementation,
)

_CPDSCOREPAPERREF = MetricInfo(
    name=CpdScorePaperRef.base_name,
    description=(
        "CPDScore-Simple as published with the reference response (ComperDial Appendix "
        "B.1.2): six 1-5 ratings, the score is the overall rating, mean of n calls."
    ),
    family=CpdScorePaperRef.family,
    needs=CpdScorePaperRef.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScorePaperRef.implementation,
)

_CPDSCOREDETAILPAPER = MetricInfo(
    name=CpdScoreDetailPaper.base_name,
    description=(
        "CPDScore-Detail as published (ComperDial Appendix B.2.3): the humanness criterion "
        "with its five anchors and the corresponding-fact field; the score is the 1-5 "
        "humanness rating, mean of n calls."
    ),
    family=CpdScoreDetailPaper.family,
    needs=CpdScoreDetailPaper.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreDetailPaper.implementation,
)

_CPDSCOREDETAILPAPERREF = MetricInfo(
    name=CpdScoreDetailPaperRef.base_name,
    description=(
        "CPDScore-Detail as published with the reference response (ComperDial Appendix "
        "B.2.2): the 1-5 humanness rating, mean of n calls."
    ),
    family=CpdScoreDetailPaperRef.family,
    needs=CpdScoreDetailPaperRef.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreDetailPaperRef.implementation,
)


for _cls, _info in (
    (CpdScorePaper, _CPDSCOREPAPER),
    (CpdScorePaperRef, _CPDSCOREPAPERREF),
    (CpdScoreDetailPaper, _CPDSCOREDETAILPAPER),
    (CpdScoreDetailPaperRef, _CPDSCOREDETAILPAPERREF),
):
    register_metric(_cls.base_name, _info)(_cls)
