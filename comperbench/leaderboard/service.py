"""The two paths through the leaderboard, shared by the CLI and the app: submit a file, read a ranking."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.scoring import (
    N_RESAMPLES,
    Correlation,
    paired_p,
    score_coverage,
    standings,
)
from comperbench.leaderboard.store import Row, Store, Stored
from comperbench.leaderboard.submission import Submission, SubmissionMeta, parse

SIGNIFICANCE = 0.05


@dataclass
class Outcome:
    """What a submission did: where it is stored and what it covers."""

    stored: Stored
    submission: Submission

    def summary(self) -> str:
        if self.stored.duplicate:
            return (
                f"identical file already submitted as #{self.stored.submission_id} "
                f"({self.stored.name!r}); nothing stored"
            )
        lines = [f"stored as submission #{self.stored.submission_id}"]
        for metric, coverages in self.submission.metrics.items():
            for c in coverages:
                state = "ranked" if c.full else "partial: listed, not ranked"
                lines.append(
                    f"  {metric} on {c.benchmark} ({c.level}): {c.covered}/{c.total} items, {state}"
                )
        return "\n".join(lines)


def submit(
    file_name: str,
    raw: bytes,
    meta: SubmissionMeta,
    store: Store,
    index: ItemIndex | None = None,
    n_resamples: int = N_RESAMPLES,
) -> Outcome:
    """Validate, score (full-coverage parts) and store one uploaded file."""
    submission = parse(file_name, raw, meta, index)
    existing = store.find(submission.file_sha256)
    if existing is not None:
        return Outcome(existing, submission)
    results: dict[str, list[Correlation]] = {
        metric: [r for c in coverages if c.full for r in score_coverage(c, n_resamples=n_resamples)]
        for metric, coverages in submission.metrics.items()
    }
    return Outcome(store.add(submission, results), submission)


@dataclass
class Ranked:
    """One line of a ranking."""

    row: Row
    rank: int
    rank_low: int
    rank_high: int
    p_vs_leader: float

    @property
    def tied_with_leader(self) -> bool:
        """Not significantly worse than the leader (the leader itself included)."""
        return math.isnan(self.p_vs_leader) or self.p_vs_leader >= SIGNIFICANCE


def ranking(store: Store, benchmark: str, level: str, aspect: str, statistic: str) -> list[Ranked]:
    """Full-coverage metrics ordered by correlation, with rank ranges and tests vs the leader."""
    rows = store.view(benchmark, level, aspect, statistic)
    if not rows:
        return []
    values = np.array([r.value for r in rows])
    replicates = np.vstack([r.replicates for r in rows])
    placed = [
        Ranked(row, s.rank, s.rank_low, s.rank_high, s.p_vs_leader)
        for row, s in zip(rows, standings(values, replicates), strict=True)
    ]
    return sorted(placed, key=lambda r: r.rank)


def significance_matrix(rows: list[Row]) -> np.ndarray:
    """p[i, j]: paired bootstrap p-value that row i correlates better than row j (NaN diagonal)."""
    values = np.array([r.value for r in rows])
    replicates = np.vstack([r.replicates for r in rows])
    m = len(rows)
    return np.array(
        [
            [np.nan if i == j else paired_p(values, replicates, i, j) for j in range(m)]
            for i in range(m)
        ]
    )
