"""The installed version of comperbench, for the modules that record it (re-exported as
`comperbench.__version__`)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("comperbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"
