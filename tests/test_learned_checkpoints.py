"""USR-style and bring-your-checkpoint metrics on tiny models the tests build, against direct
computations with the same weights."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from test_learned_models import build_tiny_bert, build_tiny_t5

from comperbench import metrics
from comperbench.metrics.base import DialogueItem, TurnItem
from comperbench.schema import Utterance


@pytest.fixture(scope="module")
def mlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("mlm"), "masked")


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("cls"), "classifier", num_labels=2)


@pytest.fixture(scope="module")
def regressor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("reg"), "classifier", num_labels=1)


@pytest.fixture(scope="module")
def t5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_t5(tmp_path_factory.mktemp("t5"))


def turn(item_id: str, context: list[str], response: str, refs: tuple[str, ...] = ()) -> TurnItem:
    ctx = tuple(Utterance("A", t) for t in context)
    return TurnItem(item_id, response, context=ctx, references=refs)


def load(path: Path, cls: type) -> tuple[object, object]:
    from transformers import AutoTokenizer

    return cls.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_usr_mlm_is_the_pseudo_log_likelihood_of_the_response(mlm: Path) -> None:
    from transformers import AutoModelForMaskedLM

    item = turn("a", ["hi how are you"], "i am fine thanks")
    [score] = metrics.get(f"usr-mlm[{mlm}]").score([item])
    model, tok = load(mlm, AutoModelForMaskedLM)
    ids = tok("<cls> hi how are you <sep> i am fine thanks <sep>")["input_ids"]
    total = []
    for pos in range(6, 10):  # the four response tokens, masked one at a time
        masked = list(ids)
        masked[pos] = tok.mask_token_id
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([masked])).logits[0, pos]
        total.append(torch.log_softmax(logits, -1)[ids[pos]].item())
    assert score == pytest.approx(sum(total) / len(total), abs=1e-5)


def test_usr_mlm_cuts_long_contexts_from_the_left(mlm: Path) -> None:
    metric = metrics.get(f"usr-mlm[{mlm}]")
    scores = metric.score([turn("long", ["hi how are you"] * 30, "fine"), turn("s", ["hi"], "ok")])
    assert all(math.isfinite(s) for s in scores)
    assert metric.notes == {"truncated_from_left": 1, "truncated_items": ["long"]}
    ids, _, cut = metric.encode(
        turn("long", ["hi how are you"] * 30, "fine"), metric.loaded()[1], 64
    )
    assert cut and len(ids) == 64


def test_usr_relevance_is_the_positive_class_probability(classifier: Path) -> None:
    from transformers import AutoModelForSequenceClassification

    item = turn("a", ["hi how are you"], "i am fine")
    [score] = metrics.get(f"usr-relevance[{classifier}]").score([item])
    model, tok = load(classifier, AutoModelForSequenceClassification)
    with torch.no_grad():
        logits = model(**tok("hi how are you", "i am fine", return_tensors="pt")).logits[0]
    assert score == pytest.approx(torch.softmax(logits, -1)[1].item(), abs=1e-6)


def test_bleurt_style_keeps_the_best_reference(regressor: Path) -> None:
    from transformers import AutoModelForSequenceClassification

    item = turn("a", [], "i am fine", refs=("i am good", "the cat sat"))
    [score] = metrics.get(f"bleurt-style[{regressor}]").score([item])
    model, tok = load(regressor, AutoModelForSequenceClassification)
    values = []
    for ref in item.references:
        with torch.no_grad():
            values.append(model(**tok(ref, "i am fine", return_tensors="pt")).logits[0, 0].item())
    assert score == pytest.approx(max(values), abs=1e-6)


def test_bleurt_style_refuses_a_classifier_and_missing_references(
    classifier: Path, regressor: Path
) -> None:
    with pytest.raises(ValueError, match="a regression checkpoint has one"):
        metrics.get(f"bleurt-style[{classifier}]").score([turn("a", [], "x", refs=("y",))])
    with pytest.raises(ValueError, match="has no reference"):
        metrics.get(f"bleurt-style[{regressor}]").score([turn("a", [], "x")])


def test_unieval_style_yes_probability_and_left_cut_history(t5: Path) -> None:
    from transformers import AutoModelForSeq2SeqLM

    metric = metrics.get(f"unieval-style[{t5},coherence]")
    assert metric.name == f"unieval-style[{t5.name},coherence]"
    item = turn("a", ["hi how are you"], "i am fine")
    long = turn("long", ["hi how are you"] * 30, "i am fine")
    short_score, long_score = metric.score([item, long])
    assert metric.notes["truncated_items"] == ["long"]
    model, tok = load(t5, AutoModelForSeq2SeqLM)
    ids, _ = metric.encode(item, tok, 64)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([[0]])).logits[
            0, 0
        ]
    probs = torch.softmax(logits, -1)
    yes, no = tok.convert_tokens_to_ids(["Yes", "No"])
    assert short_score == pytest.approx((probs[yes] / (probs[yes] + probs[no])).item(), abs=1e-5)
    assert 0 < long_score < 1


def test_path_is_required_and_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a local checkpoint path"):
        metrics.get("usr-mlm")
    with pytest.raises(metrics.models.ModelLoadError, match="no such local path"):
        metrics.get(f"usr-relevance[{tmp_path / 'x'}]").score([turn("a", [], "x")])
    with pytest.raises(ValueError, match="unknown aspect"):
        metrics.get(f"unieval-style[{tmp_path},wit]")


def test_turn_metrics_refuse_dialogues(mlm: Path) -> None:
    with pytest.raises(TypeError, match="scores turns"):
        metrics.get(f"usr-mlm[{mlm}]").score([DialogueItem("d", turns=())])
