"""Text helpers: readable id fragments, and plain-text tables and paragraphs for the command line
that fit `LINE_WIDTH`."""

from __future__ import annotations

import dataclasses
import math
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

_SLUG = re.compile(r"[^a-z0-9.]+")
_UNSHOWABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters but the line break (ANSI escapes start with one), bidi overrides and lone
surrogates."""

LINE_WIDTH = 120
"""The longest line of a command's text output; what does not fit is wrapped (`--json` keeps
every text whole)."""
NARROWEST_COLUMN = 12
"""The narrowest a table column is made to fit a width (a narrower column stays as it is)."""


def slug(text: str) -> str:
    """A readable id fragment: lower case, runs of other characters replaced by '-'."""
    return _SLUG.sub("-", text.lower()).strip("-") or "x"


def escaped(text: str) -> str:
    """`text` with its control characters (line breaks aside), bidi overrides and lone surrogates
    as backslash escapes, safe to print on a terminal (a file name in an error)."""
    return _UNSHOWABLE.sub(lambda found: found.group().encode("unicode_escape").decode(), text)


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    indent: int = 0,
    width: int | None = None,
) -> str:
    """Left-aligned columns separated by two spaces, with a rule under the header. Given a
    `width` (e.g. `LINE_WIDTH`), the widest columns are narrowed until a line fits (none below
    `NARROWEST_COLUMN`), their cells wrapped onto lines of their own."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    if width is not None:
        widths = _narrowed(widths, width - indent - 2 * (len(widths) - 1))
    lines = [_row_lines(row, widths, indent) for row in cells]
    lines.insert(1, [" " * indent + "  ".join("-" * w for w in widths)])
    return "\n".join(line for row in lines for line in row)


def _narrowed(widths: list[int], room: int) -> list[int]:
    """Column widths whose sum is at most `room` where it can be, the widest narrowed first."""
    widths = list(widths)
    while sum(widths) > room:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= NARROWEST_COLUMN:
            break
        widths[widest] -= 1
    return widths


def _row_lines(row: list[str], widths: list[int], indent: int) -> list[str]:
    """One table row as lines: each cell wrapped to its column's width."""
    pieces = [_cell_lines(c, w) for c, w in zip(row, widths, strict=True)]
    height = max(len(p) for p in pieces)
    padded = [p + [""] * (height - len(p)) for p in pieces]
    return [
        " " * indent
        + "  ".join(p[k].ljust(w) for p, w in zip(padded, widths, strict=True)).rstrip()
        for k in range(height)
    ]


def _cell_lines(cell: str, width: int) -> list[str]:
    """A cell as lines of at most `width` characters, broken between words where it can be."""
    if len(cell) <= width:
        return [cell]
    return textwrap.wrap(cell, width, break_on_hyphens=False) or [""]


def wrap(text: str, indent: str = "", first: str = "", width: int = LINE_WIDTH) -> str:
    """`text` (one paragraph per line) as lines of at most `width` characters: the first one
    after `first`, the others after `indent`; words longer than a line are broken."""
    return "\n".join(
        textwrap.fill(
            line,
            width,
            initial_indent=first if n == 0 else indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )
        or first
        for n, line in enumerate(text.split("\n"))
    )


def wrap_signature(signature: str, width: int = LINE_WIDTH) -> str:
    """A result signature (`key:value|key:value...`) broken only after a '|', continuation
    lines indented by two spaces."""
    spaced = textwrap.fill(
        signature.replace("|", "| "),
        width,
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return "\n".join(line.replace("| ", "|") for line in spaced.split("\n"))


def number(value: float | None, digits: int = 3) -> str:
    """A fixed-point number, or "-" when it is missing or NaN."""
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def p_value(value: float) -> str:
    """A p-value: scientific notation below 0.001, "-" when undefined."""
    return "-" if math.isnan(value) else (f"{value:.1e}" if value < 1e-3 else f"{value:.3f}")


def interval(low: float | None, high: float | None) -> str:
    """A confidence interval as "[low, high]"."""
    return f"[{number(low)}, {number(high)}]"


def json_ready(value: Any) -> Any:
    """Plain JSON values: dataclasses and frames as objects and records, numpy values as Python
    ones, NaN and infinities as null."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_ready(dataclasses.asdict(value))
    pandas = sys.modules.get("pandas")  # a frame exists only once pandas is imported
    if pandas is not None and isinstance(value, pandas.DataFrame):
        return json_ready(value.reset_index().to_dict("records"))
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class DuplicateKeyError(ValueError):
    """A JSON object that names one key twice (json.loads would keep the last value silently)."""


def object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads`' `object_pairs_hook`: the object, refusing a key given twice."""
    record: dict[str, Any] = {}
    for key, value in pairs:
        if key in record:
            raise DuplicateKeyError(f"key {key!r} appears twice in one object")
        record[key] = value
    return record
