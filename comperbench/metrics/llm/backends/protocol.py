"""The `Backend` protocol every judge backend follows: identity, completions under a budget, and
the overflow of a request beyond the model's window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import ChatRequest, Outcome


class Backend(Protocol):
    def identity(self) -> dict[str, Any]:
        """What produced the outputs (part of every cache key)."""
        ...

    def complete(
        self, requests: Sequence[ChatRequest], budget: Budget | None = None
    ) -> list[Outcome]: ...

    def overflow(self, request: ChatRequest) -> int | None:
        """Tokens by which the request's prompt and answer exceed the model's window (0 or less:
        it fits); None when the backend cannot tell (a remote server)."""
        ...
