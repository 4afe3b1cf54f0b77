"""Text in any script: the characters a whitespace tokenizer cannot segment, split one by one.

Chinese, Japanese, Thai, Lao, Khmer and Myanmar are written without spaces between words, and an
emoji may stand next to a word without one; a tokenizer that splits on spaces (or sacrebleu's
13a) sees such a run as one token. Splitting these characters one by one is what sacrebleu's
`zh` tokenizer does for Chinese; comperbench applies it to every such script.
"""

from __future__ import annotations

from functools import lru_cache

import regex

_UNSEGMENTED_RANGES = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u2600-\u27bf"  # miscellaneous symbols, dingbats (older emoji)
    "\u2e80-\u2fdf"  # CJK radicals
    "\u3000-\u30ff"  # CJK punctuation, Hiragana, Katakana
    "\u3100-\u31ff"  # Bopomofo, Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff00-\uffef"  # half- and full-width forms
    "\U0001f000-\U0001faff"  # emoji and pictographs
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
_UNSEGMENTED = regex.compile(f"[{_UNSEGMENTED_RANGES}]")
_WORD_OR_SYMBOL = regex.compile(rf"[{_UNSEGMENTED_RANGES}]|[\p{{L}}\p{{N}}\p{{M}}]+")


def has_unsegmented(text: str) -> bool:
    """Whether the text holds a character that whitespace does not delimit (see module)."""
    return _UNSEGMENTED.search(text) is not None


@lru_cache(maxsize=1 << 16)
def spaced(text: str) -> str:
    """The text with a space on each side of every such character, so that a whitespace or 13a
    tokenizer makes it a token of its own; other text is left exactly as it was."""
    if not has_unsegmented(text):
        return text
    return _UNSEGMENTED.sub(lambda m: f" {m.group(0)} ", text)


@lru_cache(maxsize=1 << 17)
def unicode_tokens(text: str) -> tuple[str, ...]:
    """Case-folded tokens of any script: runs of letters and digits, and each character of the
    scripts above on its own (punctuation and spaces dropped)."""
    return tuple(m.group(0) for m in _WORD_OR_SYMBOL.finditer(text.casefold()))


def has_words(text: str) -> bool:
    """Whether the text holds a letter, digit or pictograph (anything a tokenizer should keep)."""
    return bool(unicode_tokens(text))
