"""The literature's BLEU, METEOR and ROUGE-L variants: hand-computed values, and equality with
NLTK and pycocoevalcap called directly on real benchmark items."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from comperbench.common.errors import ComperbenchError, UnknownNameError
from comperbench.metrics import TurnItem, available, get
from comperbench.metrics.base import MetricInputError
from comperbench.metrics.cache import metric_key
from comperbench.metrics.lexical.literature import CocoMeteor

BLEU_NAMES = [f"{kind}-bleu-{n}" for kind in ("nltk", "coco") for n in (1, 2, 3, 4)]
PYTHON_NAMES = [*BLEU_NAMES, "coco-rouge-l"]
NAMES = [*PYTHON_NAMES, "coco-meteor"]


def one(name: str, response: str, *references: str) -> float:
    return get(name).score([TurnItem("x", response, references=references)])[0]


def real_items(name: str, count: int) -> list[TurnItem]:
    from comperbench import load_benchmark
    from comperbench.metrics.runner import benchmark_items

    items = [i for i in benchmark_items(load_benchmark(name)) if i.references]
    assert len(items) >= count
    return items[:count]


def test_registry_lists_the_variants() -> None:
    assert set(NAMES) <= set(available())
    for name in NAMES:
        assert get(name).name == name
        assert get(name).family == "ngram"


# --- NLTK sentence BLEU without smoothing ---


def test_nltk_bleu_by_hand() -> None:
    hyp, ref = "the cat sat on the mat", "the cat is on the mat"
    # unigrams 5/6, bigrams 3/5, trigrams 1/4 ("on the mat"), 4-grams 0/3; equal lengths
    assert one("nltk-bleu-1", hyp, ref) == pytest.approx(5 / 6)
    assert one("nltk-bleu-2", hyp, ref) == pytest.approx(math.sqrt(5 / 6 * 3 / 5))
    assert one("nltk-bleu-3", hyp, ref) == pytest.approx(0.5)
    # no 4-gram match and no smoothing: nltk's zero (sys.float_info.min in the geometric mean)
    assert 0.0 <= one("nltk-bleu-4", hyp, ref) < 1e-70
    assert one("bleu-4", hyp, ref) > 0.3  # sacrebleu's smoothed BLEU-4 is far from it


def test_nltk_bleu_exact_match_brevity_and_tokens() -> None:
    text = "a b c d e"
    assert [one(f"nltk-bleu-{n}", text, text) for n in (1, 2, 3, 4)] == [1.0] * 4
    # every unigram matches; 2 tokens against 6: brevity penalty exp(1 - 6/2)
    assert one("nltk-bleu-1", "the cat", "the cat sat on the mat") == pytest.approx(math.exp(-2))
    # whitespace tokens, case kept: "The" and "cat." match nothing in "the cat ."
    assert one("nltk-bleu-1", "The cat.", "the cat .") == 0.0
    assert one("nltk-bleu-1", "", "the cat") == 0.0


def test_nltk_bleu_uses_every_reference() -> None:
    # counts clipped by the maximum over references ("the cat" / "cat sat"), closest length 2
    hyp, refs = "the cat sat", ("the cat", "a cat sat on it")
    assert one("nltk-bleu-2", hyp, *refs) == pytest.approx(1.0)
    assert one("nltk-bleu-2", hyp, refs[0]) < 0.9


@pytest.mark.filterwarnings("ignore::UserWarning")  # nltk's warning for each zero count
@pytest.mark.parametrize(
    ("name", "count"), [("usr-topical", 360), ("grade-convai2", 600), ("dstc7", 300)]
)
def test_nltk_bleu_equals_nltk_on_real_items(data_root: Path, name: str, count: int) -> None:
    """USR's and GRADE's single reference, DSTC7's many."""
    from nltk.translate.bleu_score import sentence_bleu

    items = real_items(name, count)
    refs, hyps = (
        [[r.split() for r in i.references] for i in items],
        [i.response.split() for i in items],
    )
    for n in (1, 2, 3, 4):
        expected = [
            sentence_bleu(r, h, weights=(1 / n,) * n) for r, h in zip(refs, hyps, strict=True)
        ]
        assert get(f"nltk-bleu-{n}").score(items) == expected
        if n == 2:
            assert len({s for s in expected if s > 1e-50}) > 10  # not only nltk's zeros
    # nltk's default weights are BLEU-4's
    assert get("nltk-bleu-4").score(items) == [
        sentence_bleu(r, h) for r, h in zip(refs, hyps, strict=True)
    ]


# --- pycocoevalcap (nlg-eval) BLEU ---


def test_coco_bleu_by_hand() -> None:
    hyp, ref = "the cat sat on the mat", "the cat is on the mat"
    tiny, small = 1e-15, 1e-9
    precisions = [(m + tiny) / (g + small) for m, g in ((5, 6), (3, 5), (1, 4), (0, 3))]
    # a zero count enters as 1e-15 / 3: small, but not nltk's ~0
    assert one("coco-bleu-4", hyp, ref) == pytest.approx(math.prod(precisions) ** 0.25, rel=1e-9)
    assert 1e-5 < one("coco-bleu-4", hyp, ref) < 1e-4
    assert one("coco-bleu-2", hyp, ref) == pytest.approx(math.sqrt(5 / 6 * 3 / 5), rel=1e-8)
    assert one("coco-bleu-1", "a b c d", "a b c d") == pytest.approx(1.0, abs=1e-8)
    # closest reference length, the shorter on a tie: 2 (not 4) for 3 tokens, so no penalty
    assert one("coco-bleu-1", "a b c", "a b", "a b c d") == pytest.approx(1.0, abs=1e-8)
    assert one("coco-bleu-1", "the cat", "the cat sat on the mat") == pytest.approx(
        math.exp(-2), rel=1e-8
    )


@pytest.mark.parametrize(("name", "count"), [("usr-topical", 360), ("dstc7", 200)])
def test_coco_bleu_equals_pycocoevalcap_per_item(data_root: Path, name: str, count: int) -> None:
    """nlg-eval's `compute_individual_metrics`: pycocoevalcap's Bleu(4) on one item at a time."""
    from pycocoevalcap.bleu.bleu import Bleu

    items = real_items(name, count)
    expected = [
        Bleu(4).compute_score({0: list(i.references)}, {0: [i.response]}, verbose=0)[0]
        for i in items
    ]
    for n in (1, 2, 3, 4):
        assert get(f"coco-bleu-{n}").score(items) == [e[n - 1] for e in expected]


def test_coco_and_nltk_bleu_agree_where_no_count_is_zero(data_root: Path) -> None:
    """The two implementations differ only in how they treat zero counts."""
    items = real_items("dstc7", 300)
    nltk, coco = get("nltk-bleu-2").score(items), get("coco-bleu-2").score(items)
    pairs = [(a, b) for a, b in zip(nltk, coco, strict=True) if a > 1e-50]
    assert len(pairs) > 20
    for a, b in pairs:
        assert b == pytest.approx(a, rel=1e-6)


# --- pycocoevalcap (nlg-eval) ROUGE-L ---


def test_coco_rouge_l_by_hand() -> None:
    # LCS 5 ("the cat on the mat"): P = R = 5/6
    assert one("coco-rouge-l", "the cat sat on the mat", "the cat is on the mat") == pytest.approx(
        5 / 6
    )
    # P = 1, R = 1/3: F with beta 1.2 is 2.44 P R / (R + 1.44 P), not rouge-score's F1 of 0.5
    expected = 2.44 * (1 / 3) / (1 / 3 + 1.44)
    assert one("coco-rouge-l", "the cat", "the cat sat on the mat") == pytest.approx(expected)
    assert one("rouge-l", "the cat", "the cat sat on the mat") == pytest.approx(0.5)
    # best precision and best recall come from different references: F = 1
    assert one("coco-rouge-l", "a b c d", "a b", "a b c d e f g h") == pytest.approx(1.0)
    assert one("coco-rouge-l", "The cat", "the cat") == pytest.approx(0.5)  # case kept
    assert one("coco-rouge-l", "", "the cat") == 0.0


@pytest.mark.parametrize(("name", "count"), [("usr-topical", 360), ("dstc7", 200)])
def test_coco_rouge_l_equals_pycocoevalcap(data_root: Path, name: str, count: int) -> None:
    from pycocoevalcap.rouge.rouge import Rouge

    items = real_items(name, count)
    rouge = Rouge()
    expected = [rouge.calc_score([i.response], list(i.references)) for i in items]
    assert get("coco-rouge-l").score(items) == pytest.approx(expected, abs=1e-15)
    assert get("coco-rouge-l").score(items) != pytest.approx(get("rouge-l").score(items))


# --- METEOR 1.5 (Java) ---


@pytest.fixture(scope="module")
def meteor() -> CocoMeteor:
    """One metric, so one Java process, for the module."""
    metric = get("coco-meteor")
    assert isinstance(metric, CocoMeteor)
    return metric


@pytest.fixture(scope="module")
def coco_wrapper() -> object:
    """pycocoevalcap's own `Meteor` wrapper (its own Java process)."""
    from pycocoevalcap.meteor.meteor import Meteor

    return Meteor()


def meteor_of(metric: CocoMeteor, response: str, *references: str) -> float:
    return metric.score([TurnItem("x", response, references=references)])[0]


@pytest.mark.slow
def test_coco_meteor_by_hand(meteor: CocoMeteor) -> None:
    assert meteor_of(meteor, "the cat sat on the mat", "the cat sat on the mat") == 1.0
    assert meteor_of(meteor, "The Cat sat.", "the cat sat .") == 1.0  # -norm lowercases
    assert meteor_of(meteor, "zebra", "the cat sat") == 0.0
    assert meteor_of(meteor, "", "the cat sat") == 0.0
    # the stem and synonym modules count "dogs" for "dog", not "cats"
    assert meteor_of(meteor, "the dogs ran", "the dog ran") > meteor_of(
        meteor, "the cats ran", "the dog ran"
    )
    # the best of several references
    good = meteor_of(meteor, "the cat sat on the mat", "a cat sat on the mat")
    assert meteor_of(meteor, "the cat sat on the mat", "no", "a cat sat on the mat") == good


@pytest.mark.slow
def test_coco_meteor_line_breaks_and_blank_references(meteor: CocoMeteor) -> None:
    """A line break would end the jar's input line: it is a space. Blank references are
    ignored (the mixed item scores as its one reference), all blank gives NaN."""
    items = [
        TurnItem("a", "the cat\nsat", references=("the cat sat",)),
        TurnItem("b", "a dog", references=("", "the dog\r\nbarked")),
        TurnItem("c", "hello there", references=("hello there",)),
        TurnItem("d", "x", references=(" ",)),
    ]
    scores = meteor.score(items)
    assert scores[:3] == [1.0, meteor_of(meteor, "a dog", "the dog barked"), 1.0]
    assert 0.0 < scores[1] < 1.0
    assert math.isnan(scores[3])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "count"), [("usr-topical", 120), ("dstc7", 60)])
def test_coco_meteor_equals_pycocoevalcap(
    data_root: Path, meteor: CocoMeteor, coco_wrapper: object, name: str, count: int
) -> None:
    items = real_items(name, count)
    gts = {k: list(i.references) for k, i in enumerate(items)}
    res = {k: [i.response] for k, i in enumerate(items)}
    _, expected = coco_wrapper.compute_score(gts, res)  # type: ignore[attr-defined]
    scores = meteor.score(items)
    assert scores == expected
    assert len(set(scores)) > count // 3
    # nlg-eval scores one item per EVAL line: the same values
    for k in range(5):
        single, _ = coco_wrapper.compute_score({0: gts[k]}, {0: res[k]})  # type: ignore[attr-defined]
        assert single == pytest.approx(scores[k], abs=1e-12)


def test_coco_meteor_without_java_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ComperbenchError, match="no `java` is on the PATH"):
        CocoMeteor().score([TurnItem("x", "a", references=("a",))])


# --- what every variant shares ---


@pytest.mark.parametrize("name", PYTHON_NAMES)
def test_blank_references_are_ignored(name: str) -> None:
    response = "the cat sat on the mat"
    blank = TurnItem("b", response, references=("", "  "))
    mixed = TurnItem("m", response, references=("", "the cat sat on a mat", " "))
    plain = TurnItem("p", response, references=("the cat sat on a mat",))
    scores = get(name).score([blank, mixed, plain])
    assert math.isnan(scores[0])
    assert scores[1] == scores[2]
    assert scores[2] > 0.01


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_names_the_item(name: str) -> None:
    metric = get(name)
    with pytest.raises(MetricInputError, match=r"item 'bad', field 'response'"):
        metric.score([TurnItem("bad", 3)])  # type: ignore[arg-type]
    with pytest.raises(MetricInputError, match=r"item 'bad', field 'references'"):
        metric.score([TurnItem("bad", "x", references=("ok", None))])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES)
def test_an_option_is_refused(name: str) -> None:
    with pytest.raises(UnknownNameError, match=rf"'{name}' takes no bracketed argument.*\[foo\]"):
        get(f"{name}[foo]")


@pytest.mark.parametrize("name", NAMES)
def test_configuration_is_complete(name: str) -> None:
    metric = get(name)
    config = metric.config()
    for key in ("implementation", "library", "lowercase", "references", "scale"):
        assert key in config
    library = config["library"]
    assert library.split("==")[0] in metric.cache_version()
    assert "implementation=2" in metric.cache_version()
    if "bleu" in name:
        order = int(name[-1])
        assert config["weights"] == pytest.approx([1 / order] * order)
        assert {"smoothing", "tokenize", "max_ngram_order"} <= set(config)


def test_variants_have_their_own_cache_keys() -> None:
    keys = {metric_key(get(n)) for n in ["bleu-4", "nltk-bleu-4", "coco-bleu-4", "rouge-l"]}
    keys |= {metric_key(get(n)) for n in ["coco-rouge-l", "meteor", "coco-meteor"]}
    assert len(keys) == 7


@pytest.mark.parametrize("name", ["nltk-bleu-4", "coco-bleu-2", "coco-rouge-l"])
def test_hf_modules(name: str) -> None:
    from comperbench.metrics.hf_modules import load

    predictions = ["the cat sat on the mat", "i like books"]
    references = [["a cat sat on the mat"], ["i like reading books", "books"]]
    result = load(name).compute(predictions=predictions, references=references)
    items = [
        TurnItem(str(k), p, references=tuple(r))
        for k, (p, r) in enumerate(zip(predictions, references, strict=True))
    ]
    expected = get(name).score(items)
    assert result["scores"] == pytest.approx(expected)
    assert result[name] == pytest.approx(sum(expected) / 2)
