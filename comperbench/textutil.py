"""Text helpers: readable id fragments and plain-text tables for the command line."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

_SLUG = re.compile(r"[^a-z0-9.]+")


def slug(text: str) -> str:
    """A readable id fragment: lower case, runs of other characters replaced by '-'."""
    return _SLUG.sub("-", text.lower()).strip("-") or "x"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: int = 0) -> str:
    """Left-aligned columns separated by two spaces, with a rule under the header."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    pad = " " * indent
    lines = [
        pad + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    lines.insert(1, pad + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


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
    if isinstance(value, pd.DataFrame):
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
