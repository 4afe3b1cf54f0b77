"""nltk's NLTKWordTokenizer (the Treebank rules of `word_tokenize`) as METEOR tokenizes with it:
nltk's own rules in nltk's own order, run without nltk's per-call time limit, each skipped on a
text it cannot change (most rules look for a character most texts lack, and a regular
expression costs a scan of the text even when it finds nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

NEEDS: dict[tuple[str, int | None], tuple[str, ...]] = {
    ("STARTING_QUOTES", 0): tuple("«“‘„`"),
    ("STARTING_QUOTES", 1): ('"',),
    ("STARTING_QUOTES", 2): ("``",),
    ("STARTING_QUOTES", 3): ('"', "''"),
    ("STARTING_QUOTES", 4): ("'",),
    ("PUNCTUATION", 0): (".",),
    ("PUNCTUATION", 1): (":", ","),
    ("PUNCTUATION", 2): (":", ","),
    ("PUNCTUATION", 3): ("..",),
    ("PUNCTUATION", 4): tuple(";@#$%&"),
    ("PUNCTUATION", 5): tuple("\u2012\u2013\u2014\u2015"),
    ("PUNCTUATION", 6): (".",),
    ("PUNCTUATION", 7): ("?", "!"),
    ("PUNCTUATION", 8): ("' ",),
    ("PUNCTUATION", 9): ("*",),
    ("PARENS_BRACKETS", None): tuple("[](){}<>"),
    ("DOUBLE_DASHES", None): ("--",),
    ("ENDING_QUOTES", 0): tuple("»”’"),
    ("ENDING_QUOTES", 1): ("''",),
    ("ENDING_QUOTES", 2): ('"',),
    ("ENDING_QUOTES", 4): ("'",),
    ("ENDING_QUOTES", 5): ("'",),
}
"""For a rule (its list and place in it; None for a lone rule), strings one of which every
match of its pattern holds: without them in the text, the rule leaves the text as it is. The
rules not named (ENDING_QUOTES 3, which folds whitespace) always run."""

GUARDED = ("STARTING_QUOTES", "PUNCTUATION", "PARENS_BRACKETS", "DOUBLE_DASHES", "ENDING_QUOTES")
"""The tokenizer's rules guarded by `NEEDS`, a list of rules or a lone one each."""
_LEADING_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
CONTRACTIONS = ("CONTRACTIONS2", "CONTRACTIONS3")
"""Rules run only where one search for all their patterns at once finds something (ten
patterns, each a scan, that hardly ever match)."""


@dataclass
class GuardedPattern:
    """A rule's pattern whose `sub` leaves a text alone when `can_match` says it cannot match."""

    pattern: Any
    can_match: Callable[[str], bool]

    def sub(self, replacement: str, text: str) -> str:
        return self.pattern.sub(replacement, text) if self.can_match(text) else text


def _holds_one_of(needed: tuple[str, ...]) -> Callable[[str], bool]:
    if len(needed) == 1:
        only = needed[0]
        return lambda text: only in text

    def holds(text: str) -> bool:
        # a loop, not any() over a generator: half the cost per text
        for part in needed:  # noqa: SIM110
            if part in text:
                return True
        return False

    return holds


@dataclass
class _AnyOf:
    """Whether one of the patterns matches a text, by one search, kept for the text last asked
    about: the rules ask in turn about the same text until one of them changes it."""

    combined: re.Pattern[str]
    _last: tuple[str, bool] | None = field(default=None)

    @classmethod
    def of(cls, patterns: list[re.Pattern[str]]) -> _AnyOf:
        # each pattern's leading inline flags, e.g. (?i), are in its flags, which all share
        alternatives = (f"(?:{_LEADING_FLAGS.sub('', p.pattern)})" for p in patterns)
        return cls(re.compile("|".join(alternatives), _flags(patterns)))

    def __call__(self, text: str) -> bool:
        if self._last is None or self._last[0] is not text:
            self._last = (text, self.combined.search(text) is not None)
        return self._last[1]


def _flags(patterns: list[re.Pattern[str]]) -> int:
    """The patterns' one set of flags (inline flags such as (?i) make a pattern's own flags)."""
    flags = {p.flags for p in patterns}
    if len(flags) != 1:
        raise ValueError(f"the contraction patterns differ in their flags: {sorted(flags)}")
    return flags.pop()


def _untimed(rule: Any) -> Any:
    """A rule of nltk's tokenizer with its `regex` patterns compiled without nltk's time limit."""
    from nltk.redos import TimedPattern

    if isinstance(rule, TimedPattern):
        import regex

        return regex.compile(rule.pattern, rule.flags)
    if isinstance(rule, list | tuple):
        return type(rule)(map(_untimed, rule))
    return rule


def _guarded(name: str, rules: Any) -> Any:
    """A list of (pattern, replacement) rules or a lone rule, each pattern with its guard."""
    if isinstance(rules, tuple):  # a lone (pattern, replacement) rule
        pattern, replacement = rules
        return GuardedPattern(pattern, _holds_one_of(NEEDS[name, None])), replacement
    return [
        (GuardedPattern(p, _holds_one_of(NEEDS[name, i])) if (name, i) in NEEDS else p, r)
        for i, (p, r) in enumerate(rules)
    ]


@cache
def treebank_tokenizer() -> Any:
    """nltk's NLTKWordTokenizer with its rules untimed (nltk's wrapper doubles the tokenizing
    time; these patterns are nltk's own, not a caller's) and guarded (see the module)."""
    from nltk.tokenize import NLTKWordTokenizer

    tokenizer = NLTKWordTokenizer()
    for name in GUARDED:
        setattr(tokenizer, name, _guarded(name, _untimed(getattr(tokenizer, name))))
    contractions = [p for name in CONTRACTIONS for p in getattr(tokenizer, name)]
    any_of = _AnyOf.of(contractions)
    for name in CONTRACTIONS:
        setattr(tokenizer, name, [GuardedPattern(p, any_of) for p in getattr(tokenizer, name)])
    return tokenizer
