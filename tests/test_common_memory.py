"""Giving freed heap memory back to the system."""

from __future__ import annotations

import platform
import resource

import pytest

from comperbench.common.memory import release_freed_memory


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_heap_pages_go_back_to_the_system() -> None:
    # buffers below glibc's mmap threshold come from its heap; smaller ones kept between them
    # (above Python's own small-object allocator) stop the heap from shrinking when they go
    buffers, kept = [], []
    for _ in range(7500):
        buffers.append(b"\x01" * 20_000)  # written: its pages are resident
        kept.append(b"\x02" * 1000)
    del buffers
    held = _resident_bytes()
    release_freed_memory()
    assert held - _resident_bytes() > 100_000_000
    assert len(kept) == 7500
