"""Loaders of the two Hub-only benchmarks, ComperDial and Soda-Eval, on fixture files.

The fixtures under tests/fixtures/ follow the published Hub layouts; their rows are written for
these tests. For ComperDial the fixtures hold the four published files, but only the layout of
`ComperDial_data.json` was seen: the three others follow the layouts the loader ASSUMES (see
comperbench.loaders.hub.comperdial), so these tests check the loader against those assumptions, not
against the published files.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from comperbench import data, get_metadata, load_benchmark
from comperbench.benchmark import content_fingerprint
from comperbench.common.errors import DataFormatError, DataMissingError
from comperbench.loaders.hub import comperdial, soda_eval

FIXTURES = Path(__file__).parent / "fixtures"


def _root(tmp_path: Path, *folders: str) -> Path:
    """A data root holding copies of the fixture folders in the Hub layout."""
    root = tmp_path / "data"
    for folder in folders:
        shutil.copytree(FIXTURES / folder, root / folder)
    return root


# ComperDial ------------------------------------------------------------------------------------

TURN_FILE = f"comperdial/{comperdial.TURN_EVAL}"


def _edit_json(root: Path, relative: str, edit: object) -> None:
    path = root / relative
    records = json.loads(path.read_text())
    edit(records)  # type: ignore[operator]
    path.write_text(json.dumps(records))


def test_comperdial_turns_against_hand_values(tmp_path: Path) -> None:
    """Turn level under the assumed evaluation layout: context, grounding, reference, scores."""
    bench = load_benchmark("comperdial", data_dir=_root(tmp_path, "comperdial"), cache=False)
    frame = bench.to_pandas().set_index("item_id")
    assert len(frame) == 6
    row = frame.loc["comperdial/100001/0003/human-1"]
    assert row.system == "Human 1" and row.turn_index == 3
    assert [u["speaker"] for u in row.context] == ["A", "B", "A"]
    assert row.context[1]["text"] == "Tiring, I had four night shifts at the hospital."
    assert row.response == "Yes, hiking with my dog Biscuit."
    assert list(row.references) == ["I take Biscuit up the hill trail every Sunday."]
    assert list(row.grounding) == [
        "I work as a nurse at night.",
        "My dog is called Biscuit.",
        "I love hiking.",
    ]
    assert row.scores["overall"] == 5.0  # [5, null, 5]: the null is dropped, not counted as 0
    assert frame.loc["comperdial/100001/0001/human-1"].response == (
        "Busy! Night shifts at the ward again."
    )
    assert frame.loc["comperdial/100001/0001/agent-01"].scores["overall"] == pytest.approx(11 / 3)
    assert bench.skipped == {"rating missing (null)": 1}
    ratings = bench.ratings()
    assert len(ratings) == 17 and ratings.annotator.isna().all()
    systems = bench.systems()
    assert systems.loc["agent_01", "items"] == 4
    assert systems.loc["agent_01", "overall"] == pytest.approx(
        np.mean([11 / 3, 5 / 3, 8 / 3, 4 / 3])
    )


def test_comperdial_dialogues_against_hand_values(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")
    bench = load_benchmark("comperdial", "dialogue", data_dir=root, cache=False)
    assert bench.item_ids == [
        "comperdial/100001/agent-01",
        "comperdial/100001/human-1",
        "comperdial/100002/agent-01",
    ]
    np.testing.assert_allclose(bench.human_scores(), [8 / 3, 14 / 3, 1.5])
    turns = bench.to_pandas().turns.iloc[1]
    assert [u["speaker"] for u in turns] == ["A", "B", "A", "B"]
    assert turns[3]["text"] == "Yes, hiking with my dog Biscuit."


def test_comperdial_dialogue_flows_make_the_conversation(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")
    frame = load_benchmark("comperdial", "dialogue", data_dir=root, cache=False).to_pandas()
    turns = frame.set_index("item_id").loc["comperdial/100002/agent-01", "turns"]
    # the base dialogue's A turns, agent_01's responses in place of its B turns
    assert [(u["speaker"], u["text"]) for u in turns] == [
        ("A", "Hi there, are you new in the building?"),
        ("B", "Yes I am."),
        ("A", "Welcome! I hope my violin practice does not bother you."),
        ("B", "I cook chemistry."),
    ]


def test_comperdial_flow_whose_context_is_not_the_base_dialogue_is_located(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")

    def reword(records: list[dict[str, Any]]) -> None:
        records[1]["flows"][1]["context"][1]["text"] = "Something else."

    _edit_json(root, f"comperdial/{comperdial.DIALOGUE_EVAL}", reword)
    with pytest.raises(DataFormatError, match="context is not a prefix of base dialogue 100001"):
        load_benchmark("comperdial", "dialogue", data_dir=root, cache=False)


def test_comperdial_annotated_dialogue_must_match_the_dialogue_dataset(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")

    def reword(records: list[dict[str, Any]]) -> None:
        records[1]["dialogue"][0]["text"] = "Hello."

    _edit_json(root, f"comperdial/{comperdial.ANNOTATED}", reword)
    with pytest.raises(DataFormatError, match="dialogue 100002 differs from the dialogue") as info:
        load_benchmark("comperdial", data_dir=root, cache=False)
    assert info.value.record == 1 and comperdial.ANNOTATED in str(info.value)


def test_comperdial_declares_pinned_hub_files() -> None:
    meta = get_metadata("comperdial")
    assert {s.path for s in meta.sources} == {
        "comperdial/ComperDial_data.json",
        "comperdial/ComperDial_dialogue_data.json",
        "comperdial/ComperDial_turn_level_evaluation.json",
        "comperdial/ComperDial_dialogue_level_evaluation.json",
    }
    for source in meta.sources:
        assert source.sha256 is None and source.hub is not None
        assert source.hub.repo_id == "Sony/ComperDial"
        assert source.hub.revision == "c4884b9c81f3eedd9e93790e454009f87204d1fe"
    assert any("All four published files are read" in note for note in meta.notes)
    assert "2406.11228" in meta.citation


def test_comperdial_missing_file_offline_names_repo_file_and_revision(tmp_path: Path) -> None:
    with pytest.raises(DataMissingError) as info:
        load_benchmark("comperdial", data_dir=tmp_path, cache=False)
    message = str(info.value)
    assert "Sony/ComperDial" in message
    assert "c4884b9c81f3eedd9e93790e454009f87204d1fe" in message
    assert str(tmp_path / "comperdial" / "ComperDial_data.json") in message
    assert "file ComperDial_data.json" in message


def test_comperdial_wrong_field_names_the_expected_fields(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")

    def rename(records: list[dict[str, object]]) -> None:
        records[4]["score"] = records[4].pop("scores")

    _edit_json(root, TURN_FILE, rename)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("comperdial", data_dir=root, cache=False)
    message = str(info.value)
    assert info.value.record == 4 and info.value.field == "scores"
    assert comperdial.TURN_EVAL in message
    assert "Expected fields: dialogue_id, model, turn_index, response, scores" in message
    assert "fields present: dialogue_id, model, response, score, turn_index" in message


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("turn_index", 4, r"turn_index 4 is outside 1\.\.3"),
        ("dialogue_id", 123, "dialogue_id 123 is not an annotated dialogue of ComperDial_dialogue"),
        ("dialogue_id", 100003, "dialogue_id 100003 is not an annotated dialogue"),
        ("scores", [4, "good"], "rating 'good' is not a number from 1 to 5"),
        ("scores", [4, 6], "rating 6 is outside the scale 1-5"),
        ("turn_index", "1", "expected int, found str"),
    ],
)
def test_comperdial_bad_values_are_located_errors(
    tmp_path: Path, field: str, value: object, match: str
) -> None:
    root = _root(tmp_path, "comperdial")

    def set_value(records: list[dict[str, object]]) -> None:
        records[2][field] = value

    _edit_json(root, TURN_FILE, set_value)
    with pytest.raises(DataFormatError, match=match) as info:
        load_benchmark("comperdial", data_dir=root, cache=False)
    assert info.value.record == 2 and info.value.field == field


def test_comperdial_utterance_without_speaker_names_its_place(tmp_path: Path) -> None:
    root = _root(tmp_path, "comperdial")

    def drop_speaker(records: list[dict[str, object]]) -> None:
        del records[1]["dialogue"][2]["persona_id"]  # type: ignore[index]

    _edit_json(root, "comperdial/ComperDial_data.json", drop_speaker)
    with pytest.raises(DataFormatError, match="Expected fields: persona_id, text") as info:
        load_benchmark("comperdial", data_dir=root, cache=False)
    assert info.value.record == "1.dialogue[2]"


# Soda-Eval -------------------------------------------------------------------------------------

SHARD = "soda_eval/data/test-00001-of-00002.parquet"


def _rewrite(root: Path, relative: str, change: object) -> None:
    """Rewrite one parquet shard after `change(table) -> table`."""
    path = root / relative
    pq.write_table(change(pq.read_table(path)), path)  # type: ignore[operator]


def _set(table: pa.Table, name: str, row: int, value: object) -> pa.Table:
    values = table.column(name).to_pylist()
    values[row] = value
    index = table.schema.get_field_index(name)
    return table.set_column(index, table.field(name), pa.array(values, table.field(name).type))


def test_soda_eval_rows_against_hand_values(tmp_path: Path) -> None:
    bench = load_benchmark("soda-eval", data_dir=_root(tmp_path, "soda_eval"), cache=False)
    frame = bench.to_pandas().set_index("item_id")
    assert frame.split.value_counts().to_dict() == {"train": 3, "test": 4, "val": 1}
    row = frame.loc["soda-eval/test/40/0003"]
    assert [(u["speaker"], u["text"]) for u in row.context] == [
        ("Mira", "The concert starts at eight."),
        ("Tom", "Then we should leave at seven: traffic is bad."),
        ("Mira", "Okay, I'll get my coat."),
    ]
    assert row.response == "The concert started at eight yesterday, I said it again and again."
    assert row.system == "soda" and row.dialogue_id == "40" and row.turn_index == 3
    flagged = {k for k, v in row.scores.items() if k.startswith("issue_") and v == 1.0}
    assert flagged == {"issue_repetition", "issue_non_textual", "issue_gender_pronoun"}
    assert row.scores["overall"] == 2.0 and row.scores["issue_coherence"] == 0.0
    train = frame.loc["soda-eval/train/11/0003"]
    assert train.response == "You have done great work there: ask for a raise."
    missing = frame.loc["soda-eval/test/40/0002"]
    assert missing.scores["overall"] is None and missing.scores["issue_fluency"] == 0.0
    assert bench.skipped == {"score missing": 1}
    ratings = bench.ratings()
    assert set(ratings.annotator) == {"gpt-4"}
    assert len(ratings) == 8 * 10 + 7  # ten issue flags per row, one score per scored row
    assert np.nanmean(bench.human_scores()) == pytest.approx((5 + 4 + 3 + 5 + 5 + 2 + 1) / 7)


def test_soda_eval_matches_an_independent_read_with_datasets(tmp_path: Path) -> None:
    """The same shards read by `datasets` and split with plain Python give the same items."""
    import datasets

    root = _root(tmp_path, "soda_eval")
    folder = root / "soda_eval"
    files = {
        s: sorted(str(p) for p in folder.glob(f"data/{s}-*.parquet")) for s in soda_eval.SPLITS
    }
    reference = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf"))
    loaded = load_benchmark("soda-eval", data_dir=root, cache=False).to_pandas()
    for split in soda_eval.SPLITS:
        ours = loaded[loaded.split == split]
        theirs = reference[split]
        assert len(ours) == theirs.num_rows
        for (_, item), raw in zip(ours.iterrows(), theirs, strict=True):
            lines = [line for line in raw["dialog_history"].split("\n") if line.strip()]
            assert [f"{u['speaker']}: {u['text']}" for u in item.context] == lines
            assert item.scores["overall"] == (None if raw["score"] is None else float(raw["score"]))
            types = {i["type"].lower().replace(" ", "_").replace("-", "_") for i in raw["issues"]}
            assert {k.removeprefix("issue_") for k, v in item.scores.items() if v == 1.0} - {
                "overall"
            } == types


def test_soda_eval_split_filter(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    val = load_benchmark("soda-eval", split="val", data_dir=root, cache=False)
    assert val.item_ids == ["soda-eval/val/27/0001"]


def test_soda_eval_missing_card_offline_names_repo_file_and_revision(tmp_path: Path) -> None:
    with pytest.raises(DataMissingError) as info:
        load_benchmark("soda-eval", data_dir=tmp_path, cache=False)
    message = str(info.value)
    assert "Johndfm/soda_eval" in message and "file README.md" in message
    assert "revision main" in message
    assert str(tmp_path / "soda_eval" / "README.md") in message


def test_soda_eval_missing_shards_offline_names_repo_pattern_and_revision(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    for shard in (root / "soda_eval" / "data").glob("val-*"):
        shard.unlink()
    with pytest.raises(DataMissingError) as info:
        load_benchmark("soda-eval", data_dir=root, cache=False)
    message = str(info.value)
    assert "Johndfm/soda_eval" in message and "data/val-*" in message
    assert "revision main" in message and str(root / "soda_eval") in message


def test_soda_eval_wrong_column_names_the_expected_columns(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    _rewrite(
        root,
        SHARD,
        lambda t: t.rename_columns(
            ["dialogue_history" if c == "dialog_history" else c for c in t.column_names]
        ),
    )
    with pytest.raises(DataFormatError) as info:
        load_benchmark("soda-eval", data_dir=root, cache=False)
    message = str(info.value)
    assert info.value.field == "dialog_history" and info.value.file == str(root / SHARD)
    assert "Expected columns: dialog_id int64, dialog_history string" in message
    assert "found: dialog_id, dialogue_history" in message


def test_soda_eval_wrong_column_type_is_named(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    _rewrite(
        root, SHARD, lambda t: t.set_column(4, "score", pc.cast(t.column("score"), pa.float64()))
    )
    with pytest.raises(DataFormatError, match="type double, expected int64") as info:
        load_benchmark("soda-eval", data_dir=root, cache=False)
    assert info.value.field == "score"


@pytest.mark.parametrize(
    ("name", "row", "value", "field", "match"),
    [
        (
            "dialog_history",
            1,
            "Lee: Hello!\nno speaker here",
            "dialog_history",
            "'no speaker here' is not",
        ),
        ("score", 0, 7, "score", "rating 7 is outside the scale 1-5"),
        ("split", 1, "validation", "split", "split 'validation' in a shard of split 'test'"),
        ("response", 0, None, "response", "value is null"),
        ("issues", 1, [{"comment": "?", "type": "Boredom"}], "issues", "'Boredom' is not in the"),
    ],
)
def test_soda_eval_bad_values_name_file_row_and_field(
    tmp_path: Path, name: str, row: int, value: object, field: str, match: str
) -> None:
    root = _root(tmp_path, "soda_eval")
    _rewrite(root, SHARD, lambda t: _set(t, name, row, value))
    with pytest.raises(DataFormatError, match=match) as info:
        load_benchmark("soda-eval", data_dir=root, cache=False)
    assert info.value.file == str(root / SHARD)
    assert info.value.record == f"row {row}" and info.value.field == field


def test_soda_eval_row_count_is_checked_against_the_card(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    (root / SHARD).unlink()
    with pytest.raises(DataFormatError, match=r"split 'test' has 2 rows in 1 shard.*declares 4"):
        load_benchmark("soda-eval", data_dir=root, cache=False)


def test_soda_eval_duplicate_turn_is_an_error(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    _rewrite(root, SHARD, lambda t: _set(t, "dialog_id", 1, 40))
    _rewrite(root, SHARD, lambda t: _set(t, "dialog_history", 1, "A: one\nB: two\nA: three"))
    with pytest.raises(DataFormatError, match=r"soda-eval/test/40/0003 would not be unique"):
        load_benchmark("soda-eval", data_dir=root, cache=False)


def test_soda_eval_content_fingerprint_follows_the_files_read(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    meta = get_metadata("soda-eval")
    digests = soda_eval.shard_digests(root)
    assert len(digests) == 5 and "soda_eval/data/test-00001-of-00002.parquet" in digests
    before = content_fingerprint(meta, root)
    assert content_fingerprint(meta, root) == before != meta.fingerprint
    _rewrite(root, SHARD, lambda t: _set(t, "score", 0, 3))
    assert content_fingerprint(meta, root) != before
    assert any("revision 'main'" in note for note in meta.notes)


def test_soda_eval_changed_shard_is_not_served_from_the_table_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    root = _root(tmp_path, "soda_eval")
    before = load_benchmark("soda-eval", split="test", data_dir=root)
    _rewrite(root, SHARD, lambda t: _set(t, "response", 0, "A changed response."))
    after = load_benchmark("soda-eval", split="test", data_dir=root)
    assert after.fingerprint != before.fingerprint
    assert "A changed response." in after.table.column("response").to_pylist()
    assert "A changed response." not in before.table.column("response").to_pylist()


def test_comperdial_changed_file_is_not_served_from_the_table_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    root = _root(tmp_path, "comperdial")
    before = load_benchmark("comperdial", data_dir=root)
    assert before.fingerprint != before.metadata.fingerprint
    _edit_json(root, TURN_FILE, lambda r: r[0].update(response="A changed response."))
    after = load_benchmark("comperdial", data_dir=root)
    assert after.fingerprint != before.fingerprint
    assert "A changed response." in after.table.column("response").to_pylist()
    assert load_benchmark("comperdial", data_dir=root).fingerprint == after.fingerprint


def test_export_without_the_files_does_not_ship_cached_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.report.release import export_release

    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fixtures = _root(tmp_path, "comperdial")
    for level in get_metadata("comperdial").stored_levels:
        load_benchmark("comperdial", level, data_dir=fixtures)  # fills the table cache
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataMissingError, match=r"needs the raw file .*Sony/ComperDial"):
        export_release(["comperdial"], tmp_path / "out", data_dir=empty)


def test_soda_eval_reads_shards_in_many_row_groups_alike(tmp_path: Path) -> None:
    """Shards written one row a row group (chunked columns) give the same table."""
    plain = load_benchmark("soda-eval", data_dir=_root(tmp_path / "a", "soda_eval"), cache=False)
    root = _root(tmp_path / "b", "soda_eval")
    for shard in (root / "soda_eval" / "data").glob("*.parquet"):
        pq.write_table(pq.read_table(shard), shard, row_group_size=1)
    chunked = load_benchmark("soda-eval", data_dir=root, cache=False)
    assert chunked.table.equals(plain.table)


def _online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline mode off and the Hub taken as reachable (the downloads themselves are faked)."""
    for name in ("COMPERBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(name, "0")
    monkeypatch.setattr(data, "why_unreachable", lambda url: None)


@pytest.mark.parametrize("name", ["comperdial", "soda-eval"])
def test_hub_benchmark_fails_at_once_when_the_hub_is_unreachable(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in offline mode, but nothing listens at the endpoint: no retries, a message that says so."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for env in ("COMPERBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(env, "0")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(DataMissingError, match=re.escape("127.0.0.1 is not reachable")):
        load_benchmark(name, data_dir=tmp_path, cache=False)


def test_soda_eval_downloads_missing_shards_of_the_pinned_revision_when_online(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Online, a split without local shards is fetched with snapshot_download(allow_patterns)."""
    import huggingface_hub

    root = _root(tmp_path, "soda_eval")
    for shard in (root / "soda_eval" / "data").glob("test-*"):
        shard.unlink()
    calls: list[dict[str, object]] = []

    def fake_snapshot(**kwargs: object) -> str:
        calls.append(kwargs)
        local = Path(str(kwargs["local_dir"]))
        for shard in (FIXTURES / "soda_eval" / "data").glob("test-*"):
            shutil.copy(shard, local / "data" / shard.name)
        return str(local)

    _online(monkeypatch)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot)
    bench = load_benchmark("soda-eval", split="test", data_dir=root, cache=False)
    assert len(bench) == 4
    assert calls == [
        {
            "repo_id": "Johndfm/soda_eval",
            "repo_type": "dataset",
            "revision": "main",
            "allow_patterns": ["data/test-*"],
            "local_dir": root / "soda_eval",
        }
    ]


def test_soda_eval_failed_download_names_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub

    root = _root(tmp_path, "soda_eval")
    for shard in (root / "soda_eval" / "data").glob("val-*"):
        shard.unlink()

    def unreachable(**kwargs: object) -> str:
        raise OSError("network is unreachable")

    _online(monkeypatch)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", unreachable)
    with pytest.raises(DataMissingError, match="download failed: network is unreachable"):
        load_benchmark("soda-eval", data_dir=root, cache=False)


def test_comperdial_downloads_each_file_at_the_pinned_revision_when_online(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub

    fetched: list[tuple[str, str, str, str]] = []

    def fake_download(repo_id: str, filename: str, revision: str, repo_type: str) -> str:
        fetched.append((repo_id, filename, revision, repo_type))
        return str(FIXTURES / "comperdial" / filename)

    _online(monkeypatch)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    bench = load_benchmark("comperdial", data_dir=tmp_path, cache=False)
    assert len(bench) == 6
    assert sorted(fetched) == [
        ("Sony/ComperDial", name, comperdial.REVISION, "dataset")
        for name in sorted(
            (
                comperdial.DIALOGUES,
                comperdial.ANNOTATED,
                comperdial.TURN_EVAL,
                comperdial.DIALOGUE_EVAL,
            )
        )
    ]
    assert (tmp_path / "comperdial" / comperdial.TURN_EVAL).is_file()


def _synthetic_soda_eval(
    folder: Path, sizes: dict[str, int], seed: int = 0
) -> dict[str, np.ndarray]:
    """A Soda-Eval copy of the given split sizes (12 rated turns a dialogue); returns the scores."""
    rng = np.random.default_rng(seed)
    (folder / "data").mkdir(parents=True)
    card = (FIXTURES / "soda_eval" / "README.md").read_text()
    schema = pa.schema(list(soda_eval.COLUMNS.items()))
    types = list(soda_eval.ISSUE_TYPES)
    scores = {}
    for offset, (split, n) in enumerate(sizes.items()):
        turns = np.arange(n) % 12 + 1
        dialogs = np.arange(n) // 12 + offset * 1_000_000
        lines = [f"{'Ann' if i % 2 == 0 else 'Bob'}: line {i}: some words here" for i in range(13)]
        scores[split] = rng.integers(1, 6, n)
        issue_counts = rng.integers(0, 3, n)
        table = pa.Table.from_pydict(
            {
                "dialog_id": dialogs,
                "dialog_history": ["\n".join(lines[:t]) for t in turns.tolist()],
                "response": [lines[t] for t in turns.tolist()],
                "overall_comment": ["comment"] * n,
                "score": scores[split],
                "issues": [
                    [{"comment": "c", "type": types[(i + k) % len(types)]} for k in range(c)]
                    for i, c in enumerate(issue_counts.tolist())
                ],
                "split": [split] * n,
            },
            schema=schema,
        )
        pq.write_table(table, folder / "data" / f"{split}-00000-of-00001.parquet")
        card = re.sub(
            rf"(- name: {split}\n\s+num_bytes: \d+\n\s+num_examples: )\d+", rf"\g<1>{n}", card
        )
    (folder / "README.md").write_text(card)
    return scores


@pytest.mark.slow
def test_soda_eval_at_full_size(tmp_path: Path) -> None:
    """A synthetic copy with the published split sizes (122,648 rows) loads completely and right."""
    sizes = {"train": 85_876, "val": 24_535, "test": 12_237}
    root = tmp_path / "data"
    scores = _synthetic_soda_eval(root / "soda_eval", sizes)
    bench = load_benchmark("soda-eval", data_dir=root, cache=False)
    assert len(bench) == sum(sizes.values()) and len(set(bench.item_ids)) == len(bench)
    for split, n in sizes.items():
        part = bench.table.filter(pc.equal(bench.table.column("split"), split))
        assert part.num_rows == n
        values = pc.struct_field(part.column("scores"), "overall").to_numpy()
        np.testing.assert_array_equal(values, scores[split].astype(float))
        lengths = pc.list_value_length(part.column("context")).to_numpy()
        np.testing.assert_array_equal(lengths, part.column("turn_index").to_numpy())
    assert bench.table.column("item_id")[0].as_py() == "soda-eval/train/0/0001"


def test_soda_eval_card_without_the_split_patterns_is_named(tmp_path: Path) -> None:
    root = _root(tmp_path, "soda_eval")
    card = root / "soda_eval" / "README.md"
    card.write_text(card.read_text().replace("  - split: val\n    path: data/val-*\n", ""))
    with pytest.raises(DataFormatError, match=r"names splits \['test', 'train'\]") as info:
        load_benchmark("soda-eval", data_dir=root, cache=False)
    assert info.value.file == str(card) and info.value.field == "configs"


def test_soda_eval_download_that_finds_nothing_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub

    root = _root(tmp_path, "soda_eval")
    for shard in (root / "soda_eval" / "data").glob("val-*"):
        shard.unlink()
    _online(monkeypatch)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda **kwargs: "")
    with pytest.raises(DataMissingError, match="the download matched no file"):
        load_benchmark("soda-eval", data_dir=root, cache=False)
