"""Behaviour labels (ABC-Eval style): for a turn of a dialogue with a system, an annotator says
whether the response shows a behaviour (1) or not (0).

File format (.csv with a header line, .jsonl or .parquet): `dialogue`, `turn`, `system`,
`behaviour`, `value` (0 or 1) and `annotator`; other columns are ignored. Each annotator labels a
(dialogue, turn, system, behaviour) once. The rows load into the package's rating schema: one
rated item per (dialogue, turn, system), the behaviour as its aspect.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from comperbench.common.errors import DataFormatError
from comperbench.human_io.rows import FirstSeen, check_size, read_rows, text

LABEL_COLUMNS = ("dialogue", "turn", "system", "behaviour", "value", "annotator")
RATING_COLUMNS = ("item_id", "system", "aspect", "annotator", "value")


def _binary(value: object, where: dict, file: str) -> int:
    """0 or 1, given as a number or as the text 0 or 1."""
    found = str(value).strip() if value is not None else ""
    if isinstance(value, bool) or found not in {"0", "1", "0.0", "1.0"}:
        raise DataFormatError(
            f"label {found or '(missing)'!r} is not 0 or 1", file=file, field="value", **where
        )
    return int(float(found))


def labels_table(rows: list[tuple[dict, dict]], file: str) -> pd.DataFrame:
    """Validated labels from located rows: the label columns plus `item_id`, one per
    (dialogue, turn, system).

    Args:
        rows: (location, row) pairs; the location (`line=` or `record=`) names the row in errors.
        file: the file's name, for errors.

    Returns:
        The labels, one row per (dialogue, turn, system).
    """
    check_size(rows, file, "label rows")
    seen, out = FirstSeen(file), []
    for where, row in rows:
        dialogue, turn, system, behaviour = (text(row, f, where, file) for f in LABEL_COLUMNS[:4])
        annotator = text(row, "annotator", where, file)
        value = _binary(row.get("value"), where, file)
        message = (
            f"annotator {annotator!r} labels {behaviour!r} again for system {system!r} at "
            f"dialogue {dialogue!r}, turn {turn!r}"
        )
        seen.add((annotator, dialogue, turn, system, behaviour), where, message, "annotator")
        out.append((dialogue, turn, system, behaviour, value, annotator))
    table = pd.DataFrame(out, columns=list(LABEL_COLUMNS))
    table["item_id"] = table.groupby(["dialogue", "turn", "system"], sort=True).ngroup()
    return table


def read_labels(path: str | Path) -> pd.DataFrame:
    """Behaviour labels from a file (see the module docstring); errors name the file, line (or
    record) and field.

    Args:
        path: a .csv, .jsonl or .parquet file.

    Returns:
        The labels, as `labels_table`.
    """
    return labels_table(read_rows(path, LABEL_COLUMNS), str(path))


def as_ratings(labels: pd.DataFrame) -> pd.DataFrame:
    """The labels in the package's rating schema: item_id, system, aspect (the behaviour),
    annotator, value.

    Args:
        labels: a `read_labels` table.

    Returns:
        One row per label: item_id, system, aspect, annotator, value.
    """
    return labels.rename(columns={"behaviour": "aspect"})[list(RATING_COLUMNS)]
