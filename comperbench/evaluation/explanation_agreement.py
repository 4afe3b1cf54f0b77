"""How close a judge's explanations are to reference explanations, as the SODA-EVAL paper measures
its evaluators' explanations (Section 5.2, Table 6): BLEU-4 of each explanation the judge wrote
(the hypothesis) against the GPT-4-generated explanation of the same response (the reference),
and a semantic score, the mean BERTScore F1 of the same pairs with the package's encoder.

The paper reports one BLEU-4 per model on a 0-100 scale and does not say more. So the BLEU here
is corpus BLEU-4 (sacrebleu's `corpus_bleu`: its default 13a tokenizer, case kept, exponential
smoothing), the one number per judge that the paper's tables show; the mean sentence BLEU-4 of
the pairs (sacrebleu's `sentence_bleu`, same settings) is given beside it. Those are choices, not
the paper's stated ones.

A pair with either side missing or blank is left out and counted by reason; with no pair left,
the analysis is undefined and says why.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from comperbench.common.extras import MissingExtraError

BLEU_SETTINGS = "sacrebleu corpus_bleu / sentence_bleu, tokenize=13a, case kept, smooth=exp"
"""How the BLEU-4 numbers are computed (the paper does not say)."""


@dataclass(frozen=True)
class ExplanationAgreement:
    """BLEU-4 (corpus, and the mean of sentences, 0-100) and mean BERTScore F1 of a judge's
    explanations against the references, over `pairs` items; `undefined` says why there is
    no number."""

    pairs: int
    corpus_bleu: float | None = None
    sentence_bleu: float | None = None
    semantic: float | None = None
    semantic_metric: str | None = None
    left_out: dict[str, int] = field(default_factory=dict)
    undefined: str | None = None
    semantic_undefined: str | None = None
    """Why there is no semantic score although it was asked for."""

    def document(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "pairs": self.pairs,
            "corpus_bleu": self.corpus_bleu,
            "sentence_bleu": self.sentence_bleu,
            "semantic": self.semantic,
            "semantic_metric": self.semantic_metric,
            "bleu": BLEU_SETTINGS,
            "left_out": self.left_out,
            "undefined": self.undefined,
            "semantic_undefined": self.semantic_undefined,
        }


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


def paired(
    judged: Mapping[str, str | None], reference: Mapping[str, str | None]
) -> tuple[list[str], list[str], list[str], Counter[str]]:
    """Item ids, hypotheses and references of the usable pairs, in `judged`'s order, and the
    items left out by reason."""
    ids, hypotheses, references = [], [], []
    left_out: Counter[str] = Counter()
    for item, hypothesis in judged.items():
        if item not in reference:
            left_out["no reference explanation for the item"] += 1
        elif _blank(reference[item]):
            left_out["reference explanation blank"] += 1
        elif _blank(hypothesis):
            left_out["judge gave no explanation"] += 1
        else:
            ids.append(item)
            hypotheses.append(str(hypothesis))
            references.append(str(reference[item]))
    return ids, hypotheses, references, left_out


def bleu4(hypotheses: list[str], references: list[str]) -> tuple[float, float]:
    """Corpus BLEU-4 and the mean sentence BLEU-4 (0-100) of aligned hypotheses and references."""
    import sacrebleu

    corpus = sacrebleu.corpus_bleu(hypotheses, [references]).score
    sentences = [
        sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hypotheses, references, strict=True)
    ]
    return float(corpus), math.fsum(sentences) / len(sentences)


def semantic_score(
    ids: list[str], hypotheses: list[str], references: list[str], metric: str
) -> tuple[float, str]:
    """The mean of the package metric `metric` (a reference-based one, e.g. `bertscore-f1`) with
    each hypothesis as the response and its reference as the reference, and the metric's full
    name."""
    from comperbench import metrics
    from comperbench.metrics.base import TurnItem

    items = [
        TurnItem(i, h, (), references=(r,))
        for i, h, r in zip(ids, hypotheses, references, strict=True)
    ]
    scorer = metrics.get(metric)
    scores = scorer.score(items)
    return math.fsum(scores) / len(scores), scorer.name


def explanation_agreement(
    judged: Mapping[str, str | None],
    reference: Mapping[str, str | None],
    *,
    semantic_metric: str | None = "bertscore-f1",
) -> ExplanationAgreement:
    """BLEU-4 and the semantic score of the judge's explanation of each item (`judged`, by item
    id) against the reference explanation of the same item; `semantic_metric=None` skips the
    semantic score."""
    ids, hypotheses, references, left_out = paired(judged, reference)
    if not ids:
        why = "no item has both a judge explanation and a reference explanation"
        return ExplanationAgreement(0, left_out=dict(left_out), undefined=why)
    corpus, sentences = bleu4(hypotheses, references)
    semantic, name, why = None, None, None
    if semantic_metric:
        try:
            semantic, name = semantic_score(ids, hypotheses, references, semantic_metric)
        except MissingExtraError as missing:
            why = str(missing)
    return ExplanationAgreement(
        len(ids), corpus, sentences, semantic, name, dict(left_out), semantic_undefined=why
    )
