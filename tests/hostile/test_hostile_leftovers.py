"""Uploads that outlive their run: deleted at shutdown, and after a kill on the next start, in a
folder GRADIO_TEMP_DIR names (shared with other apps) only where the app's ledger says."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest
from deadlines import DEADLINE_S
from oauth_mock import ACCOUNT, SESSION_SECRET, session_cookie

from comperbench.leaderboard.web.access.uploads import LEDGER, UPLOAD_LIFE, Uploads, leftovers

pytestmark = pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")


def _written(path: Path, age: float, now: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("item_id,score\n")
    os.utime(path, (now - age,) * 2)
    return path


def test_a_shared_folder_loses_only_the_old_uploads_its_ledger_lists(tmp_path: Path) -> None:
    now = time.time()
    shared = tmp_path / "gradio"  # a GRADIO_TEMP_DIR other apps may use too
    old = _written(shared / ("a" * 64) / "mine.csv", UPLOAD_LIFE + 60, now)
    young = _written(shared / ("b" * 64) / "mine.csv", 5, now)
    theirs = _written(shared / ("c" * 64) / "theirs.csv", UPLOAD_LIFE + 60, now)
    outside = _written(tmp_path / "elsewhere" / "x.csv", UPLOAD_LIFE + 60, now)
    uploads = Uploads({str(old), str(young)}, ledger=shared / LEDGER)
    uploads.note_folders()  # what a run killed before its shutdown has written down
    with (shared / LEDGER).open("a") as ledger:
        ledger.write(f"{outside.parent}\n{shared}/../elsewhere\n")  # never followed out
    assert leftovers(shared, now) == 1
    assert not old.parent.exists() and young.exists() and theirs.exists() and outside.exists()
    assert (shared / LEDGER).read_text().splitlines() == [str(young.parent)]
    assert leftovers(shared, now) == 0


def test_a_folder_without_a_ledger_is_left_alone(tmp_path: Path) -> None:
    now = time.time()
    old = _written(tmp_path / "gradio" / ("d" * 64) / "x.csv", UPLOAD_LIFE + 60, now)
    assert leftovers(tmp_path / "gradio", now) == 0 and old.exists()


def test_uploads_still_held_at_shutdown_are_deleted(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.leaderboard.service import SIGN_IN_ENV
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.web.access.sign_in import LOCAL_LOGIN_ENV
    from comperbench.leaderboard.web.app import build, launch_options

    monkeypatch.setenv(SIGN_IN_ENV, "1")
    monkeypatch.setenv(LOCAL_LOGIN_ENV, ACCOUNT)
    monkeypatch.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    app = build(Store(tmp_path / "lb.sqlite").path)
    _, url, _ = app.launch(
        server_name="127.0.0.1", prevent_thread_lock=True, quiet=True, **launch_options()
    )
    try:
        answer = httpx.post(
            f"{url}gradio_api/upload",
            files={"files": ("pending.csv", b"item_id,score\n")},
            headers={"Cookie": f"session={session_cookie(SESSION_SECRET, ACCOUNT)}"},
            timeout=60,
        )
        (path,) = answer.json()
        assert Path(path).is_file()
    finally:
        app.close()
    deadline = time.monotonic() + DEADLINE_S
    while Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(path).exists() and not Path(path).parent.exists()
