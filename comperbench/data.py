"""Data root, raw-file resolution, sha256 checks, and downloads when online.

The cache folder can be shared, or written by others; what is read back from it is verified
with a digest keyed by `cache_key`, which is kept outside it: the files of `write_verified`
(the normalised tables, the leaderboard's level items) and each entry of the raw-file hash memo.
A file or entry whose keyed digest does not match is a cache miss: rebuilt, or hashed again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import socket
import tempfile
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import platformdirs

from comperbench.common.errors import ChecksumError, DataMissingError
from comperbench.metadata import BenchmarkMetadata, SourceFile

DATA_ENV = "COMPERBENCH_DATA"
CACHE_ENV = "COMPERBENCH_CACHE"
OFFLINE_ENVS = ("COMPERBENCH_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
DOWNLOAD_TIMEOUT_S = 10.0
REACHABLE_TIMEOUT_S = 3.0
HUB_ENDPOINT_ENV = "HF_ENDPOINT"
VERIFY_ENV = "COMPERBENCH_VERIFY"
KEY_ENV = "COMPERBENCH_CACHE_KEY"


def cache_dir() -> Path:
    """Where derived files (normalised tables, metric scores) live: COMPERBENCH_CACHE or the user cache."""
    explicit = os.environ.get(CACHE_ENV)
    return Path(explicit) if explicit else Path(platformdirs.user_cache_dir("comperbench"))


def data_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The raw-data root: an explicit argument, else COMPERBENCH_DATA, else the user cache."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    return cache_dir() / "data"


_session_key: bytes | None = None


def cache_key() -> bytes:
    """The key of the cache's digests: COMPERBENCH_CACHE_KEY, else a random key kept readable
    by its owner only in the user config folder (made on first use), else, where that cannot
    be written, a key for this process alone (its cache files are then misses for the next)."""
    global _session_key
    explicit = os.environ.get(KEY_ENV)
    if explicit:
        return explicit.encode()
    path = Path(platformdirs.user_config_dir("comperbench")) / "cache.key"
    try:
        return path.read_bytes()
    except OSError:
        pass
    key = os.urandom(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            out.write(key)
        return key
    except FileExistsError:
        return path.read_bytes()
    except OSError:
        _session_key = _session_key or key
        return _session_key


def keyed_digest(payload: bytes) -> str:
    """The HMAC-SHA256 of `payload` under `cache_key`."""
    return hmac.new(cache_key(), payload, hashlib.sha256).hexdigest()


def is_offline() -> bool:
    return any(os.environ.get(name, "").lower() in ("1", "true", "yes") for name in OFFLINE_ENVS)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _file_state(path: Path) -> list[int]:
    """What says a file is unchanged without reading it: size, mtime, ctime (ns) and inode.
    The ctime changes on every write and cannot be set back, so an edit that restores the
    size and mtime still shows."""
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def full_verify() -> bool:
    """Whether COMPERBENCH_VERIFY=1 asks for every raw file to be hashed again on each load."""
    return os.environ.get(VERIFY_ENV, "").lower() in ("1", "true", "yes")


def _hash_memo_path() -> Path:
    return cache_dir() / "file-hashes.json"


def _read_hash_memo() -> dict[str, list]:
    try:
        memo = json.loads(_hash_memo_path().read_text())
    except (OSError, ValueError):  # absent or damaged: every file is hashed again
        return {}
    return memo if isinstance(memo, dict) else {}


def memoised_sha256(path: Path) -> str:
    """sha256 of a file, remembered under the cache folder by `_file_state`, so a file is hashed
    again as soon as any of it changes (or always, under COMPERBENCH_VERIFY=1) and a warm load
    need not read it."""
    key = str(path.resolve())
    state = _file_state(path)
    memo = _read_hash_memo()
    entry = memo.get(key)
    if not full_verify() and isinstance(entry, list) and entry[:-2] == state:
        digest, tag = entry[-2:]
        if hmac.compare_digest(str(tag), _memo_tag(key, state, str(digest))):
            return str(digest)
    digest = sha256_file(path)
    if _file_state(path) == state:  # not changed while it was read
        memo[key] = [*state, digest, _memo_tag(key, state, digest)]
        write_atomic(_hash_memo_path(), json.dumps(memo, sort_keys=True).encode())
    return digest


def _memo_tag(key: str, state: list[int], digest: str) -> str:
    """The keyed digest of one memo entry: a forged or edited entry does not match."""
    return keyed_digest(json.dumps([key, state, digest]).encode())


def write_atomic(path: Path, payload: bytes) -> None:
    """Write a file whole or not at all (a temporary file of this process and thread, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_bytes(payload)
    tmp.replace(path)


def _digest_path(path: Path) -> Path:
    return path.with_suffix(".sha256")


def write_verified(path: Path, payload: bytes) -> None:
    """A cache file written whole, with the keyed digest of `payload` beside it (for
    `read_verified`)."""
    write_atomic(_digest_path(path), keyed_digest(payload).encode())
    write_atomic(path, payload)


def read_verified(path: Path) -> bytes | None:
    """The content of a cache file written by `write_verified`; None (a cache miss) when it is
    absent or is not the file written (its keyed digest differs from the one stored beside it:
    one who can write the cache but lacks the key cannot make it match)."""
    try:
        expected = _digest_path(path).read_text().strip()
        payload = path.read_bytes()
    except OSError:
        return None
    return payload if hmac.compare_digest(keyed_digest(payload), expected) else None


def _missing_message(meta: BenchmarkMetadata, source: SourceFile, path: Path, why: str) -> str:
    origin = source.url or (
        f"the Hugging Face dataset {source.hub.repo_id} (file {source.hub.filename}, "
        f"revision {source.hub.revision})"
        if source.hub
        else "its original publication"
    )
    return (
        f"benchmark {meta.name!r} needs the raw file {source.path}, which is not at {path} ({why}). "
        f"Put a copy of it from {origin} there, or point {DATA_ENV} at a folder that holds "
        f"{source.path}."
    )


def _download_url(url: str, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.NamedTemporaryFile(dir=dest.parent, delete=False) as tmp,
        urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response,
    ):
        shutil.copyfileobj(response, tmp)
    Path(tmp.name).replace(dest)


def _download_hub(source: SourceFile, dest: Path) -> None:
    from huggingface_hub import hf_hub_download

    assert source.hub is not None
    fetched = hf_hub_download(
        repo_id=source.hub.repo_id,
        filename=source.hub.filename,
        revision=source.hub.revision,
        repo_type=source.hub.repo_type,
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fetched, dest)


def hub_url() -> str:
    return os.environ.get(HUB_ENDPOINT_ENV, "https://huggingface.co")


def why_unreachable(url: str) -> str | None:
    """Why the host of `url` cannot be reached, or None when a connection opens."""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), REACHABLE_TIMEOUT_S):
            return None
    except OSError as exc:
        return f"{parts.hostname} is not reachable: {exc}"


def fetch(meta: BenchmarkMetadata, source: SourceFile, root: Path) -> Path:
    """Download a missing raw file into the data root; fail at once when offline."""
    path = root / source.path
    if is_offline():
        raise DataMissingError(_missing_message(meta, source, path, "offline mode is set"))
    if not (source.url or source.hub):
        raise DataMissingError(_missing_message(meta, source, path, "no download location known"))
    location = hub_url() if source.hub else source.url
    assert location is not None
    why = why_unreachable(location)
    if why is not None:
        raise DataMissingError(_missing_message(meta, source, path, why))
    try:
        if source.hub:
            _download_hub(source, path)
        else:
            assert source.url is not None
            _download_url(source.url, path)
    except Exception as exc:  # any network or permission failure means the file is missing
        raise DataMissingError(
            _missing_message(meta, source, path, f"download failed: {exc}")
        ) from exc
    return path


def resolve(meta: BenchmarkMetadata, source: SourceFile, root: Path) -> Path:
    """The local path of a raw file, downloaded if needed, verified against its sha256 (see
    `memoised_sha256`)."""
    path = root / source.path
    if not path.is_file():
        path = fetch(meta, source, root)
    if source.sha256 is not None:
        actual = memoised_sha256(path)
        if actual != source.sha256:
            raise ChecksumError(
                f"file {path}: sha256 is {actual}, but benchmark {meta.name!r} expects "
                f"{source.sha256}. The file is damaged or not the published version; "
                f"replace it with the original from {source.url or 'its publisher'}."
            )
    return path
