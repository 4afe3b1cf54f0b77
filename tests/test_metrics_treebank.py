"""METEOR's Treebank tokenizer: nltk's tokens, its rules skipped only where they cannot match."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize import NLTKWordTokenizer

from comperbench.metrics.lexical.meteor import treebank

PIECES = [
    *"\"'`«“‘„»”’.:,;@#$%&\u2012\u2013\u2014\u2015?!*[](){}<>- \t\n",
    *"abcdeilmnostTwy09",
    *("cannot", "CanNot", "d'ye", "gimme", "gonna", "gotta", "lemme", "more'n", "wanna "),
    *(" 'tis", " 'Twas", "n't ", "'ll ", "'S ", "''", "``", "--", "...", "3,36", "$3.88"),
]
"""Fragments that every rule of the tokenizer looks for, and plain letters between them."""

texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_tokens_are_nltk_s(text: str) -> None:
    assert treebank.treebank_tokenizer().tokenize(text) == NLTKWordTokenizer().tokenize(text)


def _nltk_rules() -> dict[tuple[str, int | None], object]:
    tokenizer = NLTKWordTokenizer()
    rules: dict[tuple[str, int | None], object] = {}
    for name in ("STARTING_QUOTES", "PUNCTUATION", "ENDING_QUOTES"):
        rules.update(((name, i), p) for i, (p, _) in enumerate(getattr(tokenizer, name)))
    for name in ("PARENS_BRACKETS", "DOUBLE_DASHES"):
        rules[name, None] = getattr(tokenizer, name)[0]
    return rules


@settings(max_examples=300, deadline=None)
@given(texts)
def test_a_rule_is_skipped_only_on_a_text_it_cannot_match(text: str) -> None:
    rules = _nltk_rules()
    for key, needed in treebank.NEEDS.items():
        if not any(part in text for part in needed):
            assert rules[key].search(text) is None, key


def test_every_guard_names_a_rule_of_nltk_s() -> None:
    assert set(treebank.NEEDS) <= set(_nltk_rules())


def test_one_search_for_the_contractions_finds_what_each_finds() -> None:
    tokenizer = NLTKWordTokenizer()
    patterns = [*tokenizer.CONTRACTIONS2, *tokenizer.CONTRACTIONS3]
    any_of = treebank._AnyOf.of(patterns)
    for text in ["I cannot go", "GONNA", "it 'twas so", " 'tis", "wanna go", "wanna", "plain"]:
        assert any_of(text) == any(p.search(text) for p in patterns), text
    assert any_of("plain text") is False


def test_tokens_are_nltk_s_on_real_texts(data_root: Path) -> None:
    from comperbench import load_benchmark
    from comperbench.metrics.runner import benchmark_items

    texts = {
        text
        for name in ("dstc7", "usr-topical", "fed-turn")
        for item in benchmark_items(load_benchmark(name))
        for text in (item.response, *getattr(item, "references", ()))
    }
    nltk_tokenize, ours = NLTKWordTokenizer().tokenize, treebank.treebank_tokenizer().tokenize
    assert len(texts) > 40_000
    assert [ours(t) for t in sorted(texts)] == [nltk_tokenize(t) for t in sorted(texts)]


def test_contraction_patterns_must_share_their_flags() -> None:
    import re

    with pytest.raises(ValueError, match="differ in their flags"):
        treebank._AnyOf.of([re.compile("(?i)a"), re.compile("b")])
