"""Sentence BLEU-1..4 (`bleu-n`) by sacrebleu: exponential smoothing, 13a tokens, case kept."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.lexical.common.overlap import SetMemo, ngram_overlap
from comperbench.metrics.lexical.common.reference import REFS, ReferenceMetric
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT, token_ids
from comperbench.metrics.lexical.scripts import spaced
from comperbench.metrics.registry import register_plain_metric


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


class SentenceBleu(ReferenceMetric):
    """Sentence BLEU-n (cumulative up to order n) by sacrebleu, exponential smoothing, 13a tokens.

    Args:
        order: the highest n-gram order (1-4).
    """

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


def _register() -> None:
    for order in (1, 2, 3, 4):
        info = MetricInfo(
            name=f"bleu-{order}",
            description=(
                f"Sentence BLEU up to {order}-grams against every non-blank reference: the "
                "geometric mean of clipped n-gram precisions times a brevity penalty, as sacrebleu "
                "computes it (exponential smoothing, 13a tokens, case kept), on a 0-1 scale."
            ),
            family="ngram",
            needs=REFS,
            citation=citations.BLEU,
            link="https://github.com/mjpost/sacrebleu",
            implementation=SentenceBleu.implementation,
            library="sacrebleu==2.6.0",
        )
        register_plain_metric(info.name, lambda order=order: SentenceBleu(order), info)


_register()
