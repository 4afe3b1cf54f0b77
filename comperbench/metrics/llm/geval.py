"""G-Eval form filling (Liu et al. 2023) for any aspect: `geval[coherence]`.

The score is the probability-weighted sum_s p(s)*s over the score tokens 1-5 (local logits, or
`top_logprobs` when an HTTP server returns them); without probabilities the text is parsed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import ClassVar, Literal

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.judge import LlmJudge
from comperbench.metrics.llm.parsing import Parser, form_reading
from comperbench.metrics.registry import register_metric
from comperbench.schema import Utterance

SCORE_OPTIONS = ("1", "2", "3", "4", "5")


class GEval(LlmJudge):
    """G-Eval form filling for one aspect (the first text in brackets), mean of n calls."""

    base_name: ClassVar[str] = "geval"
    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    max_tokens: ClassVar[int] = 4
    default_n: ClassVar[int] = 1
    default_temperature: ClassVar[float] = 0.0
    aspect_first: ClassVar[bool] = True
    answer_prefix: ClassVar[str] = ""
    score_options: ClassVar[tuple[str, ...]] = SCORE_OPTIONS

    def __init__(self, arg: str | None, defaults: Mapping[str, str] | None = None) -> None:
        super().__init__(arg, defaults)
        self.aspect = self.settings.aspect or ""
        self.definition = prompts.GEVAL_DEFINITIONS.get(
            self.aspect, prompts.GEVAL_GENERIC_DEFINITION.format(aspect=self.aspect)
        )

    @property
    def name(self) -> str:
        return f"geval[{self.aspect},{self.settings.scoring_label(self.prompt_version)}]"

    def prompt_fingerprint(self) -> str:
        return hashlib.sha256((prompts.GEVAL + self.definition).encode()).hexdigest()[:16]

    def reader(self) -> Parser:
        return form_reading

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        """The form of a turn, with the conversation `context` (the item's, or its latest turns)."""
        grounding = ""
        if item.grounding:
            grounding = prompts.GEVAL_GROUNDING.format(
                grounding=prompts.render_list(item.grounding)
            )
        return prompts.GEVAL.format(
            aspect=self.aspect,
            aspect_title=self.aspect.title(),
            definition=self.definition,
            grounding=grounding,
            context=prompts.render_dialogue(context),
            response=item.response,
        )


_G_EVAL = MetricInfo(
    name=GEval.base_name,
    description=(
        "G-Eval form filling for an aspect (`geval[coherence]`): the LLM judge rates the "
        "response 1-5 and the score is the probability-weighted mean of the score tokens (the "
        "parsed rating when no probabilities are returned)."
    ),
    family=GEval.family,
    needs=GEval.needs,
    citation=citations.GEVAL,
    link="https://aclanthology.org/2023.emnlp-main.153",
    implementation=GEval.implementation,
)
register_metric(GEval.base_name, _G_EVAL)(GEval)
