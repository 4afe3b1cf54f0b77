"""The loading machinery: data root, checksums, located errors, caching, the Benchmark object."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import comperbench
from comperbench import benchmark, data, get_metadata, load_benchmark
from comperbench.benchmark import Benchmark
from comperbench.common.errors import (
    ChecksumError,
    DataFormatError,
    DataMissingError,
    UnknownNameError,
)
from comperbench.loaders import base as loaders_base
from comperbench.loaders.base import Parsed, SourceFiles, parsing_code_digest
from comperbench.loaders.usr import UsrPersona
from comperbench.metadata import SourceFile

USR_FILE = "usr/usr_percona_chat.json"


def _copy_usr(data_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "data"
    (root / "usr").mkdir(parents=True)
    shutil.copy(data_root / USR_FILE, root / USR_FILE)
    return root


def _patched(monkeypatch: pytest.MonkeyPatch, root: Path, content: str) -> None:
    """Write `content` as the USR-Persona file and make the declared sha256 match it."""
    import hashlib

    (root / USR_FILE).write_text(content)
    meta = UsrPersona.metadata
    digest = hashlib.sha256(content.encode()).hexdigest()
    source = dataclasses.replace(meta.sources[0], sha256=digest)
    monkeypatch.setattr(UsrPersona, "metadata", dataclasses.replace(meta, sources=(source,)))


def test_unknown_benchmark_names_close_matches() -> None:
    with pytest.raises(UnknownNameError, match="usr-topical"):
        load_benchmark("usr-topicl")


def test_unknown_aspect_lists_known_aspects() -> None:
    with pytest.raises(UnknownNameError, match="maintains_context"):
        get_metadata("usr-topical").aspect("coherence")


def test_aspect_found_by_source_label() -> None:
    assert get_metadata("usr-topical").aspect("Maintains Context").name == "maintains_context"


def test_missing_file_offline_fails_at_once_saying_where(tmp_path: Path) -> None:
    with pytest.raises(DataMissingError) as info:
        load_benchmark("usr-persona", data_dir=tmp_path, cache=False)
    message = str(info.value)
    assert str(tmp_path / USR_FILE) in message
    assert "COMPERBENCH_DATA" in message
    assert "raw.githubusercontent.com" in message


def test_tampered_file_is_rejected(data_root: Path, tmp_path: Path) -> None:
    root = _copy_usr(data_root, tmp_path)
    with (root / USR_FILE).open("ab") as handle:
        handle.write(b" ")
    with pytest.raises(ChecksumError, match=r"usr_percona_chat\.json: sha256 is"):
        load_benchmark("usr-persona", data_dir=root, cache=False)


def test_truncated_json_names_file_and_line(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _copy_usr(data_root, tmp_path)
    text = (root / USR_FILE).read_text()
    _patched(monkeypatch, root, text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"usr_percona_chat\.json, line \d+: invalid JSON"):
        load_benchmark("usr-persona", data_dir=root, cache=False)


def test_missing_field_names_record_and_field(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _copy_usr(data_root, tmp_path)
    records = json.loads((root / USR_FILE).read_text())
    del records[7]["responses"][2]["Engaging"]
    _patched(monkeypatch, root, json.dumps(records))
    with pytest.raises(DataFormatError) as info:
        load_benchmark("usr-persona", data_dir=root, cache=False)
    assert "record 7.responses[2]" in str(info.value)
    assert info.value.field == "Engaging"


def test_non_numeric_rating_is_an_error_not_a_number(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _copy_usr(data_root, tmp_path)
    records = json.loads((root / USR_FILE).read_text())
    records[0]["responses"][0]["Overall"][1] = "five"
    _patched(monkeypatch, root, json.dumps(records))
    with pytest.raises(DataFormatError, match="'five' is not a number"):
        load_benchmark("usr-persona", data_dir=root, cache=False)


def test_fingerprint_changes_with_version_and_data() -> None:
    meta = get_metadata("usr-persona")
    bumped = dataclasses.replace(meta, version="9.9.9")
    other_file = dataclasses.replace(meta, sources=(SourceFile(USR_FILE, "0" * 64),))
    assert len({meta.fingerprint, bumped.fingerprint, other_file.fingerprint}) == 3
    assert meta.fingerprint == get_metadata("usr-persona").fingerprint


def test_warm_load_still_verifies_the_raw_files(data_root: Path, tmp_path: Path) -> None:
    root = _copy_usr(data_root, tmp_path)
    load_benchmark("usr-persona", data_dir=root)  # the table is cached now
    original = (root / USR_FILE).read_bytes()
    flipped = bytearray(original)
    flipped[1000] ^= 1
    (root / USR_FILE).write_bytes(bytes(flipped))
    with pytest.raises(ChecksumError, match=r"usr_percona_chat\.json: sha256 is"):
        load_benchmark("usr-persona", data_dir=root)
    (root / USR_FILE).write_bytes(original[: len(original) // 2])
    with pytest.raises(ChecksumError, match=r"usr_percona_chat\.json: sha256 is"):
        load_benchmark("usr-persona", data_dir=root)
    (root / USR_FILE).unlink()
    with pytest.raises(DataMissingError, match=r"usr_percona_chat\.json"):
        load_benchmark("usr-persona", data_dir=root)


def test_missing_raw_files_serve_a_verified_table_only_on_request(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    root = _copy_usr(data_root, tmp_path)
    cold = load_benchmark("usr-persona", data_dir=root)
    assert cold.provenance == "raw files verified"
    (root / USR_FILE).unlink()
    served = load_benchmark("usr-persona", data_dir=root, allow_missing_raw=True)
    assert served.table.equals(cold.table) and served.fingerprint == cold.fingerprint
    assert served.provenance.startswith("cached table served without its raw files")
    monkeypatch.setenv("COMPERBENCH_ALLOW_MISSING_RAW", "1")
    assert len(load_benchmark("usr-persona", data_dir=root)) == len(cold)
    cached = next((tmp_path / "cache" / "tables" / "usr-persona").rglob("turn.parquet"))
    _poison(cached)
    with pytest.raises(DataMissingError, match="No verified cached table"):
        load_benchmark("usr-persona", data_dir=root)


def _poison(cached: Path) -> None:
    """Rewrite a cached table as valid parquet with one response changed."""
    table = pq.read_table(cached)
    responses = table.column("response").to_pylist()
    responses[0] = "poisoned"
    column = table.schema.get_field_index("response")
    pq.write_table(table.set_column(column, "response", pa.array(responses)), cached)


@pytest.fixture
def cached_persona(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Benchmark, Path]:
    """usr-persona loaded into a fresh cache, and the path of its cached turn table."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fresh = load_benchmark("usr-persona")
    return fresh, next((tmp_path / "cache" / "tables" / "usr-persona").rglob("turn.parquet"))


def test_a_cached_table_that_is_not_the_one_written_is_parsed_again(
    cached_persona: tuple[Benchmark, Path],
) -> None:
    fresh, cached = cached_persona
    _poison(cached)
    again = load_benchmark("usr-persona")
    assert again.table.column("response")[0].as_py() != "poisoned"
    assert again.table.equals(fresh.table)
    assert pq.read_table(cached).column("response")[0].as_py() != "poisoned"  # rewritten


def test_changed_parsing_code_is_never_served_old_rows(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    assert len(load_benchmark("usr-persona")) == 300  # cached
    parse = UsrPersona.parse

    def drop_a_context(self: UsrPersona, files: SourceFiles, level: str) -> Parsed:
        parsed = parse(self, files, level)
        first = parsed.turns[0].dialogue_id
        return dataclasses.replace(
            parsed, turns=[t for t in parsed.turns if t.dialogue_id != first]
        )

    monkeypatch.setattr(UsrPersona, "parse", drop_a_context)
    monkeypatch.setattr(benchmark, "parsing_code_digest", lambda: "changed-code")
    assert len(load_benchmark("usr-persona")) == 295


def _package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "comperbench"
    shutil.copytree(Path(comperbench.__file__).parent, copy, ignore=shutil.ignore_patterns("*.pyc"))
    return copy


def _appended(path: Path) -> None:
    path.write_text(path.read_text() + "\n# changed\n")


@pytest.mark.parametrize(
    "module",
    [
        "loaders/usr.py",
        "loaders/hub/comperdial.py",
        "loaders/base.py",
        "schema.py",
        "common/textutil.py",
    ],
)
def test_parsing_code_digest_follows_every_module_the_loaders_import(
    tmp_path: Path, module: str
) -> None:
    package = _package_copy(tmp_path)
    before = parsing_code_digest(package)
    assert len(before) == 12 and parsing_code_digest.__wrapped__(package) == before
    _appended(package / module)
    assert parsing_code_digest.__wrapped__(package) != before


def test_parsing_code_digest_ignores_code_the_loaders_do_not_import(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    before = parsing_code_digest.__wrapped__(package)
    _appended(package / "stats" / "metric_correlation" / "correlation.py")
    assert parsing_code_digest.__wrapped__(package) == before


def test_parsing_code_digest_is_kept_until_any_module_of_the_package_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    package = _package_copy(tmp_path)
    before = parsing_code_digest.__wrapped__(package)

    def parsed(*args: object) -> list[Path]:
        raise AssertionError("the modules were parsed again")

    monkeypatch.setattr(loaders_base, "_package_imports", parsed)
    assert parsing_code_digest.__wrapped__(package) == before
    _appended(package / "stats" / "metric_correlation" / "correlation.py")
    with pytest.raises(AssertionError, match="parsed again"):
        parsing_code_digest.__wrapped__(package)


@pytest.mark.parametrize("field", ["st_size", "st_mtime_ns", "st_ctime_ns", "st_ino"])
def test_raw_file_hashes_are_memoised_by_size_mtime_ctime_and_inode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "raw.json"
    path.write_text("[1, 2, 3]")
    hashed: list[Path] = []
    real = data.sha256_file
    monkeypatch.setattr(data, "sha256_file", lambda p: hashed.append(p) or real(p))
    first = data.memoised_sha256(path)
    assert data.memoised_sha256(path) == first and len(hashed) == 1
    true_stat = Path.stat

    def one_field_changed(self: Path, **kwargs: bool) -> object:
        stat = true_stat(self, **kwargs)
        if self != path:
            return stat
        state = {name: getattr(stat, name) for name in ("st_size", "st_mtime_ns", "st_ctime_ns")}
        return SimpleNamespace(**{**state, "st_ino": stat.st_ino, field: getattr(stat, field) + 1})

    monkeypatch.setattr(Path, "stat", one_field_changed)
    assert data.memoised_sha256(path) == first and len(hashed) == 2
    assert data.memoised_sha256(path) == first and len(hashed) == 2
    monkeypatch.undo()
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache" / "file-hashes.json").write_text("not json")
    assert data.memoised_sha256(path) == real(path)


def _wait_for_a_new_ctime(path: Path) -> None:
    """Wait until a write made now gets a ctime other than `path`'s (the clock is coarse)."""
    probe = path.with_name("probe")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns != path.stat().st_ctime_ns:
            return
    pytest.fail("the file-system clock did not advance in 30 s")


def test_raw_file_edited_in_place_with_size_and_mtime_restored_is_refused(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    root = _copy_usr(data_root, tmp_path)
    path = root / USR_FILE
    assert len(load_benchmark("usr-persona", data_dir=root, cache=False)) == 300
    before = path.stat()
    _wait_for_a_new_ctime(path)
    with path.open("r+b") as handle:  # same inode, same size
        handle.write(b" ")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )
    with pytest.raises(ChecksumError, match=r"usr_percona_chat\.json: sha256 is"):
        load_benchmark("usr-persona", data_dir=root, cache=False)


def test_verify_hashes_every_raw_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "raw.json"
    path.write_text("[1, 2, 3]")
    hashed: list[Path] = []
    real = data.sha256_file
    monkeypatch.setattr(data, "sha256_file", lambda p: hashed.append(p) or real(p))
    data.memoised_sha256(path)
    data.memoised_sha256(path)
    assert len(hashed) == 1
    monkeypatch.setenv("COMPERBENCH_VERIFY", "1")
    data.memoised_sha256(path)
    data.memoised_sha256(path)
    assert len(hashed) == 3


def test_benchmark_views(data_root: Path) -> None:
    bench = load_benchmark("usr-persona")
    frame = bench.to_pandas()
    assert list(frame.columns[:4]) == ["item_id", "benchmark", "split", "dialogue_id"]
    dataset = bench.to_dataset()
    assert dataset.num_rows == 300
    assert dataset[0]["item_id"] == frame.iloc[0]["item_id"]
    ratings = bench.ratings()
    assert len(ratings) == 5400
    first = frame.iloc[0]
    overall = ratings[(ratings.item_id == first.item_id) & (ratings.aspect == "overall")]
    assert overall.value.mean() == pytest.approx(first.scores["overall"])
    systems = bench.systems()
    assert systems["items"].sum() == 300
    seq2seq = frame[frame.system == "Seq2Seq"]
    expected = sum(s["overall"] for s in seq2seq.scores) / len(seq2seq)
    assert systems.loc["Seq2Seq", "overall"] == pytest.approx(expected)


def test_system_level_is_derived_not_loaded() -> None:
    with pytest.raises(Exception, match=r"\.systems\(\)"):
        load_benchmark("usr-topical", level="system")


def test_unknown_level_and_split() -> None:
    with pytest.raises(UnknownNameError, match="Levels: turn"):
        load_benchmark("usr-topical", level="dialogue")
    with pytest.raises(UnknownNameError, match="Splits: test"):
        load_benchmark("usr-topical", split="train")


def test_systems_left_out_on_request_are_named_in_the_tag(data_root: Path) -> None:
    full = load_benchmark("usr-topical", data_dir=data_root)
    bench = load_benchmark(
        "usr-topical", data_dir=data_root, exclude_systems=["Original Ground Truth"]
    )
    assert len(bench) == len(full) - 60
    assert "Original Ground Truth" not in set(bench.table.column("system").to_pylist())
    assert bench.excluded_systems == ("Original Ground Truth",)
    assert bench.tag == f"usr-topical@{full.fingerprint}~without:original-ground-truth"
    assert full.tag == f"usr-topical@{full.fingerprint}"
    assert list(bench.systems().index) == sorted(
        set(full.systems().index) - {"Original Ground Truth"}
    )
    with pytest.raises(UnknownNameError, match=r"no system 'Ground Truth'\. Systems: Argmax"):
        full.without_systems(["Ground Truth"])


def test_corrupt_cached_table_is_a_cache_miss(cached_persona: tuple[Benchmark, Path]) -> None:
    fresh, cached = cached_persona
    cached.write_bytes(b"PAR1 not a parquet file")
    again = load_benchmark("usr-persona")
    assert again.table.equals(fresh.table) and again.skipped == fresh.skipped
    assert pq.read_table(cached).num_rows == len(fresh)  # rewritten


def test_load_benchmark_takes_its_old_cache_keyword_with_a_warning() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"load_benchmark\(use_cache=\.\.\.\) is deprecated"
    ):
        old = load_benchmark("usr-persona", use_cache=False)
    assert old.item_ids == load_benchmark("usr-persona", cache=False).item_ids
