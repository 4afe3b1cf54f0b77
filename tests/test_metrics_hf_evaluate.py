"""The in-package `evaluate` modules compute the same values as the registry metrics."""

from __future__ import annotations

import math

import pytest

from comperbench.metrics import TurnItem, get
from comperbench.metrics.hf_evaluate import load

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
    assert set(load("bleu-1").features) == {"predictions", "references"}
