"""The results folder: accepted submissions kept as files, written atomically and never replaced,
an empty store rebuilt from them (broken ones reported), the Hub scheduler only with a repository,
and the app restoring its submissions after a restart that lost its database."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

import httpx
import huggingface_hub
import numpy as np
import pytest

from comperbench.leaderboard import mirror as mirror_module
from comperbench.leaderboard.items import ItemIndex, cached_benchmark, level_items
from comperbench.leaderboard.mirror import RECORD, TEMP_PREFIX, Mirror, MirrorError, configured
from comperbench.leaderboard.service import Outcome, restore, submit
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import SubmissionMeta

RESAMPLES = 50
VIEW = ("usr-topical", "turn", "overall", "spearman")


@pytest.fixture(scope="module")
def index(data_root: Path) -> ItemIndex:
    return ItemIndex(["usr-topical"])


@pytest.fixture(autouse=True)
def no_configured_mirror(monkeypatch: pytest.MonkeyPatch) -> None:
    """No results folder from the environment, and none cached from another test."""
    monkeypatch.delenv(mirror_module.DIR_ENV, raising=False)
    monkeypatch.delenv(mirror_module.REPO_ENV, raising=False)
    mirror_module._open.cache_clear()


def _file(seed: int, noise: float = 0.5) -> bytes:
    bench = cached_benchmark("usr-topical", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    noisy = human + np.random.default_rng(seed).normal(scale=noise, size=len(human))
    rows = "".join(f"{i},{float(s)!r}\n" for i, s in zip(bench.item_ids, noisy, strict=True))
    return ("item_id,score\n" + rows).encode()


def _submit_two(store: Store, mirror: Mirror, index: ItemIndex) -> list[Outcome]:
    first = submit(
        "good.csv",
        _file(1),
        SubmissionMeta("good", authors="A. Author", trained_on=("usr-topical",), family="llm"),
        store,
        index,
        RESAMPLES,
        mirror,
        account="someone",
    )
    second = submit(
        "poor.csv", _file(2, 3.0), SubmissionMeta("poor"), store, index, RESAMPLES, mirror
    )
    return [first, second]


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def _results(store: Store) -> list[tuple[Any, ...]]:
    return [
        (r.metric, r.value, r.p_value, r.ci_low, r.ci_high, r.n, r.replicates.tobytes(), r.settings)
        for r in store.view(*VIEW)
    ]


def _provenance(store: Store) -> list[tuple[Any, ...]]:
    keys = (
        "id",
        "file_sha256",
        "file_name",
        "name",
        "authors",
        "trained_on",
        "created_at",
        "family",
    )
    return [tuple(s[k] for k in keys) for s in store.submissions()]


def test_accepted_submissions_are_kept_as_files(tmp_path: Path, index: ItemIndex) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    good, poor = _submit_two(store, mirror, index)
    assert [p.name for p in mirror.folders()] == sorted(
        [good.submission.file_sha256, poor.submission.file_sha256]
    )
    folder = mirror.folder / good.submission.file_sha256
    assert sorted(p.name for p in folder.iterdir()) == [RECORD, "scores.csv"]
    assert (folder / "scores.csv").read_bytes() == _file(1)
    kept = json.loads((folder / RECORD).read_text())
    assert kept["file_name"] == "good.csv" and kept["file_sha256"] == folder.name
    assert kept["meta"] == {
        "name": "good",
        "authors": "A. Author",
        "link": "",
        "description": "",
        "reference_free": False,
        "trained_on": ["usr-topical"],
        "baseline": False,
        "family": "llm",
    }
    assert kept["submission_id"] == good.stored.submission_id == 1
    assert kept["submitted_at"] == store.submissions()[-1]["created_at"]
    assert kept["account"] == "someone" and kept["n_resamples"] == RESAMPLES
    [coverage] = kept["coverage"]["good"]
    assert coverage["version"] == level_items("usr-topical", "turn").tag
    assert (coverage["covered"], coverage["total"]) == (360, 360)
    assert (
        json.loads((mirror.folder / poor.submission.file_sha256 / RECORD).read_text())["account"]
        is None
    )
    assert not [p for p in mirror.folder.iterdir() if p.name.startswith(".")]


def test_a_duplicate_is_not_written_again(tmp_path: Path, index: ItemIndex) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror)
    before = _files(mirror.folder)
    again = submit("b.csv", _file(1), SubmissionMeta("b"), store, index, RESAMPLES, mirror)
    assert again.stored.duplicate and _files(mirror.folder) == before


def test_a_folder_without_its_row_takes_the_record_of_the_row_that_stores_its_file(
    tmp_path: Path, index: ItemIndex
) -> None:
    """A folder whose row is not in the store (its process stopped before the commit) keeps
    its file, and takes the record of the row that stores the file next: its account."""
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    kept = submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror)
    scores = next(p for p in kept_files(mirror) if p.name == "scores.csv")
    before = scores.stat().st_mtime_ns
    other = Store(tmp_path / "other.sqlite")
    again = submit(
        "a.csv", _file(1), SubmissionMeta("a"), other, index, RESAMPLES, mirror, account="bob"
    )
    assert not again.stored.duplicate
    assert scores.stat().st_mtime_ns == before  # the file is never replaced
    [entry] = [mirror.read(f) for f in mirror.folders()]
    assert (entry.account, entry.submitted_at) == ("bob", again.stored.created_at)
    assert mirror.write(_file(1), kept.submission, again.stored, RESAMPLES) is None


def kept_files(mirror: Mirror) -> list[Path]:
    return [p for p in mirror.folder.rglob("*") if p.is_file()]


def test_a_folder_written_meanwhile_wins(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process finishing the same submission between the check and the rename."""
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    sha = hashlib.sha256(_file(1)).hexdigest()
    mkdtemp = tempfile.mkdtemp

    def racing(**kwargs: Any) -> str:
        (mirror.folder / sha).mkdir()
        (mirror.folder / sha / RECORD).write_text("theirs")
        return mkdtemp(**kwargs)

    monkeypatch.setattr(tempfile, "mkdtemp", racing)
    submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror)
    assert [p.name for p in mirror.folder.iterdir()] == [sha]
    assert [p.name for p in (mirror.folder / sha).iterdir()] == [RECORD]
    assert (mirror.folder / sha / RECORD).read_text() == "theirs"


def test_a_failed_write_leaves_nothing(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")

    def failing(*args: Any) -> dict[str, Any]:
        raise OSError("disk full")

    monkeypatch.setattr(mirror_module, "record", failing)
    with pytest.raises(
        MirrorError, match=r"^cannot keep the submission in .* \(disk full\); nothing was stored$"
    ):
        submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror)
    assert list(mirror.folder.iterdir()) == [] and store.count() == 0


KILLED = """
import os, signal, sys
from pathlib import Path
from comperbench.leaderboard import mirror, service, store
from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.submission import SubmissionMeta

folder, step = Path(sys.argv[1]), sys.argv[2]
write, add = mirror.Mirror.write, store.Store.add


def killed(original):
    def at_step(*args, **kwargs):
        if step.startswith("before"):
            os.kill(os.getpid(), signal.SIGKILL)
        original(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
    return at_step


if step.endswith("write"):
    mirror.Mirror.write = killed(write)
else:
    store.Store.add = killed(add)
service.submit(
    "a.csv", (folder / "a.csv").read_bytes(), SubmissionMeta("a"), store.Store(folder / "lb.sqlite"),
    ItemIndex(["usr-topical"]), int(sys.argv[3]), mirror.Mirror(folder / "results"), "someone",
)
"""
"""Submits one file and is killed (SIGKILL) at a step: before or after the results folder is
written, or after the row is stored."""


@pytest.mark.parametrize("step", ["before-write", "after-write", "after-store"])
def test_a_kill_at_any_step_leaves_no_row_without_its_kept_file(
    tmp_path: Path, index: ItemIndex, step: str
) -> None:
    (tmp_path / "a.csv").write_bytes(_file(1))
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, str(tmp_path), step, str(RESAMPLES)],
        capture_output=True,
        timeout=300,
    )
    assert killed.returncode == -9, killed.stderr.decode()
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    rows = store.submissions()
    assert all(mirror.holds(str(row["file_sha256"])) for row in rows), (step, rows)
    again = submit(
        "a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror, account="bob"
    )
    assert again.stored.duplicate == bool(rows)
    entry = mirror.read(mirror.folder / again.submission.file_sha256)
    assert entry.raw == _file(1)
    assert entry.account == ("someone" if rows else "bob")  # the row's account, whichever
    assert store.count() == 1


def test_a_resubmission_keeps_a_stored_file_missing_from_the_folder(
    tmp_path: Path, index: ItemIndex
) -> None:
    """A submission stored before its folder was written first (or whose folder was lost) is
    kept again when the same file is submitted, as the stored submission."""
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    first = submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, None, "ann")
    assert not mirror.holds(first.submission.file_sha256)
    again = submit("b.csv", _file(1), SubmissionMeta("b"), store, index, RESAMPLES, mirror, "bo")
    assert again.stored.duplicate
    entry = mirror.read(mirror.folder / first.submission.file_sha256)
    assert (entry.submission_id, entry.submitted_at, entry.account) == (
        first.stored.submission_id,
        first.stored.created_at,
        "ann",
    )


def test_an_unwritable_results_folder_stores_nothing(tmp_path: Path, index: ItemIndex) -> None:
    (tmp_path / "a-file").write_bytes(b"")
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "a-file" / "results")
    with pytest.raises(MirrorError, match=r"^cannot keep the submission in the results folder"):
        submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES, mirror)
    assert store.count() == 0


def test_an_empty_store_is_restored(tmp_path: Path, index: ItemIndex) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    _submit_two(store, mirror, index)
    files = _files(mirror.folder)
    fresh = Store(tmp_path / "fresh.sqlite")
    lines: list[str] = []
    done = restore(fresh, mirror, index, lines.append)
    assert [o.stored.name for o in done.restored] == ["good", "poor"] and done.failed == []
    assert lines[0].startswith("restoring 2 kept submission(s) from")
    assert lines[1:] == ["restored 1/2: 'good' as #1", "restored 2/2: 'poor' as #2"]
    assert _provenance(fresh) == _provenance(store)
    assert [s["family"] for s in fresh.submissions()] == [None, "llm"]
    assert _results(fresh) == _results(store) and len(_results(fresh)) == 2
    assert _files(mirror.folder) == files  # nothing written again
    assert restore(fresh, mirror, index, lines.append).restored == []  # not empty: left alone
    assert len(lines) == 3


def _kept_folder(root: Path, raw: bytes, name: str) -> Path:
    folder = root / hashlib.sha256(raw).hexdigest()
    folder.mkdir()
    (folder / "scores.csv").write_bytes(raw)
    meta = {"name": name, "trained_on": []}
    kept = {"file_name": "x.csv", "meta": meta, "submitted_at": 0.0, "submission_id": 9}
    (folder / RECORD).write_text(json.dumps({**kept, "n_resamples": RESAMPLES}))
    return folder


def test_a_record_without_a_family_restores_as_undeclared(tmp_path: Path, index: ItemIndex) -> None:
    mirror = Mirror(tmp_path / "results")
    mirror.folder.mkdir()
    older = _kept_folder(mirror.folder, _file(6), "older")
    assert "family" not in json.loads((older / RECORD).read_text())["meta"]
    unknown = _kept_folder(mirror.folder, _file(7), "unknown")
    kept = json.loads((unknown / RECORD).read_text())
    (unknown / RECORD).write_text(json.dumps({**kept, "meta": {**kept["meta"], "family": "x"}}))
    store = Store(tmp_path / "lb.sqlite")
    done = restore(store, mirror, index, lambda _: None)
    assert [o.submission.meta.family for o in done.restored] == [None]
    assert [(s["name"], s["family"]) for s in store.submissions()] == [("older", None)]
    [(folder, why)] = done.failed
    assert folder == unknown and "field 'family': unknown family 'x'" in why


def test_broken_submissions_are_reported_and_the_others_restored(
    tmp_path: Path, index: ItemIndex
) -> None:
    store, mirror = Store(tmp_path / "lb.sqlite"), Mirror(tmp_path / "results")
    _, poor = _submit_two(store, mirror, index)
    invalid = _kept_folder(mirror.folder, b"item_id,score\nusr-topical/nope,1\n", "gone")
    no_name = _kept_folder(mirror.folder, _file(5), "")
    altered = mirror.folder / poor.submission.file_sha256
    (altered / "scores.csv").write_bytes(_file(3))
    unreadable = _kept_folder(mirror.folder, _file(4), "x")
    (unreadable / RECORD).write_text("{")
    (mirror.folder / f"{TEMP_PREFIX}abc").mkdir()  # a write cut short: not a submission
    lines: list[str] = []
    done = restore(Store(tmp_path / "fresh.sqlite"), mirror, index, lines.append)
    assert [o.stored.name for o in done.restored] == ["good"]
    why = dict(done.failed)
    assert set(why) == {invalid, no_name, altered, unreadable}
    assert "unknown" in why[invalid] and "rejected" in why[invalid]
    assert "metric name is required" in why[no_name]
    assert "SHA-256" in why[altered]
    assert "JSONDecodeError" in why[unreadable]
    for folder in why:
        assert any(line.startswith("not restored: ") and str(folder) in line for line in lines)
    assert "restored 3/3: 'good' as #1" in lines


def test_no_mirror_without_environment(tmp_path: Path, index: ItemIndex) -> None:
    assert configured() is None
    store = Store(tmp_path / "lb.sqlite")
    submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES)
    assert store.count() == 1 and mirror_module._open.cache_info().currsize == 0


class _Scheduler:
    """Stands in for CommitScheduler: records how it was made and each push triggered."""

    made: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, **kwargs: Any) -> None:
        import threading

        self.made.append(kwargs)
        self.lock = threading.Lock()
        self.triggered = 0

    def trigger(self) -> None:
        self.triggered += 1


class _Api:
    created: ClassVar[list[tuple[str, str]]] = []

    def create_repo(self, repo_id: str, repo_type: str, exist_ok: bool) -> None:
        self.created.append((repo_id, repo_type))


def _fake_hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    pulled: list[tuple[str, Path]] = []
    _Scheduler.made.clear()
    _Api.created.clear()
    monkeypatch.setattr(huggingface_hub, "CommitScheduler", _Scheduler)
    monkeypatch.setattr(huggingface_hub, "HfApi", _Api)
    monkeypatch.setattr(
        huggingface_hub,
        "snapshot_download",
        lambda repo, repo_type, local_dir: pulled.append((repo, local_dir)),
    )
    return pulled


def test_the_folder_alone_makes_no_scheduler(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_hub(monkeypatch)
    monkeypatch.setenv(mirror_module.DIR_ENV, str(tmp_path / "results"))
    mirror = configured()
    assert mirror == Mirror(tmp_path / "results") and configured() is mirror
    submit("a.csv", _file(1), SubmissionMeta("a"), Store(tmp_path / "lb.sqlite"), index, RESAMPLES)
    assert len(mirror.folders()) == 1 and _Scheduler.made == []


def test_a_repository_is_pulled_then_pushed_after_each_submission(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    pulled = _fake_hub(monkeypatch)
    monkeypatch.setenv(mirror_module.DIR_ENV, str(tmp_path / "results"))
    monkeypatch.setenv(mirror_module.REPO_ENV, "someone/results")
    mirror = configured()
    assert mirror is not None and isinstance(mirror.scheduler, _Scheduler)
    assert _Api.created == [("someone/results", "dataset")]
    assert pulled == [("someone/results", tmp_path / "results")]
    [made] = _Scheduler.made
    assert made["repo_id"] == "someone/results" and made["repo_type"] == "dataset"
    assert made["folder_path"] == tmp_path / "results"
    assert made["ignore_patterns"] == [f"{TEMP_PREFIX}*"]
    store = Store(tmp_path / "lb.sqlite")
    submit("a.csv", _file(1), SubmissionMeta("a"), store, index, RESAMPLES)
    assert mirror.scheduler.triggered == 1 and len(mirror.folders()) == 1
    assert configured() is mirror and len(_Scheduler.made) == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(db: Path, results: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """The app as `app.py` on a Space runs it, in its own process."""
    code = f"from comperbench.leaderboard.web.app import serve; serve(db={str(db)!r}, port={port})"
    env = {
        **os.environ,
        mirror_module.DIR_ENV: str(results),
        "GRADIO_TEMP_DIR": str(db.parent / "gradio"),
    }
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=out, stderr=out)


def _wait_until_up(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(f"the app did not start:\n{log.read_text()}")


def _ranked_names(url: str) -> list[str]:
    from gradio_client import Client

    rows = Client(url, verbose=False).predict(*VIEW, api_name="/ranking")
    return [row["metric"] for row in rows]


def _ranked_once_restored(url: str) -> list[str]:
    """The ranked names once the background restore has put something in the ranking."""
    deadline = time.monotonic() + 120
    while not (names := _ranked_names(url)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return names


@pytest.mark.slow
def test_the_app_restores_its_submissions_after_a_restart(data_root: Path, tmp_path: Path) -> None:
    from gradio_client import Client, handle_file

    disk, results = tmp_path / "disk", tmp_path / "results"
    disk.mkdir()
    db, log, upload = disk / "lb.sqlite", tmp_path / "app.log", tmp_path / "restart.csv"
    upload.write_bytes(_file(7))
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    process = _serve(db, results, port, log)
    try:
        _wait_until_up(process, url, log)
        said, links = Client(url, verbose=False).predict(
            handle_file(str(upload)),
            "restart-metric",
            "",
            "",
            "",
            False,
            [],
            "learned",
            api_name="/on_upload",
        )
        assert said.startswith("stored as submission #1"), said
        assert "?benchmark=usr-topical&amp;level=turn" in links  # the links to its rows
        before = (_provenance(Store(db)), _results(Store(db)))
    finally:
        process.kill()
        process.wait()
    shutil.rmtree(disk)  # the restart wipes the disk but for the results folder
    assert len(Mirror(results).folders()) == 1
    process = _serve(db, results, port, log)
    try:
        _wait_until_up(process, url, log)
        assert _ranked_once_restored(url) == ["restart-metric"]
    finally:
        process.kill()
        process.wait()
    assert (_provenance(Store(db)), _results(Store(db))) == before
    assert [s["family"] for s in Store(db).submissions()] == ["learned"]
    assert "restored 1/1: 'restart-metric' as #1" in log.read_text()
    assert len(Mirror(results).folders()) == 1
