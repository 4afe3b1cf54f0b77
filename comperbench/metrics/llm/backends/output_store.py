"""The raw-output store of the LLM judges: every output, one JSON file per (backend, request)
under `cache_dir()/llm/`, kept for audit and reused when the same request to the same backend
comes again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from comperbench import data
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import ChatRequest, Completion, Outcome
from comperbench.metrics.llm.backends.protocol import Backend

STORE_CHUNK = 32
"""Requests sent to a backend at a time; each chunk is stored as soon as it is answered."""


class RawStore:
    """Every raw output, one JSON file per (backend, request), kept for audit and reused."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or data.cache_dir() / "llm"

    @staticmethod
    def key(identity: dict[str, Any], request: ChatRequest) -> str:
        text = json.dumps({"backend": identity, "request": request.key()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        path = self.path(key)
        if not path.is_file():
            return None
        record = json.loads(path.read_text())
        return Completion(
            text=record["text"],
            option_probs=record["option_probs"],
            refusal=record["refusal"],
            truncated=record["truncated"],
            cut_short=record.get("cut_short", False),
            wrong_model=record.get("wrong_model"),
            raw=record["raw"],
        )

    def put(
        self, key: str, identity: dict[str, Any], request: ChatRequest, out: Completion
    ) -> None:
        path = self.path(key)
        record = {
            "backend": identity,
            "request": request.key(),
            "text": out.text,
            "option_probs": out.option_probs,
            "refusal": out.refusal,
            "truncated": out.truncated,
            "cut_short": out.cut_short,
            "wrong_model": out.wrong_model,
            "raw": out.raw,
            "created": datetime.now(UTC).isoformat(),
        }
        data.write_atomic(path, json.dumps(record, ensure_ascii=False, indent=1).encode())

    def complete(
        self,
        backend: Backend,
        requests: Sequence[ChatRequest],
        reusable: Callable[[Completion], bool],
        budget: Budget | None = None,
    ) -> tuple[list[Outcome], int]:
        """The outcome of each request, stored or asked of the backend, and how many were stored.

        Requests go to the backend in chunks, so that an interrupted run keeps the outputs it has
        already paid for; failures are not stored. A stored output that is not `reusable` (an
        unusable answer, kept for audit) is asked again and replaced. A stopped `budget` (or one
        whose deadline has passed, for backends that do not check it themselves) stops the run
        after the chunk that stopped it is stored.
        """
        identity = backend.identity()
        keys = [RawStore.key(identity, r) for r in requests]
        found: list[Outcome | None] = [self.get(k) for k in keys]
        found = [f if isinstance(f, Completion) and reusable(f) else None for f in found]
        missing = [i for i, f in enumerate(found) if f is None]
        if budget and missing:
            budget.time_left()  # starts the run's clock at its first request
        for start in range(0, len(missing), STORE_CHUNK):
            chunk = missing[start : start + STORE_CHUNK]
            outcomes = backend.complete([requests[i] for i in chunk], budget)
            for i, outcome in zip(chunk, outcomes, strict=True):
                if isinstance(outcome, Completion):
                    self.put(keys[i], identity, requests[i], outcome)
                found[i] = outcome
            if budget:
                budget.halted("requests were still running")
                budget.check()
        return [f for f in found if f is not None], len(requests) - len(missing)
