"""Parquet held in memory, read so that the process cannot abort when it exits.

pyarrow's `pq.read_table` reads through its dataset scanner, whose I/O tasks finish their
clean-up on Arrow's thread pools after the call has returned. When what it reads is owned by
Python (bytes wrapped by `pa.BufferReader`, or a Python file object: `io.BytesIO`, or the handle
`pandas.read_parquet` opens on a path), that clean-up takes the GIL to release it. If the
interpreter is exiting by then, Python ends the pool thread with `pthread_exit`, whose unwinding
through Arrow's noexcept frames calls `std::terminate`: "terminate called without an active
exception", SIGABRT, exit 134, in a few percent of the runs of a command that reads parquet just
before it exits (pyarrow 26; apache/arrow issues 33975, 49942 and 50482).

Here the bytes are copied into memory Arrow owns, which no thread needs the GIL to free, and
read by `pq.ParquetFile`, which returns when its reads are done.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq


def parquet_file(payload: bytes) -> pq.ParquetFile:
    """A parquet file on a copy of `payload` in Arrow's memory."""
    sink = pa.BufferOutputStream()
    sink.write(payload)
    return pq.ParquetFile(pa.BufferReader(sink.getvalue()))


def read_parquet(payload: bytes, use_pandas_metadata: bool = False) -> pa.Table:
    """The table of the parquet file `payload` (with its pandas index when asked)."""
    return parquet_file(payload).read(use_pandas_metadata=use_pandas_metadata)
