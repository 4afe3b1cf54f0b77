"""The statistical setting shared by the commands and the leaderboard: one seed, one resample
count, one interval, one test between metrics and one multiplicity correction.

`comperbench evaluate`, `compare`, `submit`, `leaderboard show` and the app all take their
defaults from `SETTINGS`, so that one metric on one benchmark gets the same interval and the
same verdict wherever it is read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from comperbench.common.deprecation import folded_keywords, renamed_keywords
from comperbench.common.errors import ComperbenchError
from comperbench.stats.averaging import CONVENTIONS, Conventions
from comperbench.stats.multiplicity import NAMES, Correction
from comperbench.stats.resampling import CIMethod

CI_METHODS: tuple[CIMethod, ...] = ("percentile", "bca")


@dataclass(frozen=True)
class StatisticalSettings:
    """Seed and count of the resamples, the interval's confidence, the pairwise test, its
    multiplicity correction and significance level."""

    seed: int = 0
    resamples: int = 1000
    confidence: float = 0.95
    test: str = "perm-both"
    correction: Correction = "holm"
    alpha: float = 0.05

    def describe(self) -> str:
        """One sentence naming the setting, e.g. for the page that shows its numbers."""
        return (
            f"{self.confidence:.0%} percentile bootstrap intervals over {self.resamples} "
            f"resamples (seed {self.seed}, shared by every metric, so comparisons are paired); "
            f"metrics compared by {self.test.upper()} with {NAMES[self.correction]} "
            f"correction at alpha = {self.alpha:g}"
        )


SETTINGS = StatisticalSettings()
"""The setting every command and the leaderboard use unless told otherwise."""


@dataclass(frozen=True)
class Resampling:
    """How a statistic is resampled: the one settings object every public statistic takes.

    Args:
        resamples: bootstrap (or permutation) resamples; 0 computes no interval.
        seed: seed of the resamples; equal seeds pair resamples across metrics.
        ci: the interval's method, "percentile" or "bca".
        conventions: how grouped values are averaged and p-values counted: a `Conventions`
            or its name ("comperbench", "mt-metrics-eval").
    """

    resamples: int = SETTINGS.resamples
    seed: int = SETTINGS.seed
    ci: CIMethod = "percentile"
    conventions: Conventions = field(default_factory=lambda: CONVENTIONS["comperbench"])

    def __post_init__(self) -> None:
        if isinstance(self.resamples, bool) or not isinstance(self.resamples, int):
            raise ComperbenchError(f"resamples must be a whole number, not {self.resamples!r}")
        if self.resamples < 0:
            raise ComperbenchError(f"resamples must be 0 or more, not {self.resamples}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ComperbenchError(f"seed must be a whole number, not {self.seed!r}")
        if self.ci not in CI_METHODS:
            raise ComperbenchError(f"ci must be one of {', '.join(CI_METHODS)}, not {self.ci!r}")
        if isinstance(self.conventions, str):
            object.__setattr__(self, "conventions", conventions_named(self.conventions))

    @property
    def interval(self) -> CIMethod | None:
        """The interval method, or None when no resample is drawn."""
        return self.ci if self.resamples else None

    def settings(self) -> dict[str, Any]:
        """The fields as plain values, for a result's recorded settings."""
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "ci": self.ci,
            "conventions": conventions_name(self.conventions),
        }


def conventions_named(name: str) -> Conventions:
    """The registered conventions called `name`."""
    if name not in CONVENTIONS:
        raise ComperbenchError(
            f"unknown conventions {name!r}; choose from {', '.join(CONVENTIONS)}"
        )
    return CONVENTIONS[name]


def conventions_name(conventions: Conventions) -> str:
    """The registered name of `conventions` ("custom" for one of the caller's own)."""
    return next((k for k, v in CONVENTIONS.items() if v == conventions), "custom")


DEFAULT_RESAMPLING = Resampling()
"""`SETTINGS`' resamples and seed, percentile intervals, comperbench's conventions."""


F = TypeVar("F", bound=Callable[..., Any])

OLD_KEYWORDS: tuple[str, ...] = ("n_resamples", "seed", "ci", "conventions", "averaging")
"""The keywords a `Resampling` replaces, accepted for one release with a DeprecationWarning."""


def folded(resampling: Resampling, old: dict[str, Any]) -> Resampling:
    """`resampling` with the old keywords given folded in.

    Args:
        resampling: the `Resampling` given (or the function's default).
        old: the old keywords given: `n_resamples`, `seed`, `ci` (None: no interval, that
            is 0 resamples), `conventions` and `averaging` (None: the conventions' own).

    Returns:
        The `Resampling` those keywords describe.
    """
    fields: dict[str, Any] = {}
    if "n_resamples" in old:
        fields["resamples"] = old["n_resamples"]
    if "seed" in old:
        fields["seed"] = old["seed"]
    if old.get("ci", "") is None:
        fields["resamples"] = 0
    elif "ci" in old:
        fields["ci"] = old["ci"]
    conventions = old.get("conventions", resampling.conventions)
    if isinstance(conventions, str):
        conventions = conventions_named(conventions)
    if old.get("averaging") is not None:
        conventions = replace(conventions, averaging=old["averaging"])
    return replace(resampling, conventions=conventions, **fields)


def takes_resampling(**renames: str) -> Callable[[F], F]:
    """Decorate a public statistic function that takes `resampling: Resampling`: the old
    keywords of `OLD_KEYWORDS` are folded into it, and each old keyword of `renames`
    (`old="new"`) is passed as the new one, all with a DeprecationWarning.

    Args:
        renames: other renamed keywords of the function, old name = new name.

    Returns:
        The decorator.
    """
    fold = folded_keywords("resampling", OLD_KEYWORDS, folded)

    def decorate(function: F) -> F:
        return fold(renamed_keywords(**renames)(function) if renames else function)

    return decorate
