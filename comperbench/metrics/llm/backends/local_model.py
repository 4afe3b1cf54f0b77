"""A local causal LM behind its chat template as a judge backend."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from comperbench.common.extras import requires_extra
from comperbench.metrics import models
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import (
    AnswerFormat,
    BackendError,
    ChatRequest,
    Completion,
    Outcome,
    normalise,
)


@dataclass
class LocalBackend:
    """A local causal LM (a path, or the shipped SmolLM2-135M-Instruct) behind its chat template.

    Requests run in left-padded batches of `batch_size`. Each sampled request draws its tokens from
    its own generator seeded with its `seed`, so its output does not depend on its batch or row.
    An `answer_format` constrains decoding (lm-format-enforcer): disallowed tokens are masked before
    sampling, and the answer may end only where the format is complete. With `options`, the
    probability of each option as the first answer token is read from the unconstrained logits
    after the prompt and prefix.
    """

    model_spec: str = models.DEFAULT_CAUSAL_LM
    batch_size: int = 8
    _vocabulary: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.model, self.tokenizer = models.load(self.model_spec, "causal")
        self.window = models.context_window(self.model, self.tokenizer)

    def identity(self) -> dict[str, Any]:
        return {"backend": "local", "model": self.model_spec}

    def overflow(self, request: ChatRequest) -> int | None:
        ids = self._full_prompt_ids(request)
        return len(ids) - (self.window - request.max_tokens)

    def _prompt_ids(self, request: ChatRequest) -> tuple[list[int], bool]:
        """The prompt's token ids, cut from the left to fit the window, and whether it was cut."""
        ids = self._full_prompt_ids(request)
        budget = self.window - request.max_tokens
        if budget < 1:
            raise BackendError(
                f"max_tokens={request.max_tokens} leaves no room for a prompt in the "
                f"{self.window}-token window of {self.model_spec}"
            )
        if len(ids) > budget:
            return ids[len(ids) - budget :], True
        return ids, False

    def _full_prompt_ids(self, request: ChatRequest) -> list[int]:
        """The token ids of the chat prompt and the answer prefix."""
        messages = [{"role": r, "content": c} for r, c in request.messages]
        if self.tokenizer.chat_template:
            text = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        else:
            text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return self.tokenizer(text + request.response_prefix, add_special_tokens=False)["input_ids"]

    def _option_ids(self, options: Sequence[str]) -> dict[str, list[int]]:
        """Token ids that spell each option as a first answer token (with or without a space)."""
        ids: dict[str, list[int]] = {}
        for option in options:
            found = set()
            for variant in (option, " " + option):
                tokens = self.tokenizer(variant, add_special_tokens=False)["input_ids"]
                if len(tokens) == 1:
                    found.add(tokens[0])
            if not found:
                raise BackendError(f"option {option!r} is not a single token of {self.model_spec}")
            ids[option] = sorted(found)
        return ids

    def _eos_ids(self) -> list[int]:
        """The tokens that end an answer."""
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        return [eos] if isinstance(eos, int) else list(eos)

    def _enforcer(self, answer_format: AnswerFormat, prefix: str) -> Any:
        """A token enforcer of the format: `regex` for the text after `prefix`, else the JSON
        schema for the whole answer, prefix included."""
        with requires_extra("structured output of a local judge"):
            from lmformatenforcer import (
                CharacterLevelParserConfig,
                JsonSchemaParser,
                RegexParser,
                TokenEnforcer,
            )

        vocabulary = self._format_vocabulary()
        config = CharacterLevelParserConfig(alphabet=vocabulary.tokenizer_alphabet)
        try:
            if answer_format.regex:
                parser = RegexParser(answer_format.regex, config)
            else:
                parser = JsonSchemaParser(json.loads(answer_format.json_schema), config)
                for char in prefix:
                    if char not in parser.get_allowed_characters():
                        raise ValueError(f"the response prefix {prefix!r} breaks the schema")
                    parser = parser.add_character(char)
        except Exception as exc:
            raise BackendError(f"answer format {answer_format} cannot be enforced: {exc}") from exc
        return TokenEnforcer(vocabulary, parser)

    def _format_vocabulary(self) -> Any:
        """Every regular token as decoded text, as lm-format-enforcer needs it; built once. (Its
        transformers integration imports a module transformers 5 no longer has, so this follows
        that integration's `build_token_enforcer_tokenizer_data`.)"""
        if self._vocabulary is None:
            with requires_extra("structured output of a local judge"):
                from lmformatenforcer import TokenEnforcerTokenizerData

            tokenizer = self.tokenizer
            zeros = tokenizer.encode("0", add_special_tokens=False)
            if len(zeros) != 1:
                raise BackendError(f"cannot constrain {self.model_spec}: no token spells '0'")
            zero = zeros[0]
            special = set(tokenizer.all_special_ids)
            regular = []
            for token in range(len(tokenizer)):
                if token in special:
                    continue
                # After "0", a token that starts a word decodes with its leading space.
                text = tokenizer.decode([zero, token])[1:]
                regular.append((token, text, len(text) > len(tokenizer.decode([token]))))
            self._vocabulary = TokenEnforcerTokenizerData(
                regular,
                lambda ids: tokenizer.decode(ids).rstrip("\ufffd"),
                self._eos_ids(),
                False,
                len(tokenizer),
            )
        return self._vocabulary

    def complete(
        self, requests: Sequence[ChatRequest], budget: Budget | None = None
    ) -> list[Outcome]:
        """Every request's outcome, batch by batch, each counted in `budget`."""
        out: list[Outcome] = []
        for start in range(0, len(requests), self.batch_size):
            batch = self._batch(requests[start : start + self.batch_size])
            for outcome in batch:
                if budget:
                    budget.record(outcome)
            out.extend(batch)
        return out

    def _batch(self, requests: Sequence[ChatRequest]) -> list[Outcome]:
        import torch

        prompts = [self._prompt_ids(r) for r in requests]
        width = max(len(ids) for ids, _ in prompts)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        attention = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, (ids, _) in enumerate(prompts):
            input_ids[row, width - len(ids) :] = torch.tensor(ids)
            attention[row, width - len(ids) :] = 1
        eos = self._eos_ids()
        by_format: dict[tuple[AnswerFormat, str], Any] = {}
        for r in requests:
            key = (r.answer_format, r.response_prefix)
            if r.answer_format is not None and key not in by_format:
                by_format[key] = self._enforcer(r.answer_format, r.response_prefix)
        enforcers = [by_format.get((r.answer_format, r.response_prefix)) for r in requests]
        processors = []
        if any(r.temperature > 0 for r in requests) or any(enforcers):
            processors.append(RowDecoder(requests, width, enforcers, eos))
        with torch.inference_mode():
            generated = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=max(r.max_tokens for r in requests),
                do_sample=False,
                temperature=None,
                top_p=None,
                top_k=None,
                pad_token_id=pad,
                logits_processor=processors,
                output_logits=any(r.options for r in requests),
                return_dict_in_generate=True,
            )
        results: list[Outcome] = []
        for row, request in enumerate(requests):
            new = generated.sequences[row, width:][: request.max_tokens]
            text = self.tokenizer.decode(new, skip_special_tokens=True)
            probs = None
            if request.options:
                first = torch.softmax(generated.logits[0][row].float(), dim=-1)
                by_option = self._option_ids(request.options)
                probs = normalise({o: float(first[ids].sum()) for o, ids in by_option.items()})
            results.append(
                Completion(
                    text=request.response_prefix + text,
                    option_probs=probs,
                    truncated=prompts[row][1],
                    cut_short=not any(t in eos for t in new.tolist()),
                    raw={
                        "generated": text,
                        "prompt_truncated_from_left": prompts[row][1],
                        "option_probs": probs,
                        "constrained_to": constraint_kind(request.answer_format),
                    },
                )
            )
        return results


def constraint_kind(answer_format: AnswerFormat | None) -> str | None:
    """What decoding followed: "regex", "json_schema", or None (free text)."""
    if answer_format is None:
        return None
    return "regex" if answer_format.regex else "json_schema"


class RowDecoder:
    """Next-token choice per row of a batch, as a logits processor for greedy decoding: mask what
    the row's format enforcer forbids, then, for a sampled row, draw one token from
    softmax(logits / temperature) with the row's own seeded generator and leave only it.

    Rows that have ended, or reached their own `max_tokens`, are left alone.
    """

    def __init__(
        self, requests: Sequence[ChatRequest], width: int, enforcers: list[Any], eos: list[int]
    ) -> None:
        import torch

        self.requests = requests
        self.width = width
        self.enforcers = enforcers
        self.eos = set(eos)
        self.generators = [
            torch.Generator().manual_seed(r.seed) if r.temperature > 0 else None for r in requests
        ]

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        scores = scores.clone()
        for row, request in enumerate(self.requests):
            answer = input_ids[row, self.width :].tolist()
            if len(answer) >= request.max_tokens or self.eos.intersection(answer):
                continue
            enforcer = self.enforcers[row]
            if enforcer is not None:
                tokens = enforcer.get_allowed_tokens(answer).allowed_tokens or sorted(self.eos)
                # a vocabulary that cannot spell the format ends the answer (it is then rejected)
                allowed = torch.tensor(tokens, dtype=torch.long)
                kept = scores[row, allowed]
                scores[row] = -math.inf
                scores[row, allowed] = kept
            generator = self.generators[row]
            if generator is not None:
                probs = torch.softmax(scores[row].double() / request.temperature, dim=-1)
                cumulative = probs.cumsum(0)
                draw = torch.rand((), generator=generator, dtype=torch.float64) * cumulative[-1]
                token = int(
                    torch.searchsorted(cumulative, draw, right=True).clamp(max=len(probs) - 1)
                )
                scores[row] = -math.inf
                scores[row, token] = 0.0
        return scores
