"""Output files that are written once: an existing file is refused unless the caller asks to
replace it."""

from __future__ import annotations

from pathlib import Path

from comperbench.common.errors import ComperbenchError


def _exists(path: str | Path) -> ComperbenchError:
    return ComperbenchError(f"{path} exists; choose another name or remove it first")


def refuse_existing(path: str | Path | None, overwrite: bool = False) -> None:
    """Refuse an output file that exists before any work is done for it (`write_new_file`
    checks again when writing); with `overwrite`, accept it."""
    if path is not None and not overwrite and Path(path).exists():
        raise _exists(path)


def write_new_file(path: str | Path, text: str) -> None:
    """Write `text` to a file that must not exist yet: an existing one is never replaced."""
    try:
        with open(path, "x", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except FileExistsError:
        raise _exists(path) from None


def write_file(path: str | Path, text: str, *, overwrite: bool = False) -> None:
    """Write `text` to `path`: a new file, or with `overwrite` one that replaces what is there."""
    if not overwrite:
        write_new_file(path, text)
        return
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
