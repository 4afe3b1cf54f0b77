"""CPDS-Dial as published (Wakaki et al. 2024, ComperDial, Section 4 and Appendix B.3):
`cpdscore-dial-paper`.

Step one rates each system turn with CPDScore-Simple as published (`cpdscore-paper`, Appendix
B.1.3; its `overall` rating, mean of n calls). Step two shows the turn scores and the responses
and asks for the B.3 evaluation form: an "Overall Dialogue Turn Score", a "Dialogue Interaction
Score" (the criteria with the length check: a response of more than twenty words is too long) and
a "Final Score" by the paper's rule (the interaction score counts below an overall 4, is ignored
above 4, and counts again when it is low for length). The metric's score is the Final Score, mean
of n calls; each call's three scores are kept, and so is the number of responses over the word
limit. The rule is the judge model's to apply, as in the paper: the package does not recompute
the Final Score. An answer missing any of the three is rejected with its reason, counted, never scored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import DialogueItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backends.chat_requests import AnswerFormat, ChatRequest
from comperbench.metrics.llm.backends.protocol import Backend
from comperbench.metrics.llm.cpdscore import CpdScoreDialogue, intermediate_score, judged_turns
from comperbench.metrics.llm.cpdscore_paper import PAPER_CALLS, CpdScorePaper, rating
from comperbench.metrics.llm.judge import CallPlan, Ledger, LlmJudge
from comperbench.metrics.llm.parsing import Parser, Reading, Rejected, Verdict
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance

PAPER_TURNS = 7
"""B.3: "There will be seven turns from a dialogue."."""


def parse_dial_form(text: str) -> Reading:
    """The three scores of the B.3 evaluation form; the score is the Final Score."""
    scores: dict[str, float] = {}
    for field in prompts.CPD_PAPER_DIAL_FIELDS:
        reading = rating(text, field.replace(" ", r"\s+"), field)
        if isinstance(reading, Rejected):
            return reading
        scores[field] = reading.score
    return Verdict(scores["Final Score"], {"scores": scores})


def words_over_limit(responses: Sequence[str]) -> int:
    """How many responses have more than the B.3 word limit (whitespace-separated words)."""
    return sum(len(r.split()) > prompts.CPD_PAPER_DIAL_WORD_LIMIT for r in responses)


class CpdsDialPaper(CpdScoreDialogue):
    """CPDS-Dial as published (Appendix B.3): turn scores, then the three-score evaluation form."""

    base_name: ClassVar[str] = "cpdscore-dial-paper"
    max_tokens: ClassVar[int] = 64
    default_n: ClassVar[int] = PAPER_CALLS
    answer_prefix: ClassVar[str] = ""

    def turn_judge(self) -> LlmJudge:
        judge = CpdScorePaper(None)
        judge.settings = self.settings
        return judge

    def prompt_fingerprint(self) -> str:
        text = prompts.CPD_PAPER_DIAL + self.turn_judge().prompt_fingerprint()
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def answer_format(self) -> AnswerFormat | None:
        return None

    def request(self, user: str, seed: int) -> ChatRequest:
        """The paper's prompt alone, as the user message: Appendix B shows no system message."""
        return replace(LlmJudge.request(self, user, seed), messages=(("user", user),))

    def details(self, dialogue: DialogueItem, turn_scores: Sequence[float]) -> dict[str, Any]:
        responses = [dialogue.turns[i].text for i in judged_turns(dialogue.turns)]
        return {"turn_scores": list(turn_scores), "responses_too_long": words_over_limit(responses)}

    def _adjust_plan(
        self,
        dialogues: Sequence[DialogueItem],
        turn_scores: Sequence[Sequence[float]],
        backend: Backend,
        ledger: Ledger,
    ) -> tuple[CallPlan, list[int]]:
        """Step two: the B.3 prompt for every dialogue whose turns were all scored (the
        responses are shown whole: the length check needs them)."""
        plan = CallPlan(len(dialogues), self.reader())
        for index, (dialogue, scores) in enumerate(zip(dialogues, turn_scores, strict=True)):
            if intermediate_score(scores) is not None:
                turns = [dialogue.turns[i] for i in judged_turns(dialogue.turns)]
                self.add_calls(plan, index, dial_prompt(turns, scores))
        return plan, [0] * len(dialogues)

    def reader(self) -> Parser:
        return lambda out: parse_dial_form(out.text)

    def config(self) -> dict[str, Any]:
        differences = [
            *self.turn_judge().common_differences(),
            "step one uses CPDScore-Simple without reference (B.1.3), its `overall` rating: the "
            "paper allows CPDScore-Detail or -Simple and does not say which its tables use",
            "B.3's instruction sentences reworded; its steps, Final Score rule, criteria, length "
            "check, anchors and form kept",
            f"the number of turns is the dialogue's own; the paper's prompt says {PAPER_TURNS}",
            'the rule\'s "Overall Dialogue Score" and the criteria\'s "Dialogue Interaction '
            'Evaluation Score" are called by the form\'s names, "Overall Dialogue Turn Score" and '
            '"Dialogue Interaction Score"',
            "turn scores are shown with up to two decimals (means of n calls); the paper does not "
            "show their format",
        ]
        return {
            **super().config(),
            "paper": "ComperDial (Wakaki et al. 2024), Appendix B.3",
            "score": "Final Score",
            "differences_from_paper": differences,
        }


def dial_prompt(turns: Sequence[Utterance], scores: Sequence[float]) -> str:
    """The B.3 prompt for a dialogue's judged `turns` and their `scores`."""
    form = "\n".join(f"{field} - x" for field in prompts.CPD_PAPER_DIAL_FIELDS)
    return prompts.CPD_PAPER_DIAL.format(
        count=len(turns),
        turn_scores="\n".join(f"Turn{i} Score - {s:.3g}" for i, s in enumerate(scores, 1)),
        limit=prompts.CPD_PAPER_DIAL_WORD_LIMIT,
        responses="\n".join(f"Turn{i}: {t.text}" for i, t in enumerate(turns, 1)),
        form=form,
    )


_CPDS_DIAL_PAPER = MetricInfo(
    name=CpdsDialPaper.base_name,
    description=(
        "CPDS-Dial as published (ComperDial Appendix B.3): turn scores by CPDScore-Simple as "
        "published, then the LLM judge's Overall Dialogue Turn Score, Dialogue Interaction "
        "Score with the 20-word length check, and Final Score; the score is the Final Score."
    ),
    family=CpdsDialPaper.family,
    needs=CpdsDialPaper.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdsDialPaper.implementation,
)
register_metric(CpdsDialPaper.base_name, _CPDS_DIAL_PAPER)(CpdsDialPaper)
