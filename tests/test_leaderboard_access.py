"""The public app's submission path: sign-in where required, the daily limit per account, the
upload size limits (of a file, and of one request whatever it carries), uploads deleted once
handled, the API held to the UI's checks, and the restore in the background.

Sign-in is tested offline: the handler is called with a `gr.OAuthProfile` built here, and the
served app uses Gradio's local mock OAuth with its one Hub look-up (the machine's own profile)
replaced by a fixed profile.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from oauth_mock import ACCOUNT, MOCK_OAUTH, SESSION_SECRET, session_cookie

from comperbench.leaderboard.items import ItemIndex, cached_benchmark
from comperbench.leaderboard.mirror import Mirror
from comperbench.leaderboard.service import (
    DAY,
    PER_DAY_ENV,
    SIGN_IN_ENV,
    Refused,
    Restoring,
    accept,
    admit,
    restore_in_background,
    sign_in_required,
    submit,
)
from comperbench.leaderboard.store import SCHEMA_VERSION, Store
from comperbench.leaderboard.submission import (
    MAX_FILE_BYTES,
    MAX_METRIC_COLUMNS,
    OverLimit,
    SubmissionMeta,
)
from comperbench.leaderboard.web.access.sign_in import LOCAL_LOGIN_ENV

gr = pytest.importorskip("gradio")
pytestmark = pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")


def profile(account: str = ACCOUNT) -> Any:
    return gr.OAuthProfile({**MOCK_OAUTH["userinfo"], "preferred_username": account})


def scores(seed: int) -> bytes:
    """A full-coverage usr-topical turn-level file, different for each seed."""
    ids = cached_benchmark("usr-topical", "turn").item_ids
    values = np.random.default_rng(seed).normal(size=len(ids)).tolist()
    rows = "".join(f"{i},{v!r}\n" for i, v in zip(ids, values, strict=True))
    return f"item_id,score\n{rows}".encode()


@pytest.fixture
def index(data_root: Path) -> ItemIndex:
    return ItemIndex(["usr-topical"])


def made_at(store: Store, index: ItemIndex, account: str, times: list[float]) -> None:
    for k, moment in enumerate(times):
        upload = (f"{k}.csv", scores(100 + k), SubmissionMeta(f"m{k}"))
        accept([upload], store, index, n_resamples=20, created_at=moment, account=account)


def test_sign_in_is_required_on_a_space_or_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv(SIGN_IN_ENV, raising=False)
    assert not sign_in_required()
    monkeypatch.setenv("SPACE_ID", "owner/leaderboard")
    assert sign_in_required()
    monkeypatch.setenv(SIGN_IN_ENV, "0")
    assert not sign_in_required()
    monkeypatch.delenv("SPACE_ID")
    monkeypatch.setenv(SIGN_IN_ENV, "1")
    assert sign_in_required()


def test_no_account_is_refused_where_sign_in_is_required(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    with pytest.raises(Refused, match=r"^sign in with Hugging Face to submit$"):
        admit(store, None, sign_in=True)
    admit(store, None, sign_in=False)  # locally: no account, no limit


def test_the_daily_limit_refuses_with_the_time_of_the_next_submission(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PER_DAY_ENV, "2")
    store = Store(tmp_path / "lb.sqlite")
    start = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    made_at(store, index, ACCOUNT, [start, start + 3600])
    assert store.submitted_by(ACCOUNT, start) == [start, start + 3600]
    now = start + 7200
    with pytest.raises(Refused) as refused:
        admit(store, ACCOUNT, sign_in=True, now=now)
    assert str(refused.value) == (
        "alice has stored 2 submission(s) in the last 24 hours and the limit is 2: the next one"
        " is allowed at 2027-01-16 08:00 UTC (in 22 h 0 min)"
    )
    admit(store, "bob", sign_in=True, now=now)
    admit(store, ACCOUNT, sign_in=True, now=start + DAY + 1)  # the first one is a day old
    monkeypatch.setenv(PER_DAY_ENV, "3")
    admit(store, ACCOUNT, sign_in=True, now=now)


def test_a_submission_counts_for_a_whole_day_in_the_early_and_the_stored_check(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PER_DAY_ENV, "1")
    store = Store(tmp_path / "lb.sqlite")
    start = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    made_at(store, index, ACCOUNT, [start])
    later = start + DAY - 60
    with pytest.raises(Refused, match="has stored 1 submission"):
        admit(store, ACCOUNT, sign_in=True, now=later)
    upload = ("late.csv", scores(7), SubmissionMeta("late"))
    with pytest.raises(Refused, match="the next one is allowed at 2027-01-16 08:00 UTC"):
        accept([upload], store, index, 20, later, ACCOUNT, limited=True)
    assert store.count() == 1
    accept([upload], store, index, 20, start + DAY + 1, ACCOUNT, limited=True)
    assert store.count() == 2


def test_the_next_submission_is_allowed_when_enough_of_them_are_a_day_old(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    start = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    made_at(store, index, ACCOUNT, [start, start + 3600, start + 7200])
    monkeypatch.setenv(PER_DAY_ENV, "2")  # lowered: one of the three must age out, then another
    with pytest.raises(Refused) as refused:
        admit(store, ACCOUNT, sign_in=True, now=start + 3 * 3600)
    assert str(refused.value).endswith(
        "the limit is 2: the next one is allowed at 2027-01-16 09:00 UTC (in 22 h 0 min)"
    )


def test_a_file_refused_for_its_size_counts_against_the_daily_limit(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PER_DAY_ENV, "2")
    store = Store(tmp_path / "lb.sqlite")
    wide = "item_id," + ",".join(f"m{k}" for k in range(MAX_METRIC_COLUMNS + 1)) + "\n"
    upload = ("wide.csv", wide.encode(), SubmissionMeta("wide"))
    start = 1_800_000_000.0  # 2027-01-15 08:00 UTC
    with pytest.raises(OverLimit):
        accept([upload], store, index, 20, start, ACCOUNT, limited=True)
    with pytest.raises(OverLimit):
        accept([upload], store, index, 20, start, "local")  # not held to a limit: not counted
    assert store.made_by("local", 0).times == []
    made_at(store, index, ACCOUNT, [start + 60])
    with pytest.raises(Refused) as refused:
        admit(store, ACCOUNT, sign_in=True, now=start + 120)
    assert str(refused.value) == (
        "alice has made 2 submission(s) in the last 24 hours (1 of them refused for their"
        " size) and the limit is 2: the next one is allowed at 2027-01-16 08:00 UTC"
        " (in 23 h 58 min)"
    )


def page_on(store: Store, restoring: Restoring, sign_in: bool) -> Any:
    from comperbench.leaderboard.web.page import view_controls

    with gr.Blocks() as blocks:
        return view_controls(store, restoring, sign_in, blocks.upload_file_set)


def upload_file(page: Any, folder: Path, seed: int) -> str:
    """A file as Gradio's upload route hands it to the page."""
    path = folder / f"upload-{seed}.csv"
    path.write_bytes(scores(seed))
    page.uploaded.add(str(path))
    return str(path)


def result(page: Any, *values: Any) -> str:
    """What `Page.on_upload` says about the upload (its links to the rows left aside)."""
    return str(page.on_upload(*values)[0])


def form(file: str | None, account: str | None, family: str = "") -> tuple[Any, ...]:
    """The upload form's values, in the order of `Page.on_upload`'s arguments."""
    who = None if account is None else profile(account)
    return (file, "metric", "", "", "", False, [], family, who)


def test_the_handler_checks_records_the_account_and_deletes_the_upload(
    tmp_path: Path, index: ItemIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PER_DAY_ENV, "1")
    store = Store(tmp_path / "lb.sqlite")
    page = page_on(store, Restoring(), sign_in=True)
    file = upload_file(page, tmp_path, 1)
    assert result(page, *form(file, None)) == "refused: sign in with Hugging Face to submit"
    assert not Path(file).exists() and store.count() == 0
    file = upload_file(page, tmp_path, 2)
    assert result(page, *form(file, ACCOUNT)).startswith("stored as submission #1")
    assert not Path(file).exists()
    assert [s["account"] for s in store.submissions()] == [ACCOUNT]
    file = upload_file(page, tmp_path, 3)
    refused = result(page, *form(file, ACCOUNT))
    assert refused.startswith("refused: alice has stored 1 submission(s) in the last 24 hours")
    assert "the next one is allowed at" in refused
    assert not Path(file).exists() and store.count() == 1


def test_locally_the_handler_needs_no_sign_in(tmp_path: Path, index: ItemIndex) -> None:
    store = Store(tmp_path / "lb.sqlite")
    page = page_on(store, Restoring(), sign_in=False)
    file = upload_file(page, tmp_path, 4)
    assert result(page, *form(file, None)).startswith("stored as submission #1 (family: not")
    assert not Path(file).exists()
    file = upload_file(page, tmp_path, 10)
    assert result(page, *form(file, None, "llm")).startswith(
        "stored as submission #2 (family: llm)"
    )
    assert [(s["account"], s["family"]) for s in store.submissions()] == [
        (None, "llm"),
        (None, None),
    ]
    file = upload_file(page, tmp_path, 11)
    refused = result(page, *form(file, None, "neural"))
    assert "field 'family': unknown family 'neural'" in refused
    assert not Path(file).exists() and store.count() == 2


def test_submissions_are_refused_while_the_restore_runs(tmp_path: Path, index: ItemIndex) -> None:
    release = threading.Event()
    thread = threading.Thread(target=release.wait, daemon=True)
    thread.start()
    store = Store(tmp_path / "lb.sqlite")
    page = page_on(store, Restoring(3, thread), sign_in=True)
    file = upload_file(page, tmp_path, 5)
    assert result(page, *form(file, ACCOUNT)) == (
        "refused: Restoring 3 saved submission(s)… the ranking is incomplete."
        " Submit again in a few minutes."
    )
    assert not Path(file).exists() and store.count() == 0
    notes = page.refresh("usr-topical", "turn", "overall", "spearman")[1]
    assert notes.startswith("Restoring 3 saved submission(s)…")
    release.set()
    thread.join()
    assert not page.refresh("usr-topical", "turn", "overall", "spearman")[1].startswith("Restoring")


def test_the_restore_runs_in_the_background_and_keeps_the_account(
    tmp_path: Path, index: ItemIndex
) -> None:
    mirror = Mirror(tmp_path / "results")
    first = Store(tmp_path / "first.sqlite")
    submit("a.csv", scores(6), SubmissionMeta("a"), first, index, 20, mirror, ACCOUNT)
    submit("b.csv", scores(7), SubmissionMeta("b"), first, index, 20, mirror)
    store = Store(tmp_path / "restored.sqlite")
    restoring = restore_in_background(store, mirror, index)
    assert restoring.count == 2 and restoring.thread is not None
    restoring.thread.join(timeout=120)
    assert not restoring.running
    assert [(s["name"], s["account"]) for s in store.submissions()] == [
        ("b", None),
        ("a", ACCOUNT),
    ]
    assert restore_in_background(store, mirror, index) == Restoring()  # not empty: left alone
    assert restore_in_background(store, None) == Restoring()


def test_a_version_2_database_gains_the_account(tmp_path: Path, index: ItemIndex) -> None:
    path = tmp_path / "lb.sqlite"
    submit("a.csv", scores(8), SubmissionMeta("a"), Store(path), index, 20)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE submissions DROP COLUMN account")
        db.execute("PRAGMA user_version = 2")
    assert [s["account"] for s in Store(path).submissions()] == [None]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.fixture(scope="module")
def served(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The app served with sign-in required, Gradio's mock OAuth giving the fixed profile."""
    from comperbench.leaderboard.web.app import build, launch_options

    folder = tmp_path_factory.mktemp("served")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SIGN_IN_ENV, "1")
        patch.setenv(LOCAL_LOGIN_ENV, ACCOUNT)
        patch.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)
        patch.setenv("GRADIO_TEMP_DIR", str(folder / "gradio"))
        patch.setattr("comperbench.leaderboard.web.access.uploads.SWEEP_SECONDS", 0.5)
        # these tests upload as one account what many would: its share is everyone's here
        patch.setattr("comperbench.leaderboard.web.access.limits.CLIENT_FILES", 10**6)
        patch.setattr("comperbench.leaderboard.web.access.limits.CLIENT_BYTES", 2**62)
        store = Store(folder / "lb.sqlite")
        app = build(store.path)
        _, url, _ = app.launch(prevent_thread_lock=True, quiet=True, **launch_options())
        try:
            yield {"url": url, "store": store, "uploads": folder / "gradio", "app": app}
        finally:
            app.close()


SIGNED_IN = {"Cookie": f"session={session_cookie(SESSION_SECRET, ACCOUNT)}"}
"""The headers of a request from a signed-in session (uploads need one where sign-in is)."""


def test_gradio_refuses_an_upload_over_the_submission_limit(served: dict[str, Any]) -> None:
    url = f"{served['url']}gradio_api/upload"
    too_big = {"files": ("big.csv", b"0" * (MAX_FILE_BYTES + 1))}
    refused = httpx.post(url, files=too_big, headers=SIGNED_IN, timeout=120)
    assert refused.status_code == 413 and "maximum allowed size" in refused.text
    ok = {"files": ("ok.csv", b"item_id,score\n")}
    [path] = httpx.post(url, files=ok, headers=SIGNED_IN, timeout=30).json()
    assert Path(path).is_file() and Path(path).is_relative_to(served["uploads"])


def test_an_upload_needs_a_signed_in_session(served: dict[str, Any]) -> None:
    """Where the app has a sign-in, an upload from a session without one, or with a forged or
    expired one, is refused before any of it is written."""
    url = f"{served['url']}gradio_api/upload"
    before = _uploaded(served["uploads"])
    upload = {"files": ("unsigned.csv", scores(12))}
    forged = {"Cookie": f"session={session_cookie('', ACCOUNT)}"}
    for headers in ({}, forged):
        refused = httpx.post(url, files=upload, headers=headers, timeout=30)
        assert refused.status_code == 401
        assert refused.text == "refused: sign in with Hugging Face to upload a submission file"
    assert _uploaded(served["uploads"]) == before
    [path] = httpx.post(url, files=upload, headers=SIGNED_IN, timeout=30).json()
    assert Path(path).read_bytes() == scores(12)


def test_the_api_alone_is_held_to_the_sign_in(served: dict[str, Any]) -> None:
    base = f"{served['url']}gradio_api"
    upload = {"files": ("scores.csv", scores(9))}
    [path] = httpx.post(f"{base}/upload", files=upload, headers=SIGNED_IN, timeout=30).json()
    assert Path(path).is_relative_to(served["uploads"])
    file = {"path": path, "meta": {"_type": "gradio.FileData"}}
    data = [file, "api-only", "", "", "", False, [], "learned"]
    event = httpx.post(f"{base}/call/on_upload", json={"data": data}, timeout=30).json()
    stream = httpx.get(f"{base}/call/on_upload/{event['event_id']}", timeout=120).text
    [line] = [x for x in stream.splitlines() if x.startswith("data:")]
    assert json.loads(line[5:]) == ["refused: sign in with Hugging Face to submit", ""]
    assert served["store"].count() == 0
    handled = list(served["uploads"].rglob("scores.csv"))
    assert handled == [], "the handled upload was kept"


def _uploaded(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()}


def test_one_upload_request_is_bounded_in_total(served: dict[str, Any]) -> None:
    """Two files, each under the file limit, over the limit of one request together: refused
    from the declared length, before any byte is read."""
    from comperbench.leaderboard.web.access.limits import MAX_REQUEST_BYTES, refusal

    url = f"{served['url']}gradio_api/upload"
    before = _uploaded(served["uploads"])
    half = b"0" * (MAX_REQUEST_BYTES // 2 + 1)
    assert len(half) < MAX_FILE_BYTES
    two = [("files", ("a.csv", half)), ("files", ("b.csv", half))]
    refused = httpx.post(url, files=two, headers=SIGNED_IN, timeout=120)
    assert refused.status_code == 413
    size = int(refused.request.headers["content-length"])
    assert refused.text == refusal(MAX_REQUEST_BYTES, size)
    assert _uploaded(served["uploads"]) == before
    one = {"files": ("one.csv", scores(10))}
    [path] = httpx.post(url, files=one, headers=SIGNED_IN, timeout=30).json()
    assert Path(path).read_bytes() == scores(10)


def _chunked(boundary: str, *files: tuple[str, int]) -> Iterator[bytes]:
    """A multipart body of `files` (name, size) streamed in 1 MiB chunks, so without a length."""
    for name, size in files:
        yield (
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            "Content-Type: text/csv\r\n\r\n"
        ).encode()
        for start in range(0, size, 1 << 20):
            yield b"0" * min(1 << 20, size - start)
        yield b"\r\n"
    yield f"--{boundary}--\r\n".encode()


def test_a_chunked_request_is_counted_as_it_streams(served: dict[str, Any]) -> None:
    """Without a length, a body is counted as it arrives: the request that goes over the limit is
    refused (here a JSON call); a chunked upload is refused as its second file begins, and what
    Gradio had written of it is deleted."""
    from comperbench.leaderboard.web.access.limits import MAX_REQUEST_BYTES, TOO_MANY_FILES, refusal

    base = f"{served['url']}gradio_api"

    def padded_json() -> Iterator[bytes]:
        yield b'{"data": ["'
        for _ in range(MAX_REQUEST_BYTES // (1 << 20) + 1):
            yield b"0" * (1 << 20)
        yield b'"]}'

    headers = {"Content-Type": "application/json", **SIGNED_IN}
    refused = httpx.post(f"{base}/run/ranking", content=padded_json(), headers=headers, timeout=120)
    assert "content-length" not in refused.request.headers
    assert refused.status_code == 413 and refused.text == refusal(MAX_REQUEST_BYTES)
    headers = {"Content-Type": "multipart/form-data; boundary=b0undary", **SIGNED_IN}
    before = _uploaded(served["uploads"])
    body = _chunked("b0undary", ("a.csv", 3 << 20), ("b.csv", 1000))
    refused = httpx.post(f"{base}/upload", content=body, headers=headers, timeout=120)
    assert refused.status_code == 413 and refused.text == TOO_MANY_FILES
    assert _uploaded(served["uploads"]) == before
    body = _chunked("b0undary", ("small.csv", 1000))
    [path] = httpx.post(f"{base}/upload", content=body, headers=headers, timeout=30).json()
    assert Path(path).read_bytes() == b"0" * 1000


def test_one_upload_request_carries_one_file(served: dict[str, Any]) -> None:
    """900 small files in one request: refused as the second begins, none of them kept."""
    from comperbench.leaderboard.web.access.limits import TOO_MANY_FILES

    url = f"{served['url']}gradio_api/upload"
    before = _uploaded(served["uploads"])
    many = [("files", (f"f{k}.csv", b"item_id,score\n")) for k in range(900)]
    refused = httpx.post(url, files=many, headers=SIGNED_IN, timeout=120)
    assert refused.status_code == 413 and refused.text == TOO_MANY_FILES
    assert _uploaded(served["uploads"]) == before


def _uploaded_path(base: str, content: bytes, name: str) -> str:
    upload = {"files": (name, content)}
    [path] = httpx.post(f"{base}/upload", files=upload, headers=SIGNED_IN, timeout=60).json()
    return str(path)


def _form_data(path: str, name: str) -> list[Any]:
    file = {"path": path, "meta": {"_type": "gradio.FileData"}}
    return [file, name, "", "", "", False, [], "learned"]


def _call(base: str, data: list[Any], cookie: str | None) -> str:
    """The result line of `on_upload` called through the queued `/call`."""
    headers = {"Cookie": f"session={cookie}"} if cookie else {}
    event = httpx.post(f"{base}/call/on_upload", json={"data": data}, headers=headers, timeout=60)
    stream = httpx.get(f"{base}/call/on_upload/{event.json()['event_id']}", timeout=600).text
    lines = stream.splitlines()
    [line] = [b for a, b in itertools.pairwise(lines) if a == "event: complete"]  # no heartbeat
    return str(json.loads(line.removeprefix("data:"))[0])


def test_parallel_run_and_call_requests_store_no_more_than_the_limit(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight submissions at once through `/call`: the limit is checked in the transaction that
    stores, so a limit of 3 stores 3; `/run`, which would skip the queue, is refused."""
    monkeypatch.setenv(PER_DAY_ENV, "3")
    base = f"{served['url']}gradio_api"
    cookie = session_cookie(SESSION_SECRET, "bob")
    paths = [_uploaded_path(base, scores(200 + k), f"bob-{k}.csv") for k in range(8)]
    answers: list[str] = []

    def send(k: int) -> None:
        answers.append(_call(base, _form_data(paths[k], f"bob-{k}"), cookie))

    threads = [threading.Thread(target=send, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert len(answers) == 8, answers
    assert len(served["store"].submitted_by("bob", 0)) == 3
    assert sum(a.startswith("stored as submission") for a in answers) == 3, answers
    refused = [a for a in answers if a.startswith("refused: bob has stored 3 submission(s)")]
    assert len(refused) == 5, answers
    assert not any(Path(p).exists() for p in paths), "a handled upload was kept"
    path = _uploaded_path(base, scores(299), "bob-run.csv")
    headers = {"Cookie": f"session={cookie}"}
    skipping = httpx.post(
        f"{base}/run/on_upload", json={"data": _form_data(path, "run")}, headers=headers
    )
    assert skipping.status_code == 404 and len(served["store"].submitted_by("bob", 0)) == 3


def test_a_forged_session_cookie_is_refused(served: dict[str, Any]) -> None:
    """A cookie signed with the key Gradio derives when no secret is set (public) is not a
    sign-in; one signed with the configured secret is."""
    base = f"{served['url']}gradio_api"
    forged = session_cookie("", "mallory")
    data = _form_data(_uploaded_path(base, scores(300), "mallory.csv"), "mallory")
    assert _call(base, data, forged) == "refused: sign in with Hugging Face to submit"
    assert served["store"].submitted_by("mallory", 0) == []
    signed = session_cookie(SESSION_SECRET, "carol")
    data = _form_data(_uploaded_path(base, scores(301), "carol.csv"), "carol")
    assert _call(base, data, signed).startswith("stored as submission")
    assert len(served["store"].submitted_by("carol", 0)) == 1


def test_without_a_session_secret_the_app_refuses_to_start(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.common.errors import ComperbenchError
    from comperbench.leaderboard.web.app import build

    monkeypatch.setenv(SIGN_IN_ENV, "1")
    monkeypatch.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", None)
    with pytest.raises(ComperbenchError) as refused:
        build(tmp_path / "lb.sqlite")
    message = str(refused.value)
    assert "\n" not in message and "set OAUTH_CLIENT_SECRET to a long random secret" in message
    assert not (tmp_path / "lb.sqlite").exists()
    monkeypatch.setenv(SIGN_IN_ENV, "0")
    build(tmp_path / "lb.sqlite")  # no sign-in, no session: no secret needed


def test_a_path_not_handed_out_by_the_upload_route_is_neither_read_nor_deleted(
    served: dict[str, Any],
) -> None:
    """A file in Gradio's folder that no upload handed out (as the cached template is), and an
    upload already claimed by another request, are refused untouched."""
    base = f"{served['url']}gradio_api"
    cookie = session_cookie(SESSION_SECRET, "dave")
    before = served["store"].count()
    cached = served["uploads"] / "0123abcd" / "template.csv"
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(scores(400))
    answer = _call(base, _form_data(str(cached), "dave"), cookie)
    assert answer == "refused: 'template.csv' is not a file uploaded here; upload it again"
    assert cached.read_bytes() == scores(400) and served["store"].count() == before
    path = _uploaded_path(base, b"item_id,score\nnot-an-item,1\n", "once.csv")
    assert "was rejected" in _call(base, _form_data(path, "dave"), cookie)
    Path(path).parent.mkdir(parents=True, exist_ok=True)  # an emptied folder may be gone
    Path(path).write_bytes(scores(401))  # the same path named again by a second request
    again = _call(base, _form_data(path, "dave"), cookie)
    assert again == "refused: 'once.csv' is not a file uploaded here; upload it again"
    assert Path(path).read_bytes() == scores(401) and served["store"].count() == before


def _upload_answer(served: dict[str, Any], name: str, content: bytes) -> httpx.Response:
    url = f"{served['url']}gradio_api/upload"
    return httpx.post(url, files={"files": (name, content)}, headers=SIGNED_IN, timeout=60)


def _back_date(paths: list[str], seconds: float) -> None:
    """Make uploads look written `seconds` earlier (their mtime; nothing else reads it)."""
    for path in paths:
        stat = Path(path).stat()
        os.utime(path, (stat.st_atime - seconds, stat.st_mtime - seconds))


def test_the_uploads_held_are_bounded_and_expire(
    served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uploads not yet submitted are bounded in number and bytes (an upload that does not fit is
    refused before it is read, with the time to retry), and expire after UPLOAD_LIFE: a later
    upload then fits again."""
    from comperbench.leaderboard.web.access import limits
    from comperbench.leaderboard.web.access.uploads import UPLOAD_LIFE, uploads_of

    uploads = uploads_of(served["app"].server_app)
    held = uploads.held()
    monkeypatch.setattr(limits, "PENDING_FILES", held.count + 2)
    kept = [_upload_answer(served, f"n{k}.csv", scores(500 + k)).json()[0] for k in range(2)]
    before = _uploaded(served["uploads"])
    refused = _upload_answer(served, "third.csv", scores(502))
    wait = re.fullmatch(
        rf"refused: the server holds as many uploads waiting to be submitted as it keeps"
        rf" \({held.count + 2} files, {limits.PENDING_BYTES // 2**20} MiB\); try again in (\d+) min",
        refused.text,
    )
    assert refused.status_code == 503 and wait, refused.text
    assert 1 <= int(wait[1]) <= 10 and refused.headers["retry-after"] == str(60 * int(wait[1]))
    assert _uploaded(served["uploads"]) == before
    monkeypatch.setattr(limits, "PENDING_FILES", 1000)
    held = uploads.held()
    monkeypatch.setattr(limits, "PENDING_BYTES", held.size + (3 << 20))
    kept.append(_upload_answer(served, "two-mib.csv", b"1" * (2 << 20)).json()[0])
    before = _uploaded(served["uploads"])
    assert _upload_answer(served, "more.csv", b"2" * (2 << 20)).status_code == 503
    assert _uploaded(served["uploads"]) == before
    _back_date(list(uploads.files), UPLOAD_LIFE + 1)
    [path] = _upload_answer(served, "more.csv", b"2" * (2 << 20)).json()
    assert Path(path).is_file()
    assert not any(Path(p).exists() or Path(p).parent.exists() for p in kept)
    assert uploads.files == {path}
    assert uploads.held().count == 1


def test_an_upload_never_submitted_is_deleted_while_no_request_comes(
    served: dict[str, Any],
) -> None:
    """The app's sweep (every 0.5 s in these tests) deletes an expired upload and its folder."""
    from comperbench.leaderboard.web.access.uploads import UPLOAD_LIFE, uploads_of

    uploads = uploads_of(served["app"].server_app)
    [path] = _upload_answer(served, "forgotten.csv", scores(600)).json()
    _back_date([path], UPLOAD_LIFE + 1)
    deadline = time.monotonic() + 120
    while Path(path).parent.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(path).parent.exists() and path not in uploads.files
    page = _form_data(path, "forgotten")
    cookie = session_cookie(SESSION_SECRET, "erin")
    answer = _call(f"{served['url']}gradio_api", page, cookie)
    assert answer == "refused: 'forgotten.csv' is not a file uploaded here; upload it again"


def _off_a_space(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-in required, a session secret, and no Space."""
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("SYSTEM", raising=False)
    monkeypatch.setenv(SIGN_IN_ENV, "1")
    monkeypatch.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)


def test_off_a_space_sign_in_needs_an_explicit_local_account_on_a_loopback_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gradio's mock would sign every visitor in as the machine's own account: off a Space the
    app refuses to start unless an account is named, and then only on a loopback address."""
    from comperbench.common.errors import ComperbenchError
    from comperbench.leaderboard.web.access.sign_in import local_sign_in

    _off_a_space(monkeypatch)
    monkeypatch.delenv(LOCAL_LOGIN_ENV, raising=False)
    with pytest.raises(ComperbenchError) as refused:
        local_sign_in("127.0.0.1")
    assert str(refused.value) == (
        "sign-in is required (COMPERBENCH_REQUIRE_LOGIN=1) but this is not a Hugging Face Space,"
        " where Gradio would sign every visitor in as this machine's own Hugging Face account:"
        " deploy it as a Space, set COMPERBENCH_REQUIRE_LOGIN=0, or set"
        " COMPERBENCH_LOCAL_LOGIN=NAME to try sign-in on 127.0.0.1 as NAME"
    )
    monkeypatch.setenv(LOCAL_LOGIN_ENV, "alice smith")
    with pytest.raises(ComperbenchError, match=r"^COMPERBENCH_LOCAL_LOGIN='alice smith' is not"):
        local_sign_in("127.0.0.1")
    monkeypatch.setenv(LOCAL_LOGIN_ENV, "alice")
    for host in ("0.0.0.0", "192.168.1.20", "::", "example.org"):
        with pytest.raises(ComperbenchError, match=rf"loopback address only, not on {host}:"):
            local_sign_in(host)
    assert [local_sign_in(host) for host in ("127.0.0.1", "localhost", "::1")] == ["alice"] * 3
    monkeypatch.setenv("SYSTEM", "spaces")
    monkeypatch.setenv("SPACE_ID", "owner/board")
    assert local_sign_in("0.0.0.0") is None  # a Space: Hugging Face's own sign-in
    monkeypatch.setenv(SIGN_IN_ENV, "0")
    monkeypatch.delenv("SYSTEM")
    monkeypatch.delenv("SPACE_ID")
    assert local_sign_in("0.0.0.0") is None  # no sign-in at all


@pytest.mark.parametrize(
    ("local", "host", "needle"),
    [
        (None, "127.0.0.1", "set COMPERBENCH_LOCAL_LOGIN=NAME to try sign-in on 127.0.0.1"),
        ("alice", "0.0.0.0", "served on a loopback address only, not on 0.0.0.0"),
    ],
)
def test_serve_refuses_sign_in_that_would_not_be_real_in_one_line(
    local: str | None,
    host: str,
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from comperbench.cli import main

    _off_a_space(monkeypatch)
    if local is None:
        monkeypatch.delenv(LOCAL_LOGIN_ENV, raising=False)
    else:
        monkeypatch.setenv(LOCAL_LOGIN_ENV, local)

    def served(*args: Any) -> None:
        raise AssertionError("the app was built")

    monkeypatch.setattr("comperbench.leaderboard.web.app.build", served)
    path = Store(tmp_path / "lb.sqlite").path
    stored = _dump(path)
    assert main(["leaderboard", "serve", "--db", str(path), "--host", host]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and needle in err, err
    assert _dump(path) == stored


def _dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


def test_the_local_sign_in_gives_the_named_account(served: dict[str, Any]) -> None:
    """Gradio's mock sign-in, followed as a browser does, gives COMPERBENCH_LOCAL_LOGIN's account
    (no Hub look-up of the machine's own), which uploads and stores under that name; the page
    says that sign-in is local."""
    base = served["url"].rstrip("/")
    config = httpx.get(f"{base}/config", timeout=60).text
    assert "everyone who signs in here is signed in as" in config
    step = httpx.get(f"{base}/login/huggingface", timeout=60)
    while step.is_redirect and "session" not in step.cookies:
        step = httpx.get(str(step.next_request.url), timeout=60)  # type: ignore[union-attr]
    cookie = step.cookies["session"]
    headers = {"Cookie": f"session={cookie}"}
    upload = {"files": ("local.csv", scores(700))}
    [path] = httpx.post(f"{base}/gradio_api/upload", files=upload, headers=headers).json()
    answer = _call(f"{base}/gradio_api", _form_data(path, "local-account"), cookie)
    assert answer.startswith("stored as submission"), answer
    [stored] = [s for s in served["store"].submissions() if s["name"] == "local-account"]
    assert stored["account"] == ACCOUNT
