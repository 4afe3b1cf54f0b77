"""The SODA-EVAL evaluator as published (Mendonça et al. 2024, Table 11 and Appendix C.2):
`soda-eval-paper`.

The prompt follows Table 11: the evaluator's role, issues of the response only, the taxonomy with
the definitions of Table 3, an overall 1-5 rating with "a brief (maximum 25 word) comment", the
JSON format, one example without issues and one with, then the item. Sampling follows C.2:
temperature 0.3, top_p 1 (the backends' default), answers capped at 300 tokens. Every field of
a verdict is kept: each issue's type and comment, the score and the overall comment.

An answer missing any of the three fields (`issues`, `score`, `overall_comment`), an issue without
its type or comment, or a type outside the taxonomy is rejected with its reason and counted,
never scored. An overall comment longer than 25 words is kept, with the flag
`overall_comment over 25 words` counted in the notes: the paper asks for the limit in the
instruction and caps the answer's tokens, but does not say that it discarded longer comments, and
the score such an answer gives is still a score on the paper's scale.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backends.chat_requests import AnswerFormat, ChatRequest
from comperbench.metrics.llm.judge import LlmJudge
from comperbench.metrics.llm.parsing import (
    Parser,
    Reading,
    Rejected,
    Verdict,
    json_object,
    json_score,
    typed_issues,
)
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance

PAPER_MODEL = "gpt-4-1106-preview"
"""The model that wrote SODA-EVAL's assessments (Appendix C.2)."""
PAPER_TEMPERATURE = 0.3
PAPER_MAX_TOKENS = 300
FIELDS = ("issues", "score", "overall_comment")
"""The fields of a verdict, with the published dataset's names."""
OVER_LIMIT = f"overall_comment over {prompts.SODA_PAPER_WORD_LIMIT} words"


def parse_soda_paper(text: str) -> Reading:
    """The JSON verdict of the Table 11 prompt: every field present, the issues typed from the
    taxonomy and described, a 1-5 score and a non-empty overall comment; a comment over the word
    limit is kept with a flag."""
    verdict = json_object(text)
    if verdict is None:
        return Rejected("not a JSON object")
    missing = [f for f in FIELDS if f not in verdict]
    if missing:
        return Rejected(f"missing field: {missing[0]}")
    checked = json_score(verdict)
    if isinstance(checked, Rejected):
        return checked
    issues = typed_issues(verdict["issues"], "comment")
    if isinstance(issues, Rejected):
        return issues
    if not all(isinstance(i.get("comment"), str) for i in verdict["issues"]) or not all(
        i["comment"].strip() for i in issues
    ):
        return Rejected("issue without comment")
    comment = verdict["overall_comment"]
    if not isinstance(comment, str) or not comment.strip():
        return Rejected("empty overall_comment")
    words = len(comment.split())
    fields: dict[str, Any] = {
        "issues": [{**i, "comment": i["comment"].strip()} for i in issues],
        "overall_comment": comment.strip(),
        "overall_comment_words": words,
    }
    if words > prompts.SODA_PAPER_WORD_LIMIT:
        fields["flags"] = [OVER_LIMIT]
    return Verdict(checked.score, fields)


def taxonomy() -> str:
    """The issue types of Table 3, one `- Type: definition` line each."""
    return "\n".join(f"- {name}: {text}" for name, text in prompts.SODA_PAPER_TAXONOMY.items())


class SodaEvalPaper(LlmJudge):
    """The SODA-EVAL evaluator of Table 11, with its examples and limits."""

    base_name: ClassVar[str] = "soda-eval-paper"
    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    max_tokens: ClassVar[int] = PAPER_MAX_TOKENS
    default_n: ClassVar[int] = 1
    default_temperature: ClassVar[float] = PAPER_TEMPERATURE
    answer_prefix: ClassVar[str] = "{"

    def template(self) -> str:
        """The instruction with its examples, without the item."""
        return prompts.SODA_PAPER.format(
            taxonomy=taxonomy(),
            limit=prompts.SODA_PAPER_WORD_LIMIT,
            format=prompts.SODA_PAPER_FORMAT_TEXT,
            example_clean=prompts.soda_paper_example(0),
            example_issues=prompts.soda_paper_example(1),
            item="",
        )

    def prompt_fingerprint(self) -> str:
        schema = prompts.SODA_PAPER_ANSWER.json_schema
        text = self.template() + prompts.SODA_PAPER_ITEM + schema
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def reader(self) -> Parser:
        return lambda out: parse_soda_paper(out.text)

    def answer_format(self) -> AnswerFormat:
        return prompts.SODA_PAPER_ANSWER

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        return self.template() + prompts.soda_paper_item(context, item.response)

    def request(self, user: str, seed: int) -> ChatRequest:
        """The paper's prompt alone, as the user message: Table 11 is the whole instruction."""
        return replace(super().request(user, seed), messages=(("user", user),))

    def differences(self) -> list[str]:
        """Where this judge, as configured, differs from the paper, and why."""
        settings = self.settings
        found = [
            f"model: {settings.backend} (the paper's annotations come from {PAPER_MODEL}, an API "
            "model this package does not require)",
            "the two examples are written for this package: Table 11 shows them as placeholders "
            "and the paper does not publish them",
            "the JSON format is not published: the verdict uses the field names of the published "
            "dataset (issues with type and comment, score, overall_comment)",
            "the dialogue history is written as `Speaker: text` lines under `Dialogue history:`, "
            "the response under `Response:`; the paper does not show how it wrote an item",
            "instruction sentences reworded; the taxonomy and definitions of Table 3, the 1-5 "
            "scale, the 25-word limit, the format and the two examples kept in Table 11's order",
            f"an overall comment over {prompts.SODA_PAPER_WORD_LIMIT} words is kept with a flag; "
            "the paper states the limit only in the instruction",
            f"an unusable answer is retried up to {settings.retries} times with a new seed; the "
            "paper does not say how it handled one",
            "a prompt longer than a local model's window loses its oldest turns; the paper's API "
            "model needed no shortening",
        ]
        if settings.temperature != PAPER_TEMPERATURE:
            found.insert(1, f"temperature {settings.temperature:g} (the paper: 0.3)")
        if settings.structured:
            found.append(
                "structured output constrains the answer to the JSON format (issue types from "
                "the taxonomy, comments of at most 300 characters); structured=false sends free "
                "text, as the paper did"
            )
        if settings.n != 1:
            found.append(f"n={settings.n} calls averaged per item (the paper makes one)")
        return found

    def config(self) -> dict[str, Any]:
        return {
            **super().config(),
            "paper": "SODA-EVAL (Mendonça et al. 2024), Table 11 and Appendix C.2",
            "score": "score",
            "top_p": 1,
            "differences_from_paper": self.differences(),
        }


_SODA_EVAL_PAPER = MetricInfo(
    name=SodaEvalPaper.base_name,
    description=(
        "The SODA-EVAL evaluator as published (Table 11, Appendix C.2): the taxonomy of Table "
        "3, a comment of at most 25 words, a JSON verdict with two examples, temperature 0.3; "
        "the score is the 1-5 overall rating."
    ),
    family=SodaEvalPaper.family,
    needs=SodaEvalPaper.needs,
    citation=citations.SODA_EVAL,
    link="https://aclanthology.org/2024.findings-emnlp.684",
    implementation=SodaEvalPaper.implementation,
)
register_metric(SodaEvalPaper.base_name, _SODA_EVAL_PAPER)(SodaEvalPaper)
