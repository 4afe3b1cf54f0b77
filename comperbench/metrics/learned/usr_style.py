"""USR-style reference-free scores (Mehri & Eskenazi 2020, USR) from local checkpoints.

- `usr-mlm[path]`: understandability/naturalness as the masked-LM pseudo-log-likelihood of the
  response given its context: each response token is masked in turn and the mean log-probability
  of the true tokens is the score (USR's MLM submetric). Any local masked LM (RoBERTa, BERT).
- `usr-relevance[path]`: context-response relevance as the probability of the positive class of a
  sequence-pair classifier given (context, response) (USR's retrieval submetrics). Bring your
  checkpoint: a classifier fine-tuned on true vs. random responses, saved with `save_pretrained`.

Contexts longer than the window are cut from the left (the latest turns stay) and counted in `notes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from comperbench.common.extras import requires_extra
from comperbench.metrics import models
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item, Metric, TurnItem
from comperbench.metrics.registry import register_metric


def _require_path(kind: str, arg: str | None) -> str:
    if not arg:
        raise ValueError(
            f"{kind} needs a local checkpoint path in brackets, e.g. {kind}[/models/x]"
        )
    return arg


def _turn(name: str, item: Item) -> TurnItem:
    if not isinstance(item, TurnItem):
        raise TypeError(f"{name} scores turns; item {item.item_id} is a dialogue")
    return item


def context_text(item: TurnItem, separator: str) -> str:
    return separator.join(u.text for u in item.context)


class _LocalCheckpointMetric(Metric):
    family: ClassVar = "learned"
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    base_name: ClassVar[str]
    kind: ClassVar[models.Kind]

    def __init__(self, arg: str | None) -> None:
        self.model_spec = _require_path(self.base_name, arg)
        self.notes: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return f"{self.base_name}[{models.model_label(self.model_spec)}]"

    def config(self) -> dict[str, Any]:
        return {"model": self.model_spec}

    def library_version(self) -> str:
        with requires_extra(self.name):
            import transformers

        from comperbench.common.version import __version__

        return f"comperbench {__version__}; transformers {transformers.__version__}"

    def loaded(self) -> tuple[Any, Any, int]:
        model, tokenizer = models.load(self.model_spec, self.kind)
        return model, tokenizer, models.context_window(model, tokenizer)

    def count_truncated(self, ids: Sequence[str]) -> None:
        ids = [*self.notes.get("truncated_items", []), *ids]
        self.notes = {"truncated_from_left": len(ids), "truncated_items": ids}


class UsrMlm(_LocalCheckpointMetric):
    """Mean log-probability of each response token when it alone is masked, context first."""

    base_name: ClassVar[str] = "usr-mlm"
    kind: ClassVar[models.Kind] = "masked"
    needs: ClassVar = frozenset({"response", "context"})

    def encode(self, item: TurnItem, tokenizer: Any, window: int) -> tuple[list[int], int, bool]:
        """(ids, index of the first response token, context cut); specials: [CLS] ctx [SEP] resp [SEP]."""
        sep = tokenizer.sep_token or tokenizer.eos_token or " "
        context = tokenizer(context_text(item, f" {sep} "), add_special_tokens=False)["input_ids"]
        response = tokenizer(item.response, add_special_tokens=False)["input_ids"]
        head = [tokenizer.cls_token_id] if tokenizer.cls_token_id is not None else []
        sep_ids = [tokenizer.sep_token_id] if tokenizer.sep_token_id is not None else []
        response = response[: window - len(head) - 2 * len(sep_ids)]
        budget = window - len(head) - 2 * len(sep_ids) - len(response)
        cut = len(context) > budget
        context = context[len(context) - budget :] if cut else context
        ids = [*head, *context, *sep_ids, *response, *sep_ids]
        return ids, len(head) + len(context) + len(sep_ids), cut

    def score(self, items: Sequence[Item]) -> list[float]:
        with requires_extra(self.name):
            import torch

        model, tokenizer, window = self.loaded()
        if tokenizer.mask_token_id is None:
            raise ValueError(f"{self.name}: the tokenizer of {self.model_spec} has no mask token")
        scores, cut_ids = [], []
        for item in (_turn(self.name, i) for i in items):
            ids, start, cut = self.encode(item, tokenizer, window)
            if cut:
                cut_ids.append(item.item_id)
            end = len(ids) - (tokenizer.sep_token_id is not None)
            positions = list(range(start, end))
            if not positions:
                raise ValueError(f"{self.name}: item {item.item_id} has an empty response")
            batch = torch.tensor([ids] * len(positions))
            rows = torch.arange(len(positions))
            cols = torch.tensor(positions)
            batch[rows, cols] = tokenizer.mask_token_id
            with torch.inference_mode():
                logits = model(input_ids=batch).logits[rows, cols].float()
            logprobs = torch.log_softmax(logits, dim=-1)[rows, torch.tensor(ids)[cols]]
            scores.append(float(logprobs.mean()))
        self.count_truncated(cut_ids)
        return scores


class UsrRelevance(_LocalCheckpointMetric):
    """Probability of the positive (last) class of a (context, response) pair classifier."""

    base_name: ClassVar[str] = "usr-relevance"
    kind: ClassVar[models.Kind] = "classifier"
    needs: ClassVar = frozenset({"response", "context"})

    def score(self, items: Sequence[Item]) -> list[float]:
        model, tokenizer, window = self.loaded()
        turns = [_turn(self.name, i) for i in items]
        sep = tokenizer.sep_token or tokenizer.eos_token or " "
        contexts = [context_text(t, f" {sep} ") for t in turns]
        responses = [t.response for t in turns]
        probs, cut = pair_classifier_probs(model, tokenizer, window, contexts, responses)
        self.count_truncated([t.item_id for t, c in zip(turns, cut, strict=True) if c])
        return [p[-1] for p in probs]


def pair_classifier_probs(
    model: Any, tokenizer: Any, window: int, firsts: list[str], seconds: list[str]
) -> tuple[list[list[float]], list[bool]]:
    """Class probabilities (or the raw value of a one-output regressor) of text pairs; the first
    text of a pair is cut from the left when the pair does not fit the window."""
    import torch

    full = tokenizer(firsts, seconds)["input_ids"]
    cut = [len(ids) > window for ids in full]
    tokenizer.truncation_side = "left"
    encoded = tokenizer(
        firsts,
        seconds,
        truncation="only_first",
        max_length=window,
        padding=True,
        return_tensors="pt",
    )
    with torch.inference_mode():
        logits = model(**encoded).logits.float()
    if logits.shape[-1] == 1:
        return logits.tolist(), cut
    return torch.softmax(logits, dim=-1).tolist(), cut


USR_MLM = MetricInfo(
    name=UsrMlm.base_name,
    description=(
        "USR's masked-LM submetric: the mean log-probability of each response token when it "
        "alone is masked, the context before it, by a local masked LM (`[path]`); a measure of "
        "understandability and naturalness."
    ),
    family=UsrMlm.family,
    needs=UsrMlm.needs,
    citation=citations.USR,
    link="https://github.com/Shikib/usr",
    implementation=UsrMlm.implementation,
    library="transformers==5.23.0",
)
USR_RELEVANCE = MetricInfo(
    name=UsrRelevance.base_name,
    description=(
        "USR's retrieval submetric: the probability of the positive class of a local "
        "(context, response) classifier fine-tuned on true against random responses (`[path]`); "
        "a measure of relevance to the context."
    ),
    family=UsrRelevance.family,
    needs=UsrRelevance.needs,
    citation=citations.USR,
    link="https://github.com/Shikib/usr",
    implementation=UsrRelevance.implementation,
    library="transformers==5.23.0",
)
register_metric(UsrMlm.base_name, USR_MLM)(UsrMlm)
register_metric(UsrRelevance.base_name, USR_RELEVANCE)(UsrRelevance)
