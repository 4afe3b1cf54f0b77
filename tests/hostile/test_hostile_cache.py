"""The cache folder written by someone without the key: a cache file whose digest beside it
was recomputed (unkeyed) after the file was changed, and a forged raw-file hash memo entry,
are both misses, never served."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from comperbench import data


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(data.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_tampered_cache_file_with_a_recomputed_digest_is_a_miss(cache: Path) -> None:
    path = cache / "table.bin"
    data.write_verified(path, b"scores 0.332")
    assert data.read_verified(path) == b"scores 0.332"
    path.write_bytes(b"scores -0.332")
    path.with_suffix(".sha256").write_text(hashlib.sha256(b"scores -0.332").hexdigest())
    assert data.read_verified(path) is None


def test_a_forged_hash_memo_entry_is_hashed_again(cache: Path, tmp_path: Path) -> None:
    raw = tmp_path / "raw.json"
    raw.write_text('{"ratings": [1, 2]}')
    true = data.memoised_sha256(raw)
    raw.write_text('{"ratings": [5, 5]}')  # rewritten, and the memo forged to say it was not
    memo_path = cache / "file-hashes.json"
    memo = json.loads(memo_path.read_text())
    key = str(raw.resolve())
    tag = memo[key][-1]
    memo[key] = [*data._file_state(raw), true, tag]
    memo_path.write_text(json.dumps(memo))
    assert data.memoised_sha256(raw) == hashlib.sha256(raw.read_bytes()).hexdigest() != true
