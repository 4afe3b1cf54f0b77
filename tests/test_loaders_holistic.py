"""HolisticEval loaders against the counts measured in holistic_eval/SOURCE.md."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.holistic import HolisticContext, HolisticFluency


@pytest.mark.parametrize(
    ("name", "aspect", "with_context"),
    [("holistic-context", "context_coherence", True), ("holistic-fluency", "fluency", False)],
)
def test_counts_match_source(data_root: Path, name: str, aspect: str, with_context: bool) -> None:
    bench = load_benchmark(name)
    frame = bench.to_pandas()
    assert len(frame) == 200
    assert frame.item_id.is_unique
    assert set(frame.system) == {"unknown"}
    assert bench.metadata.aspect_names == (aspect,)
    ratings = bench.ratings()
    assert len(ratings) == 2000
    assert ratings.annotator.isna().all()
    assert ratings.value.min() == 1 and ratings.value.max() == 5
    assert ratings.groupby("item_id").size().eq(10).all()
    assert frame.references.map(len).eq(0).all()
    assert frame.context.map(len).eq(1 if with_context else 0).all()
    assert bench.skipped == {}


def test_context_first_row_by_hand(data_root: Path) -> None:
    row = (
        load_benchmark("holistic-context")
        .to_pandas()
        .set_index("item_id")
        .loc["holistic-context/0000"]
    )
    assert row.context[0]["text"] == "Hey man , you wanna buy some weed ?"
    assert row.response == "Sure , what's the matter ?"
    assert row.scores["context_coherence"] == pytest.approx((3 + 2 + 5 + 1 + 2 * 6) / 10)


def test_fluency_row_by_hand(data_root: Path) -> None:
    row = (
        load_benchmark("holistic-fluency")
        .to_pandas()
        .set_index("item_id")
        .loc["holistic-fluency/0134"]
    )
    assert row.response == "I also think that we have hurdle ."
    assert row.scores["fluency"] == pytest.approx((3 + 3 + 4 + 2 + 5 + 3 + 3 + 5 + 2 + 2) / 10)


def _patched_root(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: type, edit
) -> Path:
    """A data root whose file is `edit(original text)`, with the declared sha256 matched to it."""
    meta = loader.metadata
    source = meta.sources[0]
    original = (data_root / source.path).read_text(encoding="utf-8")
    text = edit(original)
    assert text != original
    target = tmp_path / source.path
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    patched = dataclasses.replace(source, sha256=digest)
    monkeypatch.setattr(loader, "metadata", dataclasses.replace(meta, sources=(patched,)))
    return tmp_path


def test_missing_rating_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def blank_third_line(text: str) -> str:
        lines = text.splitlines(keepends=True)
        assert lines[2].endswith(".,2,1,1,1,1,2,3,2,3,2\n")
        lines[2] = lines[2].replace(",2,1,1,1,1,2,3,2,3,2", ",2,1,1,1,,2,3,2,3,2")
        return "".join(lines)

    root = _patched_root(data_root, tmp_path, monkeypatch, HolisticContext, blank_third_line)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("holistic-context", data_dir=root, cache=False)
    message = str(info.value)
    assert "context_data_release.csv, line 3, record 123, field 's5'" in message
    assert "not an integer from 1 to 5" in message


def test_out_of_scale_rating_and_short_row_are_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _patched_root(
        data_root,
        tmp_path,
        monkeypatch,
        HolisticFluency,
        lambda text: text.replace('matter ?",5,4,5,5,5,5,4,4,5,4', 'matter ?",5,4,5,5,5,5,4,4,5,6'),
    )
    with pytest.raises(DataFormatError, match=r"line 1, record 110, field 's10'"):
        load_benchmark("holistic-fluency", data_dir=root, cache=False)


def test_wrong_column_count_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _patched_root(
        data_root,
        tmp_path,
        monkeypatch,
        HolisticFluency,
        lambda text: text.replace('matter ?",5,4,5,5,5,5,4,4,5,4', 'matter ?",5,4,5,5,5,5,4,4,5'),
    )
    with pytest.raises(DataFormatError, match=r"line 1: expected 12 columns, found 11"):
        load_benchmark("holistic-fluency", data_dir=root, cache=False)
