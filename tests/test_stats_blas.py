"""BLAS threads: one in the CLI's process unless the environment names a count, every core
within `blas_threads(None)`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from comperbench.stats.blas import THREADS_VARIABLE

REPORT = """
import json, os, sys
{before}
import numpy as np
from threadpoolctl import threadpool_info
from comperbench.stats.blas import blas_threads

def threads():
    return max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")

started = threads()
with blas_threads(None):
    every = threads()
with blas_threads(1):
    one = threads()
print(json.dumps({{"variable": os.environ.get({variable!r}), "started": started,
    "every": every, "one": one, "after": threads()}}))
"""

CLI_FIRST = """
from comperbench.cli import main
try:
    main(["--version"])
except SystemExit:
    pass
"""


def _report(before: str, variable: str | None) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != THREADS_VARIABLE}
    if variable is not None:
        env[THREADS_VARIABLE] = variable
    code = REPORT.format(before=before, variable=THREADS_VARIABLE)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_cli_starts_openblas_on_one_thread() -> None:
    report = _report(CLI_FIRST, variable=None)
    assert report["variable"] == "1"
    assert report["started"] == 1
    assert report["after"] == 1


def test_a_count_the_environment_names_is_kept() -> None:
    report = _report(CLI_FIRST, variable="2")
    assert report["variable"] == "2"
    assert report["started"] == 2


def test_numpy_loaded_first_keeps_its_threads() -> None:
    before = "import numpy\nfrom comperbench.stats.blas import one_thread_by_default\n"
    report = _report(before + "one_thread_by_default()", variable=None)
    assert report["variable"] is None


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: every core is one thread")
def test_blas_threads_gives_every_core_then_returns_to_one() -> None:
    report = _report(CLI_FIRST, variable=None)
    assert report["every"] > 1
    assert report["one"] == 1
    assert report["after"] == 1
