"""Kept and stored state under abuse: a restore skips and reports each bad record and restores
the others; a record cannot make a baseline; a baseline's name cannot be taken; a file refused
for its content counts against its account's daily limit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.mirror import RECORD, Mirror
from comperbench.leaderboard.service import accept, restore, submit
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta

RESAMPLES = 20


@pytest.fixture
def index(data_root: Path) -> ItemIndex:
    return ItemIndex(["usr-topical"])


def _file(seed: int) -> bytes:
    ids = cached_benchmark("usr-topical", "turn").item_ids
    values = np.random.default_rng(seed).normal(size=len(ids))
    rows = "".join(f"{i},{float(v)!r}\n" for i, v in zip(ids, values, strict=True))
    return ("item_id,score\n" + rows).encode()


BAD_RECORDS = {
    "submitted_at": float("nan"),
    "meta.name": 12,
    "n_resamples": "2000000",
    "meta.baseline": True,
}
"""A field of a kept record and the hostile value written into it."""


def _tampered(mirror: Mirror, seed: int, field: str, value: object) -> Path:
    folder = mirror.folder / hashlib.sha256(_file(seed)).hexdigest()
    record = json.loads((folder / RECORD).read_text())
    if field.startswith("meta."):
        record["meta"][field.removeprefix("meta.")] = value
    else:
        record[field] = value
    (folder / RECORD).write_text(json.dumps(record))  # NaN written as JSON's NaN
    return folder


def test_a_restore_skips_each_bad_record_and_restores_the_rest(
    tmp_path: Path, index: ItemIndex
) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    for seed in range(len(BAD_RECORDS) + 2):
        submit(
            f"{seed}.csv", _file(seed), SubmissionMeta(f"m{seed}"), store, index, RESAMPLES, mirror
        )
    bad = {
        _tampered(mirror, seed, field, value): field
        for seed, (field, value) in enumerate(BAD_RECORDS.items())
    }
    fresh = Store(tmp_path / "fresh.sqlite")
    lines: list[str] = []
    done = restore(fresh, mirror, index, lines.append)
    assert sorted(o.submission.meta.name for o in done.restored) == ["m4", "m5"]
    assert {folder for folder, _ in done.failed} == set(bad)
    for folder, reason in done.failed:
        assert bad[folder].split(".")[-1] in reason, reason
        assert "\n" not in reason
    assert not any(row["baseline"] for row in fresh.submissions())
    assert sum(line.startswith("not restored:") for line in lines) == len(BAD_RECORDS)


def test_a_baseline_name_is_reserved_and_a_refused_file_counts(
    tmp_path: Path, index: ItemIndex
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    baseline = SubmissionMeta("length", baseline=True, family="ngram")
    accept([("b.csv", _file(0), baseline)], store, index, RESAMPLES)
    claimed = ("c.csv", _file(1), SubmissionMeta(" Length ", family="ngram"))
    with pytest.raises(SubmissionError, match=r"field 'name': the name 'Length' is a baseline's"):
        accept([claimed], store, index, RESAMPLES, account="mallory", limited=True)
    broken = ("d.csv", b"item_id,score\nnot-an-id,1\n", SubmissionMeta("mine"))
    with pytest.raises(SubmissionError):
        accept([broken], store, index, RESAMPLES, account="mallory", limited=True)
    assert store.made_by("mallory", 0).refused == 2
    assert store.count() == 1
