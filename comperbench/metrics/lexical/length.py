"""Response length in 13a tokens (`length`): the baseline every metric should beat."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from comperbench.common.version import distribution_version
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item, Metric, check_turn_items
from comperbench.metrics.lexical.common.tokens import UNSEGMENTED_SPLIT, word_counts
from comperbench.metrics.registry import register_plain_metric


class Length(Metric):
    """Response length in 13a tokens (a baseline every metric should beat)."""

    family = "ngram"
    name = "length"  # type: ignore[assignment]
    implementation = 2  # 2: unsegmented scripts split into characters

    def config(self) -> dict[str, Any]:
        return {"unit": "sacrebleu 13a tokens", "unsegmented_scripts": UNSEGMENTED_SPLIT}

    def library_version(self) -> str:
        return f"sacrebleu=={distribution_version('sacrebleu')}"

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        return [float(n) for n in word_counts([t.response for t in turns])]


register_plain_metric(
    "length",
    Length,
    MetricInfo(
        name="length",
        description=(
            "The number of 13a tokens of the response: a baseline that any metric meant to "
            "judge quality should beat."
        ),
        family="ngram",
        needs=frozenset({"response"}),
        citation="",
        link="https://github.com/mjpost/sacrebleu",
        implementation=Length.implementation,
        library="sacrebleu==2.6.0",
    ),
)
