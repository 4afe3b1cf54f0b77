"""The results folder: every accepted submission also kept as files, and mirrored to the Hub.

One subfolder per submission, named after its file's SHA-256, holds the file as it was submitted
(`scores` with the file's extension) and `record.json`: the metadata (an older record without
the declared family reads as declaring none), the benchmark versions and levels it covers (and
whether fully, see `submission.Coverage.full`), when it was stored and as which submission, the
package version and resample count that scored it, and the submitting account if any. A
subfolder is written under a temporary name and renamed into place, so it appears whole or not at
all; an existing one is never replaced. It is written before the submission's row commits (see
`Store.add`), so a stored submission is never without it.

COMPERBENCH_RESULTS_DIR names the folder. With COMPERBENCH_RESULTS_REPO, the folder (default: in
the user data directory) is first filled from that Hub dataset repository, then pushed to it by a
`huggingface_hub.CommitScheduler` after every submission and every few minutes (the token is
huggingface_hub's: HF_TOKEN or the login). `service.restore` rebuilds a store from the folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.store import Stored
from comperbench.leaderboard.submission import Submission, SubmissionMeta

if TYPE_CHECKING:
    from huggingface_hub import CommitScheduler

DIR_ENV = "COMPERBENCH_RESULTS_DIR"
REPO_ENV = "COMPERBENCH_RESULTS_REPO"
RECORD = "record.json"
TEMP_PREFIX = ".partial-"
"""Prefix of a subfolder being written (skipped when reading, never pushed)."""
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
        if final.exists():
            return None
        partial: Path | None = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=self.folder))
            _write_file(partial / scores_name(submission.file_name), raw)
            kept = record(submission, stored, n_resamples, stored.account)
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

    def folders(self) -> list[Path]:
        """The kept submissions' subfolders (not those being written, nor hidden ones)."""
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith("."))

    def read(self, folder: Path) -> Entry:
        """A kept submission; `MirrorError` when its files are missing, malformed or altered."""
        try:
            kept = json.loads((folder / RECORD).read_text(encoding="utf-8"))
            meta = dict(kept["meta"])
            entry = Entry(
                folder=folder,
                file_name=str(kept["file_name"]),
                raw=(folder / scores_name(kept["file_name"])).read_bytes(),
                meta=SubmissionMeta(**{**meta, "trained_on": tuple(meta["trained_on"])}),
                submitted_at=float(kept["submitted_at"]),
                submission_id=int(kept["submission_id"]),
                n_resamples=int(kept["n_resamples"]),
                account=_account(kept.get("account")),
            )
        except KeyError as exc:
            raise MirrorError(f"{folder}: {RECORD} has no field {exc}") from exc
        except (OSError, ValueError, TypeError) as exc:
            raise MirrorError(f"{folder}: {type(exc).__name__}: {exc}") from exc
        if hashlib.sha256(entry.raw).hexdigest() != folder.name:
            raise MirrorError(f"{folder}: the file's SHA-256 is not the folder's name (altered)")
        return entry


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
