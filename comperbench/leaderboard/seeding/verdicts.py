"""The verdicts the app reads when a view is opened, computed by the seed so that no page load
computes them: each seeded benchmark's levels (system level too) on its default aspect, by the
correlation the page opens on. They are kept on disk by `comparison.view_verdicts`."""

from __future__ import annotations

from collections.abc import Sequence

from comperbench.benchmark import get_metadata
from comperbench.leaderboard.items import stored_levels
from comperbench.leaderboard.service import ranking_verdicts
from comperbench.leaderboard.store import Store

OPENING_STATISTIC = "spearman"
"""The correlation the page opens on."""


def opening_views(benchmark: str) -> list[tuple[str, str, str, str]]:
    """The views of `benchmark` the page opens on: each level on the default aspect, by the
    opening correlation."""
    aspect = get_metadata(benchmark).default_aspect
    levels = [*stored_levels(benchmark), "system"]
    return [(benchmark, level, aspect, OPENING_STATISTIC) for level in levels]


def keep_opening_verdicts(store: Store, benchmarks: Sequence[str]) -> int:
    """Compute (or read) and keep the verdicts of every opening view of `benchmarks` that ranks
    two metrics or more; how many views have verdicts."""
    kept = 0
    for benchmark in dict.fromkeys(benchmarks):
        for view in opening_views(benchmark):
            kept += ranking_verdicts(store, *view) is not None
    return kept
