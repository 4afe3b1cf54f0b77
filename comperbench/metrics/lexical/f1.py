"""Unigram F1 (`f1`) as ConvAI2/ParlAI compute it: normalised tokens, best reference."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.lexical.common.overlap import ngram_overlap
from comperbench.metrics.lexical.common.reference import REFS, ReferenceMetric
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT, token_ids
from comperbench.metrics.lexical.scripts import spaced
from comperbench.metrics.registry import register_plain_metric

_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\]\\^`{|}~_\']")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """ParlAI's normalisation for F1: lower case, no punctuation, no articles, single spaces.

    Args:
        text: a response or a reference.

    Returns:
        The normalised text.
    """
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


class WordF1(ReferenceMetric):
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


register_plain_metric(
    "f1",
    WordF1,
    MetricInfo(
        name="f1",
        description=(
            "Unigram F1 of the response against its best reference after ParlAI's normalisation "
            "(lower case, no punctuation, no articles), the word-overlap F1 of ConvAI2."
        ),
        family="ngram",
        needs=REFS,
        citation=citations.CONVAI2,
        link="https://github.com/facebookresearch/ParlAI/blob/main/parlai/core/metrics.py",
        implementation=WordF1.implementation,
    ),
)
