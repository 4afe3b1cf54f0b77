"""GRADE loaders against the counts in grade/SOURCE.md, GRADE's per-system means and the DSTC10 copy."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from comperbench import get_metadata, load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.grade import GradeDailydialog

JUDGEMENTS = "grade/evaluation/human_score/human_judgement.json"
DD_HYP = "grade/evaluation/eval_data/dailydialog/transformer_ranker/human_hyp.txt"

GRADE = [
    # name, items, systems, dataset folder, DSTC10 file
    (
        "grade-convai2",
        600,
        {"bert_ranker", "dialogGPT", "transformer_generator", "transformer_ranker"},
        "convai2",
        "convai2-grade_eval.json",
    ),
    (
        "grade-dailydialog",
        300,
        {"transformer_generator", "transformer_ranker"},
        "dailydialog",
        "dailydialog-grade_eval.json",
    ),
    (
        "grade-empathetic",
        300,
        {"transformer_generator", "transformer_ranker"},
        "empatheticdialogues",
        "empathetic-grade_eval.json",
    ),
]


def _patched_root(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: dict[str, Any]
) -> Path:
    """A copy of the GRADE-DailyDialog files with `edits[path](text) -> text`, sha256 matched."""
    meta = GradeDailydialog.metadata
    root = tmp_path / "data"
    sources = []
    for source in meta.sources:
        target = root / source.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_root / source.path, target)
        if source.path in edits:
            content = edits[source.path](target.read_text()).encode()
            target.write_bytes(content)
            source = dataclasses.replace(source, sha256=hashlib.sha256(content).hexdigest())
        sources.append(source)
    monkeypatch.setattr(
        GradeDailydialog, "metadata", dataclasses.replace(meta, sources=tuple(sources))
    )
    return root


def _edit_judgement(index: int, field: str, value: Any) -> Any:
    def edit(text: str) -> str:
        records = json.loads(text)
        if value is None:
            del records[index][field]
        else:
            records[index][field] = value
        return json.dumps(records)

    return edit


@pytest.mark.parametrize(("name", "items", "systems", "folder", "dstc10"), GRADE)
def test_grade_counts_match_source(
    data_root: Path, name: str, items: int, systems: set[str], folder: str, dstc10: str
) -> None:
    bench = load_benchmark(name)
    frame = bench.to_pandas()
    assert len(frame) == items and frame.item_id.is_unique
    assert frame.system.value_counts().to_dict() == dict.fromkeys(systems, 150)
    assert bench.skipped == {}
    assert bench.metadata.has_references
    assert all(len(refs) == 1 and refs[0] for refs in frame.references)
    assert all(len(c) == 2 for c in frame.context)
    ratings = bench.ratings()
    assert set(ratings.aspect) == {"relevance"}
    assert ratings.value.min() == 1 and ratings.value.max() == 5
    assert ratings.annotator.isna().all()


def test_grade_rating_counts_over_the_three_sets(data_root: Path) -> None:
    sizes: Counter[int] = Counter()
    for name, *_ in GRADE:
        sizes.update(load_benchmark(name).ratings().groupby("item_id").size().tolist())
    assert sizes == {10: 1030, 9: 115, 11: 45, 8: 10}
    assert sum(k * n for k, n in sizes.items()) == 11910


def test_grade_declares_only_the_files_it_reads() -> None:
    paths = [s.path for s in get_metadata("grade-dailydialog").sources]
    assert paths[0] == JUDGEMENTS
    assert sorted(p.rsplit("/", 1)[1] for p in paths[1:]) == sorted(
        ["human_ctx.txt", "human_hyp.txt", "human_ref.txt"] * 2
    )
    assert len(get_metadata("grade-convai2").sources) == 1 + 4 * 3
    source = get_metadata("grade-empathetic").sources[0]
    assert source.sha256 == "442ff57e0b980ebf820528e952b3e0722eed31fc97debeb88b61ea72efedc83b"
    assert source.url == (
        "https://raw.githubusercontent.com/li3cmz/GRADE/c6cec028e1b4495a388f1c181b10221e4d0c5955/"
        "evaluation/human_score/human_judgement.json"
    )


def test_grade_first_item_by_hand(data_root: Path) -> None:
    first = load_benchmark("grade-dailydialog").to_pandas().iloc[0]
    assert first.item_id == "grade-dailydialog/transformer-generator/0000"
    assert first.system == "transformer_generator" and first.turn_index == 2
    assert [u["text"] for u in first.context] == [
        "yes , that's my only day off until Thursday .",
        "ok , well , my friends and I are planning on going to the beach on Sunday . We tend to "
        "leave around noon whenever we go anywhere , so you could still sleep in . Do you want "
        "to come with us ?",
    ]
    assert first.response == "ok . I ' ll be there in the afternoon ."
    assert list(first.references) == ["that'd be fantastic ! Which beach are you going to ?"]
    # HumanScores "[3, 5, 5, 2, 4, 5, 3, 3, 5, 1]"
    assert first.scores["relevance"] == pytest.approx(36 / 10)


@pytest.mark.parametrize(("name", "items", "systems", "folder", "dstc10"), GRADE)
def test_item_means_equal_grade_human_score_files(
    data_root: Path, name: str, items: int, systems: set[str], folder: str, dstc10: str
) -> None:
    frame = load_benchmark(name).to_pandas()
    for system in systems:
        published = (
            data_root / "grade/evaluation/human_score" / folder / system / "human_score.txt"
        ).read_text()
        expected = [float(v) for v in published.split()]
        ours = [s["relevance"] for s in frame[frame.system == system].scores]
        assert ours == pytest.approx(expected, abs=1e-4)  # the file rounds to 4 decimals


@pytest.mark.parametrize(("name", "items", "systems", "folder", "dstc10"), GRADE)
def test_grade_matches_its_dstc10_copy(
    data_root: Path, name: str, items: int, systems: set[str], folder: str, dstc10: str
) -> None:
    bench = load_benchmark(name)
    frame = bench.to_pandas()
    ours = Counter(
        (system, response, tuple(r["value"] for r in ratings))
        for system, response, ratings in zip(
            frame.system, frame.response, frame.ratings, strict=True
        )
    )
    copy = json.loads((data_root / "dstc10_track5" / dstc10).read_text())
    theirs = Counter(
        (
            record["model_name"],
            record["response"].strip(),
            tuple(float(v) for v in record["annotations"]["relevance"] if not isinstance(v, str)),
        )
        for record in copy
    )
    assert len(copy) == len(bench)
    assert ours == theirs


def test_bad_human_scores_names_record_id_and_field(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgement(5, "HumanScores", "[3, 5, 5, 2, 4")
    root = _patched_root(data_root, tmp_path, monkeypatch, {JUDGEMENTS: edit})
    with pytest.raises(DataFormatError) as info:
        load_benchmark("grade-dailydialog", data_dir=root, cache=False)
    assert info.value.record == "5 (ID 5)" and info.value.field == "HumanScores"
    assert "not a JSON list" in str(info.value)


def test_out_of_scale_human_score_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgement(8, "HumanScores", "[3, 5, 0, 2]")
    root = _patched_root(data_root, tmp_path, monkeypatch, {JUDGEMENTS: edit})
    with pytest.raises(DataFormatError, match=r"record 8 \(ID 8\), field 'HumanScores'.*1-5"):
        load_benchmark("grade-dailydialog", data_dir=root, cache=False)


def test_missing_field_names_record_and_field(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgement(160, "Response", None)
    root = _patched_root(data_root, tmp_path, monkeypatch, {JUDGEMENTS: edit})
    with pytest.raises(DataFormatError, match=r"record 160 \(ID 160\), field 'Response': missing"):
        load_benchmark("grade-dailydialog", data_dir=root, cache=False)


def test_misaligned_reference_files_are_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def swap_two_lines(text: str) -> str:
        lines = text.split("\n")
        lines[3], lines[4] = lines[4], lines[3]
        return "\n".join(lines)

    root = _patched_root(data_root, tmp_path, monkeypatch, {DD_HYP: swap_two_lines})
    with pytest.raises(DataFormatError) as info:
        load_benchmark("grade-dailydialog", data_dir=root, cache=False)
    message = str(info.value)
    assert info.value.record == "153 (ID 153)" and info.value.field == "Response"
    assert "line 4 of" in message and "human_hyp.txt" in message
    assert "references cannot be aligned" in message


def test_judgements_missing_for_some_lines_are_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def drop_last_ranker_judgement(text: str) -> str:
        records = json.loads(text)
        del records[299]
        return json.dumps(records)

    root = _patched_root(data_root, tmp_path, monkeypatch, {JUDGEMENTS: drop_last_ranker_judgement})
    with pytest.raises(DataFormatError, match=r"150 lines but 149 judgements"):
        load_benchmark("grade-dailydialog", data_dir=root, cache=False)
