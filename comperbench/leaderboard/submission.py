"""The submission format: reading CSV / JSONL / parquet (optionally gzip or zip) and strict validation.

A submission is a table with an `item_id` column and either one `score` column or one column per
metric; the text columns of the template (`items.TEXT_COLUMNS`) are ignored. Item ids are those of the release (`benchmark/...`), so one file may cover several
benchmarks. Nothing here touches the store: a file either validates completely or raises
`SubmissionError` counting every problem by kind and listing the first ones with their line, item
id and column (or metadata field). Scores are read strictly: JSON numbers in JSONL, plain ASCII
decimals in CSV; JSONL nesting, metadata lengths and metadata characters are bounded.

A file is read as a stream (decompressed as it is read) and refused with `OverLimit` as soon as
it goes over MAX_EXPANDED_BYTES, MAX_ROWS data rows or MAX_METRIC_COLUMNS score columns (a
parquet file by its footer, before its columns are read), so that a small compressed file
cannot make the server expand gigabytes.
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
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, get_args
from urllib.parse import urlsplit

import numpy as np

from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import DuplicateKeyError, object_without_duplicates
from comperbench.leaderboard.items import TEXT_COLUMNS, ItemIndex
from comperbench.metrics.base import Family

if TYPE_CHECKING:
    import pyarrow.parquet as pq

UNSCORED_SHARE = 0.005
"""The share of its items a full coverage may leave without a score (half a percent)."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest accepted upload (compressed or not)."""
MAX_EXPANDED_BYTES = 256 * 1024 * 1024
"""Largest accepted content after gzip or zip decompression."""
MAX_ROWS = 200_000
"""Most data rows read from one file: every item of every benchmark level fits with room to
spare (the largest level, DSTC7's turns, has 10,000 items)."""
MAX_METRIC_COLUMNS = 64
"""Most score columns (metrics) in one file."""
MAX_PROBLEMS = 10
"""Problems listed in one error message (the total and the count of each kind are always given)."""
MAX_JSON_DEPTH = 16
"""Deepest nesting of objects and arrays read on a JSONL line (a valid record needs 1)."""
MAX_ID_CHARS = 256
"""Longest item id looked up (release ids are far shorter)."""
MAX_NAME_CHARS = 100
MAX_AUTHORS_CHARS = 1_000
MAX_LINK_CHARS = 2_000
MAX_DESCRIPTION_CHARS = 5_000
METRIC_FAMILIES: tuple[str, ...] = get_args(Family)
"""The families a submission may declare: those of the metric registry's metrics."""
SHOWN_CHARS = 100
"""Longest excerpt of a user's text (id, cell, link) quoted in an error message."""
FORMATS = ("csv", "jsonl", "parquet")
ID_COLUMN = "item_id"
SCORE_COLUMN = "score"
_COLUMN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""C0 and C1 control characters (ANSI escapes start with one) and lone surrogates (the
undecodable bytes of a command-line argument)."""
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Unicode bidi embeddings, overrides and isolates: they reorder the text shown around them."""
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b\u2060-\u2064\u2800\u3164"
    "\ufeff\uffa0\U000e0000-\U000e007f]"
)
"""Characters that show as nothing or as blank: a soft hyphen, zero-width spaces and joiners
of words, a byte order mark, tag characters, the blank Braille pattern and Hangul fillers."""
_BIDI_MARK = re.compile("[\u061c\u200e\u200f]")
"""Unicode bidi marks: refused in names, allowed in a description's prose."""
_PROSE_SPACE = str.maketrans("\t\n\r", "   ")
_URL_FORBIDDEN = re.compile(r"""[\s"'`<>\\]""")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
"""A JSON string (whose brackets do not nest) or a bracket."""

Kind = tuple[str, str]
"""A kind of problem, singular and plural, as counted in an error's first line."""
_FILE: Kind = ("problem with the file", "problems with the file")
_FIELD: Kind = ("metadata problem", "metadata problems")
_HEADER: Kind = ("problem with the columns", "problems with the columns")
_LINE: Kind = ("malformed line", "malformed lines")
_BAD_ID: Kind = ("invalid item id", "invalid item ids")
_DUPLICATE: Kind = ("duplicate item id", "duplicate item ids")
_UNKNOWN: Kind = ("unknown item id", "unknown item ids")
_MISSING: Kind = ("missing score", "missing scores")
_NOT_NUMBER: Kind = ("score not a number", "scores not numbers")
_NOT_FINITE: Kind = ("score not finite", "scores not finite")


def _shown(text: str) -> str:
    """`text` quoted for a message, cut to SHOWN_CHARS characters."""
    return repr(text[:SHOWN_CHARS]) + ("..." if len(text) > SHOWN_CHARS else "")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a submission, and where."""

    message: str
    line: int | None = None
    item_id: str | None = None
    column: str | None = None
    field_name: str | None = None
    """The metadata field at fault (name, authors, link, description, trained_on, family)."""
    kind: Kind = _FILE

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.item_id is not None:
            where.append(f"item_id {_shown(self.item_id)}")
        if self.column is not None:
            where.append(f"column {self.column!r}")
        if self.field_name is not None:
            where.append(f"field {self.field_name!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class SubmissionError(ComperbenchError, ValueError):
    """A submission that cannot be accepted; `problems` lists every reason found.

    Its message counts the problems by kind on one line, then lists up to MAX_PROBLEMS of them.
    """

    def __init__(self, file: str, problems: Sequence[Problem]) -> None:
        self.file, self.problems = file, list(problems)
        self.total = len(self.problems)
        super().__init__(_report(file, self.problems))


def _report(file: str, problems: list[Problem]) -> str:
    """E.g. 'submission m.csv was rejected (375 problems): 370 unknown item ids, 5 scores not
    numbers; 10 listed, the first of each kind among them:' and those problems, one per line."""
    total = len(problems)
    head = f"submission {file} was rejected ({total} problem{'s' * (total != 1)})"
    if total > 1:
        counts = Counter(p.kind for p in problems).most_common()
        head += ": " + ", ".join(f"{n} {kind[n != 1]}" for kind, n in counts)
    if total > MAX_PROBLEMS:
        head += f"; {MAX_PROBLEMS} listed, the first of each kind among them"
    return "\n".join([f"{head}:", *(f"  {p}" for p in _examples(problems))])


def _examples(problems: list[Problem]) -> list[Problem]:
    """At most MAX_PROBLEMS problems in file order: the first of each kind, then the earliest."""
    firsts: dict[Kind, int] = {}
    for position, problem in enumerate(problems):
        firsts.setdefault(problem.kind, position)
    picked = set(list(firsts.values())[:MAX_PROBLEMS])
    for position in range(len(problems)):
        if len(picked) >= MAX_PROBLEMS:
            break
        picked.add(position)
    return [problems[k] for k in sorted(picked)]


class OverLimit(SubmissionError):
    """A file refused for its size: too large, or expanding to too many bytes, rows or
    columns. It counts against the submitting account's daily limit."""

    def __init__(self, file: str, message: str, line: int | None = None) -> None:
        super().__init__(file, [Problem(message, line)])


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
    family: str | None = None
    """The metric's family, one of METRIC_FAMILIES (None: not declared)."""

    def problems(self, known_benchmarks: Sequence[str]) -> list[Problem]:
        """Every field that cannot be stored and shown as it is, with why."""
        reasons = []
        if not self.name.strip():
            reasons.append(("name", "a metric name is required"))
        texts = [
            ("name", self.name, MAX_NAME_CHARS, False),
            ("authors", self.authors, MAX_AUTHORS_CHARS, False),
            ("link", self.link, MAX_LINK_CHARS, False),
            ("description", self.description, MAX_DESCRIPTION_CHARS, True),
        ]
        for name, text, limit, prose in texts:
            if reason := _text_problem(text, limit, prose):
                reasons.append((name, reason))
            elif name == "link" and text and (reason := _link_problem(text)):
                reasons.append((name, f"not a valid http(s) link ({reason}): {_shown(text)}"))
        for benchmark in self.trained_on:
            if benchmark not in known_benchmarks:
                reasons.append(("trained_on", f"unknown benchmark {_shown(benchmark)}"))
        if self.family is not None and self.family not in METRIC_FAMILIES:
            known = ", ".join(METRIC_FAMILIES)
            reasons.append(("family", f"unknown family {_shown(str(self.family))}; one of {known}"))
        return [Problem(reason, field_name=name, kind=_FIELD) for name, reason in reasons]


def _text_problem(text: str, limit: int, prose: bool) -> str | None:
    """Why a metadata text cannot be stored and shown as it is (its length, a control or bidi
    or invisible character), or None; `prose` allows tabs, line breaks and bidi marks."""
    if len(text) > limit:
        return f"{len(text)} characters; at most {limit}"
    checks = [
        (_CONTROL, "a control character or undecodable byte"),
        (_BIDI_CONTROL, "a bidi override or isolate"),
        (_INVISIBLE, "an invisible character"),
    ]
    if not prose:
        checks.append((_BIDI_MARK, "a bidi mark"))
    seen = text.translate(_PROSE_SPACE) if prose else text
    for pattern, what in checks:
        if found := pattern.search(seen):
            return f"{what} (U+{ord(found.group()):04X}) at character {found.start() + 1}"
    return None


def _link_problem(link: str) -> str | None:
    """Why `link` is not a plain http(s) URL with a host, or None."""
    if found := _URL_FORBIDDEN.search(link):
        return f"{found.group()!r} at character {found.start() + 1}"
    try:
        parts = urlsplit(link)
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https"):
        return f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
    if not parts.hostname:
        return "no host"
    if parts.username is not None:
        return "a user name before the host"
    return None


@dataclass
class Coverage:
    """The scores of one metric column on one benchmark level, aligned with its items.

    A coverage is full (scored and ranked) when it covers the items its metric is correlated on
    (`items.scored_items`): every item of the level or, for a reference-based metric on a level
    where only some items have references (DSTC7), every item with references, since it cannot
    score the others. A few items a metric could not score (at most `UNSCORED_SHARE` of them,
    e.g. responses a ROUGE tokenizer reads as empty) leave it full: it is correlated on the
    items it scored, as `comperbench evaluate` does, and the page says so. A reference-based
    submission that leaves out only items without references counts as full."""

    benchmark: str
    level: str
    fingerprint: str
    scores: np.ndarray
    """One float per item of the benchmark level, in its order; NaN where the file has none."""
    referenced: np.ndarray | None = None
    """Which items have references, on a partly referenced level (None: any other level)."""
    reference_free: bool = False
    """The metric reads no references (its submission says so): it must cover every item."""

    @property
    def total(self) -> int:
        return len(self.scores)

    @property
    def covered(self) -> int:
        return int(np.count_nonzero(~np.isnan(self.scores)))

    @property
    def required(self) -> np.ndarray:
        """The items the coverage must hold to be full (up to `UNSCORED_SHARE` of them)."""
        if self.referenced is None or self.reference_free:
            return np.ones(self.total, dtype=bool)
        return self.referenced

    @property
    def unscored(self) -> int:
        """Required items without a score."""
        return int(np.count_nonzero(np.isnan(self.scores) & self.required))

    @property
    def full(self) -> bool:
        """Every required item covered, but for at most `UNSCORED_SHARE` of them."""
        return self.unscored <= math.floor(UNSCORED_SHARE * int(self.required.sum()))

    @property
    def references_only(self) -> bool:
        """Full by covering the items with references, not every item."""
        return (
            self.full
            and not self.reference_free
            and self.referenced is not None
            and (self.covered < self.total)
        )

    def describe(self) -> str:
        """E.g. '2/360 items', '9540/10000 items: every item with references', or
        '9538/10000 items: 2 of the 9540 items with references not scored'."""
        text = f"{self.covered}/{self.total} items"
        if self.full and self.unscored:
            what = "items with references" if self.references_only else "items"
            return text + f": {self.unscored} of the {int(self.required.sum())} {what} not scored"
        return text + (": every item with references" if self.references_only else "")


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
    text: bool = False
    """Cells are CSV text (read as plain decimals); else JSON or parquet values."""


class _Bounded(io.RawIOBase):
    """The bytes of `stream` (decompressed as read), refused with `OverLimit` past `limit` and
    with a located `SubmissionError` when the `packing` (gzip, zip) cannot be read."""

    def __init__(self, stream: IO[bytes], limit: int, file_name: str, packing: str) -> None:
        self.stream, self.limit, self.file_name, self.packing = stream, limit, file_name, packing
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.stream.read(len(buffer))
        except (OSError, EOFError, zlib.error, zipfile.BadZipFile) as exc:
            why = f"not a readable {self.packing} file ({exc})"
            raise SubmissionError(self.file_name, [Problem(why)]) from exc
        self.count += len(data)
        if self.count > self.limit:
            raise OverLimit(
                self.file_name, f"expands to more than {self.limit} bytes; split or shrink the file"
            )
        buffer[: len(data)] = data
        return len(data)


def unpack(file_name: str, raw: bytes) -> tuple[str, IO[bytes]]:
    """The inner file name of a plain, gzip or single-file zip upload and a stream of its
    content, decompressed as it is read and bounded at MAX_EXPANDED_BYTES."""
    if len(raw) > MAX_FILE_BYTES:
        raise OverLimit(file_name, f"file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")
    inner, stream, packing = file_name, io.BytesIO(raw), "plain"
    if raw[:2] == b"\x1f\x8b":
        inner = re.sub(r"\.gz$", "", file_name, flags=re.IGNORECASE)
        stream, packing = gzip.GzipFile(fileobj=io.BytesIO(raw)), "gzip"
    elif raw[:4] == b"PK\x03\x04":
        inner, stream, packing = *_zip_member(file_name, raw), "zip"
    bounded = _Bounded(stream, MAX_EXPANDED_BYTES, file_name, packing)
    return inner, io.BufferedReader(bounded)


def _zip_member(file_name: str, raw: bytes) -> tuple[str, IO[bytes]]:
    """The name and an open stream of the one file of a zip upload."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            names = ", ".join(m.filename for m in members) or "none"
            raise SubmissionError(
                file_name, [Problem(f"a zip must hold exactly one file; it holds: {names}")]
            )
        return members[0].filename, archive.open(members[0])
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as exc:
        raise SubmissionError(file_name, [Problem(f"not a readable zip file ({exc})")]) from exc


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


def _lines(file_name: str, stream: IO[bytes]) -> Iterator[str]:
    """The lines of a UTF-8 stream as read (a leading BOM dropped); a byte that is not UTF-8
    raises `SubmissionError` with its line and byte."""
    offset = 0
    for number, line in enumerate(stream, start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte {offset + exc.start}"
            raise SubmissionError(
                file_name,
                [Problem(f"not valid UTF-8 ({where}); save the file as UTF-8", line=number)],
            ) from exc
        offset += len(line)
        yield text.removeprefix("\ufeff") if number == 1 else text


def _too_many_rows(file_name: str, line: int | None) -> OverLimit:
    return OverLimit(
        file_name,
        f"more than {MAX_ROWS} data rows (read up to here); no benchmark has that many items",
        line,
    )


def _score_columns(columns: Sequence[str]) -> list[str]:
    """The columns that hold scores: all but the id and the template's text columns."""
    return [c for c in columns if c != ID_COLUMN and c not in TEXT_COLUMNS]


def _check_columns(file_name: str, columns: list[str], line: int | None) -> None:
    problems = []
    if ID_COLUMN not in columns:
        lowered = {c.lower(): c for c in reversed(columns)}
        close = difflib.get_close_matches(ID_COLUMN, list(lowered), n=1, cutoff=0.4)
        hint = f" (is {lowered[close[0]]!r} meant to be {ID_COLUMN!r}?)" if close else ""
        problems.append(
            Problem(f"no {ID_COLUMN!r} column; columns are {columns}{hint}", line, kind=_HEADER)
        )
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            problems.append(Problem("duplicated column name", line, column=column, kind=_HEADER))
        seen.add(column)
        if column != ID_COLUMN and not _COLUMN_NAME.fullmatch(column):
            problems.append(
                Problem(
                    "column names are letters, digits, '_', '.', '-' (at most 64)",
                    line,
                    column=column,
                    kind=_HEADER,
                )
            )
    if not _score_columns(columns):
        problems.append(Problem(f"no score column next to {ID_COLUMN!r}", line, kind=_HEADER))
    if len(_score_columns(columns)) > MAX_METRIC_COLUMNS:
        count = len(_score_columns(columns))
        why = f"{count} score columns; at most {MAX_METRIC_COLUMNS} metrics per file"
        raise OverLimit(file_name, why, line)
    if problems:
        raise SubmissionError(file_name, problems)


def _read_csv(file_name: str, stream: IO[bytes]) -> _Rows:
    reader = csv.reader(_lines(file_name, stream))
    try:
        header = next(reader)
    except StopIteration:
        raise SubmissionError(file_name, [Problem("the file is empty")]) from None
    except csv.Error as exc:
        raise SubmissionError(file_name, [Problem(f"not CSV ({exc})", 1, kind=_LINE)]) from exc
    columns = [c.strip() for c in header]
    _check_columns(file_name, columns, 1)
    rows = _Rows(columns, [], [], {c: [] for c in _score_columns(columns)}, text=True)
    id_at = columns.index(ID_COLUMN)
    problems = []
    previous = reader.line_num
    records = 0
    try:
        for record in reader:
            line, previous = previous + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            records += 1
            if records > MAX_ROWS:
                raise _too_many_rows(file_name, line)
            if len(record) != len(columns):
                problems.append(
                    Problem(
                        f"{len(record)} fields, the header has {len(columns)}", line, kind=_LINE
                    )
                )
                continue
            rows.lines.append(line)
            rows.ids.append(record[id_at].strip())
            for column, cell in zip(columns, record, strict=True):
                if column in rows.cells:
                    rows.cells[column].append(cell)
    except csv.Error as exc:
        problems.append(Problem(f"malformed CSV ({exc})", previous + 1, kind=_LINE))
    if problems:
        raise SubmissionError(file_name, problems)
    return rows


def _too_deep(line: str) -> bool:
    """Whether objects and arrays nest deeper than MAX_JSON_DEPTH on a JSON line."""
    if line.count("{") + line.count("[") <= MAX_JSON_DEPTH:
        return False
    depth = 0
    for token in _JSON_TOKEN.finditer(line):
        if token.group() in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif token.group() in "]}":
            depth -= 1
    return False


def _json_record(line: str) -> dict[str, object] | str:
    """The object on a JSONL line, or why there is none."""
    if _too_deep(line):
        return f"JSON nested deeper than {MAX_JSON_DEPTH} levels; write one flat object per line"
    try:
        record = json.loads(line, object_pairs_hook=object_without_duplicates)
    except json.JSONDecodeError as exc:
        return f"invalid JSON ({exc.msg}, column {exc.colno})"
    except DuplicateKeyError as exc:
        return f"invalid JSON ({exc})"
    except ValueError:  # an integer beyond Python's digit limit for int parsing
        return "invalid JSON (a number with too many digits)"
    return record if isinstance(record, dict) else "each line must be a JSON object"


def _read_jsonl(file_name: str, stream: IO[bytes]) -> _Rows:
    rows: _Rows | None = None
    problems = []
    records = 0
    for number, line in enumerate(_lines(file_name, stream), start=1):
        if not line.strip():
            continue
        records += 1
        if records > MAX_ROWS:
            raise _too_many_rows(file_name, number)
        record = _json_record(line)
        if isinstance(record, str):
            problems.append(Problem(record, number, kind=_LINE))
            continue
        if rows is None:
            columns = [str(k) for k in record]
            _check_columns(file_name, columns, number)
            rows = _Rows(columns, [], [], {c: [] for c in _score_columns(columns)})
        if set(record) != set(rows.columns):
            extra = sorted(set(record) - set(rows.columns))
            missing = sorted(set(rows.columns) - set(record))
            problems.append(
                Problem(
                    f"keys differ from line {rows.lines[0]}'s (extra {extra}, missing {missing})",
                    number,
                    kind=_LINE,
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


def _parquet_bounds(file_name: str, metadata: pq.FileMetaData) -> None:
    """Refuse a parquet file whose footer declares more rows, columns or bytes than allowed."""
    if metadata.num_rows > MAX_ROWS:
        why = f"{metadata.num_rows} data rows; at most {MAX_ROWS}: no benchmark has that many items"
        raise OverLimit(file_name, why)
    if metadata.num_columns > MAX_METRIC_COLUMNS + 1 + len(TEXT_COLUMNS):
        why = f"{metadata.num_columns} columns; at most {MAX_METRIC_COLUMNS} metrics per file"
        raise OverLimit(file_name, why)
    size = sum(metadata.row_group(k).total_byte_size for k in range(metadata.num_row_groups))
    if size > MAX_EXPANDED_BYTES:
        why = (
            f"expands to {size} bytes; the limit is {MAX_EXPANDED_BYTES}: split or shrink the file"
        )
        raise OverLimit(file_name, why)


def _read_parquet(file_name: str, data: bytes) -> _Rows:
    import pyarrow as pa

    from comperbench.common.parquet_bytes import parquet_file

    try:
        parquet = parquet_file(data)
        _parquet_bounds(file_name, parquet.metadata)
        table = parquet.read()
    except (pa.ArrowException, OSError) as exc:
        raise SubmissionError(file_name, [Problem(f"not a readable parquet file ({exc})")]) from exc
    columns = list(table.column_names)
    _check_columns(file_name, columns, None)
    problems = []
    if not pa.types.is_string(table.schema.field(ID_COLUMN).type) and not pa.types.is_large_string(
        table.schema.field(ID_COLUMN).type
    ):
        problems.append(Problem("must be strings", column=ID_COLUMN, kind=_HEADER))
    for column in _score_columns(columns):
        kind = table.schema.field(column).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            problems.append(Problem(f"must be numbers, found {kind}", column=column, kind=_HEADER))
    if problems:
        raise SubmissionError(file_name, problems)
    # Parquet rows are reported as lines 1..n (there is no header line).
    return _Rows(
        columns,
        list(range(1, table.num_rows + 1)),
        table.column(ID_COLUMN).to_pylist(),
        {c: table.column(c).to_pylist() for c in _score_columns(columns)},
    )


def _score_problem(cell: object, text: bool) -> tuple[Kind, str] | None:
    """Why a score cell is not a finite number, or None; `text` for a CSV cell."""
    if cell is None:
        return _MISSING, "missing value"
    if text and isinstance(cell, str):
        return _text_score_problem(cell)
    if isinstance(cell, str):
        return (
            _NOT_NUMBER,
            f"not a number (the JSON string {_shown(cell)}; write scores without quotes)",
        )
    if isinstance(cell, bool) or not isinstance(cell, int | float):
        shown = repr(cell) if isinstance(cell, bool) else type(cell).__name__
        return _NOT_NUMBER, f"not a number ({shown})"
    try:
        value = float(cell)
    except OverflowError:
        return _NOT_FINITE, "not a finite number (an integer too large for a float)"
    return None if math.isfinite(value) else (_NOT_FINITE, f"not a finite number ({cell!r})")


def _text_score_problem(cell: str) -> tuple[Kind, str] | None:
    """Why a CSV cell is not a finite number in plain ASCII decimal notation, or None."""
    number = cell.strip(" \t")
    if not number:
        return _MISSING, "missing value"
    if _NON_FINITE.fullmatch(number):
        return _NOT_FINITE, f"not a finite number ({_shown(cell)})"
    if not _DECIMAL.fullmatch(number):
        return _NOT_NUMBER, f"not a number ({_shown(cell)}){_decimal_hint(number)}"
    if not math.isfinite(float(number)):
        return _NOT_FINITE, f"not a finite number ({_shown(cell)})"
    return None


def _decimal_hint(number: str) -> str:
    """A hint for text that Python's float() reads but a score is not written as."""
    try:
        float(number)
    except ValueError:
        return ""
    return "; write ASCII digits with an optional sign, '.' and exponent, no '_' or other digits"


def _metric_names(meta: SubmissionMeta, columns: Sequence[str]) -> dict[str, str]:
    score_columns = _score_columns(columns)
    if score_columns == [SCORE_COLUMN]:
        return {SCORE_COLUMN: meta.name.strip()}
    return {c: f"{meta.name.strip()}/{c}" for c in score_columns}


def _problems(rows: _Rows, index: ItemIndex) -> Iterator[Problem]:
    first_line: dict[str, int] = {}
    for position, (line, item) in enumerate(zip(rows.lines, rows.ids, strict=True)):
        if not isinstance(item, str) or not item:
            shown = repr(item)[:SHOWN_CHARS]
            yield Problem(
                f"{ID_COLUMN} must be a non-empty string, found {shown}", line, kind=_BAD_ID
            )
            continue
        if len(item) > MAX_ID_CHARS:
            yield Problem(f"longer than {MAX_ID_CHARS} characters", line, item, kind=_BAD_ID)
            continue
        if item in first_line:
            yield Problem(
                f"duplicate id (first on line {first_line[item]})", line, item, kind=_DUPLICATE
            )
            continue
        first_line[item] = line
        reason = index.unknown_reason(item)
        if reason:
            yield Problem(reason, line, item, kind=_UNKNOWN)
        for column, cells in rows.cells.items():
            if found := _score_problem(cells[position], rows.text):
                kind, why = found
                yield Problem(why, line, item, column, kind=kind)


def parse(
    file_name: str, raw: bytes, meta: SubmissionMeta, index: ItemIndex | None = None
) -> Submission:
    """Validate an uploaded file completely; raise `SubmissionError` listing every problem."""
    index = index or ItemIndex()
    name = Path(file_name).name
    meta_problems = meta.problems(index.benchmark_names())
    if meta_problems:
        raise SubmissionError(name, meta_problems)
    inner, stream = unpack(name, raw)
    fmt = detect_format(inner, stream.peek(4)[:4])
    if fmt == "parquet":
        rows = _read_parquet(name, stream.read())
    else:
        rows = _read_csv(name, stream) if fmt == "csv" else _read_jsonl(name, stream)
    if not rows.ids:
        raise SubmissionError(name, [Problem("no data rows")])
    problems = list(_problems(rows, index))
    if problems:
        raise SubmissionError(name, problems)
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
        values = np.array(
            [float(c) for c in rows.cells[column]]
        )  # every cell passed _score_problem
        coverage = []
        for (benchmark, level), (positions, slots) in sorted(groups.items()):
            aligned = np.full(index.size(benchmark, level), np.nan)
            aligned[slots] = values[positions]
            fingerprint, referenced = (
                index.fingerprint(benchmark),
                index.referenced(benchmark, level),
            )
            coverage.append(
                Coverage(benchmark, level, fingerprint, aligned, referenced, meta.reference_free)
            )
        submission.metrics[metric] = coverage
    return submission


def parse_file(
    path: str | Path, meta: SubmissionMeta, index: ItemIndex | None = None
) -> Submission:
    """`parse` on a file on disk (the size limit is checked before reading it)."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise OverLimit(path.name, f"file is {size} bytes; the limit is {MAX_FILE_BYTES}")
    return parse(path.name, path.read_bytes(), meta, index)
