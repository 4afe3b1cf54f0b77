"""The leaderboard database: one SQLite file in WAL mode, every write in one transaction.

A submission's file hash is unique, so a re-submitted identical file is recognised, and two
concurrent submissions of it leave exactly one row (the second one finds the first one's row
inside its own `BEGIN IMMEDIATE` transaction and inserts nothing). A submission's results
folder is written inside that transaction, before it commits. Each result stores the settings
it was computed under as columns (statistic, level, aspect, resampling, resamples, seed, benchmark version, protocol,
scoring version), with how its p-value was computed and why its value is undefined; a
submission records the account that made it, if any, and the metric family it declares, if
any; `refusals` records when an account sent a file refused for its size (it counts against the
daily limit, see `Store.made_by`). A metric keeps its results of every benchmark version, protocol and scoring version it
was scored under (`service.rescore` adds the current ones), and one coverage per benchmark
level: its scores aligned with the items of the version they were last validated against, and
whether they cover it fully (see `submission.Coverage.full`). Databases written before those
columns existed are migrated on opening (see `migrate`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import platformdirs

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.records import Correlation, Settings, defined_resamples
from comperbench.leaderboard.scoring import SCORING_VERSION
from comperbench.leaderboard.submission import Coverage, Submission

DB_ENV = "COMPERBENCH_LEADERBOARD_DB"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    file_sha256 TEXT NOT NULL UNIQUE,
    file_name TEXT NOT NULL,
    format TEXT NOT NULL,
    rows INTEGER NOT NULL,
    name TEXT NOT NULL,
    authors TEXT NOT NULL,
    link TEXT NOT NULL,
    description TEXT NOT NULL,
    reference_free INTEGER NOT NULL,
    trained_on TEXT NOT NULL,
    baseline INTEGER NOT NULL,
    package_version TEXT NOT NULL,
    created_at REAL NOT NULL,
    account TEXT,
    family TEXT
);
CREATE TABLE IF NOT EXISTS metrics (
    id INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    UNIQUE (submission_id, name)
);
CREATE TABLE IF NOT EXISTS coverage (
    metric_id INTEGER NOT NULL REFERENCES metrics(id) ON DELETE CASCADE,
    benchmark TEXT NOT NULL,
    level TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    covered INTEGER NOT NULL,
    total INTEGER NOT NULL,
    scores BLOB NOT NULL,
    full INTEGER NOT NULL,
    PRIMARY KEY (metric_id, benchmark, level)
);
CREATE TABLE IF NOT EXISTS refusals (
    account TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""
SCHEMA_VERSION = 5
"""PRAGMA user_version of the current schema (0: results carried a signature string only;
1: settings as columns, without the p-value method and the reason of an undefined value;
2: submissions without the submitting account; 3: one result per metric and view, without
the scoring version, and coverages without their full flag; 4: submissions without the
declared metric family)."""
LEGACY_SCORING = 1
"""The scoring version of rows stored before it was (`scoring.SCORING_VERSION` was 1)."""
LEGACY_P_METHOD = "scipy"
"""The p-value method of rows scored before it was stored (scipy's analytic p-value)."""
_RESULTS = """CREATE TABLE IF NOT EXISTS results (
    metric_id INTEGER NOT NULL REFERENCES metrics(id) ON DELETE CASCADE,
    benchmark TEXT NOT NULL,
    level TEXT NOT NULL,
    aspect TEXT NOT NULL,
    statistic TEXT NOT NULL,
    value REAL,
    p_value REAL,
    ci_low REAL,
    ci_high REAL,
    n INTEGER NOT NULL,
    replicates BLOB NOT NULL,
    resampling TEXT NOT NULL,
    n_resamples INTEGER,
    seed INTEGER,
    benchmark_tag TEXT NOT NULL,
    protocol TEXT NOT NULL DEFAULT '',
    p_method TEXT,
    reason TEXT,
    scoring INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (metric_id, benchmark, level, aspect, statistic, benchmark_tag, protocol, scoring)
)"""
_RESULTS_INDEX = (
    "CREATE INDEX IF NOT EXISTS results_view ON results (benchmark, level, aspect, statistic)"
)
_RESULT_COLUMNS = (
    "metric_id, benchmark, level, aspect, statistic, value, p_value, ci_low, ci_high, n,"
    " replicates, resampling, n_resamples, seed, benchmark_tag, protocol, p_method, reason, scoring"
)
_INSERT_RESULT = f"INSERT INTO results ({_RESULT_COLUMNS}) VALUES ({','.join('?' * 19)})"
_PUT_RESULT = _INSERT_RESULT.replace("INSERT", "INSERT OR REPLACE", 1)
_PUT_COVERAGE = (
    "INSERT OR REPLACE INTO coverage (metric_id, benchmark, level, fingerprint, covered, total,"
    " scores, full) VALUES (?,?,?,?,?,?,?,?)"
)


def default_path() -> Path:
    """COMPERBENCH_LEADERBOARD_DB, else `leaderboard.sqlite` in the user data directory."""
    explicit = os.environ.get(DB_ENV)
    if explicit:
        return Path(explicit)
    return Path(platformdirs.user_data_dir("comperbench")) / "leaderboard.sqlite"


SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of every SQLite database file."""


def database_problem(path: Path, create: bool) -> str | None:
    """Why `path` cannot serve as the leaderboard database, None when it can: a folder, a file
    that is not a SQLite database or is another program's, a path where none can be written,
    or, unless `create`, no file (or an empty one) at all."""
    if path.is_dir():
        return "is a folder, not a database file"
    if not path.exists():
        return _creation_problem(path) or (None if create else "does not exist")
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not head:
        return _creation_problem(path) or (None if create else "is an empty file")
    if head != SQLITE_HEADER:
        return "is not a SQLite database"
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return "cannot be written (SQLite writes the file and a journal beside it)"
    return _foreign_database(path)


def _creation_problem(path: Path) -> str | None:
    """Why a database cannot be created at `path` (None: it can): the nearest existing folder
    on its way is a file, or cannot be written."""
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot be created: {folder} is a file, not a folder"
    if not os.access(folder, os.W_OK):
        return f"cannot be created: the folder {folder} cannot be written"
    return None


_REQUIRED_COLUMNS = {
    "submissions": [
        *("id", "file_sha256", "file_name", "format", "rows", "name", "authors", "link"),
        *("description", "reference_free", "trained_on", "baseline", "package_version"),
        "created_at",
    ],
    "metrics": ["id", "submission_id", "name"],
    "coverage": ["metric_id", "benchmark", "level", "fingerprint", "covered", "total", "scores"],
    "results": [
        "metric_id",
        "benchmark",
        "level",
        "aspect",
        "statistic",
        "value",
        "n",
        "replicates",
    ],
}
"""The columns each table has had since the first schema (the migrations add the rest)."""


class ForeignDatabase(ComperbenchError):
    """A database this version of comperbench cannot read as a leaderboard."""


def _foreign_database(path: Path) -> str | None:
    """Why the SQLite database at `path` is not a leaderboard database this version can read
    (another program's tables, another schema, a newer schema version), None when it is."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return _schema_problem(db)
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"cannot be read as a SQLite database ({exc})"


def _schema_problem(db: sqlite3.Connection) -> str | None:
    """Why the open database `db` is not a leaderboard this version can read, or None."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return None
    if "submissions" not in tables:
        return "is a SQLite database of another program (it has no submissions table)"
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        return (
            f"is a leaderboard database of schema version {version}; this comperbench reads"
            f" versions up to {SCHEMA_VERSION}: upgrade comperbench"
        )
    for table, required in _REQUIRED_COLUMNS.items():
        if table not in tables:
            continue
        missing = [c for c in required if c not in _columns(db, table)]
        if missing:
            found = ", ".join(sorted(_columns(db, table)))[:200]
            return (
                f"is not a leaderboard database: its {table} table has no column"
                f"{'s' * (len(missing) > 1)} {', '.join(missing[:5])} (it has {found})"
            )
    return None


@dataclass(frozen=True)
class Stored:
    """What `Store.add` did: the submission id, whether the file was already there, and the
    stored submission's name, time (seconds since the epoch) and account."""

    submission_id: int
    duplicate: bool
    name: str
    created_at: float
    account: str | None = None


def _legacy_settings(signature: str) -> tuple[str, int | None, int | None, str]:
    """(resampling, resamples, seed, benchmark tag) of a version-0 signature string."""
    fields = dict(part.split(":", 1) for part in signature.split("|") if ":" in part)

    def integer(key: str) -> int | None:
        value = fields.get(key, "")
        return int(value) if value.lstrip("-").isdigit() else None

    return fields.get("resample", ""), integer("n"), integer("seed"), fields.get("bench", "")


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _add_column(db: sqlite3.Connection, table: str, column: str, declaration: str) -> bool:
    """Add `column` to `table` unless it is there; whether it was added."""
    if column in _columns(db, table):
        return False
    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    return True


def _from_version_0(db: sqlite3.Connection) -> None:
    """Results kept their settings in a signature string: rebuild the table with one column
    per setting, parsed from the string once."""
    if "signature" not in _columns(db, "results"):
        return
    old = db.execute(
        "SELECT metric_id, benchmark, level, aspect, statistic, value, p_value, ci_low, ci_high,"
        " n, replicates, signature FROM results"
    ).fetchall()
    db.execute("DROP TABLE results")
    db.execute(_RESULTS)
    db.execute(_RESULTS_INDEX)
    db.executemany(
        _INSERT_RESULT,
        [
            (
                *row[:11],
                *_legacy_settings(row[11]),
                "",
                _legacy_p_method(row[6]),
                None,
                LEGACY_SCORING,
            )
            for row in old
        ],
    )


def _legacy_p_method(p_value: float | None) -> str | None:
    return None if p_value is None else LEGACY_P_METHOD


def _from_version_1(db: sqlite3.Connection) -> None:
    """Add the p-value method (scipy's for the rows already there) and the undefined reason."""
    if _add_column(db, "results", "p_method", "TEXT"):
        db.execute("UPDATE results SET p_method = ? WHERE p_value IS NOT NULL", (LEGACY_P_METHOD,))
    _add_column(db, "results", "reason", "TEXT")


def _from_version_2(db: sqlite3.Connection) -> None:
    """Add the submitting account (none recorded for the submissions already there)."""
    _add_column(db, "submissions", "account", "TEXT")


def _from_version_3(db: sqlite3.Connection) -> None:
    """Key results by benchmark version, protocol and scoring version too (the rows there are
    of the first scoring version), and flag full coverages (those covering every item)."""
    if _add_column(db, "coverage", "full", "INTEGER NOT NULL DEFAULT 0"):
        db.execute("UPDATE coverage SET full = (covered = total)")
    if "scoring" in _columns(db, "results"):
        return
    db.execute("ALTER TABLE results RENAME TO results_v3")
    db.execute(_RESULTS)
    columns_v3 = _RESULT_COLUMNS.removesuffix(", scoring")
    db.execute(
        f"INSERT INTO results ({_RESULT_COLUMNS}) SELECT {columns_v3}, {LEGACY_SCORING}"
        " FROM results_v3"
    )
    db.execute("DROP TABLE results_v3")
    db.execute(_RESULTS_INDEX)


def _from_version_4(db: sqlite3.Connection) -> None:
    """Add the declared metric family (none declared for the submissions already there)."""
    _add_column(db, "submissions", "family", "TEXT")


def migrate(db: sqlite3.Connection) -> None:
    """Bring the database to SCHEMA_VERSION, inside the caller's transaction."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version < 1:
        _from_version_0(db)
    if version < 2:
        _from_version_1(db)
    if version < 3:
        _from_version_2(db)
    if version < 4:
        _from_version_3(db)
    if version < 5:
        _from_version_4(db)
    if version < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@dataclass
class Row:
    """One metric's correlation on one benchmark view, with its submission's metadata."""

    metric_id: int
    submission_id: int
    metric: str
    authors: str
    link: str
    reference_free: bool
    trained_on: list[str]
    baseline: bool
    family: str | None
    """The metric family its submission declares (None: not declared)."""
    value: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    replicates: np.ndarray
    settings: Settings
    package_version: str
    p_method: str | None
    reason: str | None
    """Why the value is undefined (NaN); None when it is defined or was not recorded."""
    scoring: int = LEGACY_SCORING
    """The scoring version that computed the row (`scoring.SCORING_VERSION`)."""

    @property
    def signature(self) -> str:
        """The settings as a display string, with the version that scored the row."""
        return self.settings.signature(self.p_method, self.package_version)

    @property
    def ci_resamples(self) -> int:
        """Resamples the interval rests on (those where the statistic is defined)."""
        return defined_resamples(self.replicates)

    @property
    def ci_note(self) -> str | None:
        """Why the interval is not informative (too few resampled units), or on how many
        resamples it rests when the statistic is undefined on some; None otherwise."""
        return self.settings.interval_note(self.n, self.replicates)


def _nan_to_null(value: float) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _null_to_nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _result_values(metric_id: int, r: Correlation) -> tuple[object, ...]:
    """The values of one results row, in _RESULT_COLUMNS order."""
    s = r.settings
    return (
        metric_id,
        r.benchmark,
        s.level,
        s.aspect,
        s.statistic,
        _nan_to_null(r.value),
        _nan_to_null(r.p_value),
        _nan_to_null(r.ci_low),
        _nan_to_null(r.ci_high),
        r.n,
        r.replicates.astype(np.float32).tobytes(),
        s.resampling,
        s.n_resamples,
        s.seed,
        s.benchmark,
        s.protocol,
        r.p_method,
        r.reason,
        SCORING_VERSION,
    )


def _coverage_values(metric_id: int, c: Coverage) -> tuple[object, ...]:
    """The values of one coverage row, in _PUT_COVERAGE order."""
    scores = c.scores.astype(np.float64).tobytes()
    return (metric_id, c.benchmark, c.level, c.fingerprint, c.covered, c.total, scores, c.full)


@dataclass(frozen=True)
class StoredCoverage:
    """One metric's stored coverage of a benchmark level, and the settings of its results there:
    (benchmark version, protocol, scoring version, resamples) of each."""

    metric_id: int
    submission_id: int
    metric: str
    file_sha256: str
    coverage: Coverage
    full: bool
    scored: frozenset[tuple[str, str, int, int | None]]


@dataclass(frozen=True)
class Made:
    """What an account made since a moment: when (its stored submissions and its files refused,
    oldest first), and how many of them were refused."""

    times: list[float]
    refused: int


Quota = tuple[float, int]
"""(since, limit): an account may make at most `limit` submissions from `since` on."""


class QuotaReached(Exception):
    """An account has made its quota's `limit` already; `made` says what and when."""

    def __init__(self, made: Made, limit: int) -> None:
        super().__init__(f"{len(made.times)} submission(s) made; the limit is {limit}")
        self.made, self.limit = made, limit


def _made_by(db: sqlite3.Connection, account: str, since: float) -> Made:
    stored = "SELECT created_at, 0 FROM submissions WHERE account = ? AND created_at >= ?"
    refused = "SELECT created_at, 1 FROM refusals WHERE account = ? AND created_at >= ?"
    rows = db.execute(
        f"{stored} UNION ALL {refused} ORDER BY 1", (account, since, account, since)
    ).fetchall()
    return Made([float(r[0]) for r in rows], sum(int(r[1]) for r in rows))


def _found(db: sqlite3.Connection, file_sha256: str) -> Stored | None:
    row = db.execute(
        "SELECT id, name, created_at, account FROM submissions WHERE file_sha256 = ?",
        (file_sha256,),
    ).fetchone()
    return None if row is None else Stored(row[0], True, row[1], row[2], row[3])


class Store:
    """The leaderboard database at `path` (created with its parent folder on first use)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if (
            self.path.is_file()
            and self.path.stat().st_size
            and (problem := _foreign_database(self.path))
        ):
            raise ForeignDatabase(f"the database {self.path} {problem}")
        with self._connect() as db:
            db.executescript(_SCHEMA + _RESULTS + ";" + _RESULTS_INDEX + ";")
        with self._transaction() as db:
            migrate(db)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=60000")
        return db

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        db = self._connect()
        try:
            yield db
        finally:
            db.close()

    def find(self, file_sha256: str) -> Stored | None:
        with self._read() as db:
            return _found(db, file_sha256)

    def add(
        self,
        submission: Submission,
        results: dict[str, list[Correlation]],
        created_at: float | None = None,
        account: str | None = None,
        quota: Quota | None = None,
        keep: Callable[[Stored], object] | None = None,
    ) -> Stored:
        """Store a validated submission and its correlations (per metric name) atomically, as
        made at `created_at` (default: now) by `account` (None: no account). With a `quota`,
        an account that has made its limit already raises `QuotaReached`, checked in the
        insert's transaction, so that concurrent submissions cannot all pass it. `keep` is
        called with a newly stored submission before its transaction commits (the results
        folder is written there), so that a row never commits without it; if it raises,
        nothing is stored."""
        meta = submission.meta
        created_at = time.time() if created_at is None else created_at
        with self._transaction() as db:
            if found := _found(db, submission.file_sha256):
                return found
            if account is not None and quota is not None:
                made = _made_by(db, account, quota[0])
                if len(made.times) >= quota[1]:
                    raise QuotaReached(made, quota[1])
            cursor = db.execute(
                "INSERT INTO submissions (file_sha256, file_name, format, rows, name, authors,"
                " link, description, reference_free, trained_on, baseline, package_version,"
                " created_at, account, family) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    submission.file_sha256,
                    submission.file_name,
                    submission.format,
                    submission.rows,
                    meta.name,
                    meta.authors,
                    meta.link,
                    meta.description,
                    int(meta.reference_free),
                    json.dumps(list(meta.trained_on)),
                    int(meta.baseline),
                    __version__,
                    created_at,
                    account,
                    meta.family,
                ),
            )
            submission_id = int(cursor.lastrowid or 0)
            for metric, coverages in submission.metrics.items():
                metric_id = db.execute(
                    "INSERT INTO metrics (submission_id, name) VALUES (?, ?)",
                    (submission_id, metric),
                ).lastrowid
                db.executemany(
                    _PUT_COVERAGE, [_coverage_values(int(metric_id), c) for c in coverages]
                )
                db.executemany(
                    _INSERT_RESULT, [_result_values(metric_id, r) for r in results.get(metric, [])]
                )
            stored = Stored(submission_id, False, meta.name, created_at, account)
            if keep is not None:
                keep(stored)
        return stored

    def view(
        self, benchmark: str, level: str, aspect: str, statistic: str, version: str | None = None
    ) -> list[Row]:
        """Every full-coverage metric's correlations for one benchmark, level, aspect, statistic:
        under every version, protocol and scoring version stored, or under the benchmark version
        `version` (`name@fingerprint`) only."""
        query = (
            "SELECT m.id, s.id, m.name, s.authors, s.link, s.reference_free, s.trained_on,"
            " s.baseline, r.value, r.p_value, r.ci_low, r.ci_high, r.n, r.replicates,"
            " r.resampling, r.n_resamples, r.seed, r.benchmark_tag, r.protocol,"
            " s.package_version, r.p_method, r.reason, r.scoring, s.family FROM results r"
            " JOIN metrics m ON m.id = r.metric_id JOIN submissions s ON s.id = m.submission_id"
            " WHERE r.benchmark = ? AND r.level = ? AND r.aspect = ? AND r.statistic = ?"
        )
        parameters: tuple[object, ...] = (benchmark, level, aspect, statistic)
        if version is not None:
            query, parameters = query + " AND r.benchmark_tag = ?", (*parameters, version)
        with self._read() as db:
            rows = db.execute(query + " ORDER BY m.id, r.rowid", parameters).fetchall()
        return [
            Row(
                metric_id=r[0],
                submission_id=r[1],
                metric=r[2],
                authors=r[3],
                link=r[4],
                reference_free=bool(r[5]),
                trained_on=json.loads(r[6]),
                baseline=bool(r[7]),
                family=r[23],
                value=_null_to_nan(r[8]),
                p_value=_null_to_nan(r[9]),
                ci_low=_null_to_nan(r[10]),
                ci_high=_null_to_nan(r[11]),
                n=r[12],
                replicates=np.frombuffer(r[13], dtype=np.float32),
                settings=Settings(statistic, level, aspect, *r[14:19]),
                package_version=r[19],
                p_method=r[20],
                reason=r[21],
                scoring=r[22],
            )
            for r in rows
        ]

    def versions(self, benchmark: str) -> list[tuple[str, str, int]]:
        """The (benchmark version, protocol, scoring version) results of `benchmark` are stored
        under, oldest first."""
        with self._read() as db:
            return db.execute(
                "SELECT benchmark_tag, protocol, scoring FROM results WHERE benchmark = ?"
                " GROUP BY 1, 2, 3 ORDER BY MIN(rowid)",
                (benchmark,),
            ).fetchall()

    def coverages(self) -> list[StoredCoverage]:
        """Every stored coverage, by submission and metric, with the settings of its results."""
        with self._read() as db:
            scored: dict[tuple[int, str, str], set[tuple[str, str, int, int | None]]] = {}
            for metric_id, benchmark, level, *key in db.execute(
                "SELECT metric_id, benchmark, level, benchmark_tag, protocol, scoring, n_resamples"
                " FROM results GROUP BY 1, 2, 3, 4, 5, 6, 7"
            ):
                scored.setdefault((metric_id, benchmark, level), set()).add(tuple(key))
            rows = db.execute(
                "SELECT m.id, s.id, m.name, s.file_sha256, c.benchmark, c.level, c.fingerprint,"
                " c.scores, c.full, s.reference_free FROM coverage c"
                " JOIN metrics m ON m.id = c.metric_id"
                " JOIN submissions s ON s.id = m.submission_id ORDER BY s.id, m.id, c.rowid"
            ).fetchall()
        return [
            StoredCoverage(
                metric_id=r[0],
                submission_id=r[1],
                metric=r[2],
                file_sha256=r[3],
                coverage=Coverage(
                    r[4],
                    r[5],
                    r[6],
                    np.frombuffer(r[7], dtype=np.float64),
                    reference_free=bool(r[9]),
                ),
                full=bool(r[8]),
                scored=frozenset(scored.get((r[0], r[4], r[5]), ())),
            )
            for r in rows
        ]

    def rescored(self, metric_id: int, coverage: Coverage, results: list[Correlation]) -> None:
        """Replace a metric's coverage of a benchmark level by `coverage` (validated against
        the current benchmark) and add `results`, keeping the results already stored."""
        with self._transaction() as db:
            db.execute(_PUT_COVERAGE, _coverage_values(metric_id, coverage))
            db.executemany(
                _PUT_RESULT,
                [_result_values(metric_id, r) for r in results],
            )

    def partial(self, benchmark: str, level: str) -> list[tuple[str, int, int]]:
        """Metrics that cover part of a benchmark level, not ranked: (name, covered, total)."""
        with self._read() as db:
            return db.execute(
                "SELECT m.name, c.covered, c.total FROM coverage c"
                " JOIN metrics m ON m.id = c.metric_id"
                " WHERE c.benchmark = ? AND c.level = ? AND NOT c.full ORDER BY m.id",
                (benchmark, level),
            ).fetchall()

    def item_scores(self, metric_id: int, benchmark: str, level: str) -> np.ndarray | None:
        """A metric's scores aligned with the items of a benchmark level (NaN where absent)."""
        with self._read() as db:
            row = db.execute(
                "SELECT scores FROM coverage WHERE metric_id = ? AND benchmark = ? AND level = ?",
                (metric_id, benchmark, level),
            ).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype=np.float64)

    def submissions(self) -> list[dict[str, object]]:
        """Every submission with its provenance, newest first."""
        with self._read() as db:
            db.row_factory = sqlite3.Row
            rows = db.execute("SELECT * FROM submissions ORDER BY id DESC").fetchall()
        return [dict(r) for r in rows]

    def submitted_by(self, account: str, since: float) -> list[float]:
        """When `account` made its stored submissions from `since` on (seconds since the
        epoch), oldest first."""
        with self._read() as db:
            rows = db.execute(
                "SELECT created_at FROM submissions WHERE account = ? AND created_at >= ?"
                " ORDER BY created_at",
                (account, since),
            ).fetchall()
        return [float(r[0]) for r in rows]

    def made_by(self, account: str, since: float) -> Made:
        """What `account` made from `since` on: its stored submissions and refused files."""
        with self._read() as db:
            return _made_by(db, account, since)

    def refused(self, account: str, at: float) -> None:
        """Record that `account` sent a file refused for its size at `at` (it counts against
        the account's quota)."""
        with self._transaction() as db:
            db.execute("INSERT INTO refusals (account, created_at) VALUES (?, ?)", (account, at))

    def ranked_benchmarks(self) -> list[str]:
        """Benchmarks with at least one ranked (full-coverage) metric."""
        with self._read() as db:
            return [r[0] for r in db.execute("SELECT DISTINCT benchmark FROM results ORDER BY 1")]

    def baseline_names(self) -> set[str]:
        """The names of the stored baselines, case-folded (reserved for them)."""
        with self._read() as db:
            rows = db.execute("SELECT DISTINCT name FROM submissions WHERE baseline = 1")
            return {str(r[0]).strip().casefold() for r in rows}

    def metric_names(self) -> list[str]:
        with self._read() as db:
            return [r[0] for r in db.execute("SELECT name FROM metrics ORDER BY id")]

    def count(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])
