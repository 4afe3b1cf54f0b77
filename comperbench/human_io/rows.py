"""Rows of a user's CSV or JSON-lines file, each with its line number, for located errors."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from comperbench.common.errors import DataFormatError
from comperbench.common.textutil import DuplicateKeyError, object_without_duplicates

Located = tuple[dict, dict]
"""({"line": n}, row): a row and where it is."""


@contextmanager
def read_errors(file: str) -> Iterator[None]:
    """Errors met while reading `file`, as located `DataFormatError`s.

    Args:
        file: the file's name, named in the errors.

    Yields:
        Nothing; the block inside reads the file.
    """
    try:
        yield
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"not UTF-8 text ({exc.reason})", file=file) from None
    except OSError as exc:
        raise DataFormatError(f"cannot read the file: {exc.strerror}", file=file) from None
    except csv.Error as exc:
        raise DataFormatError(f"not a valid CSV file: {exc}", file=file) from None


def csv_rows(path: str | Path, required: Sequence[str]) -> list[Located]:
    """The rows of a CSV file with a header line that names every `required` column.

    Args:
        path: a CSV file.
        required: the columns it must have.

    Returns:
        The located rows.
    """
    file = str(path)
    with read_errors(file), open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            raise DataFormatError("empty file: expected a header line", file=file)
        header = [name.strip() for name in reader.fieldnames]
        missing = [name for name in required if name not in header]
        if missing:
            raise DataFormatError(f"missing column(s) {', '.join(missing)}", file=file, line=1)
        reader.fieldnames = header
        return [({"line": reader.line_num}, row) for row in reader]


def jsonl_rows(
    path: str | Path, required: Sequence[str], lists: Sequence[str] = ()
) -> list[Located]:
    """The JSON objects of a JSON-lines file (blank lines skipped), each with every `required`
    key; a required value that is an object, or a list outside `lists`, is an error.

    Args:
        path: a JSON-lines file.
        required: the keys each object must have.
        lists: the keys whose value may be a list.

    Returns:
        The located objects.
    """
    file, rows = str(path), []
    with read_errors(file), open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line, object_pairs_hook=object_without_duplicates)
            except (json.JSONDecodeError, DuplicateKeyError, RecursionError) as exc:
                raise DataFormatError(f"not a JSON object: {exc}", file=file, line=number) from None
            if not isinstance(row, dict):
                raise DataFormatError("not a JSON object", file=file, line=number)
            missing = [field for field in required if field not in row]
            if missing:
                raise DataFormatError("missing key", file=file, line=number, field=missing[0])
            for field in required:
                if isinstance(row[field], dict) or (
                    isinstance(row[field], list) and field not in lists
                ):
                    raise DataFormatError(
                        "expected text, got a nested value", file=file, line=number, field=field
                    )
            rows.append(({"line": number}, row))
    return rows


def parquet_rows(path: str | Path, required: Sequence[str]) -> list[Located]:
    """The rows of a parquet file that has every `required` column, each located as a record
    (its 1-based row number).

    Args:
        path: a parquet file.
        required: the columns it must have.

    Returns:
        The located rows.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    file = str(path)
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise DataFormatError(f"not a readable parquet file: {exc}", file=file) from None
    missing = [name for name in required if name not in table.column_names]
    if missing:
        raise DataFormatError(f"missing column(s) {', '.join(missing)}", file=file)
    return [({"record": i}, row) for i, row in enumerate(table.to_pylist(), start=1)]


def read_rows(
    path: str | Path, required: Sequence[str], lists: Sequence[str] = ()
) -> list[Located]:
    """The located rows of a .csv, .jsonl or .parquet file with every `required` column;
    `lists` are the fields that may hold a list (JSON lines and parquet) instead of text.

    Args:
        path: a .csv, .jsonl or .parquet file.
        required: the columns (keys) every row must have.
        lists: the fields that may hold a list.

    Returns:
        The located rows.
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        return csv_rows(path, required)
    if suffix == ".jsonl":
        return jsonl_rows(path, required, lists)
    if suffix == ".parquet":
        return parquet_rows(path, required)
    raise DataFormatError(
        f"unknown file type {suffix or '(none)'!r}; use .csv, .jsonl or .parquet", file=str(path)
    )


MAX_ROWS = 10_000_000


def check_size(rows: Sequence[Located], file: str, what: str) -> None:
    """A file holds at least one and at most `MAX_ROWS` rows of `what` (votes, labels...).

    Args:
        rows: the located rows.
        file: the file's name, for errors.
        what: what a row is, for the error.
    """
    if not rows:
        raise DataFormatError(f"no {what}", file=file)
    if len(rows) > MAX_ROWS:
        raise DataFormatError(f"{len(rows)} {what}; at most {MAX_ROWS} are supported", file=file)


def text(row: dict, field: str, where: dict, file: str) -> str:
    """The non-empty text of a required field.

    Args:
        row: the row.
        field: the field's name.
        where: the row's location.
        file: the file's name, for errors.

    Returns:
        The field's text, stripped.
    """
    value = row.get(field)
    if isinstance(value, dict | list):
        raise DataFormatError("expected text, got a nested value", file=file, field=field, **where)
    found = "" if value is None else str(value).strip()
    if not found:
        raise DataFormatError(f"missing {field}", file=file, field=field, **where)
    return found


class FirstSeen:
    """Where each key of a file's rows was first met, so that a repeated key names both rows."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.places: dict[object, str] = {}

    def add(self, key: object, where: dict, message: str, field: str) -> None:
        """Record `key` at `where`; a key met before raises `message` naming the first place.

        Args:
            key: what must occur once.
            where: its location.
            message: the error when it occurred before.
            field: the field the error names.
        """
        here = ", ".join(f"{k} {v}" for k, v in where.items())
        if key in self.places:
            raise DataFormatError(
                f"{message} (first at {self.places[key]})", file=self.file, field=field, **where
            )
        self.places[key] = here
