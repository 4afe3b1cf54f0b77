"""Submission parsing and validation: every error names its line, id and column; nothing slips through."""

from __future__ import annotations

import gzip
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from comperbench.leaderboard import submission as sub
from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.service import submit
from comperbench.leaderboard.store import Store
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
    with pytest.raises(SubmissionError, match=r"exactly one file; it holds: 'a\.csv', 'b\.csv'"):
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


def test_a_declared_family_is_one_the_registry_knows(index: ItemIndex) -> None:
    from comperbench.metrics.registry import get

    assert {get("bleu-4").family, get("embedding-average").family} <= set(sub.METRIC_FAMILIES)
    for family in (None, *sub.METRIC_FAMILIES):
        assert SubmissionMeta("m", family=family).problems(["usr-topical"]) == []
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", b"item_id,score\n", SubmissionMeta("m", family="neural"), index)
    assert _problems(info) == [
        "field 'family': unknown family 'neural'; one of ngram, embedding, learned, llm"
    ]
    assert "unknown family ''" in str(SubmissionMeta("m", family="").problems([])[0])


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


def _rejection(
    raw: bytes, index: ItemIndex, name: str = "m.jsonl", meta: SubmissionMeta = META
) -> str:
    with pytest.raises(SubmissionError) as info:
        parse(name, raw, meta, index)
    return str(info.value)


def test_a_key_given_twice_is_a_located_error(index: ItemIndex, topical_ids: list[str]) -> None:
    good = json.dumps({"item_id": topical_ids[0], "score": 1})
    twice = json.dumps({"item_id": topical_ids[1], "score": 1})[:-1] + ', "score": 2}'
    message = _rejection(f"{good}\n{twice}\n".encode(), index)
    assert "line 2: invalid JSON (key 'score' appears twice in one object)" in message


def test_deeply_nested_json_is_a_located_error(
    index: ItemIndex, topical_ids: list[str], tmp_path: Path
) -> None:
    good = json.dumps({"item_id": topical_ids[0], "score": 1})
    deep = '{"item_id": "x", "score": ' + "[" * 100_000 + "]" * 100_000 + "}"
    message = _rejection(f"{good}\n{deep}\n".encode(), index)
    assert f"line 2: JSON nested deeper than {sub.MAX_JSON_DEPTH} levels" in message
    store = Store(tmp_path / "lb.sqlite")
    with pytest.raises(SubmissionError):
        submit("m.jsonl", deep.encode(), META, store, index)
    assert store.count() == 0
    # brackets inside strings do not nest; nesting within the limit is read (and refused as a score)
    brackets = json.dumps({"item_id": "[" * 100, "score": 1})
    assert "unknown id" in _rejection(brackets.encode(), index)
    nested = json.dumps({"item_id": topical_ids[0], "score": [[[1]]]})
    assert "column 'score': not a number (list)" in _rejection(nested.encode(), index)


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        (
            SubmissionMeta(name="m", authors="a" * 100_000),
            "field 'authors': 100000 characters; at most 1000",
        ),
        (
            SubmissionMeta(name="m", description="d" * 5_001),
            "field 'description': 5001 characters; at most 5000",
        ),
        (SubmissionMeta(name="m" * 101), "field 'name': 101 characters; at most 100"),
    ],
    ids=["authors", "description", "name"],
)
def test_long_metadata_fields_are_refused(
    index: ItemIndex, meta: SubmissionMeta, expected: str
) -> None:
    assert f"(1 problem):\n  {expected}" in _rejection(b"", index, meta=meta)


def test_ansi_escapes_and_control_characters_are_refused(index: ItemIndex) -> None:
    meta = SubmissionMeta(name="m\x9b31m", authors="\x1b[31mred\x1b[0m", description="a\x00b")
    message = _rejection(b"", index, meta=meta)
    control = "a control character or undecodable byte"
    assert f"field 'name': {control} (U+009B) at character 2" in message
    assert f"field 'authors': {control} (U+001B) at character 1" in message
    assert f"field 'description': {control} (U+0000) at character 2" in message
    undecodable = SubmissionMeta(name="x\udcff")  # a command-line argument with a byte 0xff
    assert f"field 'name': {control} (U+DCFF) at character 2" in _rejection(
        b"", index, meta=undecodable
    )
    prose = SubmissionMeta(name="m", description="two\nlines,\ttabbed", link=META.link)
    assert prose.problems([]) == []


@pytest.mark.parametrize(
    "invisible", ["\u200b", "\ufeff", "\u00ad", "\U000e0041", "\U000e007f", "\u2800", "\u3164"]
)
def test_invisible_characters_in_metadata_are_refused(index: ItemIndex, invisible: str) -> None:
    meta = SubmissionMeta(name=f"bleu{invisible}", authors=invisible, description=f"a{invisible}")
    message = _rejection(b"", index, meta=meta)
    code = f"U+{ord(invisible):04X}"
    assert f"field 'name': an invisible character ({code}) at character 5" in message
    assert f"field 'authors': an invisible character ({code}) at character 1" in message
    assert f"field 'description': an invisible character ({code}) at character 2" in message


@pytest.mark.parametrize("column", ["bleu\n", "bleu\u200b", "\ufeffbleu"])
def test_a_metric_column_name_with_a_hidden_character_is_refused(
    index: ItemIndex, topical_ids: list[str], column: str
) -> None:
    record = json.dumps({"item_id": topical_ids[0], column: 1})
    message = _rejection(f"{record}\n".encode(), index)
    assert "column names are letters, digits, '_', '.', '-' (at most 64)" in message


def test_bidi_characters_in_names_are_refused(index: ItemIndex) -> None:
    meta = SubmissionMeta(name="evil\u202egnp.exe", authors="A\u200f", description="x\u2066y")
    message = _rejection(b"", index, meta=meta)
    assert "field 'name': a bidi override or isolate (U+202E) at character 5" in message
    assert "field 'authors': a bidi mark (U+200F) at character 2" in message
    assert "field 'description': a bidi override or isolate (U+2066) at character 2" in message
    # a description may hold the marks that right-to-left prose needs
    assert (
        SubmissionMeta(name="m", description="\u05e9\u05dc\u05d5\u05dd\u200f.").problems([]) == []
    )


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ('https://x"onmouseover="alert(1)', "'\"' at character 10"),
        ("https://x/<script>", "'<' at character 11"),
        ("https://x y", "' ' at character 10"),
        ("https://", "no host"),
        ("ftp://example.org", "scheme 'ftp'"),
        ("example.org", "no scheme"),
        ("https://user@example.org", "a user name before the host"),
        ("https://example.org:99999", "Port out of range 0-65535"),
    ],
)
def test_links_must_be_plain_http_urls(index: ItemIndex, link: str, reason: str) -> None:
    message = _rejection(b"", index, meta=SubmissionMeta(name="m", link=link))
    assert f"field 'link': not a valid http(s) link ({reason}): {link!r}" in message


def test_good_links_are_accepted() -> None:
    for link in ("https://example.org/a_b?q=1&r=%20#top", "http://[::1]:8080/x", ""):
        assert SubmissionMeta(name="m", link=link).problems([]) == []


@pytest.mark.parametrize("cell", ["1_000", "\uff11\uff12", "\u0663", "0x10", "1,5"])
def test_csv_scores_are_plain_ascii_decimals(
    index: ItemIndex, topical_ids: list[str], cell: str
) -> None:
    a, b = topical_ids[:2]
    message = _rejection(_csv([(b, "1"), (a, f'"{cell}"')]), index, "m.csv")
    assert f"line 3, item_id {a!r}, column 'score': not a number ({cell!r}" in message


def test_csv_decimal_forms_are_read(index: ItemIndex, topical_ids: list[str]) -> None:
    cells = ["-1.5e-3", ".5", "5.", "+2", " 7 ", "1E2"]
    rows = [(i, cells[n % len(cells)]) for n, i in enumerate(topical_ids)]
    [coverage] = parse("m.csv", _csv(rows), META, index).metrics["test-metric"]
    assert coverage.scores[: len(cells)].tolist() == [-0.0015, 0.5, 5.0, 2.0, 7.0, 100.0]


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        ('"0.5"', "not a number (the JSON string '0.5'; write scores without quotes)"),
        ("false", "not a number (False)"),
        ("true", "not a number (True)"),
        ('{"v": 1}', "not a number (dict)"),
    ],
    ids=["string", "false", "true", "object"],
)
def test_jsonl_scores_are_json_numbers_only(
    index: ItemIndex, topical_ids: list[str], score: str, expected: str
) -> None:
    a = topical_ids[0]
    line = f'{{"item_id": "{a}", "score": {score}}}\n'
    assert f"line 1, item_id {a!r}, column 'score': {expected}" in _rejection(line.encode(), index)


def test_many_problems_are_summarised(index: ItemIndex, topical_ids: list[str]) -> None:
    rows = [(f"usr-topical/{n:04d}/none", "1") for n in range(370)]
    rows += [(i, "abc") for i in topical_ids[:5]]
    lines = _rejection(_csv(rows), index, "m.csv").splitlines()
    assert lines[0] == (
        "submission m.csv was rejected (375 problems): 370 unknown item ids,"
        f" 5 scores not numbers; {sub.MAX_PROBLEMS} listed, the first of each kind among them:"
    )
    assert len(lines) == 2 + sub.MAX_PROBLEMS
    assert lines[1].startswith("  line 2, item_id 'usr-topical/0000/none': unknown id")
    # the first bad score (line 372) is listed after the first 9 unknown ids
    assert lines[-2].startswith(f"  line 372, item_id {topical_ids[0]!r}, column 'score'")
    assert lines[-1] == f"  ... and {375 - sub.MAX_PROBLEMS} more"
    with pytest.raises(SubmissionError) as info:
        parse("m.csv", _csv(rows), META, index)
    assert info.value.total == 375
    assert len(info.value.problems) == sub.MAX_PROBLEMS + 1  # the first 10, and the first bad score


def test_reading_stops_after_the_counted_problems(index: ItemIndex) -> None:
    rows = [(f"usr-topical/{n:07d}/none", "1") for n in range(sub.MAX_COUNTED_PROBLEMS + 500)]
    lines = _rejection(_csv(rows), index, "m.csv").splitlines()
    stop = sub.MAX_COUNTED_PROBLEMS + 1
    assert lines[0].startswith(
        f"submission m.csv was rejected ({sub.MAX_COUNTED_PROBLEMS} problems; reading stopped"
        f" at line {stop}): {sub.MAX_COUNTED_PROBLEMS} unknown item ids;"
    )
    assert lines[-1] == f"  ... and {sub.MAX_COUNTED_PROBLEMS - sub.MAX_PROBLEMS} more"


def test_long_item_ids_are_cut_in_messages(index: ItemIndex) -> None:
    long_id = "usr-topical/" + "x" * 100_000
    message = _rejection(_csv([(long_id, "1")]), index, "m.csv")
    assert f"longer than {sub.MAX_ID_CHARS} characters" in message
    assert len(message) < 500


def gzip_bomb(size: int = 32 * 1024) -> bytes:
    """A gzip CSV of about `size` bytes that expands 330-fold into one repeated row."""
    row = b"usr-topical/0000/argmax-decoding,1\n"
    return gzip.compress(b"item_id,score\n" + row * (size * 330 // len(row)), mtime=0)


MEASURED = """
import json, resource, sys
from pathlib import Path
from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta, parse
path = Path(sys.argv[1])
raw, index = path.read_bytes(), ItemIndex(["usr-topical"])
index.size("usr-topical", "turn")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    parse(path.name, raw, SubmissionMeta("m"), index)
    refusal = None
except SubmissionError as exc:
    refusal = str(exc)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"refusal": refusal, "grown": grown * 1024}))
"""
"""Parses a file in a fresh interpreter: its refusal (None: none), and how far the
process's peak memory grew while parsing it."""


def refusal_and_growth(path: Path) -> tuple[str | None, int]:
    """The refusal of the file at `path`, and the growth of peak memory it took, in bytes."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    measured = json.loads(done.stdout)
    return measured["refusal"], int(measured["grown"])


def test_a_gzip_bomb_is_refused_after_the_counted_problems(
    index: ItemIndex, tmp_path: Path
) -> None:
    """A 32 KB gzip expanding to about 10 MB of one row (300,000 times) is read only until its
    duplicates fill the problems counted (the old reader expanded, decoded and listed every row)."""
    bomb = tmp_path / "bomb.csv.gz"
    bomb.write_bytes(gzip_bomb())
    assert bomb.stat().st_size <= 33 * 1024
    message, grown = refusal_and_growth(bomb)
    assert message is not None
    assert message.startswith(
        f"submission bomb.csv.gz was rejected ({sub.MAX_COUNTED_PROBLEMS} problems; reading"
        f" stopped at line {sub.MAX_COUNTED_PROBLEMS + 2}): {sub.MAX_COUNTED_PROBLEMS}"
        " duplicate item ids;"
    )
    assert grown < 300 * 1024 * 1024, grown


def test_a_parquet_bomb_is_refused_by_its_footer(index: ItemIndex, tmp_path: Path) -> None:
    chunk = pa.table(
        {"item_id": ["usr-topical/0000/argmax-decoding"] * 1000, "score": [1.0] * 1000}
    )
    bomb = tmp_path / "bomb.parquet"
    pq.write_table(pa.concat_tables([chunk] * 4200), bomb, compression="zstd")
    assert bomb.stat().st_size < 200 * 1024
    message, grown = refusal_and_growth(bomb)
    assert message is not None and f"4200000 data rows; at most {sub.MAX_ROWS}:" in message
    assert grown < 50 * 1024 * 1024, grown  # the columns were never read


def test_too_many_metric_columns_are_refused_at_the_header(index: ItemIndex) -> None:
    columns = [f"m{k}" for k in range(sub.MAX_METRIC_COLUMNS + 1)]
    text = f"item_id,{','.join(columns)}\n" + "x,1\n" * 3
    with pytest.raises(sub.OverLimit, match=r"line 1: 17 score columns; at most 16 metrics"):
        parse("wide.csv", text.encode(), META, index)
    record = json.dumps({"item_id": "x", **dict.fromkeys(columns, 1)})
    with pytest.raises(sub.OverLimit, match=r"line 1: 17 score columns"):
        parse("wide.jsonl", record.encode(), META, index)


def test_a_jsonl_file_over_the_row_limit_is_refused_where_it_goes_over(
    index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sub, "MAX_ROWS", 3)
    line = b'{"item_id": "x", "score": 1}\n'
    with pytest.raises(sub.OverLimit, match=r"line 5: more than 3 data rows"):
        parse("m.jsonl", line * 2 + b"\n" + line * 5, META, index)


@pytest.mark.parametrize(
    ("uploaded", "kept"),
    [
        ("\u202egpj.csv", "_gpj.csv"),
        ("CON.csv", "_CON.csv"),
        ("a\r\nb.csv", "a__b.csv"),
        (".csv", "submission.csv"),
        ("..\\..\\x.csv", "x.csv"),
        ("m\u200b.csv", "m_.csv"),
    ],
)
def test_a_file_is_stored_and_shown_under_a_safe_name(
    index: ItemIndex, topical_ids: list[str], uploaded: str, kept: str
) -> None:
    """No control, bidi or invisible character, no device name, no bare extension."""
    assert sub.file_name_of(uploaded) == kept
    good = _csv([(i, "0.5") for i in topical_ids])
    assert parse(uploaded, good, META, index).file_name == kept
    with pytest.raises(SubmissionError, match=f"^submission {re.escape(kept)} was rejected"):
        parse(uploaded, b"item_id,score\nx,y\n", META, index)
