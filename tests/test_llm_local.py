"""Local transformers backend: tiny self-built model (fast) and SmolLM2-135M-Instruct (slow)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from test_learned_models import build_tiny_gpt2

from comperbench import metrics
from comperbench.metrics import llm_backends
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm_budget import Budget
from comperbench.metrics.llm_local import LocalBackend
from comperbench.metrics.llm_requests import ChatRequest, Completion
from comperbench.schema import Utterance


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("judge-gpt2"))


def ask(text: str, **kwargs: object) -> ChatRequest:
    options = {"max_tokens": 3, "temperature": 0.0, "seed": 0} | kwargs
    return ChatRequest((("user", text),), **options)  # type: ignore[arg-type]


def test_long_prompt_is_cut_from_the_left_and_flagged(tiny: Path) -> None:
    backend = LocalBackend(str(tiny))
    long_out, short_out = backend.complete([ask("hi how are you " * 40), ask("hi")])
    assert isinstance(long_out, Completion) and long_out.truncated
    assert isinstance(short_out, Completion) and not short_out.truncated


def test_batching_does_not_change_greedy_outputs(tiny: Path) -> None:
    requests = [ask("hi how are you"), ask("the cat sat on the mat today"), ask("pizza")]
    batched = LocalBackend(str(tiny), batch_size=3).complete(requests)
    single = LocalBackend(str(tiny), batch_size=1).complete(requests)
    assert [o.text for o in batched] == [o.text for o in single]  # type: ignore[union-attr]


def test_option_probabilities_come_from_the_first_token_logits(tiny: Path) -> None:
    import torch

    backend = LocalBackend(str(tiny))
    request = ask("hi how are you", options=("hi", "cat", "dog"), max_tokens=1)
    [out] = backend.complete([request])
    assert isinstance(out, Completion) and out.option_probs is not None
    ids = backend._prompt_ids(request)[0]
    with torch.no_grad():
        probs = torch.softmax(backend.model(torch.tensor([ids])).logits[0, -1], dim=-1)
    vocab = backend.tokenizer.get_vocab()
    chosen = {w: probs[vocab[w]].item() for w in ("hi", "cat", "dog")}
    total = sum(chosen.values())
    assert out.option_probs == pytest.approx({w: p / total for w, p in chosen.items()}, rel=1e-4)


def test_sampling_follows_the_seed(tiny: Path) -> None:
    backend = LocalBackend(str(tiny))
    first = backend.complete([ask("hi", temperature=1.0, seed=3, max_tokens=6)])
    again = backend.complete([ask("hi", temperature=1.0, seed=3, max_tokens=6)])
    assert first[0].text == again[0].text  # type: ignore[union-attr]


def test_requests_are_counted_in_the_budget(tiny: Path) -> None:
    budget = Budget("tiny")
    LocalBackend(str(tiny), batch_size=2).complete([ask("hi"), ask("cat"), ask("dog")], budget)
    assert (budget.done, budget.failed, budget.retried) == (3, 0, 0)


def items() -> list[TurnItem]:
    question = (Utterance("User", "Hi! What do you like to do on weekends?"),)
    return [
        TurnItem("good", "I love hiking with my dog. What about you?", context=question),
        TurnItem("bad", "refrigerator the the seven banana banana.", context=question),
        TurnItem("ok", "I like sleeping.", context=question),
    ]


@pytest.mark.slow
def test_fed_with_smollm2() -> None:
    metric = metrics.get("fed-overall[SmolLM2-135M]")
    scores = metric.score(items())
    assert all(math.isfinite(s) for s in scores) and len(set(scores)) == 3
    assert metric.notes["truncated_from_left"] == 0


@pytest.mark.slow
def test_cpdscore_with_smollm2_scores_or_reports() -> None:
    llm_backends._BACKENDS.clear()
    metric = metrics.get("cpdscore-simple[SmolLM2-135M,n=2]")
    scores = metric.score(items())
    notes = metric.notes
    assert notes["backend"] == {"backend": "local", "model": "SmolLM2-135M"}
    assert notes["calls"] >= 6
    for item, score in zip(items(), scores, strict=True):
        assert (1 <= score <= 5) or (math.isnan(score) and item.item_id in notes["unscored_items"])
    # The "Score:" prefill makes a 135M model answer in the asked form.
    assert notes["unparsable_calls"] <= 1


@pytest.mark.slow
def test_geval_with_smollm2_is_a_probability_weighted_score() -> None:
    metric = metrics.get("geval[fluency,SmolLM2-135M]")
    scores = metric.score(items())
    assert all(1 < s < 5 for s in scores)
    assert len(set(scores)) == 3
    assert metric.notes["unparsable_calls"] == 0
