"""Deprecated: each n-gram metric has its own module in `comperbench.metrics.lexical` now.

`comperbench.metrics.lexical.ngram.X` keeps working for one release, with a DeprecationWarning
naming X's new module.
"""

from __future__ import annotations

from comperbench.common.deprecation import moved_names

_COMMON = "comperbench.metrics.lexical.common"
_HOMES = {
    **dict.fromkeys(
        ("BASIC_PLANE", "TEXT_SEPARATOR", "UNSEGMENTED_SPLIT", "token_ids", "word_counts", "words"),
        f"{_COMMON}.tokens",
    ),
    **dict.fromkeys(("Overlap", "SetMemo", "ngram_overlap"), f"{_COMMON}.overlap"),
    **dict.fromkeys(("REFS", "unreadable_item"), f"{_COMMON}.reference"),
    "SentenceBleu": "comperbench.metrics.lexical.bleu",
    "CorpusBleu": "comperbench.metrics.lexical.corpus_bleu",
    "Chrf": "comperbench.metrics.lexical.chrf",
    "chrf_f_scores": "comperbench.metrics.lexical.chrf",
    **dict.fromkeys(
        ("ROUGE_TYPES", "Rouge", "lcs_length", "rouge_fmeasures"),
        "comperbench.metrics.lexical.rouge",
    ),
    "Meteor": "comperbench.metrics.lexical.meteor",
    "MeteorText": "comperbench.metrics.lexical.meteor.alignment",
    **dict.fromkeys(("WordF1", "normalize_answer"), "comperbench.metrics.lexical.f1"),
    "Distinct": "comperbench.metrics.lexical.distinct",
    "Length": "comperbench.metrics.lexical.length",
}

__getattr__ = moved_names(__name__, _HOMES)
