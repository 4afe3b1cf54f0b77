"""Text beyond ASCII: every text metric reads any script, or scores NaN with a counted note."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from comperbench import load_benchmark
from comperbench.benchmark import Benchmark
from comperbench.metrics import get
from comperbench.metrics.base import TurnItem
from comperbench.metrics.lexical.scripts import has_unsegmented, spaced, unicode_tokens
from comperbench.metrics.runner import run_metrics

TEXTS = {
    "chinese": "今天天气很好我们去公园散步吧",
    "japanese": "今日はとても良い天気ですね",
    "arabic": "الطقس جميل اليوم دعنا نذهب",
    "hindi": "आज मौसम बहुत अच्छा है",
    "emoji": "😀🎉👍🔥",
    "english": "the weather is nice today",
}
# metrics whose maximum, 1, an identical response reaches in every script
READ_ANY_SCRIPT = (
    "bleu-1",
    "bleu-4",
    "chrf",
    "chrf++",
    "f1",
    "rouge-1[unicode]",
    "rouge-l[unicode]",
)
SPACE_TOKENS = ("nltk-bleu-4", "coco-bleu-4", "coco-rouge-l")


def _score(metric: str, response: str, reference: str) -> float:
    item = TurnItem(item_id="x", response=response, references=(reference,))
    return get(metric).score([item])[0]


def test_tokens_of_any_script() -> None:
    assert unicode_tokens("今天 好") == ("今", "天", "好")
    assert unicode_tokens("आज मौसम!") == ("आज", "मौसम")  # vowel signs stay in their word
    assert unicode_tokens("Hello, WORLD 😀") == ("hello", "world", "😀")
    assert spaced("plain English, untouched.") == "plain English, untouched."
    assert spaced("ok好") == "ok 好 "
    assert has_unsegmented("สวัสดี") and not has_unsegmented("مرحبا")


@pytest.mark.parametrize("script", TEXTS)
@pytest.mark.parametrize("metric", READ_ANY_SCRIPT)
def test_identical_text_scores_the_maximum_in_every_script(metric: str, script: str) -> None:
    assert _score(metric, TEXTS[script], TEXTS[script]) == pytest.approx(1.0)


@pytest.mark.parametrize("script", TEXTS)
def test_meteor_of_identical_text_depends_on_its_tokens_only(script: str) -> None:
    tokens = len(unicode_tokens(spaced(TEXTS[script])))
    fragmentation_penalty = 0.5 * (1 / tokens) ** 3  # one chunk of `tokens` matches
    assert _score("meteor", TEXTS[script], TEXTS[script]) == pytest.approx(
        1 - fragmentation_penalty, abs=1e-3
    )


def test_partial_overlap_in_chinese_is_partial() -> None:
    response, reference = "今天天气很好", "今天天气不好"
    for metric in ("bleu-1", "rouge-l[unicode]", "f1", "meteor"):
        assert 0.5 < _score(metric, response, reference) < 1.0, metric
    assert _score("rouge-l[unicode]", response, reference) == pytest.approx(5 / 6)


def test_length_counts_characters_of_unsegmented_scripts() -> None:
    lengths = {s: get("length").score([TurnItem("x", t)])[0] for s, t in TEXTS.items()}
    assert lengths == {
        "chinese": 14,
        "japanese": 13,
        "arabic": 5,
        "hindi": 5,
        "emoji": 4,
        "english": 5,
    }


@pytest.mark.parametrize("script", ["chinese", "japanese", "arabic", "hindi", "emoji"])
def test_rouge_score_tokenizer_cannot_read_other_scripts(script: str) -> None:
    assert math.isnan(_score("rouge-l", TEXTS[script], TEXTS[script]))
    assert _score("rouge-l", "café au lait", "café au lait") == 1.0


@pytest.mark.parametrize("metric", SPACE_TOKENS)
def test_whitespace_tokens_cannot_segment_chinese(metric: str) -> None:
    assert math.isnan(_score(metric, TEXTS["chinese"], TEXTS["chinese"]))
    assert math.isnan(_score(metric, TEXTS["english"], TEXTS["emoji"] + TEXTS["japanese"]))
    assert _score(metric, TEXTS["arabic"], TEXTS["arabic"]) == pytest.approx(1.0)


def test_unknown_rouge_option_is_named() -> None:
    with pytest.raises(KeyError, match=r"\[unicode\]"):
        get("rouge-l[chinese]")


def test_unreadable_items_are_counted_in_the_run_notes(data_root: Path) -> None:
    bench = load_benchmark("usr-persona", data_dir=data_root)
    responses = bench.table.column("response").to_pylist()
    responses[:3] = [TEXTS["chinese"], TEXTS["japanese"], TEXTS["emoji"]]
    index = bench.table.schema.get_field_index("response")
    table = bench.table.set_column(index, "response", pa.array(responses))
    mixed = Benchmark(bench.metadata, "turn", table, {})
    runs = {run.metric.name: run for run in run_metrics(mixed, [get("rouge-l"), get("chrf")]).runs}
    assert runs["rouge-l"].notes == {"unreadable_script": 3}
    assert runs["rouge-l"].nans == 3 and np.isnan(runs["rouge-l"].scores[:3]).all()
    assert runs["chrf"].notes == {} and runs["chrf"].nans == 0
