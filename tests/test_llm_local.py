"""Local transformers backend: tiny self-built models (fast) and SmolLM2-135M-Instruct (slow)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from test_learned_models import WORDS, build_tiny_gpt2, save_tiny_gpt2

from comperbench import metrics
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm import backend_factory as llm_backends
from comperbench.metrics.llm.backends.budget import Budget
from comperbench.metrics.llm.backends.chat_requests import (
    AnswerFormat,
    BackendError,
    ChatRequest,
    Completion,
    Outcome,
)
from comperbench.metrics.llm.backends.local_model import LocalBackend
from comperbench.schema import Utterance

SCORE = AnswerFormat(json_schema="{}", regex=" ?[1-5]")
VERDICT = AnswerFormat(
    json.dumps(
        {
            "type": "object",
            "properties": {
                "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "comment": {"type": "string", "maxLength": 40},
            },
            "required": ["score", "comment"],
        }
    )
)


def build_tiny_bpe_gpt2(path: Path) -> Path:
    """A random-weight GPT-2 with a byte-level BPE tokenizer trained on a few words, digits and
    JSON, so that it can spell scores and JSON verdicts; saved with its tokenizer."""
    from tokenizers import Tokenizer, decoders, pre_tokenizers, trainers
    from tokenizers import models as tok_models
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(tok_models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    corpus = [" ".join(WORDS), 'Score: 0 1 2 3 4 5 6 7 8 9 {"score": 3, "comment": "fine"}'] * 5
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<pad>", "</s>"], show_progress=False
    )
    tokenizer.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="<pad>", eos_token="</s>")
    fast.save_pretrained(path)
    save_tiny_gpt2(path, tokenizer.get_vocab_size(), n_positions=256, eos_id=1)
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("judge-gpt2"))


@pytest.fixture(scope="module")
def bpe(tmp_path_factory: pytest.TempPathFactory) -> LocalBackend:
    return LocalBackend(str(build_tiny_bpe_gpt2(tmp_path_factory.mktemp("judge-bpe"))))


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
    others = backend.complete([ask("hi", temperature=1.0, seed=s, max_tokens=6) for s in range(4)])
    assert len({o.text for o in others}) == 4  # type: ignore[union-attr]


def completions(outcomes: Sequence[Outcome]) -> list[Completion]:
    assert all(isinstance(o, Completion) for o in outcomes)
    return [o for o in outcomes if isinstance(o, Completion)]


def texts(outcomes: Sequence[Outcome]) -> list[str]:
    return [o.text for o in completions(outcomes)]


def test_a_request_answers_the_same_alone_and_in_any_row_of_a_mixed_batch(
    bpe: LocalBackend,
) -> None:
    sampled = ask("hi how are you", temperature=0.8, seed=5, max_tokens=8)
    constrained = ask(
        "pizza", temperature=1.0, seed=2, response_prefix="Score:", answer_format=SCORE
    )
    others = [
        ask("the cat sat on the mat today and the dog runs fast", max_tokens=5),
        ask("hi", temperature=1.5, seed=9, max_tokens=8),
        ask("what do you like to eat", temperature=0.3, seed=1, max_tokens=4),
    ]
    alone = texts(bpe.complete([sampled]) + bpe.complete([constrained]))
    for batch in ([sampled, constrained, *others], [*others, constrained, sampled]):
        out = dict(zip(batch, texts(bpe.complete(batch)), strict=True))
        assert [out[sampled], out[constrained]] == alone
    assert texts(bpe.complete(others)) == [t for r in others for t in texts(bpe.complete([r]))]


def test_sampled_requests_keep_first_token_option_probabilities(tiny: Path) -> None:
    backend = LocalBackend(str(tiny), batch_size=3)
    options = ("hi", "cat", "dog")
    greedy = ask("hi how are you", options=options, max_tokens=1)
    sampled = [ask("hi how are you", options=options, temperature=1.0, seed=s) for s in (1, 2)]
    first, *others = completions(backend.complete([greedy, *sampled]))
    assert first.option_probs
    for out in others:
        assert out.option_probs == pytest.approx(first.option_probs, rel=1e-5)


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_a_regex_constrains_the_answer_after_its_prefix(
    bpe: LocalBackend, temperature: float
) -> None:
    requests = [
        ask(
            "hi how are you",
            temperature=temperature,
            seed=s,
            max_tokens=6,
            response_prefix="Score:",
            answer_format=SCORE,
        )
        for s in range(8)
    ]
    outs = completions(bpe.complete(requests))
    assert all(re.fullmatch(r"Score: ?[1-5]", o.text) for o in outs)
    assert all(o.raw["constrained_to"] == "regex" and not o.cut_short for o in outs)
    free = [replace(r, answer_format=None) for r in requests]
    assert all(o.raw["constrained_to"] is None for o in completions(bpe.complete(free)))


def test_a_json_schema_constrains_the_whole_answer(bpe: LocalBackend) -> None:
    requests = [
        ask("hi how are you", temperature=1.0, seed=s, max_tokens=120, answer_format=VERDICT)
        for s in range(6)
    ]
    for out in completions(bpe.complete(requests)):
        assert out.raw["constrained_to"] == "json_schema" and not out.cut_short
        verdict = json.loads(out.text)
        assert set(verdict) == {"score", "comment"} and verdict["score"] in range(1, 6)
        # lm-format-enforcer counts a string's length from its first non-blank character.
        assert isinstance(verdict["comment"], str) and len(verdict["comment"].lstrip()) <= 40


def test_a_json_answer_starts_with_its_prefix_or_fails(bpe: LocalBackend) -> None:
    request = ask("hi", max_tokens=120, response_prefix='{"score":', answer_format=VERDICT)
    [out] = completions(bpe.complete([request]))
    assert json.loads(out.text)["score"] in range(1, 6)
    with pytest.raises(BackendError, match="breaks the schema"):
        bpe.complete([ask("hi", response_prefix="Score:", answer_format=VERDICT)])


def test_overflow_is_prompt_plus_answer_beyond_the_window(tiny: Path) -> None:
    backend = LocalBackend(str(tiny))
    prompt = len(backend._full_prompt_ids(ask("hi")))
    fits, over = ask("hi", max_tokens=64 - prompt), ask("hi", max_tokens=65 - prompt)
    assert (backend.overflow(fits), backend.overflow(over)) == (0, 1)
    assert [o.truncated for o in completions(backend.complete([fits, over]))] == [False, True]
    long = ask("hi how are you " * 40)  # 160 words, a token each
    assert backend.overflow(long) == prompt - 1 + 160 + 3 - 64
    with pytest.raises(BackendError, match="no room for a prompt"):
        backend.complete([ask("hi", max_tokens=backend.window)])


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
    # Decoding constrained to `Score: N` makes every answer of a 135M model readable.
    assert notes["rejected_calls"] == notes["first_answers_rejected"] == 0


@pytest.mark.slow
def test_geval_with_smollm2_is_a_probability_weighted_score() -> None:
    metric = metrics.get("geval[fluency,SmolLM2-135M]")
    scores = metric.score(items())
    assert all(1 < s < 5 for s in scores)
    assert len(set(scores)) == 3
    assert metric.notes["rejected_calls"] == 0


def test_a_judge_drops_the_oldest_turns_to_fit_the_window_never_its_instructions(
    tmp_path: Path,
) -> None:
    path = build_tiny_gpt2(tmp_path / "wide", n_positions=1024)
    llm_backends._BACKENDS.clear()
    judge = metrics.get(f"cpdscore-simple[{path},n=1,t=0]")
    context = tuple(Utterance("A", f"turn{i} " + "the cat sat on the mat " * 4) for i in range(60))
    long_item = TurnItem("long", "pizza", context=context)
    judge.score([long_item])
    notes = judge.notes
    assert notes["prompts_shortened"] == 1 and 0 < notes["turns_left_out"] < 60
    assert notes["truncated_prompts"] == 0  # nothing was cut from the left of the prompt
    # its word-level vocabulary cannot spell a score: constrained answers end at once, rejected
    assert notes["rejected_by_reason"] == {"no score": 1} and notes["unscored_items"] == ["long"]
    explained = judge.explain([long_item])["long"]
    assert explained["turns_left_out"] == notes["turns_left_out"]
    backend = llm_backends.make_backend(judge.settings)
    kept = context[notes["turns_left_out"] :]
    request = judge.request(judge.user_prompt(long_item, kept), 0)
    assert backend.overflow(request) <= 0  # what was kept fits
    longer = judge.request(judge.user_prompt(long_item, context[notes["turns_left_out"] - 1 :]), 0)
    assert backend.overflow(longer) > 0  # and one more turn would not
    assert llm_backends.backend_identity(judge.settings) == backend.identity()


def test_a_deadline_stops_a_local_judge_after_the_chunk_that_passed_it(tiny: Path) -> None:
    from comperbench.metrics.llm.backends.budget import RunStopped
    from comperbench.metrics.llm.backends.output_store import STORE_CHUNK

    llm_backends._BACKENDS.clear()
    judge = metrics.get(f"cpdscore-simple[{tiny},n=1,t=0,retries=0,deadline=0.001]")
    many = [TurnItem(f"t{i}", "pizza", (Utterance("A", "hi"),)) for i in range(STORE_CHUNK + 8)]
    with pytest.raises(RunStopped, match=r"deadline of 0\.001 s passed"):
        judge.score(many)
    assert judge.budget.done == STORE_CHUNK and judge.budget.started is not None
