"""Vote counts per pair of systems (a CSV file or a table) and the comparisons they stand for."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from comperbench.common.errors import DataFormatError
from comperbench.human_io.rows import csv_rows
from comperbench.stats.human.votes.comparisons import Comparisons

SYSTEM_COLUMNS = ("system_a", "system_b")
COUNT_COLUMNS = ("wins_a", "wins_b", "ties")
VOTE_COLUMNS = SYSTEM_COLUMNS + COUNT_COLUMNS
MAX_VOTES = 10_000_000


def _count(value: object) -> int:
    """A vote count: a non-negative whole number (as text or a number)."""
    text = "" if value is None else str(value).strip()
    if not text:
        raise ValueError("missing count")
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not np.isfinite(number):
        raise ValueError(f"{text!r} is not a finite number")
    if number != int(number):
        raise ValueError(f"{text!r} is fractional; counts are whole numbers")
    if number < 0:
        raise ValueError(f"{text!r} is negative")
    return int(number)


def _require_columns(columns: Sequence[str], file: str, line: int | None = None) -> None:
    """Fail naming the vote columns that `columns` lacks."""
    missing = [name for name in VOTE_COLUMNS if name not in columns]
    if missing:
        raise DataFormatError(f"missing column(s) {', '.join(missing)}", file=file, line=line)


def _vote_row(row: dict, seen: dict[frozenset, str], where: dict, file: str) -> list:
    """One validated row (system_a, system_b, wins_a, wins_b, ties); `where` locates it."""
    values: list = []
    for field in SYSTEM_COLUMNS:
        name = "" if row.get(field) is None else str(row[field]).strip()
        if not name:
            raise DataFormatError("missing system name", file=file, field=field, **where)
        values.append(name)
    if values[0] == values[1]:
        raise DataFormatError(
            f"system {values[0]!r} is paired with itself", file=file, field="system_b", **where
        )
    pair = frozenset(values)
    if pair in seen:
        raise DataFormatError(
            f"the pair {values[0]!r} / {values[1]!r} is given again (first at {seen[pair]})",
            file=file,
            field="system_b",
            **where,
        )
    seen[pair] = ", ".join(f"{k} {v}" for k, v in where.items())
    for field in COUNT_COLUMNS:
        try:
            values.append(_count(row.get(field)))
        except ValueError as exc:
            raise DataFormatError(str(exc), file=file, field=field, **where) from None
    return values


def vote_counts_table(rows: Sequence[tuple[dict, dict]], file: str) -> pd.DataFrame:
    """Validated vote counts from (location, row) pairs: the location (`line=` or `record=`) names
    the row in errors. Strict: every count a non-negative whole number, no system paired with
    itself, each pair once (in either order), at least one vote.

    Args:
        rows: (location, row) pairs; the location (`line=` or `record=`) names the row in errors.
        file: the file's name, for errors.

    Returns:
        One row per pair: system_a, system_b, wins_a, wins_b, ties.
    """
    if not rows:
        raise DataFormatError("no vote rows", file=file)
    seen: dict[frozenset, str] = {}
    table = pd.DataFrame(
        [_vote_row(row, seen, where, file) for where, row in rows], columns=list(VOTE_COLUMNS)
    )
    total = int(table[list(COUNT_COLUMNS)].to_numpy().sum())
    if total == 0:
        raise DataFormatError("no votes: every count is 0", file=file)
    if total > MAX_VOTES:
        raise DataFormatError(f"{total} votes; at most {MAX_VOTES} are supported", file=file)
    return table


def read_vote_counts(path: str | Path) -> pd.DataFrame:
    """Vote counts per pair of systems from a CSV file with the columns system_a, system_b,
    wins_a, wins_b, ties (others are ignored); errors name the file, line and field.

    Args:
        path: a CSV file.

    Returns:
        The counts, as `vote_counts_table`.
    """
    return vote_counts_table(csv_rows(path, VOTE_COLUMNS), str(path))


def comparisons_from_vote_counts(votes: pd.DataFrame, source: str = "votes") -> Comparisons:
    """One comparison per vote of a vote-count table (columns `VOTE_COLUMNS`, validated by
    `vote_counts_table`; rows are named by their position in errors): wins_a comparisons won by
    system_a, wins_b won by system_b, ties drawn. A vote is its own resampling unit.

    Args:
        votes: a table of vote counts (`VOTE_COLUMNS`).
        source: its name, for errors.

    Returns:
        The comparisons, without units.
    """
    _require_columns(votes.columns.tolist(), source)
    records = votes.to_dict("records")
    table = vote_counts_table([({"record": i}, row) for i, row in enumerate(records)], source)
    counts = table[list(COUNT_COLUMNS)].to_numpy(dtype=np.int64)
    per_cell = counts.ravel()
    a = np.repeat(np.repeat(table["system_a"].to_numpy(dtype=object), 3), per_cell)
    b = np.repeat(np.repeat(table["system_b"].to_numpy(dtype=object), 3), per_cell)
    outcome = np.repeat(np.tile([1.0, 0.0, 0.5], len(table)), per_cell)
    return Comparisons.of(a, b, outcome)
