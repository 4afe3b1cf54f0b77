"""A/B votes one per row (ChatEval-style A/B tests): for an item, an annotator saw two
systems' responses and voted a, b or tie.

File format (CSV with a header line, or JSON lines or parquet with the same keys): `item`, `system_a`,
`system_b`, `outcome` (a, b or tie) and `annotator`; other columns are ignored. A pair may be
written in either order: (B, A, b) is the same vote as (A, B, a). Each annotator votes once per
item and pair. The item is the resampling unit of the ratings' bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from comperbench.common.errors import DataFormatError
from comperbench.human_io.rows import FirstSeen, check_size, read_rows, text
from comperbench.stats.human.votes.comparisons import Comparisons

VOTE_ROW_COLUMNS = ("item", "system_a", "system_b", "outcome", "annotator")
OUTCOMES = {"a": 1.0, "b": 0.0, "tie": 0.5}


def _vote(row: dict, where: dict, file: str) -> tuple[str, str, str, float, str]:
    """(item, first system, second system, outcome for the first, annotator), the pair in
    sorted order."""
    item, a, b, label, annotator = (text(row, f, where, file) for f in VOTE_ROW_COLUMNS)
    if label.lower() not in OUTCOMES:
        raise DataFormatError(
            f"unknown outcome {label!r}; use one of {', '.join(OUTCOMES)}",
            file=file,
            field="outcome",
            **where,
        )
    if a == b:
        raise DataFormatError(
            f"system {a!r} is paired with itself", file=file, field="system_b", **where
        )
    outcome = OUTCOMES[label.lower()]
    return (item, a, b, outcome, annotator) if a < b else (item, b, a, 1.0 - outcome, annotator)


def vote_rows_table(rows: Sequence[tuple[dict, dict]], file: str) -> pd.DataFrame:
    """Validated votes from (location, row) pairs (`line=` or `record=` names the row in
    errors), each pair in sorted order: columns item, system_a, system_b, outcome (1 a wins,
    0 b wins, 0.5 tie), annotator.

    Args:
        rows: (location, row) pairs; the location (`line=` or `record=`) names the row in errors.
        file: the file's name, for errors.

    Returns:
        The votes: item, system_a, system_b, outcome, annotator.
    """
    check_size(rows, file, "vote rows")
    seen = FirstSeen(file)
    votes = []
    for where, row in rows:
        vote = _vote(row, where, file)
        message = (
            f"annotator {vote[4]!r} votes again on item {vote[0]!r} for {vote[1]!r} / {vote[2]!r}"
        )
        seen.add((vote[4], vote[0], vote[1], vote[2]), where, message, "annotator")
        votes.append(vote)
    return pd.DataFrame(votes, columns=list(VOTE_ROW_COLUMNS))


def read_vote_rows(path: str | Path) -> pd.DataFrame:
    """Votes one per row from a .csv, .jsonl or .parquet file (see the module docstring); errors
    name the file, line (or record) and field.

    Args:
        path: a .csv, .jsonl or .parquet file.

    Returns:
        The votes, as `vote_rows_table`.
    """
    return vote_rows_table(read_rows(path, VOTE_ROW_COLUMNS), str(path))


def comparisons_from_vote_rows(votes: pd.DataFrame) -> Comparisons:
    """One comparison per vote, its item as the resampling unit.

    Args:
        votes: a `read_vote_rows` table.

    Returns:
        The comparisons, items as units.
    """
    return Comparisons.of(
        votes["system_a"], votes["system_b"], votes["outcome"], votes["item"], unit_kind="item"
    )


def vote_rows_from_rating_votes(judgments: pd.DataFrame) -> pd.DataFrame:
    """The preferences of `judgments.rating_votes` (unit, judge, a, b, outcome) as votes in
    the file format: the context is the item, the judge the annotator.

    Args:
        judgments: rows of `stats.human.votes.rating_votes.rating_votes`.

    Returns:
        The votes: item, system_a, system_b, outcome (a, b or tie), annotator.
    """
    labels = {value: label for label, value in OUTCOMES.items()}
    return pd.DataFrame(
        {
            "item": judgments["unit"].astype(str),
            "system_a": judgments["a"],
            "system_b": judgments["b"],
            "outcome": judgments["outcome"].map(labels),
            "annotator": judgments["judge"].astype(str),
        }
    )
