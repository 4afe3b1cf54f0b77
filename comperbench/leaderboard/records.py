"""What the leaderboard keeps of one correlation: its value, its uncertainty and the settings it
was computed under. The settings are stored as fields; the signature string is rendered from
them for display only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from comperbench.stats.metric_correlation.statistics import resampled_unit
from comperbench.stats.resampling import bootstrap_note, resamples_note
from comperbench.stats.signature import Signature


def defined_resamples(replicates: np.ndarray) -> int:
    """Replicates where the statistic is defined (not NaN)."""
    return int(np.isfinite(replicates).sum())


@dataclass(frozen=True)
class Settings:
    """How a correlation and its bootstrap replicates were computed."""

    statistic: str
    level: str
    aspect: str
    resampling: str
    n_resamples: int | None
    seed: int | None
    benchmark: str
    """`name@fingerprint` of the benchmark version scored."""
    protocol: str = ""
    """The evaluation protocol applied (empty: none)."""

    def interval_note(self, n: int, replicates: np.ndarray) -> str | None:
        """Why an interval over n resampled units from these replicates is not informative, or
        on how many of the resamples it rests when the statistic is undefined on some; None."""
        notes = [bootstrap_note(n, resampled_unit(self.statistic, self.level))]
        if self.n_resamples and replicates.size and np.isfinite(replicates).any():
            notes.append(resamples_note(defined_resamples(replicates), replicates.size))
        return "; ".join(note for note in notes if note) or None

    @property
    def pairing(self) -> tuple[int | None, int | None, str, str]:
        """Rows whose replicates share this key were drawn with the same resamples."""
        return self.n_resamples, self.seed, self.benchmark, self.protocol

    def signature(self, p_method: str | None = None, version: str | None = None) -> str:
        extra = [("aspect", self.aspect)]
        if self.protocol:
            extra.append(("protocol", self.protocol))
        return str(
            Signature(
                statistic=self.statistic,
                level=self.level,
                resampling=self.resampling or None,
                n_resamples=self.n_resamples,
                seed=self.seed,
                benchmark=self.benchmark or None,
                extra=tuple(extra),
                p_method=p_method,
                version=version,
            )
        )


@dataclass
class Correlation:
    """One correlation of one metric with one aspect at one level, with paired replicates."""

    benchmark: str
    value: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    replicates: np.ndarray
    settings: Settings
    p_method: str | None = None
    """How the p-value was computed (see `comperbench.stats.CorrelationResult.p_method`)."""
    reason: str | None = None
    """Why the value is undefined (NaN), or None."""

    @property
    def level(self) -> str:
        return self.settings.level

    @property
    def aspect(self) -> str:
        return self.settings.aspect

    @property
    def statistic(self) -> str:
        return self.settings.statistic

    @property
    def signature(self) -> str:
        return self.settings.signature(self.p_method)

    @property
    def ci_resamples(self) -> int:
        """Resamples the interval rests on (those where the statistic is defined)."""
        return defined_resamples(self.replicates)

    @property
    def ci_note(self) -> str | None:
        return self.settings.interval_note(self.n, self.replicates)
