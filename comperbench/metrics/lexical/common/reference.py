"""The base of the metrics that compare a response with its references.

Reference-based metrics take every non-blank reference of an item (the best match counts, as each
wrapped library defines for several references) and score NaN for an item without any non-blank
reference; the runner counts and reports those NaNs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import ClassVar

from comperbench.common.version import distribution_version
from comperbench.metrics.base import Item, Metric, Need, check_turn_items, nonblank_references

REFS: frozenset[Need] = frozenset({"response", "references"})


class ReferenceMetric(Metric):
    """A turn-level metric comparing the response with its references; NaN without references.

    Subclasses score a set of responses that share their references (`score_set`) or one
    response (`score_one`)."""

    family = "ngram"
    needs = REFS
    parallel = True
    library: ClassVar[str]
    implementation = 2  # 2: blank references ignored, all-blank references score NaN

    def library_version(self) -> str:
        return f"{self.library}=={distribution_version(self.library)}"

    def score(self, items: Sequence[Item]) -> list[float]:
        turns = check_turn_items(items, self.needs)
        scores = [math.nan] * len(turns)
        by_references: dict[tuple[str, ...], list[int]] = {}
        for index, item in enumerate(turns):
            references = nonblank_references(item)
            if references and not self.unreadable_item(item):
                by_references.setdefault(references, []).append(index)
        for references, indices in by_references.items():
            values = self.score_set([turns[i].response for i in indices], references)
            for index, value in zip(indices, values, strict=True):
                scores[index] = value
        return scores

    def score_set(self, responses: list[str], references: tuple[str, ...]) -> list[float]:
        """Scores of responses that share their (non-blank) references.

        Args:
            responses: the responses.
            references: their non-blank references.

        Returns:
            One score per response, in order.
        """
        return [self.score_one(response, list(references)) for response in responses]

    def score_one(self, response: str, references: list[str]) -> float:
        """The score of one response (what `score_set` calls unless a metric scores sets).

        Args:
            response: the response.
            references: its non-blank references.

        Returns:
            The score.
        """
        raise NotImplementedError

    def unreadable(self, text: str) -> bool:
        """Whether the metric's tokenizer cannot read this text (its item then scores NaN).

        Args:
            text: a response or a reference.

        Returns:
            True when the tokenizer cannot read it.
        """
        return False

    def unreadable_item(self, item: Item) -> bool:
        return unreadable_item(item, self.unreadable)


def unreadable_item(item: Item, unreadable: Callable[[str], bool]) -> bool:
    """Whether the response, or every non-blank reference, of a turn item is unreadable.

    Args:
        item: a turn item.
        unreadable: whether a tokenizer cannot read a text.

    Returns:
        True when the item has references and its response, or each of them, is unreadable.
    """
    references = nonblank_references(item)
    return bool(references) and (
        unreadable(item.response) or all(unreadable(r) for r in references)
    )
