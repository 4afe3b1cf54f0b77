"""Per-turn selections of an interactive evaluation: at each turn a user saw the responses of
several systems and selected the best one (SOBA, select one best) or every appropriate one,
possibly none (SATA, select all that apply). A SATA turn that shows one response is the
single-model single-response setting: the user says whether that response is appropriate.

File format (.csv with a header line, .jsonl or .parquet): `dialogue`, `turn`, `shown` (the
systems whose responses were shown, in the order they were shown), `selected` (those chosen;
empty for none), `annotator` and `setting` (soba or sata); other columns are ignored. In CSV
`shown` and `selected` separate systems by `|`; JSON lines and parquet may also give lists.
Each annotator judges a (dialogue, turn) once; whole-number turns make consecutive turns known.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from comperbench.common.errors import DataFormatError
from comperbench.human_io.rows import FirstSeen, check_size, read_rows, text

SELECTION_COLUMNS = ("dialogue", "turn", "shown", "selected", "annotator", "setting")
SETTINGS = ("soba", "sata")
SEPARATOR = "|"


def _systems(row: dict, field: str, where: dict, file: str) -> tuple[str, ...]:
    """The systems of a `shown` or `selected` field, each once."""
    value = row.get(field)
    if isinstance(value, list):
        names = [str(v).strip() for v in value]
    else:
        found = "" if value is None else str(value).strip()
        names = [part.strip() for part in found.split(SEPARATOR)] if found else []
    if any(not name for name in names):
        raise DataFormatError("an empty system name", file=file, field=field, **where)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise DataFormatError(
            f"system {twice[0]!r} is listed twice", file=file, field=field, **where
        )
    return tuple(names)


def _selection(row: dict, where: dict, file: str) -> tuple:
    dialogue, turn, annotator = (
        text(row, f, where, file) for f in ("dialogue", "turn", "annotator")
    )
    setting = text(row, "setting", where, file).lower()
    if setting not in SETTINGS:
        raise DataFormatError(
            f"unknown setting {setting!r}; use soba or sata", file=file, field="setting", **where
        )
    shown = _systems(row, "shown", where, file)
    needed = 2 if setting == "soba" else 1
    if len(shown) < needed:
        raise DataFormatError(
            f"{len(shown)} system(s) shown; a {setting.upper()} turn needs at least {needed}",
            file=file,
            field="shown",
            **where,
        )
    selected = _systems(row, "selected", where, file)
    unseen = [name for name in selected if name not in shown]
    if unseen:
        raise DataFormatError(
            f"selected system {unseen[0]!r} was not shown", file=file, field="selected", **where
        )
    if setting == "soba" and len(selected) != 1:
        raise DataFormatError(
            f"a SOBA turn selects exactly one system; this one selects {len(selected)}",
            file=file,
            field="selected",
            **where,
        )
    return dialogue, turn, shown, selected, annotator, setting


def selections_table(rows: list[tuple[dict, dict]], file: str) -> pd.DataFrame:
    """Validated selections from located rows: the selection columns (`shown` and `selected` as
    tuples, `setting` soba or sata) plus `unit`, one per (dialogue, turn).

    Args:
        rows: (location, row) pairs; the location (`line=` or `record=`) names the row in errors.
        file: the file's name, for errors.

    Returns:
        The selections, one row per (dialogue, turn).
    """
    check_size(rows, file, "selection rows")
    seen, out = FirstSeen(file), []
    for where, row in rows:
        selection = _selection(row, where, file)
        dialogue, turn, annotator = selection[0], selection[1], selection[4]
        message = f"annotator {annotator!r} judges dialogue {dialogue!r}, turn {turn!r} again"
        seen.add((annotator, dialogue, turn), where, message, "annotator")
        out.append(selection)
    table = pd.DataFrame(out, columns=list(SELECTION_COLUMNS))
    table["unit"] = table.groupby(["dialogue", "turn"], sort=True).ngroup()
    return table


def read_selections(path: str | Path) -> pd.DataFrame:
    """Selections from a file (see the module docstring); errors name the file, line (or record)
    and field.

    Args:
        path: a .csv, .jsonl or .parquet file.

    Returns:
        The selections, as `selections_table`.
    """
    rows = read_rows(path, SELECTION_COLUMNS, lists=("shown", "selected"))
    return selections_table(rows, str(path))
