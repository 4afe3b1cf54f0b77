"""What the LLM judges ask of a backend and get back: chat requests, completions, failures."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from comperbench.common.errors import ComperbenchError


class BackendError(ComperbenchError):
    """A backend that cannot be configured or that failed every request of a run."""


@dataclass(frozen=True)
class AnswerFormat:
    """What an answer must look like, for backends that constrain decoding to it."""

    json_schema: str
    """JSON Schema (as JSON text) of the answer written as JSON: an OpenAI-compatible server gets
    it as `response_format`, and a local model follows it where `regex` is empty."""
    regex: str = ""
    """The answer after the request's `response_prefix`, as a regular expression (local models)."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request; `options` asks for the next-token probability of each option."""

    messages: tuple[tuple[str, str], ...]
    max_tokens: int
    temperature: float
    seed: int
    response_prefix: str = ""
    """Text the answer starts with; only the local backend can write it into the prompt (prefill),
    and its completion text then starts with it. HTTP endpoints do not see it."""
    options: tuple[str, ...] = ()
    answer_format: AnswerFormat | None = None
    """Constrain decoding to this format (structured output); None: free text."""

    def key(self) -> dict[str, Any]:
        structured = (
            {} if self.answer_format is None else {"answer_format": vars(self.answer_format)}
        )
        return {
            "messages": [list(m) for m in self.messages],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "response_prefix": self.response_prefix,
            "options": list(self.options),
            **structured,
        }


@dataclass
class Completion:
    """Text of an answer (prefix included), option probabilities when known, and the raw output."""

    text: str
    option_probs: dict[str, float] | None = None
    refusal: str | None = None
    truncated: bool = False
    """The prompt was longer than the model's window and was cut from the left."""
    cut_short: bool = False
    """The answer reached `max_tokens` before it ended."""
    wrong_model: str | None = None
    """The model a server says answered, when it is not the one asked for."""
    raw: Any = None


@dataclass
class Failure:
    """A request that failed after every retry."""

    error: str
    attempts: int


Outcome = Completion | Failure


def normalise(probs: dict[str, float]) -> dict[str, float] | None:
    """The probabilities scaled to sum to 1; None when they sum to 0."""
    total = math.fsum(probs.values())
    return {k: v / total for k, v in probs.items()} if total > 0 else None
