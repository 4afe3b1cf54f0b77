"""The statistical setting shared by the commands and the leaderboard: one seed, one resample
count, one interval, one test between metrics and one multiplicity correction.

`comperbench evaluate`, `compare`, `submit`, `leaderboard show` and the app all take their
defaults from `SETTINGS`, so that one metric on one benchmark gets the same interval and the
same verdict wherever it is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from comperbench.stats.multiplicity import NAMES, Correction


@dataclass(frozen=True)
class StatisticalSettings:
    """Seed and count of the resamples, the interval's confidence, the pairwise test, its
    multiplicity correction and significance level."""

    seed: int = 0
    n_resamples: int = 1000
    confidence: float = 0.95
    test: str = "perm-both"
    correction: Correction = "holm"
    alpha: float = 0.05

    def describe(self) -> str:
        """One sentence naming the setting, e.g. for the page that shows its numbers."""
        return (
            f"{self.confidence:.0%} percentile bootstrap intervals over {self.n_resamples} "
            f"resamples (seed {self.seed}, shared by every metric, so comparisons are paired); "
            f"metrics compared by {self.test.upper()} with {NAMES[self.correction]} "
            f"correction at alpha = {self.alpha:g}"
        )


SETTINGS = StatisticalSettings()
"""The setting every command and the leaderboard use unless told otherwise."""
