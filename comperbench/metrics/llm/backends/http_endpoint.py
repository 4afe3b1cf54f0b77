"""An OpenAI-compatible `/v1/chat/completions` endpoint as a judge backend.

Base URL, model and key from arguments or COMPERBENCH_LLM_BASE_URL / _MODEL / _API_KEY; works
with vLLM, llama.cpp's server and OpenAI. Each request has a timeout; timeouts, connection errors,
5xx/429 answers and malformed JSON are retried with exponential backoff, all within a total time
per request; at most `concurrency` requests are in flight. A response body is read up to
`MAX_RESPONSE_BYTES`. A request that still fails comes back as a `Failure`.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comperbench.metrics.llm.backends import budget as llm_budget
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import (
    BackendError,
    ChatRequest,
    Completion,
    Failure,
    Outcome,
    normalise,
)

if TYPE_CHECKING:
    import httpx

ENV_BASE_URL = "COMPERBENCH_LLM_BASE_URL"
ENV_MODEL = "COMPERBENCH_LLM_MODEL"
ENV_API_KEY = "COMPERBENCH_LLM_API_KEY"

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
"""The largest response body read; a chat completion is a few KB."""


class _TooLarge(Exception):
    """A response body past the size limit."""


@dataclass
class HttpBackend:
    """An OpenAI-compatible `/v1/chat/completions` endpoint."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    key_file: str | None = None
    """A file holding the API key (its first line), read once; the key is never shown."""
    timeout_s: float = 60.0
    total_timeout_s: float = 180.0
    """Seconds for one request, its retries and their waits included."""
    retries: int = 3
    backoff_s: float = 1.0
    concurrency: int = 4
    max_response_bytes: int = MAX_RESPONSE_BYTES

    def __post_init__(self) -> None:
        self.base_url = (self.base_url or os.environ.get(ENV_BASE_URL) or "").rstrip("/")
        self.model = self.model or os.environ.get(ENV_MODEL)
        self.api_key = self.api_key or _key_from_file(self.key_file) or os.environ.get(ENV_API_KEY)
        if not self.base_url:
            raise BackendError(f"HTTP backend: no base URL; pass one or set {ENV_BASE_URL}")
        if not self.model:
            raise BackendError(f"HTTP backend: no model name; pass one or set {ENV_MODEL}")

    def overflow(self, request: ChatRequest) -> int | None:
        """Unknown: a server's tokenizer and window are not visible from here."""
        return None

    def identity(self) -> dict[str, Any]:
        return {"backend": "http", "base_url": self.base_url, "model": self.model}

    @property
    def url(self) -> str:
        base = self.base_url or ""
        return f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"

    def _payload(self, request: ChatRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": r, "content": c} for r, c in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
        }
        if request.answer_format:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "answer",
                    "schema": json.loads(request.answer_format.json_schema),
                    "strict": True,
                },
            }
        if request.options:
            payload["logprobs"] = True
            payload["top_logprobs"] = 20
        return payload

    def _parse(self, body: dict[str, Any], request: ChatRequest) -> Completion:
        """A completion from a decoded response body; KeyError/TypeError/IndexError when malformed."""
        choice = body["choices"][0]
        message = choice["message"]
        refusal = message.get("refusal")
        if choice.get("finish_reason") == "content_filter" and not refusal:
            refusal = "finish_reason=content_filter"
        text = message.get("content") or ""
        if not isinstance(text, str):
            raise TypeError("message.content is not a string")
        probs = None
        logprobs = choice.get("logprobs") or {}
        content = logprobs.get("content") if isinstance(logprobs, dict) else None
        if request.options and content:
            # The first generated token that is one of the options carries the distribution.
            for token in content:
                if token["token"].strip() in request.options:
                    seen: dict[str, float] = {}
                    for alt in token.get("top_logprobs", []):
                        option = alt["token"].strip()
                        if option in request.options:
                            seen[option] = seen.get(option, 0.0) + math.exp(alt["logprob"])
                    probs = normalise(seen)
                    break
        served = body.get("model")
        wrong = served if isinstance(served, str) and not same_model(self.model, served) else None
        return Completion(
            text=text,
            option_probs=probs,
            refusal=refusal,
            cut_short=choice.get("finish_reason") == "length",
            wrong_model=wrong,
            raw=body,
        )

    def _attempt(
        self, client: httpx.Client, request: ChatRequest, timeout: float, until: float
    ) -> Outcome | str:
        """One POST, given up at the monotonic time `until`: the outcome, or the error of a
        failure worth retrying."""
        import httpx  # here, not at import: most runs send no request

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = self._payload(request)
        try:
            with client.stream(
                "POST", self.url, json=payload, headers=headers, timeout=timeout
            ) as response:
                body = self._read(response, until)
            text = body[:200].decode(errors="replace")
            if response.status_code in (429,) or response.status_code >= 500:
                return f"HTTP {response.status_code}: {text}"
            if response.status_code >= 400:
                return Failure(f"{self.url}: HTTP {response.status_code}: {text}", 1)
            return self._parse(json.loads(body), request)
        except _TooLarge:
            limit = self.max_response_bytes / 1024**2
            return Failure(f"{self.url}: response body larger than {limit:g} MB, not read", 1)
        except httpx.TimeoutException:
            return f"timed out after {timeout:.3g} s"
        except httpx.TransportError as exc:
            return f"connection error: {exc}"
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, IndexError) as exc:
            return f"malformed response body: {type(exc).__name__}: {exc}"

    def _read(self, response: httpx.Response, until: float) -> bytes:
        """The body, read in chunks; `_TooLarge` past the size limit, a read timeout once the
        monotonic time `until` has passed."""
        import httpx

        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise _TooLarge
            if time.monotonic() > until:
                raise httpx.ReadTimeout("the total time per request passed")
            chunks.append(chunk)
        return b"".join(chunks)

    def _one(self, client: httpx.Client, request: ChatRequest, budget: Budget) -> Outcome:
        """The outcome of one request after at most `budget.retries` retries, all within
        `total_timeout_s`; none starts once the run has stopped or its deadline has passed."""
        error = "not sent: the run had stopped"
        until = time.monotonic() + self.total_timeout_s
        for attempt in range(1, budget.retries + 2):
            if budget.halted(f"{self.url}: {error}"):
                return Failure(f"{self.url}: {error}", attempt - 1)
            left = _least(budget.time_left(), until - time.monotonic())
            if left <= 0:
                return Failure(
                    f"{self.url}: no answer within {self.total_timeout_s:g} s; last: {error}",
                    attempt - 1,
                )
            result = self._attempt(client, request, min(self.timeout_s, left), until)
            if not isinstance(result, str):
                return replace(result, attempts=attempt) if isinstance(result, Failure) else result
            error = result
            if attempt <= budget.retries:
                budget.retry()
                delay = self.backoff_s * 2 ** (attempt - 1)
                left = _least(budget.time_left(), until - time.monotonic())
                budget.stopped.wait(max(0.0, min(delay, left)))
        return Failure(f"{self.url}: {error}", budget.retries + 1)

    def complete(
        self, requests: Sequence[ChatRequest], budget: Budget | None = None
    ) -> list[Outcome]:
        """Every request's outcome, at most `concurrency` at a time, each counted in `budget`,
        whose progress shows while requests are waited for."""
        import httpx

        budget = budget or Budget(retries=self.retries)

        def one(request: ChatRequest) -> Outcome:
            outcome = self._one(client, request, budget)
            budget.record(outcome)
            if isinstance(outcome, Failure):
                budget.halted(outcome.error)
            return outcome

        with (
            httpx.Client(timeout=self.timeout_s) as client,
            ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool,
        ):
            futures = [pool.submit(one, request) for request in requests]
            while wait(futures, timeout=max(llm_budget.PROGRESS_EVERY_S, 0.05)).not_done:
                budget.report()
            return [future.result() for future in futures]


def _least(deadline_left: float | None, total_left: float) -> float:
    """Seconds left for a request: the smaller of the run's and the request's."""
    return total_left if deadline_left is None else min(deadline_left, total_left)


def same_model(asked: str | None, served: str) -> bool:
    """Whether a server's `model` answers the one asked: the same name, or a dated snapshot of it
    (`gpt-4o` served as `gpt-4o-2024-08-06`)."""
    return served == asked or (asked is not None and served.startswith(f"{asked}-"))


def _key_from_file(path: str | None) -> str | None:
    """The API key in the first line of `path`; a missing or empty file is a clear error that
    names the file, never the key."""
    if path is None:
        return None
    try:
        lines = Path(path).expanduser().read_text().splitlines()
    except OSError as error:
        raise BackendError(f"API key file {path}: {error.strerror}") from None
    key = lines[0].strip() if lines else ""
    if not key:
        raise BackendError(f"API key file {path} is empty; put the key on its first line")
    return key
