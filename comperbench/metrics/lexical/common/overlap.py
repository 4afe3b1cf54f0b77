"""Clipped n-gram matches of token id sequences over a whole reference set, and a memo of
values per (response, reference set) shared by the metrics of one family."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


class SetMemo:
    """Values per (response, references), computed for all the new responses of a reference set
    at once and shared by the metrics of one family (BLEU-1..4, chrF and chrF++, ROUGE-1/2/L).

    Args:
        compute: the values of responses that share a reference set, one per response.
        maxsize: the number of values kept (all are dropped when it would be passed).
    """

    def __init__(
        self, compute: Callable[[list[str], tuple[str, ...]], list[Any]], maxsize: int = 1 << 16
    ) -> None:
        self.compute, self.maxsize = compute, maxsize
        self._values: dict[tuple[str, tuple[str, ...]], Any] = {}

    def get(self, responses: Sequence[str], references: tuple[str, ...]) -> list[Any]:
        """The values of responses that share a reference set, computing only the new ones.

        Args:
            responses: the responses.
            references: their (non-blank) references.

        Returns:
            One value per response, in order.
        """
        new = list(dict.fromkeys(r for r in responses if (r, references) not in self._values))
        if new:
            if len(self._values) + len(new) > self.maxsize:
                self._values.clear()
            computed = self.compute(new, references)
            self._values.update(zip([(r, references) for r in new], computed, strict=True))
        return [self._values[(r, references)] for r in responses]

    def cache_clear(self) -> None:
        """Drop every value kept."""
        self._values.clear()


@dataclass(frozen=True)
class Overlap:
    """N-gram counts of responses against one reference set, orders 1..n (last axis).

    Args:
        matches: (responses, references, orders) matched counts.
        clipped: (responses, orders) counts clipped by the largest reference count.
        response_grams: (responses, orders) n-grams in each response.
        reference_grams: (references, orders) n-grams in each reference.
    """

    matches: np.ndarray
    """(responses, references, orders): sum over n-grams of min(response count, reference count)."""
    clipped: np.ndarray
    """(responses, orders): sum over n-grams of min(response count, largest reference count)."""
    response_grams: np.ndarray
    """(responses, orders): n-grams in each response."""
    reference_grams: np.ndarray
    """(references, orders): n-grams in each reference."""


_HYPOTHESIS_BLOCK = 1 << 22
"""Elements of the (responses, references, n-grams) array compared at once."""


def ngram_overlap(
    responses: Sequence[np.ndarray], references: Sequence[np.ndarray], orders: int
) -> Overlap:
    """Clipped n-gram matches of token id sequences, with numpy over the whole reference set (the
    libraries count per response and reference with Counters in Python: most of their time on
    data with tens of references per response). An n-gram gets an id per order by ranking the
    pairs (id of its first n-1 tokens, its last token), so equal n-grams get equal ids.

    Args:
        responses: token ids of each response.
        references: token ids of each reference.
        orders: the highest n-gram order counted.

    Returns:
        The counts of every order from 1 to `orders`.
    """
    texts = [*references, *responses]
    n_refs, lengths = len(references), np.array([len(t) for t in texts], dtype=np.int64)
    text_of = np.repeat(np.arange(len(texts)), lengths)
    ends = np.cumsum(lengths)[text_of]
    sequence = np.concatenate([np.asarray(t, dtype=np.int64) for t in texts])
    tokens = np.unique(sequence, return_inverse=True)[1].reshape(-1)
    keys, width = tokens, len(tokens) and int(tokens.max()) + 1
    shape = (len(responses), n_refs, orders)
    matches, clipped = np.zeros(shape, dtype=np.int64), np.zeros(shape[::2], dtype=np.int64)
    for n in range(1, orders + 1):
        if n > 1:
            keys = np.unique(keys[:-1] * width + tokens[n - 1 :], return_inverse=True)[1]
            keys = keys.reshape(-1)
        inside = np.flatnonzero(np.arange(len(keys)) + n <= ends[: len(keys)])
        key, text = keys[inside], text_of[inside]
        in_reference = np.zeros(len(keys) + 1, dtype=bool)
        in_reference[key[text < n_refs]] = True
        in_response = np.zeros_like(in_reference)
        in_response[key[text >= n_refs]] = True
        common = in_reference & in_response
        column = np.cumsum(common) - 1
        kept = common[key]
        size = int(common.sum())
        counts = np.bincount(
            text[kept] * size + column[key[kept]], minlength=len(texts) * size
        ).reshape(len(texts), size)
        refs, hyps = counts[:n_refs], counts[n_refs:]
        clipped[:, n - 1] = np.minimum(hyps, refs.max(axis=0, initial=0)).sum(axis=1)
        block = max(1, _HYPOTHESIS_BLOCK // max(1, n_refs * size))
        for start in range(0, len(responses), block):
            part = hyps[start : start + block, None, :]
            matches[start : start + block, :, n - 1] = np.minimum(part, refs).sum(axis=2)
    grams = np.maximum(lengths[:, None] - np.arange(orders), 0)
    return Overlap(matches, clipped, grams[n_refs:], grams[:n_refs])
