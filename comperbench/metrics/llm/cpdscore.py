"""CPDScore (Wakaki et al. 2024, ComperDial): an overall 1-5 humanness score, simple or detailed
prompt, with or without the reference response, and at dialogue level in two steps."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import DialogueItem, Item, TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import AnswerFormat
from comperbench.metrics.llm.backends.protocol import Backend
from comperbench.metrics.llm.judge import (
    CallPlan,
    Ledger,
    LlmJudge,
    as_dialogue,
    explanation,
    mean_score,
)
from comperbench.metrics.llm.parsing import Parser, score_parser
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance

SYSTEM_SPEAKER = "System"


class CpdScoreTurn(LlmJudge):
    """CPDScore at turn level: overall 1-5 humanness score, mean of n calls."""

    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    detailed: ClassVar[bool] = False
    with_reference: ClassVar[bool] = False

    def template(self) -> str:
        return prompts.CPD_TURN_DETAILED if self.detailed else prompts.CPD_TURN_SIMPLE

    def prompt_fingerprint(self) -> str:
        return hashlib.sha256((self.template() + prompts.CPD_CRITERIA).encode()).hexdigest()[:16]

    def answer_format(self) -> AnswerFormat:
        return prompts.CPD_TURN_FORMAT

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        """The prompt of a turn, with the conversation `context` (the item's, or its latest turns)."""
        reference = ""
        if self.with_reference:
            if not item.references:
                raise ValueError(f"{self.name}: item {item.item_id} has no reference response")
            reference = prompts.CPD_REFERENCE.format(reference=item.references[0])
        persona = ""
        if item.grounding:
            persona = prompts.CPD_PERSONA.format(persona=prompts.render_list(item.grounding))
        return self.template().format(
            criteria=prompts.CPD_CRITERIA,
            scale=prompts.CPD_SCALE,
            steps=prompts.CPD_STEPS,
            persona=persona,
            context=prompts.render_dialogue(context),
            response=item.response,
            reference=reference,
            answer=prompts.CPD_ANSWER,
        )

    def reader(self) -> Parser:
        return score_parser()


class CpdScoreSimple(CpdScoreTurn):
    base_name: ClassVar[str] = "cpdscore-simple"


class CpdScoreSimpleRef(CpdScoreTurn):
    base_name: ClassVar[str] = "cpdscore-simple-ref"
    needs: ClassVar = frozenset({"response", "context", "references"})
    with_reference: ClassVar[bool] = True


class CpdScoreDetailed(CpdScoreTurn):
    base_name: ClassVar[str] = "cpdscore-detailed"
    detailed: ClassVar[bool] = True


class CpdScoreDetailedRef(CpdScoreTurn):
    base_name: ClassVar[str] = "cpdscore-detailed-ref"
    needs: ClassVar = frozenset({"response", "context", "references"})
    detailed: ClassVar[bool] = True
    with_reference: ClassVar[bool] = True


def judged_turns(turns: Sequence[Utterance]) -> list[int]:
    """The turns the dialogue-level judge scores: the system's (speaker "System", as the dialogue
    benchmarks label them), else, where no speaker is so labelled, every turn after the first."""
    system = [i for i, u in enumerate(turns) if u.speaker == SYSTEM_SPEAKER and i > 0]
    return system if system else list(range(1, len(turns)))


class CpdScoreDialogue(LlmJudge):
    """CPDScore at dialogue level in two steps: score every turn (simple prompt, n calls), average
    them into an intermediate score, then ask for that score adjusted for multi-turn traits."""

    base_name: ClassVar[str] = "cpdscore-dialogue"
    needs: ClassVar = frozenset({"dialogue"})
    level: ClassVar[Literal["turn", "dialogue"]] = "dialogue"

    def prompt_fingerprint(self) -> str:
        text = prompts.CPD_TURN_SIMPLE + prompts.CPD_DIALOGUE_ADJUST + prompts.CPD_CRITERIA
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def answer_format(self) -> AnswerFormat:
        return prompts.CPD_DIALOGUE_FORMAT

    def judge(
        self, items: Sequence[Item], backend: Backend, ledger: Ledger, budget: Budget | None
    ) -> tuple[list[float], dict[str, dict[str, Any]]]:
        dialogues = [as_dialogue(self.name, item) for item in items]
        plan, spans = self._turn_plan(dialogues, backend, ledger)
        turn_answers = self.run(plan, ledger, backend, budget)
        turn_scores = [[mean_score(t) for t in turn_answers[a:b]] for a, b in spans]
        second, left_out = self._adjust_plan(dialogues, turn_scores, backend, ledger)
        answers = self.run(second, ledger, backend, budget)
        details = {
            d.item_id: explanation(a, dropped, **self.details(d, scores))
            for d, a, dropped, scores in zip(dialogues, answers, left_out, turn_scores, strict=True)
        }
        return [mean_score(a) for a in answers], details

    def turn_judge(self) -> LlmJudge:
        """The judge of step one, with this judge's settings."""
        judge = CpdScoreSimple(None)
        judge.settings = self.settings
        return judge

    def details(self, dialogue: DialogueItem, turn_scores: Sequence[float]) -> dict[str, Any]:
        """What a dialogue's explanation shows besides its calls: the intermediate score and the
        turn scores it averages."""
        return {"intermediate": intermediate_score(turn_scores), "turn_scores": list(turn_scores)}

    def _turn_plan(
        self, dialogues: Sequence[DialogueItem], backend: Backend, ledger: Ledger
    ) -> tuple[CallPlan, list[tuple[int, int]]]:
        """Step one: the simple turn prompt for every judged turn, and each dialogue's span of
        turn owners."""
        turn_judge = self.turn_judge()
        size = sum(len(judged_turns(d.turns)) for d in dialogues)
        plan = CallPlan(size, turn_judge.reader())
        spans: list[tuple[int, int]] = []
        for dialogue in dialogues:
            start = len(spans) and spans[-1][1]
            turns = [
                TurnItem(f"{dialogue.item_id}#{i}", dialogue.turns[i].text, dialogue.turns[:i])
                for i in judged_turns(dialogue.turns)
            ]
            for offset, turn in enumerate(turns):
                user, _ = turn_judge.fitted(
                    backend,
                    lambda context, turn=turn: turn_judge.user_prompt(turn, context),
                    turn.context,
                    ledger,
                )
                turn_judge.add_calls(plan, start + offset, user)
            spans.append((start, start + len(turns)))
        return plan, spans

    def _adjust_plan(
        self,
        dialogues: Sequence[DialogueItem],
        turn_scores: Sequence[Sequence[float]],
        backend: Backend,
        ledger: Ledger,
    ) -> tuple[CallPlan, list[int]]:
        """Step two: the adjustment prompt for every dialogue with an intermediate score, and how
        many of each dialogue's oldest turns it left out."""
        plan = CallPlan(len(dialogues), score_parser(integer=False))
        left_out = []
        for index, (dialogue, scores) in enumerate(zip(dialogues, turn_scores, strict=True)):
            middle = intermediate_score(scores)
            if middle is None:
                left_out.append(0)
                continue

            def render(turns: Sequence[Utterance], middle: float = middle) -> str:
                return prompts.CPD_DIALOGUE_ADJUST.format(
                    criteria=prompts.CPD_CRITERIA,
                    dialogue=prompts.render_dialogue(turns),
                    intermediate=middle,
                    answer=prompts.CPD_DIALOGUE_ANSWER,
                )

            text, dropped = self.fitted(backend, render, dialogue.turns, ledger)
            self.add_calls(plan, index, text)
            left_out.append(dropped)
        return plan, left_out


def intermediate_score(turn_scores: Sequence[float]) -> float | None:
    """The mean of a dialogue's turn scores; None unless every turn was scored."""
    if not turn_scores or any(math.isnan(s) for s in turn_scores):
        return None
    return math.fsum(turn_scores) / len(turn_scores)


_CPDSCORESIMPLE = MetricInfo(
    name=CpdScoreSimple.base_name,
    description=(
        "CPDScore-Simple: an LLM judge's overall 1-5 humanness rating of the response given "
        "the dialogue context, mean of n calls (comperbench's own prompt; `cpdscore-paper` is "
        "the published one)."
    ),
    family=CpdScoreSimple.family,
    needs=CpdScoreSimple.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreSimple.implementation,
)

_CPDSCORESIMPLEREF = MetricInfo(
    name=CpdScoreSimpleRef.base_name,
    description=(
        "CPDScore-Simple with the reference response shown to the LLM judge: an overall 1-5 "
        "humanness rating of the response given the context, mean of n calls."
    ),
    family=CpdScoreSimpleRef.family,
    needs=CpdScoreSimpleRef.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreSimpleRef.implementation,
)

_CPDSCOREDETAILED = MetricInfo(
    name=CpdScoreDetailed.base_name,
    description=(
        "CPDScore-Detail: an LLM judge's 1-5 humanness rating of the response against a "
        "detailed criterion with anchors for each score, given the context, mean of n calls."
    ),
    family=CpdScoreDetailed.family,
    needs=CpdScoreDetailed.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreDetailed.implementation,
)

_CPDSCOREDETAILEDREF = MetricInfo(
    name=CpdScoreDetailedRef.base_name,
    description=(
        "CPDScore-Detail with the reference response shown to the LLM judge: a 1-5 humanness "
        "rating against the detailed criterion, mean of n calls."
    ),
    family=CpdScoreDetailedRef.family,
    needs=CpdScoreDetailedRef.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreDetailedRef.implementation,
)

_CPDSCOREDIALOGUE = MetricInfo(
    name=CpdScoreDialogue.base_name,
    description=(
        "CPDS-Dial in two steps: CPDScore-Simple rates each system turn, then an LLM judge "
        "rates the whole dialogue 1-5 from those turn scores and the responses."
    ),
    family=CpdScoreDialogue.family,
    needs=CpdScoreDialogue.needs,
    citation=citations.COMPERDIAL,
    link="https://arxiv.org/abs/2406.11228",
    implementation=CpdScoreDialogue.implementation,
)


for _cls, _info in (
    (CpdScoreSimple, _CPDSCORESIMPLE),
    (CpdScoreSimpleRef, _CPDSCORESIMPLEREF),
    (CpdScoreDetailed, _CPDSCOREDETAILED),
    (CpdScoreDetailedRef, _CPDSCOREDETAILEDREF),
    (CpdScoreDialogue, _CPDSCOREDIALOGUE),
):
    register_metric(_cls.base_name, _info)(_cls)
