"""The submission format: reading CSV / JSONL / parquet (optionally gzip or zip) and strict validation.

A submission is a table with an `item_id` column and either one `score` column or one column per
metric. Item ids are those of the release (`benchmark/...`), so one file may cover several
benchmarks. Nothing here touches the store: a file either validates completely or raises
`SubmissionError` listing every problem with its line, item id and column.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import hashlib
import io
import json
import math
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from comperbench.errors import ComperbenchError
from comperbench.leaderboard.items import ItemIndex

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest accepted upload (compressed or not)."""
MAX_EXPANDED_BYTES = 256 * 1024 * 1024
"""Largest accepted content after gzip or zip decompression."""
MAX_PROBLEMS = 25
"""Problems listed in one error message (the total is always given)."""
FORMATS = ("csv", "jsonl", "parquet")
ID_COLUMN = "item_id"
SCORE_COLUMN = "score"
_COLUMN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a submission, and where."""

    message: str
    line: int | None = None
    item_id: str | None = None
    column: str | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.item_id is not None:
            where.append(f"item_id {self.item_id!r}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class SubmissionError(ComperbenchError, ValueError):
    """A submission that cannot be accepted; `problems` lists every reason found."""

    def __init__(self, file: str, problems: Sequence[Problem], total: int | None = None) -> None:
        self.file, self.problems = file, list(problems)
        self.total = total if total is not None else len(self.problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:MAX_PROBLEMS])
        more = self.total - min(len(self.problems), MAX_PROBLEMS)
        tail = f"\n  ... and {more} more" if more > 0 else ""
        noun = "problem" if self.total == 1 else "problems"
        super().__init__(f"submission {file} was rejected ({self.total} {noun}):\n{shown}{tail}")


@dataclass(frozen=True)
class SubmissionMeta:
    """Who made the metric and how (shown on the leaderboard)."""

    name: str
    authors: str = ""
    link: str = ""
    description: str = ""
    reference_free: bool = False
    trained_on: tuple[str, ...] = ()
    """Benchmarks the metric was trained or tuned on (its results there are flagged)."""
    baseline: bool = False

    def problems(self, known_benchmarks: Sequence[str]) -> list[Problem]:
        found = []
        if not self.name.strip():
            found.append(Problem("a metric name is required", column="name"))
        if len(self.name) > 100 or _CONTROL.search(self.name):
            found.append(Problem("at most 100 printable characters", column="name"))
        if self.link and not re.match(r"^https?://\S+$", self.link):
            found.append(Problem(f"not an http(s) URL: {self.link!r}", column="link"))
        for name in self.trained_on:
            if name not in known_benchmarks:
                found.append(Problem(f"unknown benchmark {name!r}", column="trained_on"))
        return found


@dataclass
class Coverage:
    """The scores of one metric column on one benchmark level, aligned with its items."""

    benchmark: str
    level: str
    fingerprint: str
    scores: np.ndarray
    """One float per item of the benchmark level, in its order; NaN where the file has none."""

    @property
    def total(self) -> int:
        return len(self.scores)

    @property
    def covered(self) -> int:
        return int(np.count_nonzero(~np.isnan(self.scores)))

    @property
    def full(self) -> bool:
        return self.covered == self.total


@dataclass
class Submission:
    """A validated submission: every metric column with its coverage of each benchmark level."""

    meta: SubmissionMeta
    file_name: str
    file_sha256: str
    format: str
    rows: int
    metrics: dict[str, list[Coverage]] = field(default_factory=dict)
    """Metric name (the submission name, or `name/column`) -> coverage per benchmark level."""


@dataclass
class _Rows:
    """A parsed table: column names and, per row, its line number, id and raw score cells."""

    columns: list[str]
    lines: list[int]
    ids: list[object]
    cells: dict[str, list[object]]


def _limited_read(stream: io.BufferedIOBase | io.RawIOBase, limit: int, what: str) -> bytes:
    data = stream.read(limit + 1)
    if data is not None and len(data) > limit:
        raise SubmissionError(
            what, [Problem(f"expands to more than {limit} bytes; split or shrink the file")]
        )
    return data or b""


def unpack(file_name: str, raw: bytes) -> tuple[str, bytes]:
    """The inner file name and bytes of a plain, gzip or single-file zip upload (size-limited)."""
    if len(raw) > MAX_FILE_BYTES:
        raise SubmissionError(
            file_name, [Problem(f"file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")]
        )
    if raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as handle:
                inner = _limited_read(handle, MAX_EXPANDED_BYTES, file_name)
        except (OSError, EOFError) as exc:
            raise SubmissionError(
                file_name, [Problem(f"not a readable gzip file ({exc})")]
            ) from exc
        return re.sub(r"\.gz$", "", file_name, flags=re.IGNORECASE), inner
    if raw[:4] == b"PK\x03\x04":
        try:
            archive = zipfile.ZipFile(io.BytesIO(raw))
            members = [m for m in archive.infolist() if not m.is_dir()]
            if len(members) != 1:
                names = ", ".join(m.filename for m in members) or "none"
                raise SubmissionError(
                    file_name, [Problem(f"a zip must hold exactly one file; it holds: {names}")]
                )
            with archive.open(members[0]) as handle:
                inner = _limited_read(handle, MAX_EXPANDED_BYTES, file_name)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as exc:
            raise SubmissionError(file_name, [Problem(f"not a readable zip file ({exc})")]) from exc
        return members[0].filename, inner
    return file_name, raw


def detect_format(file_name: str, data: bytes) -> str:
    if data[:4] == b"PAR1":
        return "parquet"
    suffix = Path(file_name).suffix.lower().lstrip(".")
    if suffix in ("jsonl", "ndjson"):
        return "jsonl"
    if suffix in ("csv", "parquet"):
        return suffix
    raise SubmissionError(
        file_name,
        [Problem(f"unknown file type {suffix or '(none)'!r}; use .csv, .jsonl or .parquet")],
    )


def _decode(file_name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SubmissionError(
            file_name,
            [Problem(f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8", line=line)],
        ) from exc


def _check_columns(file_name: str, columns: list[str], line: int | None) -> None:
    problems = []
    if ID_COLUMN not in columns:
        lowered = {c.lower(): c for c in reversed(columns)}
        close = difflib.get_close_matches(ID_COLUMN, list(lowered), n=1, cutoff=0.4)
        hint = f" (is {lowered[close[0]]!r} meant to be {ID_COLUMN!r}?)" if close else ""
        problems.append(Problem(f"no {ID_COLUMN!r} column; columns are {columns}{hint}", line=line))
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            problems.append(Problem("duplicated column name", line=line, column=column))
        seen.add(column)
        if column != ID_COLUMN and not _COLUMN_NAME.match(column):
            problems.append(
                Problem(
                    "column names are letters, digits, '_', '.', '-' (at most 64)",
                    line=line,
                    column=column,
                )
            )
    if not [c for c in columns if c != ID_COLUMN]:
        problems.append(Problem(f"no score column next to {ID_COLUMN!r}", line=line))
    if problems:
        raise SubmissionError(file_name, problems)


def _read_csv(file_name: str, text: str) -> _Rows:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise SubmissionError(file_name, [Problem("the file is empty")]) from None
    except csv.Error as exc:
        raise SubmissionError(file_name, [Problem(f"not CSV ({exc})", line=1)]) from exc
    columns = [c.strip() for c in header]
    _check_columns(file_name, columns, 1)
    rows = _Rows(columns, [], [], {c: [] for c in columns if c != ID_COLUMN})
    id_at = columns.index(ID_COLUMN)
    problems = []
    previous = reader.line_num
    try:
        for record in reader:
            line, previous = previous + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(columns):
                problems.append(
                    Problem(f"{len(record)} fields, the header has {len(columns)}", line=line)
                )
                continue
            rows.lines.append(line)
            rows.ids.append(record[id_at].strip())
            for column, cell in zip(columns, record, strict=True):
                if column != ID_COLUMN:
                    rows.cells[column].append(cell)
    except csv.Error as exc:
        problems.append(Problem(f"malformed CSV ({exc})", line=previous + 1))
    if problems:
        raise SubmissionError(file_name, problems)
    return rows


def _read_jsonl(file_name: str, text: str) -> _Rows:
    rows: _Rows | None = None
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"invalid JSON ({exc.msg}, column {exc.colno})", line=number))
            continue
        except ValueError:  # an integer beyond Python's digit limit for int parsing
            problems.append(Problem("invalid JSON (a number with too many digits)", line=number))
            continue
        if not isinstance(record, dict):
            problems.append(Problem("each line must be a JSON object", line=number))
            continue
        if rows is None:
            columns = [str(k) for k in record]
            _check_columns(file_name, columns, number)
            rows = _Rows(columns, [], [], {c: [] for c in columns if c != ID_COLUMN})
        if set(record) != set(rows.columns):
            extra = sorted(set(record) - set(rows.columns))
            missing = sorted(set(rows.columns) - set(record))
            problems.append(
                Problem(
                    f"keys differ from line 1's (extra {extra}, missing {missing})", line=number
                )
            )
            continue
        rows.lines.append(number)
        rows.ids.append(record[ID_COLUMN])
        for column in rows.cells:
            rows.cells[column].append(record[column])
    if problems:
        raise SubmissionError(file_name, problems)
    if rows is None:
        raise SubmissionError(file_name, [Problem("the file is empty")])
    return rows


def _read_parquet(file_name: str, data: bytes) -> _Rows:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError) as exc:
        raise SubmissionError(file_name, [Problem(f"not a readable parquet file ({exc})")]) from exc
    columns = list(table.column_names)
    _check_columns(file_name, columns, None)
    problems = []
    if not pa.types.is_string(table.schema.field(ID_COLUMN).type) and not pa.types.is_large_string(
        table.schema.field(ID_COLUMN).type
    ):
        problems.append(Problem("must be strings", column=ID_COLUMN))
    for column in columns:
        kind = table.schema.field(column).type
        if column != ID_COLUMN and not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            problems.append(Problem(f"must be numbers, found {kind}", column=column))
    if problems:
        raise SubmissionError(file_name, problems)
    # Parquet rows are reported as lines 1..n (there is no header line).
    return _Rows(
        columns,
        list(range(1, table.num_rows + 1)),
        table.column(ID_COLUMN).to_pylist(),
        {c: table.column(c).to_pylist() for c in columns if c != ID_COLUMN},
    )


def _number(cell: object) -> tuple[float | None, str | None]:
    """The finite float in a cell, or why there is none."""
    if cell is None:
        return None, "missing value"
    if isinstance(cell, bool):
        return None, f"not a number ({cell!r})"
    if isinstance(cell, int | float):
        try:
            value = float(cell)
        except OverflowError:
            return None, "not a finite number (an integer too large for a float)"
    elif isinstance(cell, str):
        text = cell.strip()
        if not text:
            return None, "missing value"
        try:
            value = float(text)
        except ValueError:
            return None, f"not a number ({cell[:40]!r})"
    else:
        return None, f"not a number ({type(cell).__name__})"
    if not math.isfinite(value):
        return None, f"not a finite number ({cell!r})"
    return value, None


def _metric_names(meta: SubmissionMeta, columns: Sequence[str]) -> dict[str, str]:
    score_columns = [c for c in columns if c != ID_COLUMN]
    if score_columns == [SCORE_COLUMN]:
        return {SCORE_COLUMN: meta.name.strip()}
    return {c: f"{meta.name.strip()}/{c}" for c in score_columns}


def _problems(rows: _Rows, index: ItemIndex) -> Iterator[Problem]:
    first_line: dict[str, int] = {}
    for position, (line, item) in enumerate(zip(rows.lines, rows.ids, strict=True)):
        if not isinstance(item, str) or not item:
            yield Problem(f"{ID_COLUMN} must be a non-empty string, found {item!r}", line=line)
            continue
        if item in first_line:
            yield Problem(f"duplicate id (first on line {first_line[item]})", line, item)
            continue
        first_line[item] = line
        reason = index.unknown_reason(item)
        if reason:
            yield Problem(reason, line, item)
        for column, cells in rows.cells.items():
            _, why = _number(cells[position])
            if why:
                yield Problem(why, line, item, column)


def parse(
    file_name: str, raw: bytes, meta: SubmissionMeta, index: ItemIndex | None = None
) -> Submission:
    """Validate an uploaded file completely; raise `SubmissionError` listing every problem."""
    index = index or ItemIndex()
    name = Path(file_name).name
    meta_problems = meta.problems(index.benchmark_names())
    if meta_problems:
        raise SubmissionError(name, meta_problems)
    inner, data = unpack(name, raw)
    fmt = detect_format(inner, data)
    if fmt == "parquet":
        rows = _read_parquet(name, data)
    else:
        text = _decode(name, data)
        rows = _read_csv(name, text) if fmt == "csv" else _read_jsonl(name, text)
    if not rows.ids:
        raise SubmissionError(name, [Problem("no data rows")])
    problems = list(_problems(rows, index))
    if problems:
        raise SubmissionError(name, problems[:MAX_PROBLEMS], total=len(problems))
    submission = Submission(
        meta=meta,
        file_name=name,
        file_sha256=hashlib.sha256(raw).hexdigest(),
        format=fmt,
        rows=len(rows.ids),
    )
    ids: list[str] = [str(i) for i in rows.ids]
    groups = index.group(ids)
    for column, metric in _metric_names(meta, rows.columns).items():
        values = np.array([float(c) for c in rows.cells[column]])  # every cell passed _number
        coverage = []
        for (benchmark, level), (positions, slots) in sorted(groups.items()):
            aligned = np.full(index.size(benchmark, level), np.nan)
            aligned[slots] = values[positions]
            coverage.append(Coverage(benchmark, level, index.fingerprint(benchmark), aligned))
        submission.metrics[metric] = coverage
    return submission


def parse_file(
    path: str | Path, meta: SubmissionMeta, index: ItemIndex | None = None
) -> Submission:
    """`parse` on a file on disk (the size limit is checked before reading it)."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise SubmissionError(
            path.name, [Problem(f"file is {size} bytes; the limit is {MAX_FILE_BYTES}")]
        )
    return parse(path.name, path.read_bytes(), meta, index)
