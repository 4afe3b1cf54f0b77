"""Arrow columns built from and read back from their buffers, as pyarrow's own conversions give
them, without importing pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from comperbench.common.arrow_arrays import float_array, float_values, list_offsets, text_array

VALUES = np.array([1.5, np.nan, -3.0, np.nan, 0.0, 7.25, np.nan, 2.0, 9.0, -1.0, 4.0])


@pytest.mark.parametrize(("start", "length"), [(0, 11), (3, 5), (1, 9), (8, 3), (4, 0)])
def test_float_values_are_pyarrows_with_null_as_nan(start: int, length: int) -> None:
    column = float_array(VALUES).slice(start, length)
    expected = column.to_numpy(zero_copy_only=False)
    assert np.array_equal(float_values(column), expected, equal_nan=True)
    assert np.array_equal(float_values(column), VALUES[start : start + length], equal_nan=True)


@pytest.mark.parametrize("kind", [pa.list_(pa.int64()), pa.large_list(pa.int64())])
@pytest.mark.parametrize(("start", "length"), [(0, 5), (2, 3), (4, 1)])
def test_list_offsets_start_at_zero_in_any_slice(
    kind: pa.DataType, start: int, length: int
) -> None:
    lists = pa.array([[1, 2], [], [3], [4, 5, 6], [7]], type=kind).slice(start, length)
    offsets = lists.offsets.to_numpy()
    assert list(list_offsets(lists)) == list(offsets - offsets[0])
    assert list_offsets(lists).dtype == np.int64


def test_text_array_keeps_none_as_null() -> None:
    assert text_array(["a", None, "ç"]).to_pylist() == ["a", None, "ç"]


def test_reading_back_imports_no_pandas() -> None:
    probe = (
        "import sys, numpy as np\n"
        "from comperbench.common.arrow_arrays import float_array, float_values, list_offsets\n"
        "import pyarrow as pa\n"
        "float_values(float_array(np.array([1.0, np.nan])).slice(1))\n"
        "print('pandas' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
