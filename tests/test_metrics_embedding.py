"""Embedding metrics: hand-computed vector formulas, and the model metrics against bert-score
and a plain transformers computation on the same inputs."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comperbench.metrics import TurnItem, get
from comperbench.metrics.embeddings import batching, embedding
from comperbench.metrics.embeddings.embedding import (
    EncoderError,
    _embedding_average,
    _greedy_matching,
    _vector_extrema,
    resolve_encoder,
)
from comperbench.schema import Utterance

X = np.array([[1.0, 0.0], [0.0, 1.0]])
Y = np.array([[1.0, 0.0]])


def test_vector_formulas_by_hand() -> None:
    # means (0.5, 0.5) and (1, 0): cosine 0.5 / (sqrt(0.5) * 1)
    assert _embedding_average(X, Y) == pytest.approx(1 / math.sqrt(2))
    # X -> Y best cosines 1 and 0 (mean 0.5); Y -> X best 1; average 0.75
    assert _greedy_matching(X, Y) == pytest.approx(0.75)
    # extrema keep the value of largest magnitude per dimension, sign included
    negative = np.array([[0.5, -2.0], [1.0, 1.0]])
    assert _vector_extrema(negative, np.array([[1.0, -2.0]])) == pytest.approx(1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_greedy_matching_is_numpy_s_own_means_to_the_last_bit(dtype: type) -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        x, y = (rng.normal(size=(rng.integers(1, 30), 16)).astype(dtype) for _ in range(2))
        similarity = embedding._unit(x) @ embedding._unit(y).T
        expected = (similarity.max(axis=1).mean() + similarity.max(axis=0).mean()) / 2
        assert _greedy_matching(x, y) == float(expected)


def _greedy_pair(x: np.ndarray, y: np.ndarray) -> float:
    """Greedy matching of two texts' unit vectors with ndarray's own methods."""
    similarity = x @ (y.copy() if y is x else y).T
    return float((similarity.max(axis=1).mean() + similarity.max(axis=0).mean()) / 2)


@st.composite
def _unit_texts(draw: st.DrawFn) -> tuple[np.ndarray, list[np.ndarray]]:
    """A response and its references as unit token vectors: one-token texts, references of many
    lengths, and the response among its own references."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    width = draw(st.sampled_from([1, 3, 16, 384]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))

    def text(tokens: int) -> np.ndarray:
        return embedding._unit(rng.normal(size=(tokens, width)).astype(dtype))

    x = text(draw(st.integers(1, 40)))
    references = [text(n) for n in draw(st.lists(st.integers(1, 150), min_size=1, max_size=12))]
    if draw(st.booleans()):
        references.insert(draw(st.integers(0, len(references))), x)
    return x, references


@settings(max_examples=150, deadline=None)
@given(_unit_texts())
def test_greedy_matching_of_many_references_at_once_is_each_pair_s_to_the_bit(
    texts: tuple[np.ndarray, list[np.ndarray]],
) -> None:
    x, references = texts
    assert embedding._best_greedy_of_units(x, references) == max(
        _greedy_pair(x, r) for r in references
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 49), min_size=1, max_size=30))
def test_unit_rows_of_the_table_are_each_text_s_unit_vectors(seed: int, ids: list[int]) -> None:
    table = np.random.default_rng(seed).normal(size=(50, 384)).astype(np.float32)
    table[7] = 0.0  # a zero row stays zero
    assert np.array_equal(embedding._unit(table)[ids], embedding._unit(table[ids]))


def test_batches_of_like_token_count_longest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batching, "BATCH_TOKENS", 12)
    lengths = [3, 5, 20, 5, 4, 3, 1]
    batches = list(batching.length_batches(lengths))
    # 20 alone (over the budget); 5, 5 (a third would pad to 15 tokens); 4 (3 < 0.9 x 4);
    # 3, 3 (equal lengths in order); 1 (below 0.9 x 3)
    assert batches == [[2], [1, 3], [4], [0, 5], [6]]
    monkeypatch.setattr(batching, "BATCH_RAGGED", 0.5)
    assert list(batching.length_batches(lengths)) == [[2], [1, 3], [4, 0, 5], [6]]
    assert list(batching.length_batches([4, 2])) == [[0, 1]]  # 2 is exactly half of 4
    assert list(batching.length_batches([])) == []


def test_names_say_which_model() -> None:
    assert get("bertscore-f1").name == "bertscore-f1[all-MiniLM-L6-v2:L6]"
    assert get("bertscore-p[all-MiniLM-L6-v2:L6]").name == "bertscore-p[all-MiniLM-L6-v2:L6]"
    assert get("greedy-matching").name == "greedy-matching[all-MiniLM-L6-v2]"
    assert get("bertscore-f1").config()["rescale_with_baseline"] is False


def test_encoder_errors_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(EncoderError, match=r"no config\.json"):
        get(f"embedding-average[{tmp_path}]")
    model = resolve_encoder(None).path
    with pytest.raises(EncoderError, match="give the layer"):
        get(f"bertscore-f1[{model}]")
    assert get(f"bertscore-r[{model}:L3]").name == "bertscore-r[model:L3]"


CANDIDATES = ["the cat sat on the mat", "I really like reading books about space", "ok"]
REFERENCES = [("a cat was sitting on the mat",), ("i like books", "space is big"), ("fine", "ok")]
ITEMS = [
    TurnItem(f"i{k}", c, context=(Utterance("A", f"do you like {c.split()[-1]} ?"),), references=r)
    for k, (c, r) in enumerate(zip(CANDIDATES, REFERENCES, strict=True))
]


@pytest.mark.slow
def test_bertscore_equals_bert_score_score() -> None:
    import bert_score

    path = str(resolve_encoder(None).path)
    p, r, f = bert_score.score(
        CANDIDATES,
        [list(refs) for refs in REFERENCES],
        model_type=path,
        num_layers=6,
        batch_size=1,  # no padding: negative best matches kept
    )
    assert get("bertscore-p").score(ITEMS) == pytest.approx(p.tolist(), abs=1e-5)
    assert get("bertscore-r").score(ITEMS) == pytest.approx(r.tolist(), abs=1e-5)
    assert get("bertscore-f1").score(ITEMS) == pytest.approx(f.tolist(), abs=1e-5)


@pytest.mark.slow
def test_bertscore_equals_bert_score_score_on_real_items(data_root: Path) -> None:
    """DSTC7's ~33 references per response, shared by every response to one context: P, R and
    F1 equal one unpadded `BERTScorer.score` call on all the items."""
    from bert_score import BERTScorer

    from comperbench import load_benchmark
    from comperbench.metrics.base import nonblank_references
    from comperbench.metrics.runner import benchmark_items

    contexts: dict[tuple[str, ...], list[TurnItem]] = {}
    for item in benchmark_items(load_benchmark("dstc7")):
        if nonblank_references(item) and item.response.strip():
            contexts.setdefault(item.references, []).append(item)
    items = [i for group in list(contexts.values())[:8] for i in group]
    assert len(items) > 4 * 8
    scorer = BERTScorer(model_type=str(resolve_encoder(None).path), num_layers=6)
    expected = scorer.score(
        [i.response for i in items],
        [list(nonblank_references(i)) for i in items],
        batch_size=1,  # no padding: negative best matches kept
    )
    for part, values in zip("prf", expected, strict=True):
        name = "bertscore-f1" if part == "f" else f"bertscore-{part}"
        assert get(name).score(items) == pytest.approx(values.tolist(), abs=1e-5)


@pytest.mark.slow
def test_bertscore_encodes_each_distinct_text_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from comperbench.metrics.embeddings import bertscore

    encoded: list[str] = []
    encode = bertscore._encode

    def counted(bert: bertscore.Bert, texts: list[str]) -> list[bertscore.Embedded]:
        encoded.extend(texts)
        return encode(bert, texts)

    monkeypatch.setattr(bertscore, "_encode", counted)
    bertscore.text_memo.cache_clear()
    embedding._bertscore_memo.cache_clear()
    shared = ("a cat was sitting on the mat", "the mat is red")
    other = ("the mat is red", "space is big")
    items = [
        *(TurnItem(f"s{k}", c, references=shared) for k, c in enumerate(CANDIDATES)),
        *(TurnItem(f"o{k}", c, references=other) for k, c in enumerate(CANDIDATES[:2])),
    ]
    distinct = {*CANDIDATES, *shared, *other}
    first = get("bertscore-f1").score(items)
    assert sorted(encoded) == sorted(distinct)
    assert get("bertscore-f1").score(items[::-1]) == first[::-1]
    get("bertscore-p").score(items)
    assert len(encoded) == len(distinct)
    get("bertscore-r").score([TurnItem("n", "a new response", references=other)])
    assert encoded[len(distinct) :] == ["a new response"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["bertscore-f1", "embedding-average", "greedy-matching", "vector-extrema"]
)
def test_empty_missing_non_ascii_and_long_input(name: str) -> None:
    long_text = " ".join(["word"] * 3000)
    empty, missing, blank_refs, utf, long = get(name).score(
        [
            TurnItem("e", "", references=("a reference",)),
            TurnItem("m", "a response", references=()),
            TurnItem("b", "a response", references=("", " ")),
            TurnItem("u", "привет мир 你好", references=("привет мир",)),
            TurnItem("l", long_text, references=(long_text,)),
        ]
    )
    assert empty == 0.0
    assert math.isnan(missing) and math.isnan(blank_refs)
    assert 0.0 < utf <= 1.0 + 1e-6
    assert long == pytest.approx(1.0, abs=1e-5)


def _independent_static_vectors(text: str) -> np.ndarray:
    import transformers

    path = resolve_encoder(None).path
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(path, local_files_only=True)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return model.embeddings.word_embeddings.weight[ids].detach().numpy()


@pytest.mark.slow
def test_embedding_average_equals_a_plain_computation() -> None:
    expected = []
    for candidate, refs in zip(CANDIDATES, REFERENCES, strict=True):
        c = _independent_static_vectors(candidate).mean(axis=0)
        best = -1.0
        for ref in refs:
            r = _independent_static_vectors(ref).mean(axis=0)
            best = max(best, float(c @ r / np.linalg.norm(c) / np.linalg.norm(r)))
        expected.append(best)
    assert get("embedding-average").score(ITEMS) == pytest.approx(expected, abs=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "pair"),
    [
        ("embedding-average", _embedding_average),
        ("greedy-matching", _greedy_matching),
        ("vector-extrema", _vector_extrema),
    ],
)
def test_word_vector_scores_are_exactly_the_best_pair_value(
    name: str, pair: Callable[[np.ndarray, np.ndarray], float]
) -> None:
    # each text is tokenized once and prepared once, however many texts it is compared with:
    # the values are those of the pair function on the two texts' vectors, bit for bit, also
    # where a response is its own reference
    echo = TurnItem("echo", CANDIDATES[1], references=(CANDIDATES[1], CANDIDATES[0]))
    expected = [
        max(pair(_independent_static_vectors(c), _independent_static_vectors(r)) for r in refs)
        for c, refs in [*zip(CANDIDATES, REFERENCES, strict=True), (echo.response, echo.references)]
    ]
    assert get(name).score([*ITEMS, echo]) == expected


@pytest.mark.slow
def test_word_vectors_are_the_same_when_the_token_memo_overflows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    metric = get("greedy-matching")
    expected = metric.score(ITEMS)
    monkeypatch.setattr(embedding, "TOKEN_MEMO_TEXTS", 2)  # emptied on every call
    assert metric.score(ITEMS) == expected
    assert metric.score(ITEMS[:1]) == expected[:1]


@pytest.mark.slow
def test_context_cosine_equals_mean_pooled_embeddings() -> None:
    import torch
    import transformers

    path = resolve_encoder(None).path
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(path, local_files_only=True)

    def embed(text: str) -> torch.Tensor:
        with torch.no_grad():
            return model(**tokenizer(text, return_tensors="pt")).last_hidden_state[0].mean(0)

    expected = [
        float(torch.cosine_similarity(embed(i.context[-1].text), embed(i.response), dim=0))
        for i in ITEMS
    ]
    assert get("context-cosine").score(ITEMS) == pytest.approx(expected, abs=1e-5)
    assert math.isnan(get("context-cosine").score([TurnItem("n", "hi")])[0])


def _tiny_bert(path: Path) -> None:
    """A two-layer BERT with a word-piece vocabulary, built offline and saved to `path`."""
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers.models import WordPiece
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path.mkdir(parents=True)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "ran", "park", "hello", "there"]
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])}
    # built from a tokenizers object: a vocab_file alone can load as all-[UNK] in a process
    # that has already built another fast tokenizer
    backend = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer = BertTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]")
    tokenizer.save_pretrained(path)
    assert BertTokenizerFast.from_pretrained(path)("cat sat", add_special_tokens=False)[
        "input_ids"
    ] == [vocab["cat"], vocab["sat"]]
    config = BertConfig(
        vocab_size=5 + len(words),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(path)


def test_local_model_replaced_in_place_is_recomputed(tmp_path: Path) -> None:
    import torch
    from transformers import BertModel

    from comperbench.metrics.cache import ScoreCache, metric_key
    from comperbench.metrics.runner import score_items

    model_dir = tmp_path / "tiny-bert"
    _tiny_bert(model_dir)
    items = [TurnItem("1", "the cat sat on the mat", references=("a dog ran in the park",))]
    cache_root = tmp_path / "scores"
    name = f"embedding-average[{model_dir}]"

    first_metric = get(name)
    first = score_items(first_metric, items, ScoreCache(cache_root))
    assert first.computed == 1
    again = score_items(get(name), items, ScoreCache(cache_root))
    assert again.cached == 1 and again.scores[0] == first.scores[0]
    first_key = metric_key(first_metric)

    model = BertModel.from_pretrained(model_dir)
    with torch.no_grad():
        torch.manual_seed(1)
        model.get_input_embeddings().weight.normal_()
    model.save_pretrained(model_dir)

    replaced_metric = get(name)
    assert metric_key(replaced_metric) != first_key
    replaced = score_items(replaced_metric, items, ScoreCache(cache_root))
    assert replaced.computed == 1 and replaced.cached == 0
    assert replaced.scores[0] != first.scores[0]


def test_bertscore_of_a_tokenizer_without_max_length_truncates_to_the_model(
    tmp_path: Path,
) -> None:
    """A tokenizer saved without `model_max_length` truncates at the model's 64 positions."""
    model_dir = tmp_path / "tiny-bert"
    _tiny_bert(model_dir)
    long = " ".join(["the cat sat on the mat"] * 20)
    (same, other) = get(f"bertscore-f1[{model_dir}:L2]").score(
        [
            TurnItem("s", long, references=(long,)),
            TurnItem("o", "hello there", references=("a dog ran in the park",)),
        ]
    )
    assert same == pytest.approx(1.0, abs=1e-5)
    assert 0.0 < other < 1.0


def test_bertscore_keeps_negative_best_matches_as_unpadded_bert_score(tmp_path: Path) -> None:
    """A token whose best match is negative counts its cosine, as bert-score gives it for a pair
    it does not pad; its batches of 64 count it 0 for pairs shorter than their batch's longest."""
    import torch
    from bert_score import BERTScorer
    from transformers import BertModel

    model_dir = tmp_path / "tiny-bert"
    torch.manual_seed(1)
    _tiny_bert(model_dir)
    model = BertModel.from_pretrained(model_dir)
    with torch.no_grad():  # distinct word vectors: some best matches negative
        model.get_input_embeddings().weight.normal_()
        model.embeddings.position_embeddings.weight.zero_()
        model.embeddings.token_type_embeddings.weight.zero_()
    model.save_pretrained(model_dir)
    pairs = [
        ("cat", "a"),
        ("a sat mat", "cat"),
        ("dog a", "sat"),
        ("hello", "the dog ran on a mat"),
    ]
    scorer = BERTScorer(model_type=str(model_dir), num_layers=2)
    scorer._tokenizer.model_max_length = 64  # the saved tokenizer sets none
    candidates, references = [c for c, _ in pairs], [r for _, r in pairs]
    unpadded = scorer.score(candidates, references, batch_size=1)
    batched = scorer.score(candidates, references)
    assert float(unpadded[0].min()) < 0 and float(unpadded[1].min()) < 0
    assert float((unpadded[0] - batched[0]).abs().max()) > 1e-3
    items = [TurnItem(f"i{k}", c, references=(r,)) for k, (c, r) in enumerate(pairs)]
    for part, expected in zip(("p", "r", "f1"), unpadded, strict=True):
        values = get(f"bertscore-{part}[{model_dir}:L2]").score(items)
        assert values == pytest.approx(expected.tolist(), abs=1e-5)


def test_bertscore_scores_without_matplotlib_and_bert_score_still_imports_whole(
    tmp_path: Path,
) -> None:
    """Scoring imports bert-score's `utils` alone (its `__init__` imports matplotlib.pyplot);
    `from bert_score import BERTScorer` afterwards runs that `__init__` and scores the same."""
    model_dir = tmp_path / "tiny-bert"
    _tiny_bert(model_dir)
    probe = f"""
import sys
from comperbench.metrics import TurnItem, get
item = TurnItem("s", "the cat sat on the mat", references=("a dog sat on the mat",))
ours = get("bertscore-f1[{model_dir}:L2]").score([item])[0]
print("pyplot" if "matplotlib.pyplot" in sys.modules else "no pyplot")
from bert_score import BERTScorer
scorer = BERTScorer(model_type="{model_dir}", num_layers=2)
scorer._tokenizer.model_max_length = 64  # the saved tokenizer sets none
theirs = float(scorer.score([item.response], [list(item.references)], batch_size=1)[2][0])
print(abs(ours - theirs) < 1e-6, "matplotlib.pyplot" in sys.modules)
"""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=600
    )
    assert done.stdout.split() == ["no", "pyplot", "True", "True"]
