"""FED loaders against the counts measured in fed/SOURCE.md and against the DSTC10 copy."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.base import BenchmarkLoader
from comperbench.loaders.fed import FedDialogue, FedTurn

FED_FILE = "fed/fed_data.json"


def _patched_root(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    loader: type[BenchmarkLoader],
    edit: Any,
) -> Path:
    """A data root whose FED file is the real one changed by `edit`, with a matching sha256."""
    records = json.loads((data_root / FED_FILE).read_text())
    edit(records)
    content = json.dumps(records).encode()
    root = tmp_path / "data"
    (root / "fed").mkdir(parents=True)
    (root / FED_FILE).write_bytes(content)
    meta = loader.metadata
    source = dataclasses.replace(meta.sources[0], sha256=hashlib.sha256(content).hexdigest())
    monkeypatch.setattr(loader, "metadata", dataclasses.replace(meta, sources=(source,)))
    return root


def _rating_lists(ratings: Any, aspects: tuple[str, ...]) -> tuple[tuple[float, ...], ...]:
    """Ratings of one item as one tuple of values per aspect, in file order."""
    by_aspect: dict[str, list[float]] = {a: [] for a in aspects}
    for rating in ratings:
        by_aspect[rating["aspect"]].append(rating["value"])
    return tuple(tuple(by_aspect[a]) for a in aspects)


def test_fed_turn_counts_match_source(data_root: Path) -> None:
    bench = load_benchmark("fed-turn")
    frame = bench.to_pandas()
    assert len(frame) == 375
    assert frame.item_id.is_unique
    assert frame.system.value_counts().to_dict() == {"Mitsuku": 132, "Human": 123, "Meena": 120}
    contexts = {tuple((u["speaker"], u["text"]) for u in c) for c in frame.context}
    assert len(contexts) == 374
    assert frame.dialogue_id.nunique() == 125
    assert bench.metadata.default_aspect == "overall"
    assert len(bench.metadata.aspects) == 9
    assert bench.skipped == {
        "N/A rating: correct": 6,
        "N/A rating: specific": 3,
        "N/A rating: relevant": 1,
        "N/A rating: fluent": 1,
        "N/A rating: understandable": 1,
    }
    ratings = bench.ratings()
    assert len(ratings) == 375 * 9 * 5 - 12
    assert ratings.annotator.isna().all()
    for aspect in bench.metadata.aspects:
        values = ratings[ratings.aspect == aspect.name].value
        assert values.min() == aspect.min and values.max() == aspect.max


def test_fed_dialogue_counts_match_source(data_root: Path) -> None:
    bench = load_benchmark("fed-dialogue")
    frame = bench.to_pandas()
    assert len(frame) == 125
    assert frame.item_id.is_unique and frame.dialogue_id.is_unique
    assert frame.system.value_counts().to_dict() == {"Mitsuku": 44, "Human": 41, "Meena": 40}
    assert len(bench.metadata.aspects) == 11
    assert bench.skipped == {"N/A rating: error_recovery": 154, "N/A rating: flexible": 1}
    assert sum(len(t) for t in frame.turns) / 125 == pytest.approx(13.72, abs=0.005)
    assert {u["speaker"] for t in frame.turns for u in t} == {"User", "System"}
    ratings = bench.ratings()
    assert len(ratings) == 125 * 11 * 5 - 155
    for aspect in bench.metadata.aspects:
        values = ratings[ratings.aspect == aspect.name].value
        assert values.min() == aspect.min and values.max() == aspect.max
    # A dialogue whose five Error recovery ratings were all N/A has no score, not a zero.
    per_item = ratings[ratings.aspect == "error_recovery"].groupby("item_id").size()
    unrated = sorted(set(frame.item_id) - set(per_item.index))
    assert unrated
    scores = frame.set_index("item_id").scores
    assert all(scores[i]["error_recovery"] is None for i in unrated)


def test_fed_first_items_by_hand(data_root: Path) -> None:
    turn = load_benchmark("fed-turn").to_pandas().iloc[0]
    assert turn.item_id == "fed-turn/0000/0009"
    assert turn.dialogue_id == "0000" and turn.turn_index == 9 and turn.system == "Meena"
    assert turn.response == "It's probably boring, isn't it?"
    assert [u["speaker"] for u in turn.context[:2]] == ["User", "System"]
    assert turn.context[0]["text"] == "Hi!" and turn.context[-1]["text"] == "Can't say"
    assert turn.scores["overall"] == pytest.approx((2 + 1 + 3 + 3 + 4) / 5)
    assert turn.scores["interesting"] == pytest.approx((2 + 1 + 1 + 1 + 1) / 5)
    assert list(turn.references) == []

    dialogue = load_benchmark("fed-dialogue").to_pandas().iloc[0]
    assert dialogue.item_id == "fed-dialogue/0000" and dialogue.dialogue_id == "0000"
    assert len(dialogue.turns) == 15
    assert dialogue.turns[9]["text"] == turn.response
    # Error recovery ["N/A (...)", 1, 1, "N/A (...)", 2] in the file: two ratings dropped.
    assert dialogue.scores["error_recovery"] == pytest.approx((1 + 1 + 2) / 3)
    assert dialogue.scores["overall"] == pytest.approx((3 + 1 + 2 + 3 + 4) / 5)


@pytest.mark.parametrize(
    ("name", "dstc10_file"),
    [("fed-turn", "fed-turn_eval.json"), ("fed-dialogue", "fed-dial_eval.json")],
)
def test_fed_matches_its_dstc10_copy(data_root: Path, name: str, dstc10_file: str) -> None:
    bench = load_benchmark(name)
    aspects = bench.metadata.aspects
    ours = Counter(
        (system, _rating_lists(ratings, bench.metadata.aspect_names))
        for system, ratings in zip(
            bench.table.column("system").to_pylist(),
            bench.table.column("ratings").to_pylist(),
            strict=True,
        )
    )
    copy = json.loads((data_root / "dstc10_track5" / dstc10_file).read_text())
    theirs = Counter(
        (
            record["model"],
            tuple(
                tuple(float(v) for v in record["annotations"][a.label] if not isinstance(v, str))
                for a in aspects
            ),
        )
        for record in copy
    )
    assert len(copy) == len(bench)
    assert ours == theirs


def test_not_applicable_is_dropped_but_other_text_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[4]["annotations"]["Fluent"][3] = "fluent enough"

    root = _patched_root(data_root, tmp_path, monkeypatch, FedTurn, edit)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("fed-turn", data_dir=root, cache=False)
    assert info.value.record == "4.annotations" and info.value.field == "Fluent"
    assert "'fluent enough' is not a number" in str(info.value)
    assert "fed_data.json" in str(info.value)


def test_out_of_scale_rating_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[3]["annotations"]["Consistent"][0] = 2

    root = _patched_root(data_root, tmp_path, monkeypatch, FedDialogue, edit)
    with pytest.raises(DataFormatError, match=r"record 3\.annotations, field 'Consistent'.*0-1"):
        load_benchmark("fed-dialogue", data_dir=root, cache=False)


def test_missing_annotation_names_record_and_field(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        del records[7]["annotations"]["Depth"]

    root = _patched_root(data_root, tmp_path, monkeypatch, FedDialogue, edit)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("fed-dialogue", data_dir=root, cache=False)
    assert info.value.record == "7.annotations" and info.value.field == "Depth"
    assert "missing" in str(info.value)


def test_response_without_system_prefix_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[1]["response"] = "User: not the system"

    root = _patched_root(data_root, tmp_path, monkeypatch, FedTurn, edit)
    with pytest.raises(DataFormatError, match=r"record 1, field 'response'.*'System:'"):
        load_benchmark("fed-turn", data_dir=root, cache=False)


def test_turn_whose_context_is_not_its_dialogue_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[2]["context"] = records[4]["context"]

    root = _patched_root(data_root, tmp_path, monkeypatch, FedTurn, edit)
    with pytest.raises(DataFormatError, match=r"record 2, field 'context'.*next dialogue record"):
        load_benchmark("fed-turn", data_dir=root, cache=False)
