"""Tokens of sacrebleu's 13a tokenizer, and token ids for counting n-grams with numpy."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from comperbench.metrics.lexical.scripts import spaced


@cache
def _tokenize_13a() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def words(text: str) -> list[str]:
    """Lower-cased tokens of sacrebleu's 13a tokenizer (the WMT standard; needs no data).

    Args:
        text: any text.

    Returns:
        Its tokens, each character of an unsegmented script (Chinese, Japanese, Thai, emoji, ...)
        a token of its own.
    """
    return _tokenize_13a()(spaced(text).lower()).split()


BASIC_PLANE = 0x10000
"""Characters searched for 13a's punctuation class (which is ASCII; a test holds that it has no
character beyond these)."""
TEXT_SEPARATOR = "\x00"
"""Between texts tokenized together: a token 13a leaves alone that no text of a benchmark has."""


@cache
def _joined_13a() -> Callable[[str], str]:
    """sacrebleu's 13a tokenizer, unmemoised, with its first expression (a space on each side
    of every character of a punctuation class, the space among them) done as one `str.replace`
    per character of the class instead of a Python call per match; its other expressions, which
    only match at periods, commas and dashes, run with their expansions memoised."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    class Joined13a(Tokenizer13a):
        __call__ = Tokenizer13a.__call__.__wrapped__  # no memo of a long joined text

    (first, _), *expressions = Joined13a()._post_tokenizer._re
    rest = [(expression, _expanded(template)) for expression, template in expressions]
    # the space first, so that the spaces put around the others are not spaced out again
    found = first.findall("".join(map(chr, range(BASIC_PLANE))))
    punctuation = sorted(found, key=lambda character: character != " ")

    def post_tokenize(line: str) -> str:
        for character in punctuation:
            line = line.replace(character, f" {character} ")
        for expression, replacement in rest:
            line = expression.sub(replacement, line)
        return line

    tokenizer = Joined13a()
    tokenizer._post_tokenizer = post_tokenize
    return tokenizer


def _expanded(template: str) -> Callable[[re.Match], str]:
    """A match's expansion of the template, memoised by the match's groups (on which alone it
    depends): `re.sub` with a template string expands it in Python at every match."""
    memo: dict[tuple, str] = {}

    def expand(match: re.Match) -> str:
        groups = match.groups()
        found = memo.get(groups)
        if found is None:
            found = memo[groups] = match.expand(template)
        return found

    return expand


def word_counts(texts: Sequence[str]) -> list[int]:
    """`len(words(text))` of each text, from one pass of the tokenizer over all of them.

    The texts are joined by TEXT_SEPARATOR: 13a reads one character on each side of a match, and
    each text keeps the spaces 13a puts around it, so no match reaches across texts.

    Args:
        texts: the texts.

    Returns:
        The number of tokens of each text, in order.
    """
    if any(TEXT_SEPARATOR in t for t in texts):
        return [len(words(t)) for t in texts]
    joined = spaced(f" {TEXT_SEPARATOR} ".join(texts)).lower()
    return [len(text.split()) for text in _joined_13a()(joined).split(TEXT_SEPARATOR)]


UNSEGMENTED_SPLIT = "each character of Chinese, Japanese, Thai, Lao, Khmer, Myanmar and emoji"
"""How the 13a-based metrics tokenize unsegmented scripts (stated in their config)."""


_TOKEN_IDS: dict[str, int] = {}


def token_ids(tokens: Sequence[str]) -> np.ndarray:
    """An integer per token, the same for equal tokens (for `ngram_overlap`).

    Args:
        tokens: a token sequence.

    Returns:
        Its ids (int64).
    """
    return np.array([_TOKEN_IDS.setdefault(t, len(_TOKEN_IDS)) for t in tokens], dtype=np.int64)
