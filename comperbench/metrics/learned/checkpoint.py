"""Bring your checkpoint: BLEURT-style and UniEval-style learned metrics from a local path.

- `bleurt-style[path]`: a regression checkpoint (sequence classifier with one output, e.g. a
  BLEURT model converted to PyTorch) reads (reference, response) and its output is the score;
  with several references the best is kept, as BLEURT users commonly do.
- `unieval-style[path]`: a seq2seq checkpoint asked a yes/no question in the UniEval dialogue
  format; the score is p(Yes) / (p(Yes) + p(No)) of the first decoded token. The aspect comes
  after the path: `unieval-style[path,coherence]` (default `naturalness`).

No such weights ship with the package; a path written by `save_pretrained` is required.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from comperbench.common.extras import requires_extra
from comperbench.metrics import models
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item
from comperbench.metrics.learned.usr_style import (
    _LocalCheckpointMetric,
    _turn,
    pair_classifier_probs,
)
from comperbench.metrics.registry import register_metric

UNIEVAL_QUESTIONS = {
    "naturalness": "Is this a natural response in the dialogue?",
    "coherence": "Is this a coherent response given the dialogue history?",
    "engagingness": "Is this an engaging and informative response according to the dialogue history and fact?",
    "groundedness": "Is this response consistent with knowledge in the fact?",
    "understandability": "Is this an understandable response in the dialogue?",
}


class BleurtStyle(_LocalCheckpointMetric):
    """One-output regression over (reference, response); the best over the references."""

    base_name: ClassVar[str] = "bleurt-style"
    kind: ClassVar[models.Kind] = "classifier"
    needs: ClassVar = frozenset({"response", "references"})

    def score(self, items: Sequence[Item]) -> list[float]:
        model, tokenizer, window = self.loaded()
        if model.config.num_labels != 1:
            raise ValueError(
                f"{self.name}: {self.model_spec} has {model.config.num_labels} outputs; "
                "a regression checkpoint has one"
            )
        turns = [_turn(self.name, i) for i in items]
        pairs = []
        for index, item in enumerate(turns):
            if not item.references:
                raise ValueError(f"{self.name}: item {item.item_id} has no reference")
            pairs += [(index, ref, item.response) for ref in item.references]
        values, cut = pair_classifier_probs(
            model, tokenizer, window, [p[1] for p in pairs], [p[2] for p in pairs]
        )
        best: dict[int, float] = {}
        for (index, _, _), value in zip(pairs, values, strict=True):
            best[index] = max(best.get(index, value[0]), value[0])
        self.count_truncated(
            sorted({turns[p[0]].item_id for p, c in zip(pairs, cut, strict=True) if c})
        )
        return [best[i] for i in range(len(turns))]


class UniEvalStyle(_LocalCheckpointMetric):
    """Boolean question answering with a seq2seq model, UniEval's dialogue input format."""

    base_name: ClassVar[str] = "unieval-style"
    kind: ClassVar[models.Kind] = "seq2seq"
    needs: ClassVar = frozenset({"response", "context"})

    def __init__(self, arg: str | None) -> None:
        path, _, aspect = (arg or "").rpartition(",") if "," in (arg or "") else (arg, "", "")
        super().__init__(path)
        self.aspect = aspect.strip() or "naturalness"
        if self.aspect not in UNIEVAL_QUESTIONS:
            raise ValueError(
                f"unieval-style: unknown aspect {self.aspect!r}; known: {sorted(UNIEVAL_QUESTIONS)}"
            )

    @property
    def name(self) -> str:
        return f"{self.base_name}[{models.model_label(self.model_spec)},{self.aspect}]"

    def config(self) -> dict[str, Any]:
        return {"model": self.model_spec, "question": UNIEVAL_QUESTIONS[self.aspect]}

    def encode(self, item: Any, tokenizer: Any, window: int) -> tuple[list[int], bool]:
        """UniEval's input `question: .. </s> response: .. </s> dialogue history: .. </s> fact: ..`,
        with the history cut from the left (its latest turns stay) when the input is too long."""
        question = UNIEVAL_QUESTIONS[self.aspect]

        def ids(text: str) -> list[int]:
            return tokenizer(text, add_special_tokens=False)["input_ids"]

        head = ids(f"question: {question} </s> response: {item.response} </s> dialogue history:")
        history = ids(" " + "\n\n".join(u.text for u in item.context))
        tail = ids(f" </s> fact: {' '.join(item.grounding)}")
        end = [tokenizer.eos_token_id] if tokenizer.eos_token_id is not None else []
        budget = window - len(head) - len(tail) - len(end)
        if budget < 0:
            raise ValueError(
                f"{self.name}: item {item.item_id}: question, response and facts alone exceed "
                f"the {window}-token window"
            )
        cut = len(history) > budget
        history = history[len(history) - budget :] if cut else history
        return [*head, *history, *tail, *end], cut

    def score(self, items: Sequence[Item]) -> list[float]:
        with requires_extra(self.name):
            import torch

        model, tokenizer, window = self.loaded()
        yes, no = (self._token(tokenizer, w) for w in ("Yes", "No"))
        turns = [_turn(self.name, i) for i in items]
        encoded = [self.encode(t, tokenizer, window) for t in turns]
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        input_ids, attention = models.right_padded([e for e, _ in encoded], pad)
        start = model.config.decoder_start_token_id
        decoder = torch.full((len(turns), 1), start, dtype=torch.long)
        with torch.inference_mode():
            logits = model(
                input_ids=input_ids, attention_mask=attention, decoder_input_ids=decoder
            ).logits[:, 0]
        probs = torch.softmax(logits.float(), dim=-1)
        self.count_truncated([t.item_id for t, (_, c) in zip(turns, encoded, strict=True) if c])
        return (probs[:, yes] / (probs[:, yes] + probs[:, no])).tolist()

    def _token(self, tokenizer: Any, word: str) -> int:
        ids = tokenizer(word, add_special_tokens=False)["input_ids"]
        if len(ids) != 1:
            raise ValueError(f"{self.name}: {word!r} is not one token of {self.model_spec}")
        return ids[0]


BLEURT_STYLE = MetricInfo(
    name=BleurtStyle.base_name,
    description=(
        "The one output of a local regression checkpoint given (reference, response), BLEURT's "
        "input, best over the references; `[path]` names the checkpoint (none is shipped)."
    ),
    family=BleurtStyle.family,
    needs=BleurtStyle.needs,
    citation=citations.BLEURT,
    link="https://github.com/google-research/bleurt",
    implementation=BleurtStyle.implementation,
    library="transformers==5.23.0",
)
UNIEVAL_STYLE = MetricInfo(
    name=UniEvalStyle.base_name,
    description=(
        "P(Yes) / (P(Yes) + P(No)) of a local seq2seq checkpoint asked UniEval's boolean question "
        "of an aspect about the response, its dialogue history and facts; `[path,aspect]` names "
        "the checkpoint and the aspect (default naturalness)."
    ),
    family=UniEvalStyle.family,
    needs=UniEvalStyle.needs,
    citation=citations.UNIEVAL,
    link="https://github.com/maszhongming/UniEval",
    implementation=UniEvalStyle.implementation,
    library="transformers==5.23.0",
)
register_metric(BleurtStyle.base_name, BLEURT_STYLE)(BleurtStyle)
register_metric(UniEvalStyle.base_name, UNIEVAL_STYLE)(UniEvalStyle)
