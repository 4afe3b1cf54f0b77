"""How per-group values become one number, and the conventions that differ between harnesses.

A grouped correlation (per context, per system) is a mean of per-group values. `Averaging` says
which groups count and how much: every defined group alike ("groups", a macro average) or in
proportion to its items ("items", micro, mt-metrics-eval's `macro=False`); a group whose value is
undefined left out ("drop") or counted as 0 ("zero", mt-metrics-eval's
`replace_nans_with_zeros`); and whether a group of two items counts with the +1 or -1 that two
points always give (mt-metrics-eval counts it; comperbench leaves it out as uninformative).
`Conventions` adds the two conventions of significance tests: p-values as (b + 1) / (k + 1) or
b / k, and whether Williams' one-sided p-value is that of "A better than B" or of "the larger
correlation is larger". The preset `MT_METRICS_EVAL` reproduces mt-metrics-eval's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from comperbench.stats.vectorised import Groups

Weighting = Literal["groups", "items"]
UndefinedGroups = Literal["drop", "zero"]
PValueCount = Literal["plus-one", "fraction"]
WilliamsSign = Literal["directional", "absolute"]
WEIGHTINGS: tuple[str, ...] = ("groups", "items")
UNDEFINED_GROUPS: tuple[str, ...] = ("drop", "zero")


@dataclass(frozen=True)
class Averaging:
    """Which groups count in a grouped value, and with what weight."""

    weighting: Weighting = "groups"
    undefined: UndefinedGroups = "drop"
    groups_of_two: bool = False

    def __post_init__(self) -> None:
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"unknown group weighting {self.weighting!r}; choose groups or items")
        if self.undefined not in UNDEFINED_GROUPS:
            raise ValueError(f"unknown treatment {self.undefined!r} of undefined groups")

    @property
    def label(self) -> str:
        """What differs from the default, e.g. "items-weighted+undefined-as-0" ("" if nothing)."""
        parts = []
        if self.weighting == "items":
            parts.append("items-weighted")
        if self.undefined == "zero":
            parts.append("undefined-as-0")
        if self.groups_of_two:
            parts.append("groups-of-2")
        return "+".join(parts)

    def weights(self, sizes: np.ndarray) -> np.ndarray:
        """(groups,) weight of each group by its number of items."""
        sizes = np.asarray(sizes, dtype=float)
        return sizes if self.weighting == "items" else np.ones_like(sizes)

    def counted(self, per_group: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """(rows, groups): the groups that count, the defined ones (with "zero", also the
        undefined ones of two items or more; a single item never counts)."""
        counted = np.isfinite(per_group)
        if self.undefined == "zero":
            counted = counted | (np.asarray(sizes) >= 2)[None, :]
        return counted

    def resampled(self, per_group: np.ndarray, sizes: np.ndarray, C: np.ndarray) -> np.ndarray:
        """(rows, resamples) weighted mean of the counted groups drawn in each row of counts C;
        NaN where no counted group is drawn."""
        counted = self.counted(per_group, sizes)
        w = self.weights(sizes)
        values = np.where(np.isfinite(per_group), per_group, 0.0) * w
        with np.errstate(invalid="ignore", divide="ignore"):
            return (values @ C.T) / ((counted * w) @ C.T)

    def mean(self, per_group: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """(rows,) weighted mean of the counted groups."""
        return self.resampled(per_group, sizes, np.ones((1, np.asarray(sizes).size)))[:, 0]


def two_item_values(M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
    """(rows, groups): in each two-item group the +1 or -1 any correlation of two points has
    (NaN if either pair of scores is tied); NaN in the other groups."""
    out = np.full((M.shape[0], layout.sizes.size), np.nan)
    two = np.flatnonzero(layout.sizes == 2)
    first, second = layout.order[layout.starts[two]], layout.order[layout.starts[two] + 1]
    sign = np.sign(M[:, first] - M[:, second]) * np.sign(y[first] - y[second])
    out[:, two] = np.where(sign == 0, np.nan, sign)
    return out


@dataclass(frozen=True)
class Conventions:
    """The averaging of grouped values and the conventions of significance tests."""

    averaging: Averaging = Averaging()
    p_value: PValueCount = "plus-one"
    """(b + 1) / (k + 1), never 0 (comperbench), or b / k (mt-metrics-eval)."""
    williams: WilliamsSign = "directional"
    """p of "A better than B" (comperbench), or sf(|t|) as mt-metrics-eval's WilliamsTest."""

    @property
    def test_label(self) -> str:
        """How the tests' conventions differ from comperbench's ("" if they do not); the
        averaging is named with the statistic."""
        parts = []
        if self.p_value == "fraction":
            parts.append("p=b/k")
        if self.williams == "absolute":
            parts.append("williams=abs-t")
        return "+".join(parts)


COMPERBENCH = Conventions()
MT_METRICS_EVAL = Conventions(Averaging(groups_of_two=True), "fraction", "absolute")
CONVENTIONS: dict[str, Conventions] = {
    "comperbench": COMPERBENCH,
    "mt-metrics-eval": MT_METRICS_EVAL,
}


def p_at_least(null: np.ndarray, observed: float, count: PValueCount = "plus-one") -> float:
    """Share of the finite null values at least `observed`, as (b + 1) / (k + 1) or b / k."""
    if not np.isfinite(observed):
        return np.nan
    valid = null[np.isfinite(null)]
    b = np.count_nonzero(valid >= observed - 1e-12)
    if count == "fraction":
        return float(b / valid.size) if valid.size else np.nan
    return float((b + 1) / (valid.size + 1))
