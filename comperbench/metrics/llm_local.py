"""A local causal LM behind its chat template as a judge backend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from comperbench.metrics import models
from comperbench.metrics.llm_budget import Budget
from comperbench.metrics.llm_requests import (
    BackendError,
    ChatRequest,
    Completion,
    Outcome,
    normalise,
)


@dataclass
class LocalBackend:
    """A local causal LM (a path, or the shipped SmolLM2-135M-Instruct) behind its chat template.

    Requests run in left-padded batches of `batch_size`. Sampling is seeded per request so that an
    output does not depend on which batch it landed in. With `options`, the probability of each
    option as the first answer token is read from the logits after the prompt and prefix.
    """

    model_spec: str = models.DEFAULT_CAUSAL_LM
    batch_size: int = 8

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
        max_new = max(r.max_tokens for r in requests)
        sample = [r.temperature > 0 for r in requests]
        with torch.inference_mode():
            if any(sample):
                # One generator per row would need a custom sampler; seed the batch from its first
                # request and run sampled requests alone so each output follows its own seed.
                if len(requests) > 1:
                    return [o for r in requests for o in self._batch([r])]
                torch.manual_seed(requests[0].seed)
            generated = self.model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                max_new_tokens=max_new,
                do_sample=sample[0],
                temperature=requests[0].temperature if sample[0] else None,
                top_p=None,
                top_k=None,
                pad_token_id=pad,
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
                    raw={
                        "generated": text,
                        "prompt_truncated_from_left": prompts[row][1],
                        "option_probs": probs,
                    },
                )
            )
        return results
