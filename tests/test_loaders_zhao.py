"""Zhao et al. loaders against the counts measured in dstc10_track5/SOURCE.md."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.zhao import DailyDialogZhao, PersonaZhao


@pytest.mark.parametrize(
    ("name", "contexts", "systems", "aspects"),
    [
        ("dailydialog-zhao", 100, 21, ("content", "grammar", "relevance", "appropriateness")),
        ("persona-zhao", 150, 14, ("appropriateness",)),
    ],
)
def test_counts_match_source(
    data_root: Path, name: str, contexts: int, systems: int, aspects: tuple[str, ...]
) -> None:
    bench = load_benchmark(name)
    frame = bench.to_pandas()
    assert len(frame) == 900
    assert frame.item_id.is_unique
    assert frame.dialogue_id.nunique() == contexts
    assert frame.system.nunique() == systems
    assert {"ground-truth", "negative-sample"} <= set(frame.system)
    assert (frame.system == "ground-truth").sum() == contexts
    assert bench.metadata.aspect_names == aspects
    ratings = bench.ratings()
    assert len(ratings) == 900 * 4 * len(aspects)
    assert ratings.annotator.isna().all()
    for aspect in aspects:
        values = ratings[ratings.aspect == aspect].value
        assert values.min() == 1 and values.max() == 5
    assert frame.references.map(len).eq(1).all()
    truth = frame[frame.system == "ground-truth"]
    assert all(row.response == row.references[0] for row in truth.itertuples())
    assert bench.skipped == {}


def test_dailydialog_item_by_hand(data_root: Path) -> None:
    frame = load_benchmark("dailydialog-zhao").to_pandas().set_index("item_id")
    row = frame.loc["dailydialog-zhao/00017"]
    assert row.system == "negative-sample" and row.dialogue_id == "c001"
    assert row.response == "are you sensitive to other things ?"
    assert row.context[0]["text"] == "can i help you , sir ?"
    assert row.context[-1]["speaker"] == "A" and len(row.context) == 3
    assert row.scores["content"] == pytest.approx((1 + 1 + 3 + 2) / 4)
    assert row.scores["appropriateness"] == pytest.approx((1 + 1 + 2 + 1) / 4)


def test_same_context_text_different_dialogues_stay_apart(data_root: Path) -> None:
    frame = load_benchmark("persona-zhao").to_pandas().set_index("item_id")
    first, second = frame.loc["persona-zhao/00168"], frame.loc["persona-zhao/00312"]
    assert first.context[0]["text"] == second.context[0]["text"] == "hello ! how are you today ?"
    assert first.dialogue_id != second.dialogue_id


def _patched_root(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    loader: type,
    edit: Any,
) -> Path:
    """A data root holding `edit(records)` as the loader's file, with its sha256 matched."""
    meta = loader.metadata
    source = meta.sources[0]
    records = json.loads((data_root / source.path).read_text(encoding="utf-8"))
    edit(records)
    target = tmp_path / source.path
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(records), encoding="utf-8")
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    patched = dataclasses.replace(source, sha256=digest)
    monkeypatch.setattr(loader, "metadata", dataclasses.replace(meta, sources=(patched,)))
    return tmp_path


def test_lists_stored_as_strings_are_read_as_lists(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = load_benchmark("persona-zhao").table

    def stringify(records: list[dict[str, Any]]) -> None:
        for record in records[:10]:
            record["reference"] = str(record["reference"])
            record["annotations"]["appropriateness"] = str(record["annotations"]["appropriateness"])
        records[10]["annotations"] = str(records[10]["annotations"])

    root = _patched_root(data_root, tmp_path, monkeypatch, PersonaZhao, stringify)
    loaded = load_benchmark("persona-zhao", data_dir=root, cache=False).table
    assert loaded.equals(expected.replace_schema_metadata(loaded.schema.metadata))


def test_malformed_list_string_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def damage(records: list[dict[str, Any]]) -> None:
        records[5]["annotations"]["grammar"] = "[4, 5, 4"

    root = _patched_root(data_root, tmp_path, monkeypatch, DailyDialogZhao, damage)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("dailydialog-zhao", data_dir=root, cache=False)
    assert "dailydialog-zhao_eval.json, record 5, field 'annotations.grammar'" in str(info.value)
    assert "not a list literal" in str(info.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([4, 5, 4], "3 ratings, expected 4"),
        ([4, 5, 4, "N/A"], "rating 'N/A' is not an integer from 1 to 5"),
        ([4, 5, 4, 6], "rating 6 is outside the scale 1-5"),
    ],
)
def test_bad_ratings_are_errors_not_numbers(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    value: list[Any],
    message: str,
) -> None:
    def damage(records: list[dict[str, Any]]) -> None:
        records[42]["annotations"]["appropriateness"] = value

    root = _patched_root(data_root, tmp_path, monkeypatch, PersonaZhao, damage)
    with pytest.raises(DataFormatError, match=message) as info:
        load_benchmark("persona-zhao", data_dir=root, cache=False)
    assert info.value.record == 42 and info.value.field == "annotations.appropriateness"


def test_missing_aspect_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def damage(records: list[dict[str, Any]]) -> None:
        del records[3]["annotations"]["relevance"]

    root = _patched_root(data_root, tmp_path, monkeypatch, DailyDialogZhao, damage)
    with pytest.raises(DataFormatError, match=r"record 3, field 'annotations.relevance': missing"):
        load_benchmark("dailydialog-zhao", data_dir=root, cache=False)
