"""The in-package `evaluate` modules compute the same values as the registry metrics."""

from __future__ import annotations

import math

import pytest

from comperbench.metrics import TurnItem, get
from comperbench.metrics.hf_modules import load

PREDICTIONS = ["the cat sat on the mat", "I like books", ""]
REFERENCES = [["a cat sat on the mat"], ["i like reading books", "books"], ["nothing"]]


@pytest.mark.parametrize("name", ["bleu-4", "chrf++", "rouge-l", "meteor", "f1"])
def test_reference_metrics_compute(name: str) -> None:
    result = load(name).compute(predictions=PREDICTIONS, references=REFERENCES)
    items = [
        TurnItem(str(k), p, references=tuple(r))
        for k, (p, r) in enumerate(zip(PREDICTIONS, REFERENCES, strict=True))
    ]
    expected = get(name).score(items)
    assert result["scores"] == pytest.approx(expected)
    assert result[name] == pytest.approx(sum(expected) / 3)
    assert result["nan_scores"] == 0


def test_nan_scores_are_counted_not_averaged() -> None:
    result = load("f1").compute(predictions=["a b", "c"], references=[["a b"], []])
    assert result["f1"] == 1.0 and result["nan_scores"] == 1 and math.isnan(result["scores"][1])


def test_corpus_and_reference_free_metrics() -> None:
    distinct = load("distinct-1").compute(predictions=["a b", "a c"])
    assert distinct == {"distinct-1": pytest.approx(3 / 4)}
    assert load("length").compute(predictions=["a b", "a"])["length"] == 1.5


def test_features_follow_needs() -> None:
    assert set(load("length").features) == {"predictions"}
    assert all(set(f) == {"predictions", "references"} for f in load("bleu-1").features)


def test_module_is_named_after_its_metric() -> None:
    import evaluate

    assert load("bleu-4").name == "bleu-4"
    combined = evaluate.combine([load("bleu-4"), load("f1")])
    result = combined.compute(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
    assert {"bleu-4_scores", "f1_scores", "bleu-4_nan_scores"} <= set(result)
    assert not any(key.startswith("comperbench_metric") for key in result)


def test_flat_references_are_one_per_prediction() -> None:
    flat = ["a cat sat on the mat", "i like reading books", "nothing"]
    for name in ["bleu-4", "f1"]:
        nested = load(name).compute(predictions=PREDICTIONS, references=[[r] for r in flat])
        assert load(name).compute(predictions=PREDICTIONS, references=flat) == nested


def test_mismatched_lengths_are_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"number of predictions \(3\) and references \(2\)"):
        load("bleu-4").compute(predictions=PREDICTIONS, references=["a", "b"])
    with pytest.raises(ValueError, match=r"number of predictions \(3\) and references \(2\)"):
        load("bleu-4").compute(predictions=PREDICTIONS, references=[["a"], ["b"]])


def test_bleu_states_its_scale() -> None:
    bleu = load("bleu-4")
    assert "0-1 scale" in bleu.description
    result = bleu.compute(
        predictions=["the cat sat on the mat"], references=["the cat sat on the mat"]
    )
    assert result["scale"] == "0-1" and result["bleu-4"] == pytest.approx(1.0)
    sentence = ["the cat sat on the mat"]
    corpus = load("corpus-bleu").compute(predictions=sentence, references=sentence)
    assert corpus["scale"] == "0-1" and corpus["corpus-bleu"] == pytest.approx(1.0)
    assert "scale" not in load("f1").compute(predictions=["a"], references=["a"])
