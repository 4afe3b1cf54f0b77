"""The first visitor's wait paid before the app serves: the opening view's ranking, table,
forest plot, its first metric's numbers, scatters and comparison, and the Overall tab, drawn
once, so that the libraries they load are loaded and the drawings they make are kept
(`plots`)."""

from __future__ import annotations

from comperbench.benchmark import get_metadata
from comperbench.leaderboard.overall import HEADLINE_STATISTIC
from comperbench.leaderboard.seeding.verdicts import OPENING_STATISTIC
from comperbench.leaderboard.web.page import Page
from comperbench.leaderboard.web.views import (
    FAMILIES,
    comparison,
    forest,
    metric_page,
    overall_table,
    shown_rows,
    view_levels,
)


def warm(page: Page) -> None:
    """Draw what the page shows on opening and on the first switch to each tab."""
    benchmark = page.first
    view = (benchmark, view_levels(benchmark)[0], get_metadata(benchmark).default_aspect)
    ranked_view, *_ = page.refresh(*view, OPENING_STATISTIC)
    statistic = ranked_view.statistic
    shown = shown_rows(ranked_view.frame, "", "all", FAMILIES).tolist()
    forest(ranked_view.ranked, statistic, shown, None, ranked_view.ceiling)
    if ranked := ranked_view.ranked:
        metric_page(page.store, *view, statistic, ranked[0].row.metric_id)
        comparison(page.store, ranked, *view, statistic)
    overall_table(page.store, HEADLINE_STATISTIC, page.ranked_benchmarks())
