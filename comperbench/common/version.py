"""Which comperbench is running: its installed version, for the modules that record it
(re-exported as `comperbench.__version__`), and the digest of its code, for whatever must change
when any of the code does."""

from __future__ import annotations

import functools
import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("comperbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"

PACKAGE = Path(__file__).resolve().parents[1]


def sources_digest(package: Path) -> str:
    """sha256 of a package's code: every .py file, by relative path and content, in sorted
    order (about 10 ms for this package)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def distribution_version(name: str) -> str:
    """`importlib.metadata.version(name)`, read once per process: each read parses the
    distribution's metadata file (a few ms), and metrics name their libraries' versions in every
    batch's cache key."""
    return version(name)


@functools.cache
def package_digest() -> str:
    """`sources_digest` of this package, computed once per process."""
    return sources_digest(PACKAGE)
