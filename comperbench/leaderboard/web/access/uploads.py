"""The uploads the app's upload route handed out and no submission has claimed yet (Gradio's
`Blocks.upload_file_set`): how many there are, how large, and their expiry.

An upload never submitted is deleted UPLOAD_LIFE seconds after it was written (its mtime), with
its folder (Gradio writes each upload in a folder named by its content hash): whenever an upload
request is admitted (`Uploads.held`) and every SWEEP_SECONDS (`sweeping`, a lifespan task of the
app). Both run on the server's event loop, where the upload route creates those folders, so a
folder is never removed between its creation and the upload written into it. On shutdown every
upload still held is deleted (no later run can submit it). A run that is killed first leaves
them: the next run deletes them on start, from the app's own folder everything old, from a
folder GRADIO_TEMP_DIR names (which other apps may share) only the folders its LEDGER lists.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from comperbench.leaderboard.web.access import downloads

OWN_FOLDER = "comperbench-gradio"
"""The name of the temporary folder `leaderboard serve` gives Gradio (unless GRADIO_TEMP_DIR
names one): being the app's own, what a previous run left in it is deleted on start."""
UPLOAD_LIFE = 600.0
"""Seconds an upload is kept for its submission."""
LEDGER = ".comperbench-uploads"
"""The file, in Gradio's folder, listing the folders uploads were handed out in (one per line)."""
SWEEP_SECONDS = 60.0
"""How often uploads older than UPLOAD_LIFE are looked for while no upload request comes."""


@dataclass(frozen=True)
class Held:
    """The uploads on disk waiting to be submitted: how many, their bytes, when the oldest was
    written (None when there is none)."""

    count: int
    size: int
    oldest: float | None


@dataclass
class Uploads:
    """The app's handed-out uploads (`files`, shared with Gradio's upload route and the
    submission handler, which claims a file by taking it out), the folders they were written
    in, and what the upload requests in flight may still bring (`reserved` bytes in `flying`
    requests)."""

    files: set[str]
    folders: set[Path] = field(default_factory=set)
    ledger: Path | None = None
    """Where each folder noted is also written down (`LEDGER`), for a run killed before its
    shutdown."""
    reserved: int = 0
    flying: int = 0
    owners: dict[str, str] = field(default_factory=dict)
    """The client (`limits.client_of`) each handed-out upload counts against."""
    reserved_by: Counter[str] = field(default_factory=Counter)
    flying_by: Counter[str] = field(default_factory=Counter)

    def reserve(self, client: str, brings: int) -> None:
        """Count an upload request in flight, and what it may bring, against `client`."""
        self.reserved += brings
        self.flying += 1
        self.reserved_by[client] += brings
        self.flying_by[client] += 1

    def release(self, client: str, brings: int) -> None:
        """The upload request of `reserve` is answered."""
        self.reserved -= brings
        self.flying -= 1
        self.reserved_by[client] -= brings
        self.flying_by[client] -= 1
        for counts in (self.reserved_by, self.flying_by):
            if counts[client] <= 0:
                del counts[client]

    def held_by(self, client: str) -> tuple[int, int]:
        """How many uploads, of how many bytes, `client` holds (none expired are counted)."""
        count = size = 0
        for path, owner in list(self.owners.items()):
            if owner != client:
                continue
            if path not in self.files or not os.path.exists(path):
                self.owners.pop(path, None)
                continue
            with contextlib.suppress(OSError):
                size += os.stat(path).st_size
                count += 1
        return count, size

    def oldest_of(self, client: str) -> float | None:
        """When the oldest upload `client` holds was written (None: it holds none)."""
        times = []
        for path, owner in list(self.owners.items()):
            if owner == client:
                with contextlib.suppress(OSError):
                    times.append(os.stat(path).st_mtime)
        return min(times, default=None)

    def held(self, now: float | None = None) -> Held:
        """The uploads still held, after those written over UPLOAD_LIFE seconds ago are deleted
        and every vanished one is forgotten; emptied folders are removed."""
        now = time.time() if now is None else now
        count = size = 0
        oldest: float | None = None
        self.note_folders()
        for path in list(self.files):
            try:
                stat = os.stat(path)
            except OSError:
                self.files.discard(path)
                continue
            if now - stat.st_mtime > UPLOAD_LIFE:
                self._expire(path)
                continue
            count += 1
            size += stat.st_size
            oldest = stat.st_mtime if oldest is None else min(oldest, stat.st_mtime)
        self._remove_empty_folders()
        return Held(count, size, oldest)

    def note_folders(self) -> None:
        """Remember the folders of the uploads handed out (to remove each once emptied), in
        the ledger too."""
        new = {Path(path).parent for path in list(self.files)} - self.folders
        self.folders.update(new)
        if new and self.ledger is not None:
            with contextlib.suppress(OSError), self.ledger.open("a", encoding="utf-8") as file:
                file.writelines(f"{folder}\n" for folder in sorted(new))

    def delete_all(self) -> None:
        """Delete every upload still held, with its emptied folder (at shutdown)."""
        self.note_folders()
        for path in list(self.files):
            self._expire(path)
        self._remove_empty_folders()

    def _expire(self, path: str) -> None:
        """Delete an upload unless a submission claimed it meanwhile (only one of them can take
        it out of the set)."""
        try:
            self.files.remove(path)
        except KeyError:
            return
        Path(path).unlink(missing_ok=True)

    def _remove_empty_folders(self) -> None:
        for folder in list(self.folders):
            with contextlib.suppress(OSError):  # not empty, or gone
                folder.rmdir()
            if not folder.is_dir():
                self.folders.discard(folder)


def own_folder() -> Path:
    """The temporary folder `leaderboard serve` gives Gradio unless GRADIO_TEMP_DIR is set."""
    return Path(tempfile.gettempdir()) / OWN_FOLDER


def leftovers(folder: Path, now: float | None = None) -> int:
    """Delete the files written over UPLOAD_LIFE seconds ago that a previous run left (this run
    has handed none out yet), with their emptied folders: in the app's own temporary folder
    (named OWN_FOLDER) every such file, in another only those in the folders its LEDGER
    lists; how many."""
    if not folder.is_dir():
        return 0
    now = time.time() if now is None else now
    if folder.name == OWN_FOLDER:
        return _delete_old(folder, now)
    ledger = folder / LEDGER
    try:
        listed = {Path(line) for line in ledger.read_text(encoding="utf-8").splitlines()}
    except OSError:
        return 0
    ours = [p for p in listed if p.parent == folder and p.is_dir()]  # nothing outside it
    deleted = sum(_delete_old(p, now) for p in ours)
    for path in ours:
        with contextlib.suppress(OSError):
            path.rmdir()  # only an emptied one goes
    kept = sorted(str(p) for p in ours if p.is_dir())
    with contextlib.suppress(OSError):
        ledger.write_text("".join(f"{p}\n" for p in kept), encoding="utf-8")
    return deleted


def _delete_old(folder: Path, now: float) -> int:
    """Delete the files under `folder` written over UPLOAD_LIFE seconds ago, then every
    emptied folder under it; how many files."""
    deleted = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file() and now - path.stat().st_mtime > UPLOAD_LIFE:
                path.unlink()
                deleted += 1
    for path in sorted(folder.rglob("*"), reverse=True):
        with contextlib.suppress(OSError):
            path.rmdir()  # only an empty folder goes
    return deleted


def uploads_of(app: Any) -> Uploads:
    """The `Uploads` of a served Gradio app, kept in its state (made on first use)."""
    from gradio.utils import get_upload_folder

    uploads = getattr(app.state, "uploads", None)
    if uploads is None:
        ledger = Path(get_upload_folder()) / LEDGER
        uploads = app.state.uploads = Uploads(app.get_blocks().upload_file_set, ledger=ledger)
    return uploads


@contextlib.asynccontextmanager
async def sweeping(app: Any) -> AsyncIterator[None]:
    """A lifespan for the app: on start, delete what a previous run left (`leftovers`); while it
    is served, expire old uploads and Gradio's copies of old downloads (`downloads.sweep`)
    every SWEEP_SECONDS."""
    from gradio.utils import get_upload_folder

    async def sweep() -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            uploads = uploads_of(app)
            uploads.held()
            downloads.sweep(Path(get_upload_folder()), set(uploads.files))

    leftovers(Path(get_upload_folder()))
    task = asyncio.create_task(sweep())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        uploads_of(app).delete_all()
