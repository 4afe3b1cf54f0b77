"""What every LLM judge shares: requests, calls through the raw-output store, retries, notes,
explanations.

The judges are CPDScore (`cpdscore`, as published: `cpdscore_paper`, `cpds_dial_paper`), the
SODA-EVAL evaluator (`soda_eval`, as published: `soda_eval_paper`) and G-Eval form filling
(`geval`); their prompts live in `prompts.py`, the options in brackets are parsed by `settings`,
and the outputs are read by `parsing`.

Every raw output is stored for audit and reused (`backends.output_store`). An answer that gives no
valid score (unparsable, off the scale, an unknown issue type, an empty comment, another model than
asked, a refusal) is retried with a new seed, then counted by reason, never turned into a score: an
item with no usable call scores NaN. A usable answer that breaks a limit the judge only asks for (a
verdict's `flags`) is kept and counted by flag. A prompt longer than a local model's window loses its oldest
conversation turns, never its instructions. One `Budget` per judge bounds its requests over every
batch of a run (retries, failures in a row, deadline) and shows their progress. `explain` rebuilds
every item's verdicts (scores, issues, comments, intermediate scores) from the raw store alone."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from comperbench.common.errors import MetricOptionError
from comperbench.metrics.base import DialogueItem, Item, Metric, TurnItem
from comperbench.metrics.llm import prompts
from comperbench.metrics.llm.backend_factory import backend_identity, make_backend
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import (
    AnswerFormat,
    BackendError,
    ChatRequest,
    Completion,
    Failure,
    Outcome,
)
from comperbench.metrics.llm.backends.output_store import RawStore
from comperbench.metrics.llm.backends.protocol import Backend
from comperbench.metrics.llm.parsing import Parser, Rejected
from comperbench.metrics.llm.settings import JudgeSettings
from comperbench.schema import Utterance

RETRY_SEED_STEP = 1000
"""A retried request's seed is the rejected one's plus this."""


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
    """Counts of one run: calls, cache hits, first answers rejected, final rejections by reason,
    failures, prompts shortened."""

    calls: int = 0
    cached: int = 0
    first_answers: int = 0
    first_answers_rejected: int = 0
    retried: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    """Answers still unusable after every retry, by reason."""
    flagged: Counter[str] = field(default_factory=Counter)
    """Usable answers kept with a flag (a verdict's `flags`), by flag."""
    failed: int = 0
    prompts_shortened: int = 0
    turns_left_out: int = 0
    truncated_prompts: int = 0
    errors: list[str] = field(default_factory=list)


Answer = dict[str, Any]
"""One usable call: its score, what else the judge said, its seed and attempt."""

Pending = list[tuple[ChatRequest, int]]
"""Requests still to be answered, each with its owner."""


class _StoredOnly:
    """A backend that answers from nothing: with the raw store in front, it replays stored
    outputs and reports the rest as missing, so that explanations never call a model."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings

    def identity(self) -> dict[str, Any]:
        return backend_identity(self.settings)

    def overflow(self, request: ChatRequest) -> int | None:
        if self.settings.is_http:
            return None
        return make_backend(self.settings).overflow(request)

    def complete(
        self, requests: Sequence[ChatRequest], budget: Budget | None = None
    ) -> list[Outcome]:
        return [Failure("not in the raw store", 0) for _ in requests]


class LlmJudge(Metric):
    """A judge: backend calls through the raw store, retries of unusable answers, notes."""

    family: ClassVar = "llm"
    cache_nan: ClassVar[bool] = False
    base_name: ClassVar[str]
    prompt_version: ClassVar[int] = 1
    """Raise it when the judge's prompts change in a way that changes its scores."""
    max_tokens: ClassVar[int] = 32
    default_n: ClassVar[int] = 3
    default_temperature: ClassVar[float] = 0.7
    aspect_first: ClassVar[bool] = False
    """Whether the first token in brackets is the aspect (G-Eval)."""
    answer_prefix: ClassVar[str] = "Score:"
    """What a local model's answer is prefilled with."""
    score_options: ClassVar[tuple[str, ...]] = ()
    """Answer tokens whose first-token probabilities give the score (G-Eval)."""

    def __init__(self, arg: str | None, defaults: Mapping[str, str] | None = None) -> None:
        self.arg = arg
        self.settings = JudgeSettings.parse(
            arg,
            n=self.default_n,
            temperature=self.default_temperature,
            aspect=self.aspect_first,
            defaults=defaults,
        )
        if self.settings.prompt not in (None, self.prompt_version):
            raise MetricOptionError(
                f"{self.base_name} has prompt version {self.prompt_version} in this comperbench, "
                f"not {self.settings.prompt}: install the comperbench release that has it"
            )
        self.notes: dict[str, Any] = {}
        self._budget: Budget | None = None

    def with_options(self, options: Mapping[str, str]) -> LlmJudge:
        """The same judge with `evaluate --judge-*` options under its own brackets."""
        return type(self)(self.arg, options)

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
        return f"{self.base_name}[{self.settings.scoring_label(self.prompt_version)}]"

    def config(self) -> dict[str, Any]:
        settings = self.settings
        server = {"url": backend_identity(settings)["base_url"]} if settings.is_http else {}
        return {
            "backend": settings.backend,
            **server,
            "n": settings.n,
            "temperature": settings.temperature,
            "seed": settings.seed,
            "retries": settings.retries,
            "structured": settings.structured,
            "max_tokens": self.max_tokens,
            "prompt_version": self.prompt_version,
            "prompt": self.prompt_fingerprint(),
        }

    def prompt_fingerprint(self) -> str:
        """A digest of the prompt templates (part of the cache key)."""
        return ""

    def library_version(self) -> str:
        from comperbench.common.version import __version__

        return f"comperbench {__version__}"

    def answer_format(self) -> AnswerFormat | None:
        """The format structured output constrains answers to (None: free text)."""
        return None

    def request(self, user: str, seed: int) -> ChatRequest:
        """One request; the `answer_prefix` is written into the prompt by local backends only."""
        options = self.score_options
        structured = self.answer_format() if self.settings.structured and not options else None
        prefix = self.answer_prefix
        if self.settings.is_http or (structured and not structured.regex):
            prefix = ""  # a server cannot be prefilled; a JSON schema constrains the whole answer
        return ChatRequest(
            messages=(("system", prompts.SYSTEM), ("user", user)),
            max_tokens=self.max_tokens,
            temperature=self.settings.temperature,
            seed=seed,
            response_prefix=prefix,
            options=options,
            answer_format=structured,
        )

    def add_calls(self, plan: CallPlan, owner: int, user: str) -> None:
        """The n requests of one owner, seeded `seed`, `seed + 1`, ..."""
        for call in range(self.settings.n):
            plan.requests.append(self.request(user, self.settings.seed + call))
            plan.owners.append(owner)

    def fitted(
        self,
        backend: Backend,
        render: Callable[[Sequence[Utterance]], str],
        turns: Sequence[Utterance],
        ledger: Ledger,
    ) -> tuple[str, int]:
        """The user prompt `render(turns)` without the fewest oldest turns that make the request
        fit the backend's window, and how many were left out; the instructions always stay."""
        whole = render(turns)
        if not _overflows(backend, self.request(whole, 0)):
            return whole, 0
        low, high = 1, len(turns)  # the fewest turns to leave out lie in [low, high]
        while low < high:
            middle = (low + high) // 2
            if _overflows(backend, self.request(render(turns[middle:]), 0)):
                low = middle + 1
            else:
                high = middle
        ledger.prompts_shortened += 1
        ledger.turns_left_out += low
        return render(turns[low:]), low

    def reader(self) -> Parser:
        """How the judge reads an answer into a verdict."""
        raise NotImplementedError

    def user_prompt(self, item: TurnItem, context: Sequence[Utterance]) -> str:
        """The prompt of a turn, with the conversation `context` (the item's, or its latest
        turns)."""
        raise NotImplementedError

    def judge(
        self, items: Sequence[Item], backend: Backend, ledger: Ledger, budget: Budget | None
    ) -> tuple[list[float], dict[str, dict[str, Any]]]:
        """Scores and explanations per item, asking `backend` through the raw store: for a
        turn-level judge, n calls of `user_prompt` per item, read by `reader`, each item's mean
        score and explanation."""
        turns = [as_turn(self.name, item) for item in items]
        plan = CallPlan(len(turns), self.reader())
        left_out: list[int] = []
        for index, item in enumerate(turns):
            user, dropped = self.fitted(
                backend,
                lambda context, item=item: self.user_prompt(item, context),
                item.context,
                ledger,
            )
            self.add_calls(plan, index, user)
            left_out.append(dropped)
        answers = self.run(plan, ledger, backend, budget)
        details = {
            t.item_id: explanation(a, dropped)
            for t, a, dropped in zip(turns, answers, left_out, strict=True)
        }
        return [mean_score(a) for a in answers], details

    def run(
        self, plan: CallPlan, ledger: Ledger, backend: Backend, budget: Budget | None
    ) -> list[list[Answer]]:
        """Usable answers per owner: every request is sent (or read from the store), read,
        retried."""
        store = RawStore()

        def reusable(outcome: Completion) -> bool:
            """An unusable answer is asked again, unless this only replays the store."""
            replay = isinstance(backend, _StoredOnly)
            return replay or not isinstance(_reading(plan.parser, outcome), Rejected)

        answers: list[list[Answer]] = [[] for _ in range(plan.size)]
        pending: Pending = list(zip(plan.requests, plan.owners, strict=True))
        for attempt in range(self.settings.retries + 1):
            requests = [r for r, _ in pending]
            outcomes, cached = store.complete(backend, requests, reusable, budget)
            ledger.calls += len(pending)
            ledger.cached += cached
            last = attempt == self.settings.retries
            pending = _collect(plan.parser, pending, outcomes, answers, ledger, attempt, last)
            if not pending:
                break
        return answers

    def score(self, items: Sequence[Item]) -> list[float]:
        backend = make_backend(self.settings)
        ledger = Ledger()
        scores, _ = self.judge(items, backend, ledger, self.budget)
        if ledger.failed and ledger.failed == ledger.calls - ledger.cached:
            raise BackendError(
                f"{self.name}: every request to {backend.identity()} failed; "
                f"first error: {ledger.errors[0]}"
            )
        self._add_notes(items, scores, ledger, backend)
        return scores

    def explain(self, items: Sequence[Item]) -> dict[str, dict[str, Any]]:
        """Each item's verdicts, replayed from the raw store without calling a model."""
        _, details = self.judge(items, _StoredOnly(self.settings), Ledger(), None)
        return details

    def _add_notes(
        self, items: Sequence[Item], scores: Sequence[float], ledger: Ledger, backend: Backend
    ) -> None:
        """Notes add up over the batches of a run."""
        unscored = [item.item_id for item, s in zip(items, scores, strict=True) if math.isnan(s)]
        counts = {
            "calls": ledger.calls,
            "cached_calls": ledger.cached,
            "first_answers": ledger.first_answers,
            "first_answers_rejected": ledger.first_answers_rejected,
            "retried_calls": ledger.retried,
            "rejected_calls": sum(ledger.rejected.values()),
            "failed_calls": ledger.failed,
            "prompts_shortened": ledger.prompts_shortened,
            "turns_left_out": ledger.turns_left_out,
            "truncated_prompts": ledger.truncated_prompts,
        }
        before = self.notes
        reasons = Counter(before.get("rejected_by_reason", {})) + ledger.rejected
        flags = Counter(before.get("flagged_by_reason", {})) + ledger.flagged
        self.notes = {
            "backend": backend.identity(),
            "temperature": self.settings.temperature,
            "seed": self.settings.seed,
            "n": self.settings.n,
            **{k: v + before.get(k, 0) for k, v in counts.items()},
            "rejected_by_reason": dict(sorted(reasons.items())),
            **({"flagged_by_reason": dict(sorted(flags.items()))} if flags else {}),
            "unscored_items": [*before.get("unscored_items", []), *unscored],
            "errors": sorted(set(before.get("errors", [])) | set(ledger.errors))[:5],
        }


def _overflows(backend: Backend, request: ChatRequest) -> bool:
    over = backend.overflow(request)
    return over is not None and over > 0


def explanation(answers: list[Answer], left_out: int, **extra: Any) -> dict[str, Any]:
    """What a judge said about one item: its usable calls, and how many of the oldest turns its
    prompt left out to fit the model's window."""
    shortened = {"turns_left_out": left_out} if left_out else {}
    return {"calls": answers, **shortened, **extra}


def mean_score(answers: Sequence[Answer]) -> float:
    """The mean score of an owner's usable answers; NaN with none."""
    return math.fsum(a["score"] for a in answers) / len(answers) if answers else math.nan


def _reading(parser: Parser, outcome: Completion) -> Rejected | Answer:
    """The usable answer of a completion, or why it is not one."""
    if outcome.refusal is not None:
        return Rejected("refusal")
    if outcome.wrong_model is not None:
        return Rejected("answered by another model")
    reading = parser(outcome)
    if isinstance(reading, Rejected):
        return Rejected("answer cut at max_tokens") if outcome.cut_short else reading
    return {"score": reading.score, **reading.fields}


def _collect(
    parser: Parser,
    pending: Pending,
    outcomes: Sequence[Outcome],
    answers: list[list[Answer]],
    ledger: Ledger,
    attempt: int,
    last: bool,
) -> Pending:
    """Usable answers go to their owner; failures and rejections are counted, and (unless this
    was the `last` attempt) rejections come back as retries with a new seed."""
    again: Pending = []
    for (request, owner), outcome in zip(pending, outcomes, strict=True):
        if isinstance(outcome, Failure):
            ledger.failed += 1
            ledger.errors.append(outcome.error)
            continue
        ledger.truncated_prompts += int(outcome.truncated)
        reading = _reading(parser, outcome)
        ledger.first_answers += int(attempt == 0)
        if not isinstance(reading, Rejected):
            answers[owner].append({**reading, "seed": request.seed, "attempt": attempt})
            ledger.flagged.update(reading.get("flags", ()))
            continue
        ledger.first_answers_rejected += int(attempt == 0)
        if last:
            ledger.rejected[reading.reason] += 1
        else:
            ledger.retried += 1
            again.append((retry_request(request), owner))
    return again


def retry_request(request: ChatRequest) -> ChatRequest:
    """The request that retries a rejected answer: a new seed, and sampling on."""
    temperature = max(request.temperature, 0.7)
    return replace(request, seed=request.seed + RETRY_SEED_STEP, temperature=temperature)


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
