"""N-gram metrics against the libraries they wrap, hand-computed values, and bad input."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comperbench.metrics import TurnItem, available, get
from comperbench.metrics.base import MetricInputError
from comperbench.metrics.lexical.common.tokens import (
    BASIC_PLANE,
    TEXT_SEPARATOR,
    word_counts,
    words,
)
from comperbench.metrics.lexical.f1 import normalize_answer
from comperbench.metrics.lexical.rouge import lcs_length

HYPS = [
    "the cat sat on the mat",
    "I do n't know , what do you like to read ?",
    "héllo wörld, ça va ?",
    "yes",
]
REFS = [
    ("a cat sat on the mat", "there is a cat on the mat"),
    ("i like reading books , what about you ?",),
    ("hello world, ça va bien ?",),
    ("no", "yes it is"),
]
ITEMS = [
    TurnItem(f"i{k}", h, references=r) for k, (h, r) in enumerate(zip(HYPS, REFS, strict=True))
]


def test_registry_lists_the_suite() -> None:
    names = set(available())
    for name in ("bleu-1", "bleu-4", "corpus-bleu", "chrf", "chrf++", "rouge-l", "meteor", "f1"):
        assert name in names
    assert get("bleu-4").name == "bleu-4"


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_bleu_equals_sacrebleu_sentence_bleu(order: int) -> None:
    from sacrebleu.metrics import BLEU

    bleu = BLEU(max_ngram_order=order, effective_order=True, smooth_method="exp")
    expected = [
        bleu.sentence_score(h, list(r)).score / 100 for h, r in zip(HYPS, REFS, strict=True)
    ]
    assert get(f"bleu-{order}").score(ITEMS) == pytest.approx(expected, abs=1e-12)


def test_bleu_1_by_hand() -> None:
    # 5 of 6 unigrams match "a cat sat on the mat"; lengths equal, so no brevity penalty.
    item = TurnItem("x", "the cat sat on the mat", references=("a cat sat on the mat",))
    assert get("bleu-1").score([item]) == [pytest.approx(5 / 6)]


def test_corpus_bleu_equals_sacrebleu_corpus_score() -> None:
    import sacrebleu

    streams = [[r[0] for r in REFS], [r[1] if len(r) > 1 else None for r in REFS]]
    expected = sacrebleu.corpus_bleu(HYPS, streams).score / 100
    assert get("corpus-bleu").score_corpus(ITEMS) == pytest.approx(expected)
    with pytest.raises(NotImplementedError, match="corpus"):
        get("corpus-bleu").score(ITEMS)


@pytest.mark.parametrize(("name", "word_order"), [("chrf", 0), ("chrf++", 2)])
def test_chrf_equals_sacrebleu(name: str, word_order: int) -> None:
    from sacrebleu.metrics import CHRF

    chrf = CHRF(word_order=word_order)
    expected = [
        chrf.sentence_score(h, list(r)).score / 100 for h, r in zip(HYPS, REFS, strict=True)
    ]
    assert get(name).score(ITEMS) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("name", "key"), [("rouge-1", "rouge1"), ("rouge-2", "rouge2"), ("rouge-l", "rougeL")]
)
def test_rouge_equals_rouge_score_best_reference(name: str, key: str) -> None:
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer([key], use_stemmer=True)
    expected = [
        max(scorer.score(r, h)[key].fmeasure for r in refs)
        for h, refs in zip(HYPS, REFS, strict=True)
    ]
    assert get(name).score(ITEMS) == pytest.approx(expected)


def test_meteor_equals_nltk_with_prepared_wordnet() -> None:
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.translate.meteor_score import meteor_score

    from comperbench.metrics.lexical.wordnet import wordnet_reader

    tok = NLTKWordTokenizer().tokenize
    reader = wordnet_reader()
    assert reader.synsets("dog")  # the LF copy is readable at the right byte offsets
    expected = [
        meteor_score([tok(r) for r in refs], tok(h), wordnet=reader)
        for h, refs in zip(HYPS, REFS, strict=True)
    ]
    assert get("meteor").score(ITEMS) == pytest.approx(expected)
    # two synonyms of "dog" in one reference: the later one is taken, as nltk does, which makes
    # one chunk of "the dog" ~ "the cad" (the earlier "hound" would make two)
    tie = TurnItem("s", "the dog", references=("hound the cad",))
    nltk_tie = meteor_score([["hound", "the", "cad"]], ["the", "dog"], wordnet=reader)
    assert get("meteor").score([tie]) == pytest.approx([nltk_tie])
    assert nltk_tie > meteor_score([["hound", "the", "fox"]], ["the", "dog"], wordnet=reader)
    # a synonym match through WordNet raises the score above the exact-match one
    syn = get("meteor").score([TurnItem("s", "the dog ran", references=("the hound ran",))])[0]
    none = get("meteor").score([TurnItem("s", "the cat ran", references=("the hound ran",))])[0]
    assert syn > none


@pytest.mark.parametrize(("name", "count"), [("dstc7", 150), ("usr-topical", 360)])
def test_meteor_equals_nltk_on_real_items(data_root: Path, name: str, count: int) -> None:
    """The hand-wired alignment gives nltk's `meteor_score` on real responses: DSTC7's many
    references per item (synonym ties, repeated words) and USR's single one."""
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.translate.meteor_score import meteor_score

    from comperbench import load_benchmark
    from comperbench.metrics.lexical.wordnet import wordnet_reader
    from comperbench.metrics.runner import benchmark_items

    items = [i for i in benchmark_items(load_benchmark(name)) if i.references][:count]
    tok, reader = NLTKWordTokenizer().tokenize, wordnet_reader()
    expected = [
        meteor_score([tok(r) for r in i.references], tok(i.response), wordnet=reader) for i in items
    ]
    assert get("meteor").score(items) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("name", "count"), [("dstc7", 150), ("usr-topical", 360)])
def test_rouge_equals_rouge_score_on_real_items(data_root: Path, name: str, count: int) -> None:
    from rouge_score import rouge_scorer

    from comperbench import load_benchmark
    from comperbench.metrics.runner import benchmark_items

    items = [i for i in benchmark_items(load_benchmark(name)) if i.references][:count]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    expected = [scorer.score_multi(list(i.references), i.response) for i in items]
    for metric, key in (("rouge-1", "rouge1"), ("rouge-2", "rouge2"), ("rouge-l", "rougeL")):
        want = [e[key].fmeasure for e in expected]
        assert get(metric).score(items) == pytest.approx(want, abs=1e-12)


def test_bit_parallel_lcs_equals_the_lcs_table() -> None:
    from rouge_score.rouge_scorer import _lcs_table

    rng = random.Random(7)
    for _ in range(2000):
        a = tuple(rng.choice("abcde") for _ in range(rng.randint(0, 70)))
        b = tuple(rng.choice("abcdef") for _ in range(rng.randint(0, 70)))
        assert lcs_length(a, b) == _lcs_table(a, b)[-1][-1]
    assert lcs_length(tuple("abcbdab"), tuple("bdcaba")) == 4  # the textbook example


def test_word_f1_by_hand_parlai_normalisation() -> None:
    assert normalize_answer("The Cat, an apple!") == "cat apple"
    # pred {cat, sat}, gold {cat, sat, down}: P = 1, R = 2/3, F1 = 0.8
    item = TurnItem("x", "The cat sat.", references=("a cat sat down", "dogs"))
    assert get("f1").score([item]) == [pytest.approx(0.8)]


def test_distinct_by_hand() -> None:
    items = [TurnItem("a", "I like it"), TurnItem("b", "i like cats")]
    # unigrams: i like it i like cats -> 4 distinct of 6; bigrams: 3 distinct of 4
    assert get("distinct-1").score_corpus(items) == pytest.approx(4 / 6)
    assert get("distinct-2").score_corpus(items) == pytest.approx(3 / 4)
    assert math.isnan(get("distinct-2").score_corpus([TurnItem("c", "hi")]))


TRICKY = [
    "",
    "   ",
    "Hello, world!",
    "3.5 and 1,000 and 5-3 and a-b",
    "a..b .5 x. ,y 7, ,8 9.. ..9",
    "&quot;quoted&quot; &amp;quot; &lt;tag&gt; & alone",
    "hyphen-\nated <skipped> line\nbreak\ttab",
    "我喜欢猫。Thai ภาษาไทย and emoji 😀😀!",
    "ΣΊΣΥΦΟΣ İstanbul ß",
    "(paren) [bracket] {brace} 'quote' `tick` ~tilde^ _under_ |pipe| @at #hash $5 %p",
    f"a{TEXT_SEPARATOR}b",
]
PIECES = st.sampled_from([*"ab9 .,-\n&;<>'\"(", "&quot;", "&amp;", "<skipped>", "猫", "😀", "Σ"])


def test_word_counts_are_the_lengths_of_13a_tokens() -> None:
    assert word_counts(TRICKY) == [len(words(t)) for t in TRICKY]
    assert word_counts(TRICKY[:-1]) == [len(words(t)) for t in TRICKY[:-1]]  # joined


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(PIECES, max_size=12).map("".join), min_size=1, max_size=6))
def test_word_counts_of_any_texts_joined_are_their_own(texts: list[str]) -> None:
    assert word_counts(texts) == [len(words(t)) for t in texts]


def test_13a_punctuation_is_all_in_the_basic_plane() -> None:
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    beyond = "".join(map(chr, range(BASIC_PLANE, sys.maxunicode + 1)))
    assert TokenizerRegexp()._re[0][0].search(beyond) is None


def test_length_counts_13a_tokens() -> None:
    assert get("length").score([TurnItem("a", "Hello, world!"), TurnItem("b", "")]) == [4.0, 0.0]


REFERENCE_METRICS = ["bleu-4", "chrf", "chrf++", "rouge-1", "rouge-l", "meteor", "f1"]


@pytest.mark.parametrize("name", REFERENCE_METRICS)
def test_bad_and_unusual_input(name: str) -> None:
    metric = get(name)
    long_text = " ".join(f"w{k % 300}" for k in range(1_000))
    empty, no_refs, non_ascii, long = metric.score(
        [
            TurnItem("empty", "", references=("a reference",)),
            TurnItem("norefs", "a response", references=()),
            TurnItem("utf", "привет мир 你好", references=("привет мир",)),
            TurnItem("long", long_text, references=(long_text,)),
        ]
    )
    assert empty == 0.0
    assert math.isnan(no_refs)  # counted and reported by the runner
    if name.startswith("rouge"):  # rouge-score's tokenizer reads a-z and 0-9 only
        assert math.isnan(non_ascii)
    else:
        assert 0.0 <= non_ascii <= 1.0
    assert long == pytest.approx(1.0)
    with pytest.raises(MetricInputError, match=r"item 'bad', field 'response'"):
        metric.score([TurnItem("bad", 3)])  # type: ignore[arg-type]
    with pytest.raises(MetricInputError, match=r"item 'bad', field 'references'"):
        metric.score([TurnItem("bad", "x", references=("ok", None))])  # type: ignore[arg-type]


def test_unknown_argument_is_refused() -> None:
    from comperbench.common.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="no bracketed argument"):
        get("bleu-4[x]")


def _reference_ngram_metrics() -> list[str]:
    names = []
    for name in available():
        try:
            metric = get(name)
        except Exception:  # metrics that need a bracketed argument
            continue
        if metric.family == "ngram" and "references" in metric.needs and not metric.corpus:
            names.append(name)
    return names


@pytest.mark.parametrize(
    "name", [*_reference_ngram_metrics(), "bertscore-f1", "embedding-average", "greedy-matching"]
)
def test_blank_references_are_ignored(name: str) -> None:
    """One rule for every reference-based family (n-gram and embedding alike)."""
    metric = get(name)
    response = "the cat sat on the mat"
    blank = TurnItem("b", response, references=("", "  "))
    mixed = TurnItem("m", response, references=("", "a cat sat on a mat", " "))
    plain = TurnItem("p", response, references=("a cat sat on a mat",))
    scores = metric.score([blank, mixed, plain])
    assert math.isnan(scores[0])
    assert scores[1] == pytest.approx(scores[2])


def test_corpus_bleu_ignores_blank_references() -> None:
    metric = get("corpus-bleu")
    blank = TurnItem("b", "hello there", references=("",))
    mixed = TurnItem("m", "the cat sat on the mat", references=("", "a cat sat on a mat"))
    plain = TurnItem("p", "the cat sat on the mat", references=("a cat sat on a mat",))
    assert metric.score_corpus([blank, mixed]) == metric.score_corpus([plain])
    assert math.isnan(metric.score_corpus([blank]))


@pytest.mark.parametrize(("name", "count"), [("dstc7", 150), ("usr-topical", 360)])
def test_bleu_and_chrf_equal_sacrebleu_on_real_items(
    data_root: Path, name: str, count: int
) -> None:
    """The n-gram counts over a whole reference set give sacrebleu's `sentence_score` on real
    responses (DSTC7's ~33 references per item, USR's one)."""
    from sacrebleu.metrics import BLEU, CHRF

    from comperbench import load_benchmark
    from comperbench.metrics.runner import benchmark_items

    items = [i for i in benchmark_items(load_benchmark(name)) if i.references][:count]
    for order in (1, 4):
        bleu = BLEU(max_ngram_order=order, effective_order=True, smooth_method="exp")
        want = [bleu.sentence_score(i.response, list(i.references)).score / 100 for i in items]
        assert get(f"bleu-{order}").score(items) == pytest.approx(want, abs=1e-12)
    for metric, word_order in (("chrf", 0), ("chrf++", 2)):
        chrf = CHRF(word_order=word_order)
        want = [chrf.sentence_score(i.response, list(i.references)).score / 100 for i in items]
        assert get(metric).score(items) == pytest.approx(want, abs=1e-12)


def test_word_f1_equals_a_counter_overlap_on_repeated_words() -> None:
    """ParlAI's F1 from Counter intersections, per reference, best kept."""
    from collections import Counter

    def parlai(pred: list[str], gold: list[str]) -> float:
        common = sum((Counter(pred) & Counter(gold)).values())
        if common == 0:
            return 0.0
        p, r = common / len(pred), common / len(gold)
        return 2 * p * r / (p + r)

    rng = random.Random(3)
    words = ["yes", "no", "cat", "dog", "ran", "home"]
    items = [
        TurnItem(
            f"r{k}",
            " ".join(rng.choices(words, k=rng.randint(1, 8))),
            references=tuple(" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(3)),
        )
        for k in range(200)
    ]
    want = [
        max(
            parlai(normalize_answer(i.response).split(), normalize_answer(r).split())
            for r in i.references
        )
        for i in items
    ]
    assert get("f1").score(items) == pytest.approx(want, abs=1e-12)
