"""Downloads do not pile up: 300 different CSV downloads leave at most MAX_DOWNLOADS files in
the app's folder, and the sweep bounds Gradio's copies by age and count, never touching an
upload waiting to be submitted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd
import pytest

from comperbench.leaderboard.web.access import downloads
from comperbench.leaderboard.web.views import csv_file


def test_three_hundred_downloads_leave_a_bounded_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(downloads, "DOWNLOADS", tmp_path / "downloads")
    paths = []
    for k in range(300):
        paths.append(csv_file(pd.DataFrame({"metric": [f"m{k}"], "value": [k]}), "ranking"))
        os.utime(paths[-1], (time.time() - 1000 + k,) * 2)  # written in turn
    kept = list((tmp_path / "downloads").iterdir())
    assert len(kept) == downloads.MAX_DOWNLOADS
    assert Path(paths[-1]) in kept and Path(paths[0]) not in kept
    assert Path(paths[-1]).read_text(encoding="utf-8") == "metric,value\nm299,299\n"


def test_the_sweep_bounds_gradios_copies_by_age_and_count(tmp_path: Path) -> None:
    now = time.time()
    copies = []
    for k in range(150):
        folder = tmp_path / f"{k:064x}"
        folder.mkdir()
        copy = folder / f"overall-{k:016x}.csv"
        copy.write_text("rank\n")
        age = downloads.DOWNLOAD_LIFE + 10 if k < 20 else k
        os.utime(copy, (now - age, now - age))
        copies.append(copy)
    upload = tmp_path / "up" / f"mine-{0:016x}.csv"
    upload.parent.mkdir()
    upload.write_text("item_id,score\n")
    os.utime(upload, (now - 10 * downloads.DOWNLOAD_LIFE,) * 2)
    deleted = downloads.sweep(tmp_path, {str(upload)}, now)
    left = [c for c in copies if c.exists()]
    assert deleted == 150 - downloads.MAX_DOWNLOADS
    assert left == copies[20 : 20 + downloads.MAX_DOWNLOADS]  # the newest (youngest) ones
    assert upload.exists()
    assert not copies[0].parent.exists(), "an emptied folder was kept"


def test_what_a_previous_run_left_in_the_apps_own_folder_is_deleted_on_start(
    tmp_path: Path,
) -> None:
    from comperbench.leaderboard.web.access.uploads import OWN_FOLDER, UPLOAD_LIFE, leftovers

    now = time.time()
    own, other = tmp_path / OWN_FOLDER, tmp_path / "gradio"
    for folder in (own, other):
        for name, age in (("old", UPLOAD_LIFE + 60), ("new", 5)):
            path = folder / f"{name}-hash" / "pending.csv"
            path.parent.mkdir(parents=True)
            path.write_text("item_id,score\n")
            os.utime(path, (now - age,) * 2)
    assert leftovers(own, now) == 1 and leftovers(other, now) == 0
    assert not (own / "old-hash").exists() and (own / "new-hash" / "pending.csv").exists()
    assert (other / "old-hash" / "pending.csv").exists()  # not the app's own: left alone
