"""The SODA-EVAL evaluator (Mendonça et al. 2024): issues from the Soda-Eval taxonomy, an overall
1-5 score and a comment, as JSON; every call's issues and comments are kept in its explanation."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import ClassVar, Literal

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backends.chat_requests import AnswerFormat
from comperbench.metrics.llm.judge import LlmJudge
from comperbench.metrics.llm.parsing import Parser, soda_eval_reading
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance


class SodaEval(LlmJudge):
    """The SODA-EVAL evaluator: issues from the taxonomy, overall 1-5 score and comment (JSON)."""

    base_name: ClassVar[str] = "soda-eval"
    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    max_tokens: ClassVar[int] = 384
    default_n: ClassVar[int] = 1
    default_temperature: ClassVar[float] = 0.0
    answer_prefix: ClassVar[str] = "{"

    def prompt_fingerprint(self) -> str:
        text = prompts.SODA_EVAL + prompts.soda_eval_taxonomy()
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def reader(self) -> Parser:
        return soda_eval_reading

    def answer_format(self) -> AnswerFormat:
        return prompts.SODA_EVAL_FORMAT

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        """The prompt of a turn, with the conversation `context` (the item's, or its latest turns)."""
        return prompts.SODA_EVAL.format(
            taxonomy=prompts.soda_eval_taxonomy(),
            context=prompts.render_dialogue(context),
            response=item.response,
        )


_SODA_EVAL = MetricInfo(
    name=SodaEval.base_name,
    description=(
        "The SODA-EVAL evaluator: an LLM judge lists the response's issues from the Soda-Eval "
        "taxonomy with comments and rates it 1-5 overall, as JSON; the score is that rating, "
        "mean of n calls."
    ),
    family=SodaEval.family,
    needs=SodaEval.needs,
    citation=citations.SODA_EVAL,
    link="https://aclanthology.org/2024.findings-emnlp.684",
    implementation=SodaEval.implementation,
)
register_metric(SodaEval.base_name, _SODA_EVAL)(SodaEval)
