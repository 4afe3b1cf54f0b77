"""Submission parsing and validation: every error names its line, id and column; nothing slips through."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from comperbench.leaderboard import submission as sub
from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta, parse, parse_file

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"
META = SubmissionMeta(name="test-metric", authors="A. Author", link="https://example.org")


@pytest.fixture(scope="module")
def index(data_root: Path) -> ItemIndex:
    return ItemIndex(["usr-persona", "usr-topical"])


@pytest.fixture(scope="module")
def topical_ids(index: ItemIndex) -> list[str]:
    return cached_benchmark("usr-topical", "turn").item_ids


def _csv(rows: list[tuple[str, object]], header: str = "item_id,score") -> bytes:
    return (header + "\n" + "".join(f"{i},{s}\n" for i, s in rows)).encode()


def _problems(excinfo: pytest.ExceptionInfo[SubmissionError]) -> list[str]:
    return [str(p) for p in excinfo.value.problems]


def test_full_csv_is_aligned_with_the_benchmark(index: ItemIndex, topical_ids: list[str]) -> None:
    rows = [(i, n / 10) for n, i in enumerate(reversed(topical_ids))]
    result = parse("m.csv", _csv(rows), META, index)
    [coverage] = result.metrics["test-metric"]
    assert (coverage.benchmark, coverage.level) == ("usr-topical", "turn")
    assert coverage.full and coverage.covered == coverage.total == 360
    # the file lists items in reverse; the stored scores follow the benchmark's order
    assert coverage.scores[0] == pytest.approx(35.9)
    assert coverage.scores[-1] == pytest.approx(0.0)
    assert result.format == "csv" and result.rows == 360


def test_jsonl_parquet_gzip_and_zip_give_the_same_scores(
    index: ItemIndex, topical_ids: list[str]
) -> None:
    rows = [(i, float(n)) for n, i in enumerate(topical_ids)]
    csv_bytes = _csv(rows)
    jsonl = "".join(json.dumps({"item_id": i, "score": s}) + "\n" for i, s in rows).encode()
    buffer = io.BytesIO()
    pq.write_table(pa.table({"item_id": topical_ids, "score": [s for _, s in rows]}), buffer)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("scores.jsonl", jsonl)
    uploads = {
        "m.csv": csv_bytes,
        "m.jsonl": jsonl,
        "m.parquet": buffer.getvalue(),
        "m.csv.gz": gzip.compress(csv_bytes),
        "m.zip": zipped.getvalue(),
    }
    expected = np.arange(360, dtype=float)
    for name, raw in uploads.items():
        [coverage] = parse(name, raw, META, index).metrics["test-metric"]
        np.testing.assert_array_equal(coverage.scores, expected, err_msg=name)


def test_several_metric_columns_become_several_metrics(
    index: ItemIndex, topical_ids: list[str]
) -> None:
    body = "item_id,len,overlap\n" + "".join(f"{i},1,2\n" for i in topical_ids)
    result = parse("m.csv", body.encode(), META, index)
    assert sorted(result.metrics) == ["test-metric/len", "test-metric/overlap"]


def test_partial_coverage_is_reported_not_refused(index: ItemIndex) -> None:
    result = parse_file(FIXTURES / "partial.csv", META, index)
    [coverage] = result.metrics["test-metric"]
    assert (coverage.covered, coverage.total, coverage.full) == (2, 360, False)
    assert np.isnan(coverage.scores).sum() == 358


def test_every_bad_cell_is_located(index: ItemIndex, topical_ids: list[str]) -> None:
    a, b = topical_ids[:2]
    rows = [
        (a, "abc"),
        (b, ""),
        (a, "1"),
        ("usr-topical/9999/none", "2"),
        ("nope/1", "nan"),
        (b, "inf"),
    ]
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", _csv(rows), META, index)
    found = _problems(info)
    assert f"line 2, item_id {a!r}, column 'score': not a number ('abc')" in found
    assert f"line 3, item_id {b!r}, column 'score': missing value" in found
    assert f"line 4, item_id {a!r}: duplicate id (first on line 2)" in found
    assert any(p.startswith("line 5, item_id 'usr-topical/9999/none': unknown id") for p in found)
    assert any("line 6, item_id 'nope/1': unknown id" in p and "'nope'" in p for p in found)
    assert "line 6, item_id 'nope/1', column 'score': not a finite number ('nan')" in found
    assert f"line 7, item_id {b!r}: duplicate id (first on line 3)" in found
    assert "rejected (7 problems)" in str(info.value)


def test_jsonl_types_are_strict(index: ItemIndex) -> None:
    with pytest.raises(SubmissionError) as info:
        parse_file(FIXTURES / "bad.jsonl", META, index)
    found = _problems(info)
    assert (
        "line 2, item_id 'usr-topical/0000/original-ground-truth', column 'score': missing value"
        in found
    )
    assert any(p.startswith("line 3") and "not a number (True)" in p for p in found)


def test_wrong_column_names_suggest_the_right_one(index: ItemIndex) -> None:
    with pytest.raises(
        SubmissionError, match=r"line 1: no 'item_id' column; columns are \['id', 'score'\]"
    ):
        parse_file(FIXTURES / "wrong_columns.csv", META, index)
    with pytest.raises(SubmissionError, match="no score column"):
        parse("m.csv", b"item_id\nusr-topical/0000/argmax-decoding\n", META, index)
    with pytest.raises(SubmissionError, match="column 'my score': column names are"):
        parse("m.csv", b"item_id,my score\n", META, index)


def test_encoding_error_names_the_line(index: ItemIndex) -> None:
    with pytest.raises(SubmissionError, match=r"line 3: not valid UTF-8 \(byte \d+\)"):
        parse_file(FIXTURES / "latin1.csv", META, index)


def test_ragged_csv_rows_are_located(index: ItemIndex) -> None:
    with pytest.raises(SubmissionError, match="line 3: 3 fields, the header has 2"):
        parse("m.csv", b"item_id,score\nusr-topical/0000/argmax-decoding,1\na,b,c\n", META, index)


def test_parquet_with_text_scores_is_refused(index: ItemIndex) -> None:
    buffer = io.BytesIO()
    pq.write_table(pa.table({"item_id": ["x"], "score": ["0.5"]}), buffer)
    with pytest.raises(SubmissionError, match="column 'score': must be numbers, found string"):
        parse("m.parquet", buffer.getvalue(), META, index)


def test_oversize_file_and_decompression_bomb(
    index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sub, "MAX_FILE_BYTES", 100)
    with pytest.raises(SubmissionError, match="file is 101 bytes; the limit is 100"):
        parse("m.csv", b"x" * 101, META, index)
    monkeypatch.setattr(sub, "MAX_FILE_BYTES", 10_000)
    monkeypatch.setattr(sub, "MAX_EXPANDED_BYTES", 1_000_000)
    bomb = gzip.compress(b"0" * 2_000_000)
    assert len(bomb) < 10_000
    with pytest.raises(SubmissionError, match="expands to more than 1000000 bytes"):
        parse("m.csv.gz", bomb, META, index)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("m.csv", b"0" * 2_000_000)
    with pytest.raises(SubmissionError, match="expands to more than"):
        parse("m.zip", zipped.getvalue(), META, index)


def test_zip_with_two_files_and_unknown_types(index: ItemIndex) -> None:
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("a.csv", "item_id,score\n")
        archive.writestr("b.csv", "item_id,score\n")
    with pytest.raises(SubmissionError, match=r"exactly one file; it holds: a\.csv, b\.csv"):
        parse("m.zip", zipped.getvalue(), META, index)
    with pytest.raises(SubmissionError, match="unknown file type 'xlsx'"):
        parse("m.xlsx", b"item_id,score\n", META, index)
    with pytest.raises(SubmissionError, match="the file is empty"):
        parse("m.csv", b"", META, index)


def test_metadata_is_checked(index: ItemIndex) -> None:
    bad = SubmissionMeta(name=" ", link="javascript:alert(1)", trained_on=("usr-topicl",))
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", b"item_id,score\n", bad, index)
    found = _problems(info)
    assert "field 'name': a metric name is required" in found
    assert (
        "field 'link': not a valid http(s) link (scheme 'javascript'): 'javascript:alert(1)'"
        in found
    )
    assert "field 'trained_on': unknown benchmark 'usr-topicl'" in found
    assert str(info.value).startswith("submission m.csv was rejected (3 problems): 3 metadata")


def test_huge_integers_are_located_errors(index: ItemIndex, topical_ids: list[str]) -> None:
    a, b = topical_ids[:2]
    huge = "9" * 400
    jsonl = f'{{"item_id": "{a}", "score": {huge}}}\n{{"item_id": "{b}", "score": 1}}\n'
    with pytest.raises(SubmissionError) as info:
        parse("m.jsonl", jsonl.encode(), META, index)
    assert (
        f"line 1, item_id {a!r}, column 'score': not a finite number"
        " (an integer too large for a float)"
    ) in _problems(info)
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", _csv([(a, huge), (b, "1")]), META, index)
    assert any(
        p.startswith(f"line 2, item_id {a!r}, column 'score': not a finite number")
        for p in _problems(info)
    )
    beyond = f'{{"item_id": "{a}", "score": {"9" * 5000}}}\n'
    with pytest.raises(SubmissionError, match="line 1: invalid JSON"):
        parse("m.jsonl", beyond.encode(), META, index)


def test_column_hint_shows_the_actual_header(index: ItemIndex) -> None:
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", b"Item_ID,score\nusr-topical/0000/argmax-decoding,1\n", META, index)
    assert "(is 'Item_ID' meant to be 'item_id'?)" in str(info.value)
