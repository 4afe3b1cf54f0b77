"""Sentence chrF and chrF++ (`chrf`, `chrf++`) by sacrebleu, against the best reference."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.lexical.common.overlap import SetMemo, ngram_overlap
from comperbench.metrics.lexical.common.reference import REFS, ReferenceMetric
from comperbench.metrics.lexical.common.tokens import token_ids
from comperbench.metrics.registry import register_plain_metric


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
    """sacrebleu's `CHRF._compute_f_score` (no eps smoothing) over the first axes of an array,
    with the same operations in the same order, so each value is the one sacrebleu computes.

    Args:
        statistics: (..., orders, 3) counts of hypothesis, reference and matched n-grams.
        beta: the weight of recall.

    Returns:
        The F-scores (0-100) over the leading axes.
    """
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


class Chrf(ReferenceMetric):
    """Sentence chrF (word_order 0) or chrF++ (word_order 2) by sacrebleu; best reference.

    Args:
        word_order: 0 for chrF, 2 for chrF++.
    """

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


def _register() -> None:
    described = {
        "chrf": ("character 1-6-grams", citations.CHRF, 0),
        "chrf++": ("character 1-6-grams and word 1-2-grams", citations.CHRF_PLUS, 2),
    }
    for name, (grams, citation, word_order) in described.items():
        info = MetricInfo(
            name=name,
            description=(
                f"F-score (beta 2, recall weighted) of the {grams} the response shares with its "
                "best reference, averaged over the orders, as sacrebleu computes sentence "
                f"{'chrF++' if word_order else 'chrF'}; on a 0-1 scale."
            ),
            family="ngram",
            needs=REFS,
            citation=citation,
            link="https://github.com/mjpost/sacrebleu",
            implementation=Chrf.implementation,
            library="sacrebleu==2.6.0",
        )
        register_plain_metric(name, lambda word_order=word_order: Chrf(word_order), info)


_register()
