"""FED: follow-up likelihoods against a one-sequence-at-a-time computation, truncation, registry."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from test_learned_models import build_tiny_gpt2

from comperbench import metrics
from comperbench.metrics.base import DialogueItem, TurnItem
from comperbench.metrics.learned import fed
from comperbench.schema import Utterance


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("fed-gpt2"))


@pytest.fixture(scope="module")
def tiny_short(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("fed-gpt2-short"), n_positions=16)


def naive_nll(path: Path, utterances: list[str], followup: str) -> float:
    """Whole sequence through the model, no cache, no batching: mean NLL of the follow-up tokens."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    history = tok("".join(u + tok.eos_token for u in utterances), add_special_tokens=False)[
        "input_ids"
    ]
    target = tok(followup, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([history + target])
    with torch.no_grad():
        logprobs = torch.log_softmax(model(ids).logits[0].double(), dim=-1)
    total = sum(-logprobs[len(history) + i - 1, t].item() for i, t in enumerate(target))
    return total / len(target)


def turn(item_id: str, context: list[str], response: str) -> TurnItem:
    return TurnItem(
        item_id=item_id,
        response=response,
        context=tuple(Utterance("A" if i % 2 == 0 else "B", t) for i, t in enumerate(context)),
    )


def test_batched_prefix_cache_matches_one_sequence_at_a_time(tiny: Path) -> None:
    scorer = fed.FollowUpLikelihood(str(tiny))
    utts = ["hi how are you", "i am fine thanks", "what do you like to eat"]
    followups = ["That's really boring.", "tell me more !", "wow"]
    got, truncated = scorer.followup_nll(utts, followups)
    assert not truncated
    for value, text in zip(got, followups, strict=True):
        assert value == pytest.approx(naive_nll(tiny, utts, text), abs=1e-4)


def test_quality_score_by_hand() -> None:
    ups = {"positive": ("a", "b"), "negative": ("c",)}
    assert fed.quality_score(ups, {"a": 1.0, "b": 3.0, "c": 5.0}) == pytest.approx(3.0)
    # An empty positive side counts 0, as in the published code.
    assert fed.quality_score({"positive": (), "negative": ("c", "d")}, {"c": 2.0, "d": 4.0}) == 3.0


def test_overall_is_the_mean_of_the_turn_qualities(tiny: Path) -> None:
    item = turn("t1", ["hi how are you"], "i like pizza")
    overall = metrics.get(f"fed-overall[{tiny}]").score([item])[0]
    parts = [metrics.get(f"fed-{q}[{tiny}]").score([item])[0] for q in fed.TURN_FOLLOWUPS]
    assert overall == pytest.approx(sum(parts) / len(parts), abs=1e-6)
    assert all(math.isfinite(p) for p in parts)
    assert len(set(parts)) > 1


def test_name_carries_the_model_and_config_the_followups(tiny: Path) -> None:
    metric = metrics.get(f"fed-interesting[{tiny}]")
    assert metric.name == f"fed-interesting[{tiny.name}]"
    assert metric.config()["followups"]["interesting"]["negative"][1] == "That's really boring."
    assert metrics.get("fed-overall").name == "fed-overall[SmolLM2-135M]"
    assert metrics.get("fed-dialogue-overall").level == "dialogue"


def test_long_context_is_cut_from_the_left_and_reported(tiny_short: Path) -> None:
    metric = metrics.get(f"fed-relevant[{tiny_short}]")
    long_item = turn("long", ["hi how are you"] * 10, "i am fine")
    short_item = turn("short", [], "hi")
    scores = metric.score([long_item, short_item])
    assert all(math.isfinite(s) for s in scores)
    assert metric.notes == {"truncated_from_left": 1, "truncated_items": ["long"]}
    # Cut from the left: only the last tokens of the conversation remain.
    scorer = fed.FollowUpLikelihood(str(tiny_short))
    ids, cut = scorer.encode_history(["hi how are you"] * 10, reserve=6)
    assert cut and len(ids) == 10
    assert scorer.tokenizer.decode(ids).split()[-4:] == ["how", "are", "you", "</s>"]


def test_dialogue_level_scores_dialogues_and_refuses_turns(tiny: Path) -> None:
    dialogue = DialogueItem("d1", turns=(Utterance("User", "hi"), Utterance("System", "hello")))
    metric = metrics.get(f"fed-dialogue-likeable[{tiny}]")
    assert math.isfinite(metric.score([dialogue])[0])
    with pytest.raises(TypeError, match="scores dialogues"):
        metric.score([turn("t", [], "hi")])


def test_missing_model_path_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(metrics.models.ModelLoadError, match="no such local path"):
        metrics.get(f"fed-overall[{tmp_path / 'nope'}]").score([turn("t", [], "hi")])
