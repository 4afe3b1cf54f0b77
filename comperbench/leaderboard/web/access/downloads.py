"""The files the app's download buttons serve, with a lifetime and a cap.

A download is written once per content into DOWNLOADS (named by its stem and a digest of its
text); Gradio then serves a copy of it from its own temporary folder. Both are bounded: the
folder keeps the MAX_DOWNLOADS newest files (an older one is deleted as a new one is written),
and `sweep` deletes Gradio's copies older than DOWNLOAD_LIFE seconds, or beyond the
MAX_DOWNLOADS newest, whenever the app's sweep runs (`uploads.sweeping`). A page whose
download was swept draws it again on its next change.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

MAX_DOWNLOADS = 64
"""Most download files kept, in the app's folder and among Gradio's copies."""
DOWNLOAD_LIFE = 900.0
"""Seconds a copy of a download is served before it is deleted."""
DOWNLOADS = Path(tempfile.gettempdir()) / "comperbench-downloads"
_NAMED = re.compile(r".+-[0-9a-f]{16}\.csv")
"""How a download is named: its stem, a digest of its text."""


def download(text: str, stem: str, folder: Path | None = None) -> str:
    """A file holding `text` for a download button, named by `stem` and its content; the
    oldest other files past MAX_DOWNLOADS are deleted."""
    folder = folder or DOWNLOADS
    folder.mkdir(exist_ok=True)
    path = folder / f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv"
    if path.exists():
        path.touch()
    else:
        path.write_text(text, encoding="utf-8")
    _keep_newest((p for p in folder.glob("*.csv") if p != path), MAX_DOWNLOADS - 1)
    return str(path)


def sweep(gradio_folder: Path, kept: set[str], now: float | None = None) -> int:
    """Delete Gradio's copies of downloads (files named as `download` names them, not among
    `kept`, the uploads waiting to be submitted) older than DOWNLOAD_LIFE or past the
    MAX_DOWNLOADS newest, with their emptied folders; how many were deleted."""
    now = time.time() if now is None else now
    copies = [
        p for p in gradio_folder.glob("*/*.csv") if _NAMED.fullmatch(p.name) and str(p) not in kept
    ]
    old = [p for p in copies if _age(p, now) > DOWNLOAD_LIFE]
    for path in old:
        _delete(path)
    return len(old) + _keep_newest([p for p in copies if p not in old], MAX_DOWNLOADS)


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return 0.0


def _keep_newest(paths: Iterable[Path], count: int) -> int:
    """Delete all but the `count` most recently written of `paths`; how many were deleted."""
    dated = []
    for path in paths:
        with contextlib.suppress(OSError):
            dated.append((path.stat().st_mtime, path))
    dated.sort(reverse=True)
    for _, path in dated[count:]:
        _delete(path)
    return max(0, len(dated) - count)


def _delete(path: Path) -> None:
    """Delete `path`, and its folder when that is one of Gradio's and now empty."""
    path.unlink(missing_ok=True)
    if path.parent != DOWNLOADS:
        with contextlib.suppress(OSError):
            path.parent.rmdir()
