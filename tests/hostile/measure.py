"""A submission file parsed in a fresh interpreter: how it was refused, the CPU time the
parse took and how far it raised the process's peak memory; then parsed again under
tracemalloc for the peak of its Python allocations."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

_CHILD = """
import json, resource, sys, tracemalloc
from pathlib import Path
from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta, parse
path = Path(sys.argv[1])
raw, index = path.read_bytes(), ItemIndex(["usr-topical"])
index.size("usr-topical", "turn")
import pyarrow.parquet
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
def refused():
    try:
        parse(path.name, raw, SubmissionMeta("m"), index)
    except SubmissionError as exc:
        return str(exc), type(exc).__name__
    return None, None
before, start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu()
refusal, kind = refused()
seconds = cpu() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
tracemalloc.start()
refused()
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"refusal": refusal, "kind": kind, "cpu": seconds, "grown": grown * 1024, "traced": traced}))
"""


@dataclass(frozen=True)
class Measured:
    refusal: str | None
    """The error's message (None: the file was accepted)."""
    kind: str | None
    cpu_seconds: float
    grown_bytes: int
    """How far the parse raised the peak resident memory of its process (0 when its peak
    stayed under that of the imports before it)."""
    traced_bytes: int
    """The peak of the Python allocations made while parsing (tracemalloc's, on a second
    parse: the timed one runs without it)."""


def parse_measured(name: str, data: bytes, timeout: float = 300) -> Measured:
    """Parse the file `name` holding `data` in a fresh interpreter (a traceback there fails)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise AssertionError(f"parsing {name} ended with {done.returncode}:\n{done.stderr}")
    found = json.loads(done.stdout)
    grown, traced = int(found["grown"]), int(found["traced"])
    return Measured(found["refusal"], found["kind"], found["cpu"], grown, traced)
