"""Corpus BLEU-4 (`corpus-bleu`) by sacrebleu over a set of responses (system level)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from comperbench.common.version import distribution_version
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item, Metric, check_turn_items, nonblank_references
from comperbench.metrics.lexical.common.reference import REFS
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT
from comperbench.metrics.lexical.scripts import spaced
from comperbench.metrics.registry import register_plain_metric


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
        return f"sacrebleu=={distribution_version('sacrebleu')}"

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


register_plain_metric(
    "corpus-bleu",
    CorpusBleu,
    MetricInfo(
        name="corpus-bleu",
        description=(
            "BLEU-4 of a system's responses as one corpus: n-gram matches and lengths summed over "
            "every item before the precisions and brevity penalty are taken (sacrebleu, 13a "
            "tokens, exponential smoothing), on a 0-1 scale; system level only."
        ),
        family="ngram",
        needs=REFS,
        citation=citations.BLEU,
        link="https://github.com/mjpost/sacrebleu",
        implementation=CorpusBleu.implementation,
        library="sacrebleu==2.6.0",
    ),
)
