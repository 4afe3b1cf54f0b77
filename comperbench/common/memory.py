"""Returning freed heap memory to the system.

glibc keeps the memory freed by a process in its heap for reuse. After work that allocates and
frees many large buffers of varied sizes (an encoder's forward passes), that free memory is
scattered between live objects and the heap only grows; `malloc_trim` gives its free pages back.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (not glibc)."""
    try:
        library = ctypes.CDLL(None)  # the C library the process runs on
    except (OSError, TypeError):  # Windows has no such handle
        return None
    return getattr(library, "malloc_trim", None)


def release_freed_memory() -> None:
    """Give the heap's free pages back to the system (nothing where malloc_trim is missing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
