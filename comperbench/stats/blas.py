"""BLAS threads: one in the package's own processes (the CLI and the server it starts), every
core for the few products large enough to gain from them.

OpenBLAS wakes its threads for every product and keeps them spinning after it: with numpy's
small products between Python steps, a submission of 10,000 items spent about 0.5 s of CPU on
them in a server and 0.8 s in a fresh process, and the import of numpy 0.2 s more; the products
large enough to gain from more threads ask for them (`blas_threads(None)`)."""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager
from functools import cache
from typing import Any

THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"


def one_thread_by_default() -> None:
    """Start OpenBLAS with one thread, unless the environment names a count; only effective
    before numpy is imported (OpenBLAS reads it once, when loaded)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault(THREADS_VARIABLE, "1")


def blas_threads(count: int | None) -> AbstractContextManager[Any]:
    """Within it, BLAS products run on `count` threads (None: every core)."""
    return _controller().limit(limits=count or os.cpu_count() or 1, user_api="blas")


@cache
def _controller() -> Any:
    """The BLAS thread pools of this process (threadpoolctl)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
