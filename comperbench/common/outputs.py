"""Output files that are written once: an existing file is refused, never replaced."""

from __future__ import annotations

from pathlib import Path

from comperbench.common.errors import ComperbenchError


def _exists(path: str | Path) -> ComperbenchError:
    return ComperbenchError(f"{path} exists; choose another name or remove it first")


def refuse_existing(path: str | Path | None) -> None:
    """Refuse an output file that exists before any work is done for it (`write_new_file`
    checks again when writing)."""
    if path is not None and Path(path).exists():
        raise _exists(path)


def write_new_file(path: str | Path, text: str) -> None:
    """Write `text` to a file that must not exist yet: an existing one is never replaced."""
    try:
        with open(path, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except FileExistsError:
        raise _exists(path) from None
