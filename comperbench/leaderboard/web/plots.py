"""The leaderboard's figures as inline SVG for `gr.HTML`: the ranking's forest plot, the overall
metric x benchmark heatmap and the metric page's system-level scatter.

SVG rather than `gr.Plot`: its text stays text (selectable, found by search and by the browser
tests, sharp at any zoom), and nothing is rasterised or fetched. The figures come from
`comperbench.report.figures`; this module only chooses what they show.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from comperbench.report.figures import forest_plot, heatmap, scatter_plot, svg
from comperbench.stats.settings import SETTINGS

_CELL_INCHES = 1.05
"""Width of one heatmap column: a value and its interval on two lines fit in it."""


def _html(figure: object, element_id: str, caption: str) -> str:
    """The figure as inline SVG scaled to the box's width, with a caption under it."""
    return (
        f'<figure id="{element_id}" class="comperbench-figure" style="margin:0">'
        f'<div style="max-width:100%;overflow-x:auto">{svg(figure)}</div>'  # type: ignore[arg-type]
        f'<figcaption style="font-size:13px">{caption}</figcaption></figure>'
    ).replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


def forest_html(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    rank_ranges: Sequence[str],
    statistic: str,
    highlight: str | None = None,
) -> str:
    """Each ranked metric's value with its interval, best first, its rank range at the right;
    the row labelled `highlight` (the visitor's own submission) marked. Drawn once per set of
    rows: the page redraws the same plot on every load and search."""
    if not labels:
        return "<p>No ranked metrics shown.</p>"
    columns = (labels, values, lows, highs, rank_ranges)
    return _forest_html(*(tuple(c) for c in columns), statistic, highlight)


@lru_cache(maxsize=256)
def _forest_html(
    labels: tuple[str, ...],
    values: tuple[float, ...],
    lows: tuple[float, ...],
    highs: tuple[float, ...],
    rank_ranges: tuple[str, ...],
    statistic: str,
    highlight: str | None,
) -> str:
    figure = forest_plot(
        list(labels),
        list(values),
        list(lows),
        list(highs),
        xlabel=f"{statistic} with the human scores",
        rank_ranges=[f"rank {r}" for r in rank_ranges],
        highlight=highlight,
    )
    caption = (
        f"Dots: {statistic}; whiskers: {SETTINGS.confidence:.0%} bootstrap intervals (over every "
        "possible value where too few units were resampled for an interval to mean anything: "
        "such rows are marked not informative); at the right: each metric's rank range from "
        "the pairwise tests of the Comparison tab."
    )
    if highlight is not None:
        caption += f" Highlighted: your submission, {html.escape(highlight)}."
    return _html(figure, "forest", caption)


@dataclass(frozen=True)
class Matrix:
    """Correlations of metrics (rows) on benchmarks (columns) with each cell's text."""

    metrics: list[str]
    benchmarks: list[str]
    values: np.ndarray
    text: list[list[str]]


def heatmap_html(matrix: Matrix, statistic: str) -> str:
    """The metric x benchmark heatmap: each cell's correlation and interval, grey where the
    metric is not ranked on the benchmark."""
    if not matrix.metrics or not matrix.benchmarks:
        return "<p>No ranked metric on the chosen benchmarks.</p>"
    figure = heatmap(
        matrix.values,
        matrix.metrics,
        matrix.benchmarks,
        cell_text=matrix.text,
        colorbar_label=statistic,
        vmin=-1.0,
        vmax=1.0,
        cmap="RdBu",
    )
    rows, cols = matrix.values.shape
    figure.set_size_inches(  # type: ignore[attr-defined]
        max(7.5, 3.0 + _CELL_INCHES * cols),
        1.8 + 0.42 * rows + 0.07 * max(map(len, matrix.benchmarks)),
    )
    caption = (
        f"{statistic} of each metric on each chosen benchmark's headline cell, its "
        f"{SETTINGS.confidence:.0%} interval under it; grey: not ranked there."
    )
    return _html(figure, "overall-heatmap", caption)


def scatter_html(
    systems: Sequence[str],
    metric: Sequence[float],
    human: Sequence[float],
    left_out: Sequence[bool],
    annotation: str,
    names: tuple[str, str],
    own: bool = False,
) -> str:
    """System means of a metric against the human means, the systems the protocol leaves out
    drawn hollow and labelled apart; headed "your submission" when the metric is the
    visitor's own."""
    if not systems:
        return "<p>No system means to plot.</p>"
    figure = scatter_plot(
        list(metric),
        list(human),
        labels=list(systems),
        left_out=list(left_out),
        xlabel=f"{names[0]} (system mean)",
        ylabel=f"human {names[1]} (system mean)",
        annotation=annotation,
        title=f"your submission: {names[0]}" if own else None,
    )
    caption = (
        "One point per system: the means of its items. Hollow grey points are systems the "
        "benchmark's protocol leaves out: drawn for reference, not in the correlation."
    )
    return _html(figure, "system-scatter", caption)
