"""The store: round trip file -> ranking, duplicates recognised, concurrency, nothing from invalid files."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from comperbench import __version__
from comperbench.leaderboard import service
from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.service import ranking, significance_matrix
from comperbench.leaderboard.store import DB_ENV, Store, default_path
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta, parse

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"


@pytest.fixture(scope="module")
def index(data_root: Path) -> ItemIndex:
    return ItemIndex(["usr-persona", "usr-topical"])


def submit(file_name: str, raw: bytes, meta: SubmissionMeta, store: Store, index: ItemIndex):
    """Submit with 200 resamples (the default 1000 is for users; this keeps the tests fast)."""
    return service.submit(file_name, raw, meta, store, index, n_resamples=200)


def _file(index: ItemIndex, noise: float, seed: int) -> bytes:
    bench = cached_benchmark("usr-topical", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    noisy = human + np.random.default_rng(seed).normal(scale=noise, size=len(human))
    return (
        "item_id,score\n"
        + "".join(f"{i},{float(s)!r}\n" for i, s in zip(bench.item_ids, noisy, strict=True))
    ).encode()


def test_round_trip_from_file_to_ranking(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    good = submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    poor = submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    assert not good.stored.duplicate and not poor.stored.duplicate
    table = ranking(store, "usr-topical", "turn", "overall", "spearman")
    assert [r.row.metric for r in table] == ["good", "poor"]
    leader, second = table
    assert (leader.rank, second.rank) == (1, 2)
    assert leader.tied_with_leader and not second.tied_with_leader
    assert second.p_vs_leader < 0.05
    assert leader.row.ci_low < leader.row.value < leader.row.ci_high
    assert leader.row.n == 360
    assert "n:200|seed:12345" in leader.row.signature
    provenance = store.submissions()[-1]
    assert provenance["package_version"] == __version__
    assert len(provenance["file_sha256"]) == 64
    system = ranking(store, "usr-topical", "system", "overall", "kendall-b")
    assert len(system) == 2 and system[0].row.n == 6
    p = significance_matrix([r.row for r in table])
    assert np.isnan(p[0, 0]) and p[1, 0] > 0.95 and p[0, 1] < 0.05


def test_identical_file_is_recognised(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    raw = _file(index, 1.0, 3)
    first = submit("a.csv", raw, SubmissionMeta("first"), store, index)
    again = submit("b.csv", raw, SubmissionMeta("second"), store, index)
    assert again.stored.duplicate and again.stored.submission_id == first.stored.submission_id
    assert "already submitted as #1 ('first')" in again.summary()
    assert store.count() == 1


def test_partial_submission_is_listed_not_ranked(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    outcome = submit(
        "partial.csv", (FIXTURES / "partial.csv").read_bytes(), SubmissionMeta("half"), store, index
    )
    assert "2/360 items, partial: listed, not ranked" in outcome.summary()
    assert ranking(store, "usr-topical", "turn", "overall", "pearson") == []
    assert store.partial("usr-topical", "turn") == [("half", 2, 360)]


def test_invalid_file_stores_nothing(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    with pytest.raises(SubmissionError):
        submit(
            "bad.jsonl", (FIXTURES / "bad.jsonl").read_bytes(), SubmissionMeta("x"), store, index
        )
    assert store.count() == 0


def test_failed_write_rolls_back(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    submission = parse("a.csv", _file(index, 1.0, 4), SubmissionMeta("x"), index)
    with pytest.raises(AttributeError):
        store.add(submission, {"x": [object()]})  # type: ignore[list-item]
    assert store.count() == 0
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT COUNT(*) FROM metrics").fetchone()[0] == 0
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_concurrent_submissions_lose_and_duplicate_nothing(
    tmp_path: Path, index: ItemIndex
) -> None:
    path = tmp_path / "lb.sqlite"
    Store(path)
    distinct = [
        parse(f"{n}.csv", _file(index, 1.0, 100 + n), SubmissionMeta(f"m{n}"), index)
        for n in range(6)
    ]
    same = parse("same.csv", _file(index, 1.0, 999), SubmissionMeta("same"), index)
    jobs = distinct + [same] * 6

    def add(submission):
        return Store(path).add(submission, {})

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(add, jobs))
    store = Store(path)
    assert store.count() == 7
    assert sorted(store.metric_names()) == sorted([f"m{n}" for n in range(6)] + ["same"])
    assert sum(not o.duplicate for o in outcomes) == 7
    assert len({o.submission_id for o in outcomes[6:]}) == 1


def test_database_location_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DB_ENV, str(tmp_path / "here" / "lb.sqlite"))
    assert default_path() == tmp_path / "here" / "lb.sqlite"
    assert Store().path.is_file()
