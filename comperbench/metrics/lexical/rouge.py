"""ROUGE-1/2/L F-measure (`rouge-1`, `rouge-2`, `rouge-l`, their `[unicode]` variants) as
rouge-score computes them, counted over each reference set at once."""

from __future__ import annotations

import re
from functools import cache, lru_cache, partial
from typing import Any

import numpy as np

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.lexical.common.overlap import SetMemo, ngram_overlap
from comperbench.metrics.lexical.common.reference import REFS, ReferenceMetric
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT, token_ids
from comperbench.metrics.lexical.scripts import has_words, spaced, unicode_tokens
from comperbench.metrics.registry import register_metric

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
    whole table in Python (the LCS table was half of ROUGE's time on multi-reference data).

    Args:
        target: the reference's tokens.
        prediction: the response's tokens.

    Returns:
        The length of their longest common subsequence.
    """
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
    operations (`_score_ngrams`; its LCS F-measure where the LCS is not empty).

    Args:
        matches: matched n-gram (or LCS) counts.
        predicted: n-grams of the responses, broadcast against `matches`.
        target: n-grams of the references, broadcast against `matches`.

    Returns:
        The F-measures, 0 where nothing matched.
    """
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


class Rouge(ReferenceMetric):
    """ROUGE-1/2/L F-measure by rouge-score: Porter stemming and its tokenizer, which keeps ASCII
    letters and digits only (a text it cannot read scores NaN); `[unicode]`: tokens of any script
    (`unicode_tokens`), case-folded, not stemmed.

    Args:
        rouge_type: "rouge1", "rouge2" or "rougeL".
        any_script: whether tokens of any script are read (the `[unicode]` variant).
    """

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
        """rouge-score's tokenizer keeps a-z and 0-9 only: a text with words but none of them.

        Args:
            text: a response or a reference.

        Returns:
            True when rouge-score's tokenizer cannot read it (never for `[unicode]`).
        """
        return not self.any_script and _ASCII_WORD.search(text) is None and has_words(text)


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
    overlaps = {
        "rouge1": "unigrams",
        "rouge2": "bigrams",
        "rougeL": "the longest common subsequence",
    }
    for rouge_type, overlap in overlaps.items():
        name = Rouge(rouge_type).name
        info = MetricInfo(
            name=name,
            description=(
                f"F-measure of {overlap} shared by the response and its best reference, as "
                "rouge-score computes it (Porter stemming; its tokenizer reads a-z and 0-9 "
                f"only); `{name}[unicode]` reads tokens of any script, case-folded, unstemmed."
            ),
            family="ngram",
            needs=REFS,
            citation=citations.ROUGE,
            link="https://github.com/google-research/google-research/tree/master/rouge",
            implementation=Rouge.implementation,
            library="rouge-score==0.1.2",
        )
        register_metric(name, info)(partial(_rouge, rouge_type))


_register()
