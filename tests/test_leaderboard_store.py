"""The store: round trip file -> ranking, duplicates recognised, concurrency, nothing from invalid files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from comperbench import __version__
from comperbench.leaderboard import service
from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.service import ranking
from comperbench.leaderboard.store import DB_ENV, SCHEMA_VERSION, Store, default_path
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
    assert leader.row.n == 300  # the protocol leaves USR's ground truth out
    assert "n:200|seed:0" in leader.row.signature
    provenance = store.submissions()[-1]
    assert provenance["package_version"] == __version__
    assert len(provenance["file_sha256"]) == 64
    system = ranking(store, "usr-topical", "system", "overall", "kendall-b")
    assert len(system) == 2 and system[0].row.n == 5


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


@pytest.fixture
def comperdial_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The ComperDial fixture files with two more systems (system level needs three)."""
    import json
    import shutil

    from comperbench.leaderboard import items, scoring
    from comperbench.loaders.hub import comperdial

    root = tmp_path / "data"
    shutil.copytree(Path(__file__).parent / "fixtures" / "comperdial", root / "comperdial")
    for name in (comperdial.TURN_EVAL, comperdial.DIALOGUE_EVAL):
        path = root / "comperdial" / name
        records = json.loads(path.read_text())
        extra = []
        for k, model in enumerate(("agent_02", "agent_03"), start=1):
            for record in records:
                if record["model"] == "agent_01":
                    scores = [max(1, s - k) if s is not None else None for s in record["scores"]]
                    extra.append({**record, "model": model, "scores": scores})
        path.write_text(json.dumps(records + extra))
    monkeypatch.setenv("COMPERBENCH_DATA", str(root))
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    caches = (cached_benchmark, items.level_items, items.scored_items, scoring._human_contexts)
    for loaded in caches:
        loaded.cache_clear()
    yield root
    for loaded in caches:
        loaded.cache_clear()


def test_one_file_over_both_levels_of_a_benchmark(comperdial_root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    index = ItemIndex(["comperdial"])
    turn, dialogue = (
        cached_benchmark("comperdial", "turn"),
        cached_benchmark("comperdial", "dialogue"),
    )
    ids = [*turn.item_ids, *dialogue.item_ids]
    raw = ("item_id,score\n" + "".join(f"{i},{k % 5}.5\n" for k, i in enumerate(ids))).encode()
    outcome = submit("both.csv", raw, SubmissionMeta("both"), store, index)
    n_turn, n_dialogue = len(turn), len(dialogue)
    assert f"comperdial (turn): {n_turn}/{n_turn} items, ranked" in outcome.summary()
    assert f"comperdial (dialogue): {n_dialogue}/{n_dialogue} items, ranked" in outcome.summary()
    for level in ("turn", "dialogue", "system"):
        assert [
            r.row.metric for r in ranking(store, "comperdial", level, "overall", "pearson")
        ] == ["both"]
    [system] = ranking(store, "comperdial", "system", "overall", "kendall-b")
    assert system.row.n == 4 and "level:system" in system.row.signature
    # a second metric, one file per level (as the seed writes them), is listed once at system level
    for level, bench in (("turn", turn), ("dialogue", dialogue)):
        one = "item_id,score\n" + "".join(f"{i},{k}\n" for k, i in enumerate(bench.item_ids))
        submit(f"other-{level}.csv", one.encode(), SubmissionMeta("other"), store, index)
    names = [r.row.metric for r in ranking(store, "comperdial", "system", "overall", "pearson")]
    assert sorted(names) == ["both", "other"]


def test_stored_fingerprint_is_that_of_the_files_read(comperdial_root: Path) -> None:
    from comperbench.benchmark import get_metadata

    loaded = cached_benchmark("comperdial", "turn").fingerprint
    assert ItemIndex(["comperdial"]).fingerprint("comperdial") == loaded
    assert loaded != get_metadata("comperdial").fingerprint  # the declared one has no file sha256


def test_rows_under_other_resampling_settings_are_set_apart(
    tmp_path: Path, index: ItemIndex
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    service.submit(
        "odd.csv", _file(index, 1.0, 4), SubmissionMeta("odd"), store, index, n_resamples=50
    )
    table = ranking(store, "usr-topical", "turn", "overall", "spearman")
    assert sorted(r.row.metric for r in table) == ["good", "poor"]
    assert all(len(r.row.replicates) == 200 for r in table)
    [odd] = service.set_apart(store, "usr-topical", "turn", "overall", "spearman")
    assert odd.metric == "odd" and len(odd.replicates) == 50
    assert service.describe_apart(odd).startswith("odd (resamples 50, seed 0, usr-topical@")
    system = ranking(store, "usr-topical", "system", "overall", "kendall-b")
    assert sorted(r.row.metric for r in system) == ["good", "poor"]
    from comperbench.leaderboard.web.views import ranking_notes

    text = ranking_notes(store, "usr-topical", "turn", "overall", "spearman")
    assert "other resampling settings" in text and "odd (resamples 50" in text
    assert (
        "Protocol: every reference-based submission is correlated without Original Ground" in text
    )
    system_text = ranking_notes(store, "usr-topical", "system", "overall", "kendall-b")
    assert "Note: only 5 systems resampled" in system_text


_VERSION_0_RESULTS = """CREATE TABLE results (
    metric_id INTEGER NOT NULL REFERENCES metrics(id) ON DELETE CASCADE,
    benchmark TEXT NOT NULL, level TEXT NOT NULL, aspect TEXT NOT NULL, statistic TEXT NOT NULL,
    value REAL, p_value REAL, ci_low REAL, ci_high REAL, n INTEGER NOT NULL,
    replicates BLOB NOT NULL, signature TEXT NOT NULL,
    PRIMARY KEY (metric_id, benchmark, level, aspect, statistic)
)"""


def _as_version_0(path: Path) -> dict[tuple, str]:
    """Rewrite a database's results the way version 0 stored them (settings only in a signature
    string, written here by hand in the old format); returns the signatures."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT r.metric_id, r.benchmark, r.level, r.aspect, r.statistic, r.value, r.p_value,"
            " r.ci_low, r.ci_high, r.n, r.replicates, r.resampling, r.n_resamples, r.seed,"
            " r.benchmark_tag, s.package_version FROM results r"
            " JOIN metrics m ON m.id = r.metric_id JOIN submissions s ON s.id = m.submission_id"
        ).fetchall()
        db.execute("DROP TABLE results")
        db.execute(_VERSION_0_RESULTS)
        signatures = {}
        for r in rows:
            signature = (
                f"stat:{r[4]}|level:{r[2]}|resample:{r[11]}|n:{r[12]}|seed:{r[13]}"
                f"|aspect:{r[3]}|bench:{r[14]}|version:{r[15]}"
            )
            signatures[(r[0], r[2], r[3], r[4])] = signature
            db.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", (*r[:11], signature))
        db.execute("PRAGMA user_version = 0")
    return signatures


def test_a_version_0_database_is_migrated_and_keeps_working(
    tmp_path: Path, index: ItemIndex
) -> None:
    path = tmp_path / "lb.sqlite"
    store = Store(path)
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    before = ranking(store, "usr-topical", "turn", "overall", "spearman")
    signatures = _as_version_0(path)
    migrated = Store(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        columns = {r[1] for r in db.execute("PRAGMA table_info(results)")}
    assert "signature" not in columns and {"n_resamples", "seed", "protocol"} <= columns
    after = ranking(migrated, "usr-topical", "turn", "overall", "spearman")
    assert [(r.row.metric, r.rank, f"{r.p_vs_leader}") for r in after] == [
        (r.row.metric, r.rank, f"{r.p_vs_leader}") for r in before
    ]
    row = after[0].row
    # a version 0 database never stored a protocol: its rows say none was applied
    assert row.settings == replace(before[0].row.settings, protocol="")
    assert (row.settings.n_resamples, row.settings.seed, row.settings.protocol) == (200, 0, "")
    assert service.settings(row)[:3] == (200, 0, f"usr-topical@{row.settings.benchmark[12:]}")
    # rows scored before the p-value method was stored say it was scipy's
    old = signatures[(row.metric_id, "turn", "overall", "spearman")]
    assert row.p_method == "scipy" and row.signature == old.replace("|aspect:", "|p:scipy|aspect:")
    Store(path)  # opening a migrated database again changes nothing
    assert len(ranking(Store(path), "usr-topical", "system", "overall", "kendall-b")) == 2


def test_settings_are_columns_and_the_signature_is_rendered_from_them(
    tmp_path: Path, index: ItemIndex
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE results SET seed = 7, protocol = 'usr-gt-out' WHERE metric_id = 2")
    good, poor = store.view("usr-topical", "turn", "overall", "pearson")
    assert poor.settings.seed == 7 and poor.settings.protocol == "usr-gt-out"
    assert "|seed:7|" in poor.signature and "|protocol:usr-gt-out|" in poor.signature
    assert "|protocol:ref-without:original-ground-truth|" in good.signature
    assert service.settings(poor)[1] == 7 and service.settings(poor)[3] == "usr-gt-out"
    # replicates drawn under other settings are not paired with the first row's: set apart
    ranked = service.ranking(store, "usr-topical", "turn", "overall", "pearson")
    assert [r.row.metric for r in ranked] == ["good"]
    [apart] = service.set_apart(store, "usr-topical", "turn", "overall", "pearson")
    assert service.describe_apart(apart) == (
        f"poor (resamples 200, seed 7, {good.settings.benchmark}, protocol usr-gt-out)"
    )


def test_a_version_1_database_gains_the_p_method_and_reason(
    tmp_path: Path, index: ItemIndex
) -> None:
    path = tmp_path / "lb.sqlite"
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), Store(path), index)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE results DROP COLUMN p_method")
        db.execute("ALTER TABLE results DROP COLUMN reason")
        db.execute("PRAGMA user_version = 1")
    [row] = Store(path).view("usr-topical", "system", "overall", "kendall-b")
    assert (row.p_method, row.reason) == ("scipy", None)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_constant_submission_is_listed_with_its_reason_never_ranked(
    tmp_path: Path, index: ItemIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    store = Store(tmp_path / "lb.sqlite")
    ids = cached_benchmark("usr-topical", "turn").item_ids
    constant = ("item_id,score\n" + "".join(f"{i},1.0\n" for i in ids)).encode()
    submit("constant.csv", constant, SubmissionMeta("constant"), store, index)
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    view = (store, "usr-topical", "turn", "overall", "pearson")
    table = ranking(*view)
    assert [(r.row.metric, r.rank, r.leader) for r in table] == [
        ("good", 1, True),
        ("poor", 2, False),
    ]
    assert table[1].rank_high <= 2  # ranked among the two defined rows only
    [undefined] = service.unranked(*view)
    assert undefined.metric == "constant" and undefined.reason == "metric scores are constant"
    assert (
        main(
            [
                "leaderboard",
                "show",
                "usr-topical",
                "--db",
                str(store.path),
                "--statistic",
                "pearson",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "not ranked: constant (correlation undefined: metric scores are constant)" in out
    rows = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    assert [(row[2], row[-4], row[-3], row[-1]) for row in rows] == [
        ("good", "leader", "yes", "unknown"),
        ("poor", "0.002", "no", "unknown"),
    ]  # Holm over 2 tests: 2 / (1000 + 1); adjusted p vs leader, tied, family
    assert "verdicts: PERM-BOTH over 300 items" in " ".join(out.split())


def test_system_rows_say_how_the_p_value_was_computed_and_flag_the_interval(
    tmp_path: Path, index: ItemIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    store = Store(tmp_path / "lb.sqlite")
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    [system] = ranking(store, "usr-topical", "system", "overall", "spearman")
    assert system.row.n == 5 and system.row.p_method == "exact-permutation"
    assert "|p:exact-permutation|" in system.row.signature
    assert system.row.ci_note is not None and system.row.ci_note.startswith("only 5 systems")
    [turn] = ranking(store, "usr-topical", "turn", "overall", "spearman")
    assert turn.row.p_method == "asymptotic" and turn.row.ci_note is None
    db = str(store.path)
    assert main(["leaderboard", "show", "usr-topical", "--level", "system", "--db", db]) == 0
    assert "note: only 5 systems resampled" in capsys.readouterr().out


def test_the_app_notes_list_an_undefined_row_as_not_ranked(
    tmp_path: Path, index: ItemIndex
) -> None:
    from comperbench.leaderboard.web.views import ranking_frame, ranking_notes

    store = Store(tmp_path / "lb.sqlite")
    bench = cached_benchmark("usr-topical", "turn")
    constant = "item_id,score\n" + "".join(f"{i},1.0\n" for i in bench.item_ids)
    submit("const.csv", constant.encode(), SubmissionMeta("constant"), store, index)
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good"), store, index)
    frame = ranking_frame(
        ranking(store, "usr-topical", "turn", "overall", "pearson"), "usr-topical"
    )
    assert list(frame["metric"]) == ["good"]
    text = ranking_notes(store, "usr-topical", "turn", "overall", "pearson")
    assert "Not ranked: constant (correlation undefined: metric scores are constant" in text


def test_the_declared_family_is_stored_with_the_submission(
    tmp_path: Path, index: ItemIndex
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good", family="llm"), store, index)
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor"), store, index)
    assert [(s["name"], s["family"]) for s in store.submissions()] == [
        ("poor", None),
        ("good", "llm"),
    ]
    rows = store.view("usr-topical", "turn", "overall", "spearman")
    assert [(r.metric, r.family) for r in rows] == [("good", "llm"), ("poor", None)]


def _tables(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, in storage order."""
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f"SELECT * FROM {n} ORDER BY rowid").fetchall() for n in names}


def test_a_version_4_database_gains_the_family_and_loses_nothing(
    tmp_path: Path, index: ItemIndex
) -> None:
    path = tmp_path / "lb.sqlite"
    submit("good.csv", _file(index, 0.3, 1), SubmissionMeta("good", "A."), Store(path), index)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE submissions DROP COLUMN family")
        db.execute("PRAGMA user_version = 4")
    before = _tables(path)
    store = Store(path)
    after = _tables(path)
    assert [r[-1] for r in after["submissions"]] == [None]  # the family, added last
    after["submissions"] = [r[:-1] for r in after["submissions"]]
    assert after == before and before["results"]
    [row] = store.view("usr-topical", "system", "overall", "kendall-b")
    assert (row.metric, row.authors, row.family) == ("good", "A.", None)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    submit("poor.csv", _file(index, 3.0, 2), SubmissionMeta("poor", family="ngram"), store, index)
    assert [s["family"] for s in store.submissions()] == ["ngram", None]
