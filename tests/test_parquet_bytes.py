"""Parquet read from memory leaves nothing of Python's for Arrow's threads to release, so a
process that reads parquet just before it exits does not abort (see `parquet_bytes`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from comperbench.common.parquet_bytes import parquet_file, read_parquet

ROW_GROUPS = 50
"""Many row groups: many reads in flight on Arrow's pools, as in the reads that aborted."""


def many_row_groups() -> bytes:
    table = pa.table(
        {
            "item_id": [f"b/{k}" for k in range(10 * ROW_GROUPS)],
            "score": [k / 7 for k in range(10 * ROW_GROUPS)],
        }
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=10)
    return sink.getvalue().to_pybytes()


def test_the_table_is_read_whole_with_its_metadata() -> None:
    payload = many_row_groups()
    assert parquet_file(payload).metadata.num_row_groups == ROW_GROUPS
    table = read_parquet(payload)
    assert table.num_rows == 10 * ROW_GROUPS
    assert table.column("score").to_pylist()[-1] == (10 * ROW_GROUPS - 1) / 7
    assert table.equals(pq.read_table(pa.BufferReader(payload)))


def test_no_reference_to_the_bytes_outlives_the_read() -> None:
    """What Arrow's threads could still release after a read returns (the abort's condition)
    is never Python's: the bytes are not referenced once the read is done, read after read."""
    payload = many_row_groups()
    before = sys.getrefcount(payload)
    held = []
    for _ in range(200):
        read_parquet(payload)
        held.append(sys.getrefcount(payload) - before)
    assert held == [0] * 200


@pytest.mark.slow
def test_a_hundred_processes_reading_parquet_just_before_they_exit_all_exit_0(
    tmp_path: Path,
) -> None:
    """The scenario that ended in SIGABRT ("terminate called without an active exception",
    exit 134) in about 1 run in 40 with `pq.read_table(io.BytesIO(...))`: a process that reads a
    parquet file of many row groups and exits at once; here through the package's readers."""
    path = tmp_path / "many.parquet"
    path.write_bytes(many_row_groups())
    script = (
        "import sys; from pathlib import Path;"
        " from comperbench.common.parquet_bytes import parquet_file, read_parquet;"
        " payload = Path(sys.argv[1]).read_bytes(); read_parquet(payload);"
        " parquet_file(payload).read()"
    )
    failures = []
    for run in range(100):
        done = subprocess.run(
            [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0 or "terminate called" in done.stderr:
            failures.append((run, done.returncode, done.stderr[-300:]))
    assert failures == []
