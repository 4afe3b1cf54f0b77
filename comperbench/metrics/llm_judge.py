"""What every LLM judge shares: requests, calls through the raw-output store, retries, notes.

The judges are CPDScore (`llm_cpdscore`), the SODA-EVAL evaluator (`llm_soda_eval`) and G-Eval
form filling (`llm_geval`); their prompts live in `prompts.py`, the options in brackets are parsed
by `llm_settings`, and the outputs are read by `llm_parsing`.

Every raw output is stored for audit and reused (`llm_store`). Output that cannot be parsed (or a
refusal) is retried with a new seed, then counted in `notes`, never turned into a score: an item
with no parsable call scores NaN. One `Budget` per judge bounds its requests over every batch of a
run (retries, failures in a row, deadline) and shows their progress.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from comperbench.metrics import prompts
from comperbench.metrics.base import DialogueItem, Item, Metric, TurnItem
from comperbench.metrics.llm_backends import make_backend
from comperbench.metrics.llm_budget import Budget
from comperbench.metrics.llm_parsing import Parser
from comperbench.metrics.llm_requests import BackendError, ChatRequest, Failure, Outcome
from comperbench.metrics.llm_settings import JudgeSettings
from comperbench.metrics.llm_store import RawStore


@dataclass
class CallPlan:
    """The requests of one run and how to turn their outputs into numbers."""

    size: int
    """How many owners (items or turns) the numbers are for."""
    parser: Parser
    requests: list[ChatRequest] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    """Index of the owner each request belongs to."""


@dataclass
class Ledger:
    """Counts of one run: calls, cache hits, unparsable outputs, refusals, failures, truncations."""

    calls: int = 0
    cached: int = 0
    unparsable: int = 0
    refusals: int = 0
    failed: int = 0
    truncated_prompts: int = 0
    retried: int = 0
    errors: list[str] = field(default_factory=list)


Pending = list[tuple[ChatRequest, int]]
"""Requests still to be answered, each with its owner."""


class LlmJudge(Metric):
    """A judge: backend calls through the raw store, retries of unparsable output, notes."""

    family: ClassVar = "llm"
    cache_nan: ClassVar[bool] = False
    base_name: ClassVar[str]
    max_tokens: ClassVar[int] = 32
    default_n: ClassVar[int] = 3
    default_temperature: ClassVar[float] = 0.7
    aspect_first: ClassVar[bool] = False
    """Whether the first token in brackets is the aspect (G-Eval)."""

    def __init__(self, arg: str | None) -> None:
        self.settings = JudgeSettings.parse(
            arg, n=self.default_n, temperature=self.default_temperature, aspect=self.aspect_first
        )
        self.notes: dict[str, Any] = {}
        self.details: dict[str, Any] = {}
        self._budget: Budget | None = None

    @property
    def budget(self) -> Budget:
        """The bounds and counts of this judge's requests, over every batch it scores."""
        if self._budget is None:
            self._budget = Budget(
                self.name,
                retries=self.settings.retries,
                max_failures=self.settings.max_failures,
                deadline_s=self.settings.deadline,
            )
        return self._budget

    @property
    def name(self) -> str:
        return f"{self.base_name}[{self.settings.label()}]"

    def config(self) -> dict[str, Any]:
        return {
            "backend": self.settings.backend,
            "n": self.settings.n,
            "temperature": self.settings.temperature,
            "seed": self.settings.seed,
            "retries": self.settings.retries,
            "max_tokens": self.max_tokens,
            "prompt": self.prompt_fingerprint(),
        }

    def prompt_fingerprint(self) -> str:
        """A digest of the prompt templates (part of the cache key)."""
        return ""

    def library_version(self) -> str:
        from comperbench import __version__

        return f"comperbench {__version__}"

    def request(
        self, user: str, seed: int, prefix: str = "Score:", options: tuple[str, ...] = ()
    ) -> ChatRequest:
        """One request; the answer `prefix` is written into the prompt by local backends only."""
        local = self.settings.backend.startswith("local:")
        return ChatRequest(
            messages=(("system", prompts.SYSTEM), ("user", user)),
            max_tokens=self.max_tokens,
            temperature=self.settings.temperature,
            seed=seed,
            response_prefix=prefix if local else "",
            options=options,
        )

    def add_calls(
        self,
        plan: CallPlan,
        owner: int,
        user: str,
        prefix: str = "Score:",
        options: tuple[str, ...] = (),
    ) -> None:
        """The n requests of one owner, seeded `seed`, `seed + 1`, ..."""
        for call in range(self.settings.n):
            plan.requests.append(self.request(user, self.settings.seed + call, prefix, options))
            plan.owners.append(owner)

    def run(self, plan: CallPlan, ledger: Ledger) -> list[list[float]]:
        """Numbers per owner: every request is sent (or read from the store), parsed, retried."""
        backend = make_backend(self.settings.backend)
        store = RawStore()
        values: list[list[float]] = [[] for _ in range(plan.size)]
        pending: Pending = list(zip(plan.requests, plan.owners, strict=True))
        for attempt in range(self.settings.retries + 1):
            outcomes, cached = store.complete(backend, [r for r, _ in pending], self.budget)
            ledger.calls += len(pending)
            ledger.cached += cached
            last = attempt == self.settings.retries
            pending = _collect(plan.parser, pending, outcomes, values, ledger, last)
            if not pending:
                break
        if ledger.failed and ledger.failed == ledger.calls - ledger.cached:
            raise BackendError(
                f"{self.name}: every request to {backend.identity()} failed; "
                f"first error: {ledger.errors[0]}"
            )
        return values

    def finish(
        self, items: Sequence[Item], values: list[list[float]], ledger: Ledger
    ) -> list[float]:
        """Mean per owner (NaN with no parsable call); notes add up over the calls of one run."""
        scores = [math.fsum(v) / len(v) if v else math.nan for v in values]
        unscored = [item.item_id for item, s in zip(items, scores, strict=True) if math.isnan(s)]
        counts = {
            "calls": ledger.calls,
            "cached_calls": ledger.cached,
            "retried_calls": ledger.retried,
            "unparsable_calls": ledger.unparsable,
            "refused_calls": ledger.refusals,
            "failed_calls": ledger.failed,
            "truncated_prompts": ledger.truncated_prompts,
        }
        before = self.notes
        self.notes = {
            "backend": make_backend(self.settings.backend).identity(),
            "temperature": self.settings.temperature,
            "seed": self.settings.seed,
            "n": self.settings.n,
            **{k: v + before.get(k, 0) for k, v in counts.items()},
            "unscored_items": [*before.get("unscored_items", []), *unscored],
            "errors": sorted(set(before.get("errors", [])) | set(ledger.errors))[:5],
        }
        return scores


def _collect(
    parser: Parser,
    pending: Pending,
    outcomes: Sequence[Outcome],
    values: list[list[float]],
    ledger: Ledger,
    last: bool,
) -> Pending:
    """Parsed numbers go to their owner's values; failures, refusals and unparsable outputs are
    counted, and (unless this was the `last` attempt) the latter two come back as retries with a
    new seed."""
    again: Pending = []
    for (request, owner), outcome in zip(pending, outcomes, strict=True):
        if isinstance(outcome, Failure):
            ledger.failed += 1
            ledger.errors.append(outcome.error)
            continue
        ledger.truncated_prompts += int(outcome.truncated)
        value = None if outcome.refusal else parser(outcome)
        if value is not None:
            values[owner].append(value)
        elif last:
            ledger.refusals += int(outcome.refusal is not None)
            ledger.unparsable += int(outcome.refusal is None)
        else:
            ledger.retried += 1
            temperature = max(request.temperature, 0.7)
            again.append(
                (replace(request, seed=request.seed + 1000, temperature=temperature), owner)
            )
    return again


def as_turn(name: str, item: Item) -> TurnItem:
    """The item, which a turn-level judge called `name` can only score if it is a turn."""
    if not isinstance(item, TurnItem):
        raise TypeError(f"{name} scores turns; item {item.item_id} is a dialogue")
    return item


def as_dialogue(name: str, item: Item) -> DialogueItem:
    """The item, which a dialogue-level judge called `name` can only score if it is a dialogue."""
    if not isinstance(item, DialogueItem):
        raise TypeError(f"{name} scores dialogues; item {item.item_id} is a turn")
    return item
