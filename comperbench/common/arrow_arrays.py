"""Arrow columns built from their buffers: `pyarrow.array` imports pandas to check its input,
and a run that has no other use for pandas should not pay for loading it."""

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
