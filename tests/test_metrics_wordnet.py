"""The English WordNet reader METEOR uses against nltk's own reader of the same files."""

from __future__ import annotations

import warnings

from nltk.corpus.reader.wordnet import WordNetCorpusReader

from comperbench.metrics.lexical import wordnet


def test_the_english_reader_loads_what_nltk_s_reader_loads() -> None:
    reader = wordnet.wordnet_reader()
    with warnings.catch_warnings():  # nltk's: "multilingual functions are not available"
        warnings.simplefilter("ignore", UserWarning)
        nltk_reader = WordNetCorpusReader(str(wordnet.prepare() / "corpora" / "wordnet"), None)
    assert len(reader._lemma_pos_offset_map) > 140_000
    assert dict(reader._lemma_pos_offset_map) == dict(nltk_reader._lemma_pos_offset_map)
    assert reader._exception_map == nltk_reader._exception_map
    assert reader.satellite_offsets == nltk_reader.satellite_offsets
    for word in ("dog", "ran", "better", "geese", "quickly"):
        assert reader.synsets(word) == nltk_reader.synsets(word)


def test_only_the_files_read_once_from_the_start_are_plain_files() -> None:
    reader = wordnet.wordnet_reader()
    with reader.open("index.noun") as plain:
        assert plain.readline().startswith("  1 This software")
    assert "data.noun" not in wordnet.SEQUENTIAL_FILES  # read at byte offsets: nltk's reader
    with reader.open("data.noun") as seekable:
        assert type(seekable).__name__ == "SeekableUnicodeStreamReader"
