"""DSTC9 interactive-evaluation loader against the counts measured in dstc9_interactive/SOURCE.md."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.dstc9 import Dstc9

FOLDER = "dstc9_interactive"


def _patched_root(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: dict[int, Any]
) -> Path:
    """A copy of the data whose chatbot<n>.json files are changed by `edits[n]`, sha256 matched."""
    root = tmp_path / "data"
    shutil.copytree(data_root / FOLDER, root / FOLDER, copy_function=shutil.copyfile)
    sources = list(Dstc9.metadata.sources)
    for number, edit in edits.items():
        path = root / FOLDER / f"chatbot{number}.json"
        records = json.loads(path.read_text())
        edit(records)
        content = json.dumps(records).encode()
        path.write_bytes(content)
        at = next(i for i, s in enumerate(sources) if s.path.endswith(f"/chatbot{number}.json"))
        sources[at] = dataclasses.replace(sources[at], sha256=hashlib.sha256(content).hexdigest())
    meta = dataclasses.replace(Dstc9.metadata, sources=tuple(sources))
    monkeypatch.setattr(Dstc9, "metadata", meta)
    return root


def test_dstc9_counts_match_source(data_root: Path) -> None:
    bench = load_benchmark("dstc9")
    frame = bench.to_pandas()
    assert len(frame) == 2200
    assert frame.item_id.is_unique and frame.dialogue_id.is_unique
    assert frame.system.value_counts().to_dict() == {f"chatbot{n}": 200 for n in range(1, 12)}
    assert bench.metadata.default_aspect == "overall"
    overall = bench.metadata.aspect("human (overall)")
    assert (overall.name, overall.min, overall.max) == ("overall", 1, 5)
    ratings = bench.ratings()
    raters = Counter(ratings[ratings.aspect == "overall"].groupby("item_id").size().tolist())
    assert raters == {3: 2075, 2: 123, 1: 2}
    assert sum(raters[k] * k for k in raters) == 6473
    assert ratings.annotator.isna().all()
    assert bench.skipped["N/A rating: error_recovery"] == 182
    assert bench.skipped["N/A rating: consistent"] == 26
    assert "N/A rating: overall" not in bench.skipped
    assert len(ratings) == 6473 * 11 - sum(bench.skipped.values())
    for aspect in bench.metadata.aspects:
        values = ratings[ratings.aspect == aspect.name].value
        assert values.min() == aspect.min and values.max() == aspect.max


def test_dstc9_first_dialogue_by_hand(data_root: Path) -> None:
    first = load_benchmark("dstc9").to_pandas().iloc[0]
    assert first.item_id == "dstc9/chatbot1/0000" and first.system == "chatbot1"
    assert [u["speaker"] for u in first.turns[:2]] == ["User", "System"]
    assert first.turns[0]["text"] == "hola"
    assert first.turns[-1]["text"] == "you can't say that. snakes are awesome."
    # Records 0-2 of chatbot1.json rate this dialogue: human (overall) 4, 5, 4.
    raw = json.loads((data_root / FOLDER / "chatbot1.json").read_text())
    assert [r["human (overall)"] for r in raw[:3]] == [4, 5, 4]
    assert raw[1]["context"] == raw[2]["context"] == raw[0]["context"] != raw[3]["context"]
    assert first.scores["overall"] == pytest.approx((4 + 5 + 4) / 3)
    assert first.scores["consistent"] == 1.0


def test_chatbot7_line_breaks_join_the_system_turn(data_root: Path) -> None:
    frame = load_benchmark("dstc9").to_pandas()
    texts = [u["text"] for t in frame[frame.system == "chatbot7"].turns for u in t]
    assert "hi, how are you?" in texts
    assert not any(t != t.strip() for t in texts)


def test_non_consecutive_repeat_of_a_dialogue_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[10]["context"] = records[0]["context"]

    root = _patched_root(data_root, tmp_path, monkeypatch, {2: edit})
    with pytest.raises(DataFormatError) as info:
        load_benchmark("dstc9", data_dir=root, cache=False)
    assert info.value.record == 10 and info.value.field == "context"
    assert "chatbot2.json" in str(info.value) and "cannot be grouped" in str(info.value)


def test_dialogue_repeated_in_another_file_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = json.loads((data_root / FOLDER / "chatbot1.json").read_text())[0]["context"]

    def edit(records: list[dict[str, Any]]) -> None:
        records[0]["context"] = first

    root = _patched_root(data_root, tmp_path, monkeypatch, {5: edit})
    with pytest.raises(
        DataFormatError, match=r"chatbot5\.json, record 0.*chatbot1\.json, record 0"
    ):
        load_benchmark("dstc9", data_dir=root, cache=False)


def test_text_other_than_na_is_an_error_not_a_number(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[4]["likeable"] = "n/a"

    root = _patched_root(data_root, tmp_path, monkeypatch, {3: edit})
    with pytest.raises(DataFormatError) as info:
        load_benchmark("dstc9", data_dir=root, cache=False)
    assert "chatbot3.json" in str(info.value) and "'n/a' is not a number" in str(info.value)
    assert info.value.record == 4 and info.value.field == "likeable"


def test_missing_field_names_file_record_and_field(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def drop(records: list[dict[str, Any]]) -> None:
        del records[6]["human (overall)"]

    root = _patched_root(data_root, tmp_path, monkeypatch, {9: drop})
    with pytest.raises(
        DataFormatError, match=r"chatbot9\.json, record 6, field 'human \(overall\)'"
    ):
        load_benchmark("dstc9", data_dir=root, cache=False)
