"""BERTScore values as bert-score's `BERTScorer.score` gives them, computed per reference set.

bert-score pads every (candidate, reference) pair into batches and encodes each text anew in
every call. Here a text is encoded once while it is in use (memoised by text, least recently
used first out; batches of texts of like token count) and all the responses that share a
reference set are matched against it with one matrix product. What decides the values is
bert-score's: its model (`get_model`, the output of the last kept layer), its tokenisation
(`sent_encode`), L2-normalised token vectors, greedy matching over all tokens with the [CLS] and
[SEP] ids weighted 0 and the others 1 (idf off), and, over several references, the maximum of P,
of R and of F1 (each on its own).

A token's best match is its largest cosine, negative or not, as BERTScore defines it and as
bert-score gives it for a pair it does not pad (`score(..., batch_size=1)`). In its batches
bert-score zeroes the similarities of padded positions, so there a negative best match counts 0
for every pair shorter than the longest of its batch: its batched values depend on their
neighbours in the call, these do not.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.abc import Loader
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from comperbench.common.extras import requires_extra
from comperbench.common.memory import release_freed_memory
from comperbench.metrics.embeddings.batching import length_batches
from comperbench.metrics.models import context_window, right_padded

CHUNK_TEXTS = 8192
"""Texts made ready for matching at a time: bounds the memory of one call."""
MEMO_TOKENS = 50_000
"""Token vectors kept per model between calls (about 77 MB at 384 dimensions): the runner's
order (`by_shared_references`) brings a reference's uses close, so on dstc7 this encodes 42,701
texts for 42,323 distinct ones, where ten times as many tokens kept encode 42,031."""
UNSET_MAX_LENGTH = 1_000_000
"""A tokenizer `model_max_length` above this was never set (transformers puts 10**30 there)."""

Pair = tuple[str, tuple[str, ...]]
Scores = tuple[float, float, float]


@dataclass(frozen=True)
class Bert:
    """bert-score's model, cut to its layer, and tokenizer, for one model path and layer."""

    model: Any
    tokenizer: Any
    special: frozenset[int]
    """Token ids weighted 0 ([CLS] and [SEP]), as bert-score's idf dict with idf off."""
    device: str


@dataclass(frozen=True)
class Embedded:
    """One text as bert-score matches it: unit vectors of all its tokens, and their weights."""

    vectors: np.ndarray
    weights: np.ndarray


class TextMemo:
    """Embedded texts by text; the least recently used go past `limit` tokens in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._texts: OrderedDict[str, Embedded] = OrderedDict()
        self._tokens = 0

    def get(self, text: str) -> Embedded | None:
        found = self._texts.get(text)
        if found is not None:
            self._texts.move_to_end(text)
        return found

    def put(self, text: str, embedded: Embedded) -> None:
        self._texts[text] = embedded
        self._tokens += len(embedded.weights)
        while self._tokens > self.limit and len(self._texts) > 1:
            _, dropped = self._texts.popitem(last=False)
            self._tokens -= len(dropped.weights)


def bert_score_utils() -> ModuleType:
    """bert-score's `utils`, with its package's `__init__` run only when another of its names
    is asked for: that `__init__` imports matplotlib.pyplot (0.5 s) for bert-score's plots."""
    if "bert_score" not in sys.modules:
        spec = importlib.util.find_spec("bert_score")
        if spec is None or spec.loader is None or spec.origin is None:
            raise ModuleNotFoundError("No module named 'bert_score'", name="bert_score")
        package = importlib.util.module_from_spec(spec)
        package.__version__ = _version_in(Path(spec.origin))  # what `utils` imports from it
        package.__getattr__ = _running_init(package, spec.loader)  # type: ignore[method-assign]
        sys.modules["bert_score"] = package
    return importlib.import_module("bert_score.utils")


def _version_in(init: Path) -> str:
    """The `__version__ = "..."` that a package's `__init__.py` assigns."""
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__version__":
            return str(ast.literal_eval(node.value))
    raise ImportError(f"{init} assigns no __version__")


def _running_init(package: ModuleType, loader: Loader) -> Callable[[str], Any]:
    """A module `__getattr__` that runs the package's own `__init__` once, then answers."""

    def attribute(name: str) -> Any:
        del package.__getattr__
        loader.exec_module(package)
        return getattr(package, name)

    return attribute


@cache
def bert_model(path: str, layers: int, provenance: str) -> Bert:
    """bert-score's model and tokenizer per model path, layer and model content (`provenance`)."""
    with requires_extra("BERTScore"):
        import torch

        utils = bert_score_utils()
    model = utils.get_model(path, layers)
    tokenizer = utils.get_tokenizer(path, use_fast=False)  # BERTScorer's default
    if tokenizer.model_max_length > UNSET_MAX_LENGTH:  # else truncation overflows
        tokenizer.model_max_length = context_window(model, tokenizer)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    special = frozenset({tokenizer.cls_token_id, tokenizer.sep_token_id})
    return Bert(model.to(device), tokenizer, special, device)


@cache
def text_memo(path: str, layers: int, provenance: str) -> TextMemo:
    """The embedded texts of one model path, layer and model content."""
    return TextMemo(MEMO_TOKENS)


def bertscore_pairs(
    path: str, layers: int, provenance: str, pairs: Iterable[Pair]
) -> dict[Pair, Scores]:
    """(P, R, F1) of each (response, references) pair; responses and references non-blank."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for response, references in pairs:
        groups.setdefault(references, []).append(response)
    if not groups:
        return {}
    bert, memo = bert_model(path, layers, provenance), text_memo(path, layers, provenance)
    scores: dict[Pair, Scores] = {}
    for chunk in _chunks(groups):
        embedded = _embedded(bert, memo, {t for refs, rs in chunk for t in (*refs, *rs)})
        for references, responses in chunk:
            matched = _match([embedded[t] for t in responses], [embedded[t] for t in references])
            scores.update(((r, references), s) for r, s in zip(responses, matched, strict=True))
    release_freed_memory()  # the passes' and products' buffers, else kept in the heap
    return scores


def _chunks(
    groups: dict[tuple[str, ...], list[str]],
) -> Iterator[list[tuple[tuple[str, ...], list[str]]]]:
    """Reference sets with their responses, about CHUNK_TEXTS texts at a time."""
    chunk: list[tuple[tuple[str, ...], list[str]]] = []
    size = 0
    for references, responses in groups.items():
        chunk.append((references, responses))
        size += len(references) + len(responses)
        if size >= CHUNK_TEXTS:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _embedded(bert: Bert, memo: TextMemo, texts: set[str]) -> dict[str, Embedded]:
    """Each text embedded: from the memo, or encoded (once) and memoised."""
    found = {t: e for t in texts if (e := memo.get(t)) is not None}
    missing = sorted(texts - found.keys())
    for text, embedded in zip(missing, _encode(bert, missing), strict=True):
        memo.put(text, embedded)
        found[text] = embedded
    return found


def _encode(bert: Bert, texts: Sequence[str]) -> list[Embedded]:
    """The texts through the model in batches of like token count (`length_batches`: ours, not
    bert-score's batching; far less padding, for speed)."""
    sent_encode = bert_score_utils().sent_encode
    ids = [sent_encode(bert.tokenizer, t) for t in texts]
    out: list[Embedded] = [None] * len(texts)  # type: ignore[list-item]
    for rows in length_batches([len(i) for i in ids]):
        for row, vectors in zip(rows, _forward(bert, [ids[r] for r in rows]), strict=True):
            weights = np.array([0.0 if i in bert.special else 1.0 for i in ids[row]])
            out[row] = Embedded(vectors, weights)
    return out


def _forward(bert: Bert, ids: Sequence[list[int]]) -> list[np.ndarray]:
    """L2-normalised last-layer token vectors of each token id list (bert-score's `bert_encode`
    and `greedy_cos_idf` normalisation)."""
    import torch

    tokens, mask = right_padded(ids, bert.tokenizer.pad_token_id)
    with torch.inference_mode():
        hidden = bert.model(tokens.to(bert.device), attention_mask=mask.to(bert.device))[0]
        hidden = (hidden / hidden.norm(dim=-1, keepdim=True)).cpu().numpy()
    return [hidden[row, : len(seq)].copy() for row, seq in enumerate(ids)]


@dataclass(frozen=True)
class _Stacked:
    """Texts' token vectors one after another, with where each text starts and its weight."""

    vectors: np.ndarray
    weights: np.ndarray
    starts: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, texts: Sequence[Embedded]) -> _Stacked:
        weights = np.concatenate([t.weights for t in texts])
        starts = np.cumsum([0] + [len(t.weights) for t in texts[:-1]])
        totals = np.add.reduceat(weights, starts)
        return cls(np.concatenate([t.vectors for t in texts]), weights, starts, totals)

    def weighted_means(self, best: np.ndarray) -> np.ndarray:
        """Per text, the weighted mean of its tokens' rows of `best` (0 for a text of weight 0)."""
        sums = np.add.reduceat(best.astype(np.float64) * self.weights[:, None], self.starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / self.totals[:, None]
        means[self.totals == 0] = 0.0
        return means


def _match(responses: Sequence[Embedded], references: Sequence[Embedded]) -> list[Scores]:
    """bert-score's greedy cosine matching of each response against each reference, as one
    matrix product and segment maxima; per response, the maximum of P, R and F1 over references."""
    hyp, ref = _Stacked.of(responses), _Stacked.of(references)
    similarity = hyp.vectors @ ref.vectors.T
    precision = hyp.weighted_means(np.maximum.reduceat(similarity, ref.starts, axis=1))
    recall = ref.weighted_means(np.maximum.reduceat(similarity.T, hyp.starts, axis=1)).T
    empty = (hyp.totals == 0)[:, None] | (ref.totals == 0)[None, :]
    precision[empty], recall[empty] = 0.0, 0.0
    total = precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(total != 0, 2 * precision * recall / total, 0.0)
    best = zip(precision.max(axis=1), recall.max(axis=1), f1.max(axis=1), strict=True)
    return [(float(p), float(r), float(f)) for p, r, f in best]
