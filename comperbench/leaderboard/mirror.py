"""The results folder: every accepted submission also kept as files, and mirrored to the Hub.

One subfolder per submission, named after its file's SHA-256, holds the file as it was submitted
(`scores` with the file's extension) and `record.json`: the metadata (an older record without
the declared family reads as declaring none), the benchmark versions and levels it covers (and
whether fully, see `submission.Coverage.full`), when it was stored and as which submission, the
package version and resample count that scored it, and the submitting account if any. A
subfolder is written under a temporary name and renamed into place, so it appears whole or not at
all (a half-written one left by a stopped process is deleted after PARTIAL_LIFE); an existing
one's file is never replaced. It is written before the submission's row commits (see
`Store.add`), so a stored submission is never without it; a folder whose row never committed
(the process stopped in between) gets the record of the row that next stores its file, so that a
restore credits that row's account.

COMPERBENCH_RESULTS_DIR names the folder. With COMPERBENCH_RESULTS_REPO, the folder (default: in
the user data directory) is first filled from that Hub dataset repository, then pushed to it by a
`huggingface_hub.CommitScheduler` after every submission and every few minutes (the token is
huggingface_hub's: HF_TOKEN or the login). `service.restore` rebuilds a store from the folder.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import shutil
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.scoring import N_RESAMPLES
from comperbench.leaderboard.store import Stored
from comperbench.leaderboard.submission import Submission, SubmissionMeta

if TYPE_CHECKING:
    from huggingface_hub import CommitScheduler

DIR_ENV = "COMPERBENCH_RESULTS_DIR"
REPO_ENV = "COMPERBENCH_RESULTS_REPO"
RECORD = "record.json"
TEMP_PREFIX = ".partial-"
"""Prefix of a subfolder being written (skipped when reading, never pushed)."""
PARTIAL_LIFE = 3600.0
"""Seconds after which a half-written subfolder is taken as left by a stopped process."""
PUSH_EVERY_MINUTES = 5.0
"""The scheduler's periodic push; every submission also triggers one at once."""
RECORD_VERSION = 1


class MirrorError(ComperbenchError):
    """A results subfolder that cannot be read back; the message says which and why."""


@dataclass(frozen=True)
class Entry:
    """One kept submission read back: what is needed to accept it again."""

    folder: Path
    file_name: str
    raw: bytes
    meta: SubmissionMeta
    submitted_at: float
    submission_id: int
    n_resamples: int
    account: str | None
    """The account recorded with it (None when none, or not a name)."""


def scores_name(file_name: str) -> str:
    """The name a submitted file is kept under: `scores` with the file's extension."""
    return "scores" + Path(file_name).suffix


def record(
    submission: Submission, stored: Stored, n_resamples: int, account: str | None
) -> dict[str, Any]:
    """The JSON record of an accepted submission."""
    coverage = {
        metric: [
            {
                "benchmark": c.benchmark,
                "version": f"{c.benchmark}@{c.fingerprint}",
                "level": c.level,
                "covered": c.covered,
                "total": c.total,
                "full": c.full,
            }
            for c in coverages
        ]
        for metric, coverages in submission.metrics.items()
    }
    return {
        "record_version": RECORD_VERSION,
        "file_name": submission.file_name,
        "file_sha256": submission.file_sha256,
        "format": submission.format,
        "rows": submission.rows,
        "meta": {**asdict(submission.meta), "trained_on": list(submission.meta.trained_on)},
        "submission_id": stored.submission_id,
        "submitted_at": stored.created_at,
        "account": account,
        "package_version": __version__,
        "n_resamples": n_resamples,
        "coverage": coverage,
    }


def _write_file(path: Path, data: bytes) -> None:
    with path.open("xb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


@dataclass(frozen=True)
class Mirror:
    """The results folder, and the scheduler that pushes it to the Hub (None: local only)."""

    folder: Path
    scheduler: CommitScheduler | None = None

    def _lock(self) -> AbstractContextManager[object]:
        return self.scheduler.lock if self.scheduler is not None else nullcontext()

    def holds(self, file_sha256: str) -> bool:
        """Whether the submission of that file is kept here."""
        return (self.folder / file_sha256).is_dir()

    def write(
        self, raw: bytes, submission: Submission, stored: Stored, n_resamples: int
    ) -> Path | None:
        """Keep an accepted submission's file and record (with its stored number, time and
        account); its subfolder, or None when it exists already (then left as it is).
        `MirrorError` when the folder cannot be written."""
        final = self.folder / submission.file_sha256
        partial: Path | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            kept = record(submission, stored, n_resamples, stored.account)
            if final.exists():
                self._reconcile(final, kept)
                return None
            self.remove_partials()
            partial = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=self.folder))
            _write_file(partial / scores_name(submission.file_name), raw)
            _write_file(partial / RECORD, json.dumps(kept, indent=2).encode("utf-8"))
            with self._lock():
                os.rename(partial, final)  # a non-empty folder already there is never replaced
        except OSError as exc:
            if final.is_dir():
                return None
            raise MirrorError(
                f"cannot keep the submission in the results folder {self.folder}"
                f" ({exc.strerror or exc}); nothing was stored"
            ) from exc
        finally:
            if partial is not None:
                shutil.rmtree(partial, ignore_errors=True)
        if self.scheduler is not None:
            self.scheduler.trigger()
        return final

    def _reconcile(self, final: Path, kept: dict[str, Any]) -> None:
        """Make the record of a folder already there the row's being stored now. The caller
        stores the file only when no row has it, so such a folder was left by a process that
        stopped between keeping it and committing its row: the row now committing (its
        account, number and time) is the one a restore must rebuild."""
        try:
            found = json.loads((final / RECORD).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = None
        keys = ("account", "submission_id", "submitted_at", "meta")
        if isinstance(found, dict) and all(found.get(k) == kept.get(k) for k in keys):
            return
        fresh = final / f"{TEMP_PREFIX}{RECORD}"
        fresh.unlink(missing_ok=True)
        _write_file(fresh, json.dumps(kept, indent=2).encode("utf-8"))
        with self._lock():
            os.replace(fresh, final / RECORD)

    def remove_partials(self, older_than: float = PARTIAL_LIFE) -> None:
        """Delete the subfolders left half-written (by a process that stopped while writing
        them) over `older_than` seconds ago."""
        if not self.folder.is_dir():
            return
        now = time.time()
        for path in self.folder.glob(f"{TEMP_PREFIX}*"):
            with contextlib.suppress(OSError):
                if path.is_dir() and now - path.stat().st_mtime > older_than:
                    shutil.rmtree(path)

    def folders(self) -> list[Path]:
        """The kept submissions' subfolders (not those being written, nor hidden ones)."""
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith("."))

    def read(self, folder: Path) -> Entry:
        """A kept submission; `MirrorError` when its files are missing, malformed or altered,
        or a field of its record is not what `write` writes (`_checked`)."""
        try:
            kept = json.loads((folder / RECORD).read_text(encoding="utf-8"))
            if not isinstance(kept, dict):
                raise ValueError(f"{RECORD} is not a JSON object")
            file_name, meta, when, number, resamples = _checked(kept)
            entry = Entry(
                folder=folder,
                file_name=file_name,
                raw=(folder / scores_name(file_name)).read_bytes(),
                meta=meta,
                submitted_at=when,
                submission_id=number,
                n_resamples=resamples,
                account=_account(kept.get("account")),
            )
        except KeyError as exc:
            raise MirrorError(f"{folder}: {RECORD} has no field {exc}") from exc
        except (OSError, ValueError, TypeError) as exc:
            raise MirrorError(f"{folder}: {type(exc).__name__}: {exc}") from exc
        if hashlib.sha256(entry.raw).hexdigest() != folder.name:
            raise MirrorError(f"{folder}: the file's SHA-256 is not the folder's name (altered)")
        return entry


MAX_KEPT_RESAMPLES = 20 * N_RESAMPLES
"""Most resamples a kept record may ask its restore to draw (the leaderboard scores with
N_RESAMPLES; more would cost the restoring server minutes and gigabytes)."""
_META_TEXTS = ("name", "authors", "link", "description")


def _checked(kept: dict[str, Any]) -> tuple[str, SubmissionMeta, float, int, int]:
    """The file name, metadata, time, submission number and resample count of a record, each
    of the type `write` writes; `ValueError` naming the first field that is not. A record
    claiming a baseline is refused: baselines are seeded, never kept here."""
    file_name, meta = kept["file_name"], kept["meta"]
    when, number, resamples = kept["submitted_at"], kept["submission_id"], kept["n_resamples"]
    if not isinstance(file_name, str) or Path(file_name).name != file_name or not file_name:
        raise ValueError(f"file_name {str(file_name)[:100]!r} is not a file name")
    if not isinstance(when, int | float) or isinstance(when, bool) or not math.isfinite(when):
        raise ValueError(f"submitted_at {str(when)[:40]!r} is not a time")
    if not _whole(number) or number < 1:
        raise ValueError(f"submission_id {str(number)[:40]!r} is not a submission number")
    if not _whole(resamples) or not 1 <= resamples <= MAX_KEPT_RESAMPLES:
        raise ValueError(f"n_resamples {str(resamples)[:40]!r} is not 1 to {MAX_KEPT_RESAMPLES}")
    if not isinstance(meta, dict):
        raise ValueError("meta is not an object")
    for name in _META_TEXTS:
        if not isinstance(meta.get(name, ""), str):
            raise ValueError(f"meta.{name} is not text")
    trained_on = meta.get("trained_on", [])
    if not isinstance(trained_on, list) or not all(isinstance(b, str) for b in trained_on):
        raise ValueError("meta.trained_on is not a list of benchmark names")
    if not isinstance(meta.get("reference_free", False), bool):
        raise ValueError("meta.reference_free is not true or false")
    if meta.get("baseline", False) is not False:
        raise ValueError("meta.baseline: a kept submission is never a baseline")
    if not isinstance(meta.get("family"), str | None):
        raise ValueError("meta.family is not text")
    fields = {**meta, "trained_on": tuple(trained_on)}
    return file_name, SubmissionMeta(**fields), float(when), number, resamples


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _account(recorded: object) -> str | None:
    return recorded if isinstance(recorded, str) else None


def default_folder() -> Path:
    """The results folder when only a repository is configured."""
    return Path(platformdirs.user_data_dir("comperbench")) / "results"


def configured() -> Mirror | None:
    """The mirror the environment configures (one per process), or None when neither
    COMPERBENCH_RESULTS_DIR nor COMPERBENCH_RESULTS_REPO is set."""
    repo = os.environ.get(REPO_ENV) or None
    folder = os.environ.get(DIR_ENV) or (str(default_folder()) if repo else None)
    return None if folder is None else _open(folder, repo)


@functools.cache
def _open(folder: str, repo: str | None) -> Mirror:
    path = Path(folder)
    return Mirror(path, None if repo is None else _hub_scheduler(path, repo))


def _hub_scheduler(folder: Path, repo: str) -> CommitScheduler:
    """Fill the folder from the dataset repository `repo` (created if missing), then push it
    there on a schedule."""
    from huggingface_hub import CommitScheduler, HfApi, snapshot_download

    api = HfApi()
    api.create_repo(repo, repo_type="dataset", exist_ok=True)
    snapshot_download(repo, repo_type="dataset", local_dir=folder)
    return CommitScheduler(
        repo_id=repo,
        repo_type="dataset",
        folder_path=folder,
        every=PUSH_EVERY_MINUTES,
        ignore_patterns=[f"{TEMP_PREFIX}*"],
        hf_api=api,
    )
