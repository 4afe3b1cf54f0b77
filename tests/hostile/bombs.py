"""Small files that would expand into gigabytes, or into millions of rows or problems, if read
naively: each is a (file name, bytes) pair a submission reader must refuse quickly."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ID = "usr-topical/0000/argmax-decoding"
EXPANDED = 80 * 1024 * 1024
"""What a bomb expands to: past the limit on the bytes after decompression (64 MiB)."""


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def _repeated(head: bytes, unit: bytes, size: int = EXPANDED) -> bytes:
    """gzip of `head` and then `unit` repeated to about `size` bytes, compressed as a stream so
    that the expanded bytes are never held."""
    out = io.BytesIO()
    block = unit * max(1, (1 << 20) // len(unit))
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as packed:
        packed.write(head)
        for _ in range(size // len(block)):
            packed.write(block)
    return out.getvalue()


def jsonl_objects() -> tuple[str, bytes]:
    """One valid JSON object line repeated to 80 MiB."""
    line = json.dumps({"item_id": ID, "score": 1.0}).encode() + b"\n"
    return "objects.jsonl.gz", _repeated(b"", line)


def jsonl_one_object() -> tuple[str, bytes]:
    """One JSON object of 80 MiB on one line (millions of keys)."""
    head = b'{"item_id": "' + ID.encode() + b'", "score": 1'
    return "object.jsonl.gz", _repeated(head, b', "k": 1')


def csv_header() -> tuple[str, bytes]:
    """A CSV whose header is one line of 80 MiB."""
    return "header.csv.gz", _repeated(b"item_id,score", b",a")


def csv_wide_row() -> tuple[str, bytes]:
    """A CSV whose one data row has millions of fields."""
    return "wide.csv.gz", _repeated(b"item_id,score\n" + ID.encode() + b",1", b",1")


def csv_multiline_record() -> tuple[str, bytes]:
    """A CSV record of short lines, each inside a quoted cell: one record of 80 MiB."""
    return "multiline.csv.gz", _repeated(b"item_id,score\n" + ID.encode(), b',"\n"')


def csv_blank_lines() -> tuple[str, bytes]:
    """A CSV header and then 80 million empty lines."""
    return "blank.csv.gz", _repeated(b"item_id,score\n", b"\n")


def jsonl_malformed() -> tuple[str, bytes]:
    """200,000 lines that are not JSON, in under a kilobyte."""
    return "malformed.jsonl.gz", _gz(b"{\n" * 200_000)


def csv_unknown_ids() -> tuple[str, bytes]:
    """13 million rows, each an unknown id with a bad score: millions of problems."""
    return "problems.csv.gz", _repeated(b"item_id,score\n", b"x,y\n", 13_000_000 * 4)


def parquet_lists() -> tuple[str, bytes]:
    """A parquet file of list columns (a score column and a text column) holding millions of
    values in a few kilobytes."""
    flat = pa.array(np.zeros(8_000_000))
    values = pa.ListArray.from_arrays(pa.array(np.arange(9) * 1_000_000, pa.int32()), flat)
    table = pa.table(
        {"item_id": [ID] * 8, "score": values, "references": values.cast(pa.list_(pa.string()))}
    )
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return "lists.parquet", out.getvalue()


def parquet_text_column() -> tuple[str, bytes]:
    """A valid parquet submission but for its text column: one string of 100 million characters."""
    table = pa.table({"item_id": [ID], "score": [0.5], "context": ["x" * 100_000_000]})
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return "texts.parquet", out.getvalue()


def zip_entries() -> tuple[str, bytes]:
    """A zip whose directory lists 20,000 empty entries."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for k in range(20_000):
            archive.writestr(f"{k}", b"")
    return "entries.zip", out.getvalue()


def zip_corrupt_lzma() -> tuple[str, bytes]:
    """A zip whose one lzma member's compressed bytes are broken."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_LZMA) as archive:
        archive.writestr("m.csv", b"item_id,score\n" + (ID.encode() + b",1\n") * 1000)
    data = bytearray(out.getvalue())
    start = 30 + len("m.csv") + 4  # past the local header and lzma's properties header
    data[start + 5 : start + 60] = b"\xff" * 55
    return "corrupt.zip", bytes(data)


BOMBS: dict[str, Callable[[], tuple[str, bytes]]] = {
    f.__name__: f
    for f in (
        jsonl_objects,
        jsonl_one_object,
        csv_header,
        csv_wide_row,
        csv_multiline_record,
        csv_blank_lines,
        jsonl_malformed,
        csv_unknown_ids,
        parquet_lists,
        parquet_text_column,
        zip_entries,
        zip_corrupt_lzma,
    )
}
