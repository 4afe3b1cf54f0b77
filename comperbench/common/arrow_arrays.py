"""Arrow columns built from their buffers and read back from them: `pyarrow.array` imports pandas
to check its input, and so does `to_numpy` of a column with nulls; a run that has no other use
for pandas should not pay for loading it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa


def _validity(present: np.ndarray) -> pa.Buffer | None:
    return None if present.all() else pa.py_buffer(np.packbits(present, bitorder="little"))


def float_array(values: np.ndarray) -> pa.Array:
    """float64, NaN stored as null (as pandas writes a float column)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    present = ~np.isnan(values)
    buffers = [_validity(present), pa.py_buffer(values)]
    return pa.Array.from_buffers(
        pa.float64(), values.size, buffers, int(values.size - present.sum())
    )


def text_array(values: Sequence[str | None]) -> pa.Array:
    """large_string, None stored as null; a column of None only is of the null type (as pandas
    writes an object column)."""
    present = np.array([v is not None for v in values], dtype=bool)
    if values and not present.any():
        return pa.nulls(len(values))
    encoded = [v.encode() if v is not None else b"" for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    buffers = [_validity(present), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(
        pa.large_string(), len(encoded), buffers, int(len(encoded) - present.sum())
    )


def float_values(values: pa.Array) -> np.ndarray:
    """A float64 array's values, null as NaN."""
    start, stop = values.offset, values.offset + len(values)
    data = np.frombuffer(values.buffers()[1], dtype=np.float64)[start:stop]
    if not values.null_count:
        return data
    bits = np.frombuffer(values.buffers()[0], dtype=np.uint8)
    present = np.unpackbits(bits, bitorder="little")[start:stop].astype(bool)
    return np.where(present, data, np.nan)


def list_offsets(values: pa.ListArray | pa.LargeListArray) -> np.ndarray:
    """Where each list of a list array starts in its flattened values, and where the last ends
    (int64, from 0)."""
    width = np.int64 if pa.types.is_large_list(values.type) else np.int32
    offsets = np.frombuffer(values.buffers()[1], dtype=width)
    offsets = offsets[values.offset : values.offset + len(values) + 1].astype(np.int64)
    return offsets - offsets[0]
