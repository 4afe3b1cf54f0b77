"""distinct-n (`distinct-1`, `distinct-2`): distinct n-grams over all n-grams of a set of responses."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from comperbench.common.version import distribution_version
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item, Metric, check_turn_items
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT, words
from comperbench.metrics.registry import register_plain_metric


class Distinct(Metric):
    """distinct-n (Li et al. 2016): distinct n-grams / all n-grams over a set of responses.

    Args:
        n: the n-gram order.
    """

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
        return f"sacrebleu=={distribution_version('sacrebleu')}"

    def score(self, items: Sequence[Item]) -> list[float]:
        raise NotImplementedError(f"{self.name} scores a set of responses: use score_corpus")

    def score_corpus(self, items: Sequence[Item]) -> float:
        grams: list[tuple[str, ...]] = []
        for item in check_turn_items(items, self.needs):
            tokens = words(item.response)
            grams += [tuple(tokens[i : i + self.n]) for i in range(len(tokens) - self.n + 1)]
        return len(set(grams)) / len(grams) if grams else math.nan


def _register() -> None:
    for n in (1, 2):
        info = MetricInfo(
            name=f"distinct-{n}",
            description=(
                f"Distinct {n}-grams over all {n}-grams of a system's responses (13a tokens, "
                "lower-cased): how varied its wording is, with no reference; system level only."
            ),
            family="ngram",
            needs=frozenset({"response"}),
            citation=citations.DISTINCT,
            link="https://aclanthology.org/N16-1014",
            implementation=Distinct.implementation,
            library="sacrebleu==2.6.0",
        )
        register_plain_metric(info.name, lambda n=n: Distinct(n), info)


_register()
