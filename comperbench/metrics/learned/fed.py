"""FED (Mehri & Eskenazi 2020): dialogue qualities from the likelihood of follow-up utterances.

A quality scores high when a causal LM finds the negative follow-ups ("That's really boring.")
unlikely and the positive ones ("Tell me more!") likely after the conversation:
score = mean NLL(negative follow-ups) - mean NLL(positive follow-ups), where NLL is the mean
negative log-likelihood per token of the follow-up given the conversation (an empty side counts 0,
as in the published code). `overall` is the mean of the qualities of its level. Utterances are
joined with the tokenizer's end-of-sequence token, the DialoGPT convention the paper uses.

Any local causal LM path works; the offline default is SmolLM2-135M-Instruct (`fed-overall[SmolLM2-135M]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from comperbench.common.extras import requires_extra
from comperbench.metrics import models
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import DialogueItem, Item, Metric, TurnItem
from comperbench.metrics.registry import register_metric

FollowUps = dict[str, dict[str, tuple[str, ...]]]

# Follow-up utterances of the paper (Table 1 and the authors' released lists).
TURN_FOLLOWUPS: FollowUps = {
    "interesting": {
        "positive": (
            "Wow that is really interesting.",
            "That's really interesting!",
            "Cool! That sounds super interesting.",
        ),
        "negative": (
            "That's not very interesting.",
            "That's really boring.",
            "That was a really boring response.",
        ),
    },
    "engaging": {
        "positive": (
            "Wow! That's really cool!",
            "Tell me more!",
            "I'm really interested in learning more about this.",
        ),
        "negative": (
            "Let's change the topic.",
            "I don't really care. That's pretty boring.",
            "I want to talk about something else.",
        ),
    },
    "specific": {
        "positive": (
            "That's good to know. Cool!",
            "I see, that's interesting.",
            "That's a good point.",
        ),
        "negative": (
            "That's a very generic response.",
            "Not really relevant here.",
            "That's not really relevant here.",
        ),
    },
    "relevant": {
        "positive": (),
        "negative": (
            "That's not even related to what I said.",
            "Don't change the topic!",
            "Why are you changing the topic?",
        ),
    },
    "correct": {
        "positive": (),
        "negative": (
            "You're not understanding me!",
            "I am so confused right now!",
            "I don't understand what you're saying.",
        ),
    },
    "semantically-appropriate": {
        "positive": ("That makes sense!", "You have a good point."),
        "negative": ("That makes no sense!",),
    },
    "understandable": {
        "positive": ("That makes sense!", "You have a good point."),
        "negative": (
            "I don't understand at all!",
            "I'm so confused!",
            "That makes no sense!",
            "What does that even mean?",
        ),
    },
    "fluent": {
        "positive": ("That makes sense!", "You have a good point."),
        "negative": ("Is that real English?", "I'm so confused right now!", "That makes no sense!"),
    },
}

DIALOGUE_FOLLOWUPS: FollowUps = {
    "coherent": {
        "positive": (),
        "negative": (
            "You're making no sense at all.",
            "You're changing the topic so much!",
            "You are so confusing.",
        ),
    },
    "error-recovery": {
        "positive": (),
        "negative": (
            "I am so confused right now.",
            "You're really confusing.",
            "I don't understand what you're saying.",
        ),
    },
    "consistent": {
        "positive": (),
        "negative": ("That's not what you said earlier!", "Stop contradicting yourself!"),
    },
    "diverse": {
        "positive": (),
        "negative": (
            "Stop saying the same thing repeatedly.",
            "Why are you repeating yourself?",
            "Stop repeating yourself!",
        ),
    },
    "depth": {
        "positive": (),
        "negative": ("Stop changing the topic so much.", "Don't change the topic!"),
    },
    "likeable": {
        "positive": (
            "I like you!",
            "You're super polite and fun to talk to",
            "Great talking to you.",
        ),
        "negative": (
            "You're not very nice.",
            "You're not very fun to talk to.",
            "I don't like you.",
        ),
    },
    "understanding": {
        "positive": (),
        "negative": (
            "You're not understanding me!",
            "What are you trying to say?",
            "I don't understand what you're saying.",
        ),
    },
    "flexible": {
        "positive": ("You're very easy to talk to!", "Wow you can talk about a lot of things!"),
        "negative": (
            "I don't want to talk about that!",
            "Do you know how to talk about something else?",
        ),
    },
    "informative": {
        "positive": (
            "Thanks for all the information!",
            "Wow that's a lot of information.",
            "You know a lot of facts!",
        ),
        "negative": ("You're really boring.", "You don't really know much."),
    },
    "inquisitive": {
        "positive": ("You ask a lot of questions!", "That's a lot of questions!"),
        "negative": ("You don't ask many questions.", "You don't seem interested."),
    },
}


@dataclass
class FollowUpLikelihood:
    """Mean per-token NLL of follow-up utterances after a conversation, under one causal LM."""

    model_spec: str

    def __post_init__(self) -> None:
        self.model, self.tokenizer = models.load(self.model_spec, "causal")
        self.window = models.context_window(self.model, self.tokenizer)
        self.separator: str = self.tokenizer.eos_token or "\n"

    def encode_history(self, utterances: Sequence[str], reserve: int) -> tuple[list[int], bool]:
        """Token ids of the joined conversation, cut from the left to leave `reserve` tokens."""
        text = "".join(u + self.separator for u in utterances)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if self.tokenizer.bos_token_id is not None:
            ids = [self.tokenizer.bos_token_id, *ids]
        budget = self.window - reserve
        if len(ids) > budget:
            return ids[len(ids) - budget :], True
        return ids, False

    def followup_nll(
        self, utterances: Sequence[str], followups: Sequence[str]
    ) -> tuple[list[float], bool]:
        """One NLL per follow-up; the conversation runs through the model once (shared prefix cache)."""
        import torch

        encoded = [self.tokenizer(f, add_special_tokens=False)["input_ids"] for f in followups]
        longest = max(len(e) for e in encoded)
        history, truncated = self.encode_history(utterances, reserve=longest)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        batch, mask = models.right_padded(encoded, pad)
        with torch.inference_mode():
            prefix = self.model(torch.tensor([history]), use_cache=True)
            cache = prefix.past_key_values
            cache.batch_repeat_interleave(len(encoded))
            # Right padding: a padded position comes after every real token, so it changes no logit.
            attention = torch.ones((len(encoded), len(history) + longest), dtype=torch.long)
            out = self.model(
                batch, past_key_values=cache, attention_mask=attention, use_cache=False
            )
            first = prefix.logits[:, -1:, :].expand(len(encoded), -1, -1)
            logits = torch.cat([first, out.logits[:, :-1, :]], dim=1).float()
            logprobs = torch.log_softmax(logits, dim=-1).gather(2, batch.unsqueeze(-1)).squeeze(-1)
            nll = -(logprobs * mask).sum(dim=1) / mask.sum(dim=1)
        return nll.tolist(), truncated


_SCORERS: dict[str, FollowUpLikelihood] = {}


def _scorer(spec: str) -> FollowUpLikelihood:
    if spec not in _SCORERS:
        _SCORERS[spec] = FollowUpLikelihood(spec)
    return _SCORERS[spec]


class FedMetric(Metric):
    """One FED quality (or `overall`, the mean of the qualities of the level)."""

    family: ClassVar = "learned"
    followups: ClassVar[FollowUps]
    prefix: ClassVar[str]

    def __init__(self, quality: str, model: str | None) -> None:
        self.quality = quality
        self.model_spec = model or models.DEFAULT_CAUSAL_LM
        self.notes: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return f"{self.prefix}{self.quality}[{models.model_label(self.model_spec)}]"

    def config(self) -> dict[str, Any]:
        return {
            "model": self.model_spec,
            "quality": self.quality,
            "followups": {q: self.followups[q] for q in self._qualities()},
        }

    def library_version(self) -> str:
        with requires_extra(self.name):
            import transformers

        from comperbench.common.version import __version__

        return f"comperbench {__version__}; transformers {transformers.__version__}"

    def _qualities(self) -> list[str]:
        return list(self.followups) if self.quality == "overall" else [self.quality]

    def _utterances(self, item: Item) -> list[str]:
        raise NotImplementedError

    def score(self, items: Sequence[Item]) -> list[float]:
        scorer = _scorer(self.model_spec)
        qualities = self._qualities()
        needed = sorted({f for q in qualities for side in self.followups[q].values() for f in side})
        scores, truncated = [], []
        for item in items:
            nll, cut = scorer.followup_nll(self._utterances(item), needed)
            by_text = dict(zip(needed, nll, strict=True))
            if cut:
                truncated.append(item.item_id)
            per_quality = [quality_score(self.followups[q], by_text) for q in qualities]
            scores.append(sum(per_quality) / len(per_quality))
        # Notes add up over the batches of one run.
        truncated = [*self.notes.get("truncated_items", []), *truncated]
        self.notes = {"truncated_from_left": len(truncated), "truncated_items": truncated}
        return scores


def quality_score(followups: dict[str, tuple[str, ...]], nll: dict[str, float]) -> float:
    """mean NLL(negatives) - mean NLL(positives); an empty side counts 0 (published definition)."""

    def mean(texts: tuple[str, ...]) -> float:
        return sum(nll[t] for t in texts) / len(texts) if texts else 0.0

    return mean(followups["negative"]) - mean(followups["positive"])


class FedTurn(FedMetric):
    needs: ClassVar = frozenset({"response", "context"})
    level: ClassVar[Literal["turn", "dialogue"]] = "turn"
    followups: ClassVar[FollowUps] = TURN_FOLLOWUPS
    prefix: ClassVar[str] = "fed-"

    def _utterances(self, item: Item) -> list[str]:
        if not isinstance(item, TurnItem):
            raise TypeError(f"{self.name} scores turns; item {item.item_id} is a dialogue")
        return [u.text for u in item.context] + [item.response]


class FedDialogue(FedMetric):
    needs: ClassVar = frozenset({"dialogue"})
    level: ClassVar[Literal["turn", "dialogue"]] = "dialogue"
    followups: ClassVar[FollowUps] = DIALOGUE_FOLLOWUPS
    prefix: ClassVar[str] = "fed-dialogue-"

    def _utterances(self, item: Item) -> list[str]:
        if not isinstance(item, DialogueItem):
            raise TypeError(f"{self.name} scores dialogues; item {item.item_id} is a turn")
        return [u.text for u in item.turns]


def _register(cls: type[FedMetric], quality: str) -> None:
    name = f"{cls.prefix}{quality}"
    what = (
        f"the mean of the {cls.level}-level qualities"
        if quality == "overall"
        else f"the {quality.replace('-', ' ')} quality"
    )
    info = MetricInfo(
        name=name,
        description=(
            f"FED's {what} of a {cls.level}: how much less likely a causal LM finds its negative "
            "follow-up utterances than its positive ones after the conversation (mean NLL "
            "difference); `[model]` picks the LM (default SmolLM2-135M)."
        ),
        family=cls.family,
        needs=cls.needs,
        citation=citations.FED,
        link="https://github.com/Shikib/fed",
        implementation=cls.implementation,
        library="transformers==5.23.0",
    )
    register_metric(name, info)(lambda arg: cls(quality, arg))


for _quality in [*TURN_FOLLOWUPS, "overall"]:
    _register(FedTurn, _quality)
for _quality in [*DIALOGUE_FOLLOWUPS, "overall"]:
    _register(FedDialogue, _quality)
