"""Ratings (Likert or any numeric scale) of systems' responses, per turn or per dialogue.

File format (.csv with a header line, .jsonl or .parquet): `item` (the prompt, turn or dialogue
rated), `system`, `aspect`, `value` (a finite number), `annotator` and `level` (turn or
dialogue); other columns are ignored. Each annotator rates an (item, system, aspect) once. The
rows load into the package's rating schema: one rated item per (level, item, system).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from comperbench.common.errors import DataFormatError
from comperbench.human_io.rows import FirstSeen, check_size, read_rows, text

RATING_FILE_COLUMNS = ("item", "system", "aspect", "value", "annotator", "level")
LEVELS = ("turn", "dialogue")


def _number(value: object, where: dict, file: str) -> float:
    found = str(value).strip() if value is not None else ""
    try:
        number = float(found)
    except ValueError:
        number = np.nan
    if isinstance(value, bool) or not np.isfinite(number):
        raise DataFormatError(
            f"rating {found or '(missing)'!r} is not a finite number",
            file=file,
            field="value",
            **where,
        )
    return number


def ratings_table(rows: list[tuple[dict, dict]], file: str) -> pd.DataFrame:
    """Validated ratings from located rows: the file's columns plus `item_id`, one per
    (level, item, system).

    Args:
        rows: (location, row) pairs; the location (`line=` or `record=`) names the row in errors.
        file: the file's name, for errors.

    Returns:
        The ratings, one row per rating.
    """
    check_size(rows, file, "rating rows")
    seen, out = FirstSeen(file), []
    for where, row in rows:
        item, system, aspect = (text(row, f, where, file) for f in RATING_FILE_COLUMNS[:3])
        value = _number(row.get("value"), where, file)
        annotator = text(row, "annotator", where, file)
        level = text(row, "level", where, file).lower()
        if level not in LEVELS:
            raise DataFormatError(
                f"unknown level {level!r}; use turn or dialogue", file=file, field="level", **where
            )
        message = f"annotator {annotator!r} rates {aspect!r} of {system!r} on {item!r} again"
        seen.add((annotator, level, item, system, aspect), where, message, "annotator")
        out.append((item, system, aspect, value, annotator, level))
    table = pd.DataFrame(out, columns=list(RATING_FILE_COLUMNS))
    table["item_id"] = table.groupby(["level", "item", "system"], sort=True).ngroup()
    return table


def read_ratings(path: str | Path) -> pd.DataFrame:
    """Ratings from a file (see the module docstring); errors name the file, line (or record)
    and field.

    Args:
        path: a .csv, .jsonl or .parquet file.

    Returns:
        The ratings, as `ratings_table`.
    """
    return ratings_table(read_rows(path, RATING_FILE_COLUMNS), str(path))
