"""The submission format: reading CSV / JSONL / parquet (optionally gzip or zip) and strict validation.

A submission is a table with an `item_id` column and either one `score` column or one column per
metric; the text columns of the template (`items.TEXT_COLUMNS`) are ignored. Item ids are those of the release (`benchmark/...`), so one file may cover several
benchmarks. Nothing here touches the store: a file either validates completely or raises
`SubmissionError` counting every problem by kind and listing the first ones with their line, item
id and column (or metadata field). Scores are read strictly: JSON numbers in JSONL, plain ASCII
decimals in CSV; JSONL nesting, metadata lengths and metadata characters are bounded.

A file is read as a stream (decompressed as it is read) and checked row by row as it is read:
it is refused with `OverLimit` as soon as it goes over MAX_EXPANDED_BYTES, MAX_LINES lines,
MAX_ROW_BYTES in one row, MAX_ROWS data rows, MAX_CELLS scores or MAX_METRIC_COLUMNS score
columns (a parquet file by its footer and schema, before a column is read; its text columns are
never read), and reading stops once MAX_COUNTED_PROBLEMS problems are counted, so that a small
compressed file can make the server neither expand gigabytes nor list millions of problems.
"""

from __future__ import annotations

import csv
import difflib
import gzip
import hashlib
import io
import json
import lzma
import math
import re
import zipfile
import zlib
from array import array
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
    import pyarrow as pa
    import pyarrow.parquet as pq

UNSCORED_SHARE = 0.005
"""The share of its items a full coverage may leave without a score (half a percent)."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest accepted upload (compressed or not)."""
MAX_EXPANDED_BYTES = 64 * 1024 * 1024
"""Largest accepted content after gzip or zip decompression (as large as a plain upload)."""
MAX_ROW_BYTES = 1024 * 1024
"""Longest row: a JSONL line, or a CSV record over all its lines (a template row with its
texts is a few kilobytes)."""
MAX_LINES = 1_000_000
"""Most lines read from one file, blank lines and the lines of multi-line CSV cells included
(five times the lines of DSTC7's template with its texts)."""
MAX_CELLS = 2_000_000
"""Most score cells (rows x score columns) read from one file."""
MAX_ZIP_ENTRIES = 16
"""Most entries a zip's directory may list (one file, and perhaps its folders)."""
PARQUET_BATCH_ROWS = 8192
"""Rows of a parquet file converted at a time."""
MAX_ROWS = 200_000
"""Most data rows read from one file: every item of every benchmark level fits with room to
spare (the largest level, DSTC7's turns, has 10,000 items)."""
MAX_METRIC_COLUMNS = 16
"""Most score columns (metrics) in one file. Each is scored on every level it covers in full, about
1 s of server CPU per column on DSTC7's 10,000 items, so a file costs at most about 16 s, and an
account's day (`service.PER_DAY` files) about 80 s."""
MAX_PROBLEMS = 10
"""Problems listed in one error message (the total and the count of each kind are always given)."""
MAX_COUNTED_PROBLEMS = 1_000
"""Problems counted before reading stops: a file with more is not read to its end."""
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


class Problems:
    """The problems found in a file, in file order: every one counted by kind, the first
    MAX_PROBLEMS and the first of each kind kept; `full` once MAX_COUNTED_PROBLEMS are counted
    (reading stops there: a file that wrong is not read to its end)."""

    def __init__(self, problems: Sequence[Problem] = ()) -> None:
        self.kept: list[Problem] = []
        self.counts: Counter[Kind] = Counter()
        self.last_line: int | None = None
        for problem in problems:
            self.add(problem)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def full(self) -> bool:
        return self.total >= MAX_COUNTED_PROBLEMS

    def add(self, problem: Problem) -> None:
        if self.total < MAX_PROBLEMS or problem.kind not in self.counts:
            self.kept.append(problem)
        self.counts[problem.kind] += 1
        self.last_line = problem.line if problem.line is not None else self.last_line


class SubmissionError(ComperbenchError, ValueError):
    """A submission that cannot be accepted; `problems` lists the first reasons found (at
    least one of each kind) and `total` counts them all.

    Its message counts the problems by kind on one line, then lists up to MAX_PROBLEMS of them.
    """

    def __init__(self, file: str, problems: Sequence[Problem] | Problems) -> None:
        found = problems if isinstance(problems, Problems) else Problems(problems)
        self.file, self.problems, self.total = file, found.kept, found.total
        super().__init__(_report(file, found))


def _report(file: str, found: Problems) -> str:
    """E.g. 'submission m.csv was rejected (375 problems): 370 unknown item ids, 5 scores not
    numbers; 10 listed, the first of each kind among them:', those problems, one per line, and
    '  ... and 365 more'."""
    total = found.total
    head = f"submission {file} was rejected ({total} problem{'s' * (total != 1)}"
    if found.full:
        head += f"; reading stopped at line {found.last_line}" if found.last_line else ""
    head += ")"
    if total > 1:
        counts = found.counts.most_common()
        head += ": " + ", ".join(f"{n} {kind[n != 1]}" for kind, n in counts)
    shown = _examples(found.kept)
    if total > MAX_PROBLEMS:
        head += f"; {len(shown)} listed, the first of each kind among them"
    more = [f"  ... and {total - len(shown)} more"] if total > len(shown) else []
    return "\n".join([f"{head}:", *(f"  {p}" for p in shown), *more])


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
        except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile) as exc:
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


def _zip_entries(raw: bytes) -> int | None:
    """The count of entries a zip's end record declares (None: no end record), read before
    `zipfile` builds an object for each entry of the central directory."""
    end = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 22 - 0xFFFF))
    if end < 0 or end + 22 > len(raw):
        return None
    return int.from_bytes(raw[end + 10 : end + 12], "little")


def _zip_member(file_name: str, raw: bytes) -> tuple[str, IO[bytes]]:
    """The name and an open stream of the one file of a zip upload."""
    entries = _zip_entries(raw)
    if entries is not None and entries > MAX_ZIP_ENTRIES:
        why = f"a zip must hold exactly one file; its directory lists {entries} entries"
        raise SubmissionError(file_name, [Problem(why)])
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            names = ", ".join(_shown(m.filename) for m in members[:MAX_PROBLEMS]) or "none"
            raise SubmissionError(
                file_name, [Problem(f"a zip must hold exactly one file; it holds: {names}")]
            )
        return members[0].filename, archive.open(members[0])
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, lzma.LZMAError) as exc:
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
        [Problem(f"unknown file type {_shown(suffix or '(none)')}; use .csv, .jsonl or .parquet")],
    )


class _Lines:
    """The lines of a UTF-8 stream as read (a leading BOM dropped), each at most MAX_ROW_BYTES,
    at most MAX_LINES of them and at most MAX_ROW_BYTES from one `record_start` to the next (a
    CSV record spans lines); a byte that is not UTF-8 raises `SubmissionError` with its line."""

    def __init__(self, file_name: str, stream: IO[bytes]) -> None:
        self.file_name, self.readline = file_name, stream.readline
        self.number = self.offset = self.record_bytes = 0

    def record_start(self) -> None:
        self.record_bytes = 0

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = self.readline(MAX_ROW_BYTES + 1)
        if not line:
            raise StopIteration
        self.number += 1
        self.record_bytes += len(line)
        if self.record_bytes > MAX_ROW_BYTES or self.number > MAX_LINES:
            self._refuse()
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte {self.offset + exc.start}"
            why = f"not valid UTF-8 ({where}); save the file as UTF-8"
            raise SubmissionError(self.file_name, [Problem(why, line=self.number)]) from exc
        self.offset += len(line)
        return text if self.number > 1 else text.removeprefix("\ufeff")

    def _refuse(self) -> None:
        if self.number > MAX_LINES:
            raise OverLimit(self.file_name, f"more than {MAX_LINES} lines", self.number)
        why = f"a row longer than {MAX_ROW_BYTES} bytes; is this a submission file?"
        raise OverLimit(self.file_name, why, self.number)


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
    if len(columns) > MAX_METRIC_COLUMNS + 1 + len(TEXT_COLUMNS):
        why = f"{len(columns)} columns; at most {MAX_METRIC_COLUMNS} metrics per file"
        raise OverLimit(file_name, why, line)
    problems = []
    if ID_COLUMN not in columns:
        lowered = {c.lower(): c for c in reversed(columns)}
        close = difflib.get_close_matches(ID_COLUMN, list(lowered), n=1, cutoff=0.4)
        hint = f" (is {_shown(lowered[close[0]])} meant to be {ID_COLUMN!r}?)" if close else ""
        shown = ", ".join(_shown(c) for c in columns)
        problems.append(
            Problem(f"no {ID_COLUMN!r} column; columns are [{shown}]{hint}", line, kind=_HEADER)
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
                    column=column[:SHOWN_CHARS],
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


class _Table:
    """The rows of a file checked as they are read: each id (valid, not a duplicate, known) and
    each score cell (a finite number); the ids, their lines and each score column's values kept,
    every problem counted into `problems`."""

    def __init__(
        self, file_name: str, columns: list[str], line: int | None, index: ItemIndex, text: bool
    ) -> None:
        _check_columns(file_name, columns, line)
        self.file_name, self.columns, self.index, self.text = file_name, columns, index, text
        self.score_columns = _score_columns(columns)
        self.ids: list[str] = []
        self.lines: list[int] = []
        self.values = {c: array("d") for c in self.score_columns}
        self.first_line: dict[str, int] = {}

    def add(self, problems: Problems, line: int, item: object, cells: Sequence[object]) -> None:
        """Check and keep one row (`cells`: its score cells, in `score_columns` order)."""
        if len(self.first_line) * len(self.score_columns) > MAX_CELLS:
            why = f"more than {MAX_CELLS} scores (rows x score columns); split the file"
            raise OverLimit(self.file_name, why, line)
        if (reason := self._id_problem(line, item)) is not None:
            problems.add(reason)
            return
        assert isinstance(item, str)
        self.first_line[item] = line
        if reason := self.index.unknown_reason(item):
            problems.add(Problem(reason, line, item, kind=_UNKNOWN))
        for column, cell in zip(self.score_columns, cells, strict=True):
            found = _score_problem(cell, self.text)
            if found is not None:
                problems.add(Problem(found[1], line, item, column, kind=found[0]))
            self.values[column].append(math.nan if found else float(cell))  # type: ignore[arg-type]
        self.ids.append(item)
        self.lines.append(line)

    def _id_problem(self, line: int, item: object) -> Problem | None:
        if not isinstance(item, str) or not item:
            shown = repr(item)[:SHOWN_CHARS]
            return Problem(
                f"{ID_COLUMN} must be a non-empty string, found {shown}", line, kind=_BAD_ID
            )
        if len(item) > MAX_ID_CHARS:
            return Problem(f"longer than {MAX_ID_CHARS} characters", line, item, kind=_BAD_ID)
        if item in self.first_line:
            first = self.first_line[item]
            return Problem(f"duplicate id (first on line {first})", line, item, kind=_DUPLICATE)
        return None


def _read_csv(file_name: str, stream: IO[bytes], index: ItemIndex, problems: Problems) -> _Table:
    lines = _Lines(file_name, stream)
    reader = csv.reader(lines)
    try:
        header = next(reader)
    except StopIteration:
        raise SubmissionError(file_name, [Problem("the file is empty")]) from None
    except csv.Error as exc:
        raise SubmissionError(file_name, [Problem(f"not CSV ({exc})", 1, kind=_LINE)]) from exc
    table = _Table(file_name, [c.strip() for c in header], 1, index, text=True)
    id_at = table.columns.index(ID_COLUMN)
    score_at = [table.columns.index(c) for c in table.score_columns]
    previous, records = reader.line_num, 0
    try:
        for record in _records(reader, lines):
            line, previous = previous + 1, reader.line_num
            if not record or not any(cell.strip() for cell in record):
                continue
            records += 1
            if records > MAX_ROWS:
                raise _too_many_rows(file_name, line)
            if len(record) != len(table.columns):
                why = f"{len(record)} fields, the header has {len(table.columns)}"
                problems.add(Problem(why, line, kind=_LINE))
            else:
                table.add(problems, line, record[id_at].strip(), [record[k] for k in score_at])
            if problems.full:
                break
    except csv.Error as exc:
        problems.add(Problem(f"malformed CSV ({exc})", previous + 1, kind=_LINE))
    return table


def _records(reader: Iterator[list[str]], lines: _Lines) -> Iterator[list[str]]:
    """The records of a CSV reader over `lines`, each bounded as one row."""
    lines.record_start()
    for record in reader:
        yield record
        lines.record_start()


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


def _read_jsonl(
    file_name: str, stream: IO[bytes], index: ItemIndex, problems: Problems
) -> _Table | None:
    """The table of a JSONL stream (None: no line held an object)."""
    table: _Table | None = None
    lines = _Lines(file_name, stream)
    records = 0
    for line in lines:
        lines.record_start()
        if not line.strip():
            continue
        records += 1
        if records > MAX_ROWS:
            raise _too_many_rows(file_name, lines.number)
        record = _json_record(line)
        if isinstance(record, str):
            problems.add(Problem(record, lines.number, kind=_LINE))
        elif table is None:
            table = _Table(file_name, [str(k) for k in record], lines.number, index, text=False)
        if isinstance(record, dict) and table is not None:
            _add_json_row(table, problems, lines.number, record)
        if problems.full:
            break
    return table


def _add_json_row(table: _Table, problems: Problems, line: int, record: dict[str, object]) -> None:
    if len(record) != len(table.columns) or any(c not in record for c in table.columns):
        extra = [_shown(k) for k in list(set(record) - set(table.columns))[:MAX_PROBLEMS]]
        missing = sorted(set(table.columns) - set(record))
        first = table.lines[0] if table.lines else "the first object"
        shown = ", ".join(sorted(extra))
        why = f"keys differ from line {first}'s (extra [{shown}], missing {missing})"
        problems.add(Problem(why, line, kind=_LINE))
        return
    table.add(problems, line, record[ID_COLUMN], [record[c] for c in table.score_columns])


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


def _parquet_type_problems(schema: pa.Schema, score_columns: list[str]) -> list[Problem]:
    """The id column not strings, or a score column not numbers (read from the schema)."""
    import pyarrow as pa

    problems = []
    kind = schema.field(ID_COLUMN).type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        problems.append(Problem("must be strings", column=ID_COLUMN, kind=_HEADER))
    for column in score_columns:
        kind = schema.field(column).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            problems.append(Problem(f"must be numbers, found {kind}", column=column, kind=_HEADER))
    return problems


def _read_parquet(file_name: str, data: bytes, index: ItemIndex, problems: Problems) -> _Table:
    """The id and score columns of a parquet file, read by batches after its footer and schema
    are checked (the text columns are never read)."""
    import pyarrow as pa

    from comperbench.common.parquet_bytes import parquet_file

    try:
        parquet = parquet_file(data)
        _parquet_bounds(file_name, parquet.metadata)
        schema = parquet.schema_arrow
        table = _Table(file_name, list(schema.names), None, index, text=False)
        if found := _parquet_type_problems(schema, table.score_columns):
            raise SubmissionError(file_name, found)
        wanted = [ID_COLUMN, *table.score_columns]
        line = 0
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=wanted):
            columns = [batch.column(c).to_pylist() for c in wanted]
            for item, *cells in zip(*columns, strict=True):
                line += 1  # parquet rows are reported as lines 1..n (there is no header line)
                table.add(problems, line, item, cells)
            if problems.full:
                break
    except (pa.ArrowException, OSError) as exc:
        raise SubmissionError(file_name, [Problem(f"not a readable parquet file ({exc})")]) from exc
    return table


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
        float(number[:SHOWN_CHARS])
    except ValueError:
        return ""
    return "; write ASCII digits with an optional sign, '.' and exponent, no '_' or other digits"


def _metric_names(meta: SubmissionMeta, columns: Sequence[str]) -> dict[str, str]:
    score_columns = _score_columns(columns)
    if score_columns == [SCORE_COLUMN]:
        return {SCORE_COLUMN: meta.name.strip()}
    return {c: f"{meta.name.strip()}/{c}" for c in score_columns}


def _read(name: str, raw: bytes, index: ItemIndex) -> tuple[str, _Table]:
    """The format and the checked table of an upload; `SubmissionError` listing its problems."""
    inner, stream = unpack(name, raw)
    fmt = detect_format(inner, stream.peek(4)[:4])
    problems = Problems()
    table: _Table | None
    if fmt == "parquet":
        table = _read_parquet(name, stream.read(), index, problems)
    elif fmt == "csv":
        table = _read_csv(name, stream, index, problems)
    else:
        table = _read_jsonl(name, stream, index, problems)
    if problems.total:
        raise SubmissionError(name, problems)
    if table is None:
        raise SubmissionError(name, [Problem("the file is empty")])
    if not table.ids:
        raise SubmissionError(name, [Problem("no data rows")])
    return fmt, table


_DEVICE = re.compile(r"(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?", re.IGNORECASE)
"""Windows device names, which a file cannot be named (with any extension)."""
_UNSAFE = re.compile(
    f"{_CONTROL.pattern}|{_BIDI_CONTROL.pattern}|{_INVISIBLE.pattern}|[\u061c\u200e\u200f]"
)


def file_name_of(uploaded: str) -> str:
    """The name an uploaded file is read, stored and shown under: the last part of its path,
    each control, bidi or invisible character replaced by '_', a Windows device name prefixed
    with '_', cut to MAX_NAME_CHARS (its extension kept); 'submission' before a name that is
    only an extension (`.csv`)."""
    name = _UNSAFE.sub("_", uploaded.replace("\\", "/").rsplit("/", 1)[-1]).strip(" ").rstrip(".")
    if not name or name.startswith("."):
        name = f"submission{name}"
    stem, dot, suffix = name.rpartition(".") if "." in name else (name, "", "")
    if _DEVICE.fullmatch(name):
        stem = f"_{stem}"
    suffix = suffix[:16]
    return f"{stem[: MAX_NAME_CHARS - len(suffix) - 1]}{dot}{suffix}"


def parse(
    file_name: str, raw: bytes, meta: SubmissionMeta, index: ItemIndex | None = None
) -> Submission:
    """Validate an uploaded file completely; raise `SubmissionError` listing its problems. The
    file is named by `file_name_of` its name in every message and in the submission."""
    index = index or ItemIndex()
    name = file_name_of(file_name)
    meta_problems = meta.problems(index.benchmark_names())
    if meta_problems:
        raise SubmissionError(name, meta_problems)
    fmt, table = _read(name, raw, index)
    submission = Submission(
        meta=meta,
        file_name=name,
        file_sha256=hashlib.sha256(raw).hexdigest(),
        format=fmt,
        rows=len(table.ids),
    )
    groups = index.group(table.ids)
    for column, metric in _metric_names(meta, table.columns).items():
        values = np.frombuffer(table.values[column], dtype=np.float64)
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
