"""The leaderboard's figures as inline SVG for `gr.HTML`: the ranking's forest plot, the overall
metric x benchmark heatmap and the metric page's system-level scatter.

SVG rather than `gr.Plot`: its text stays text (selectable, found by search and by the browser
tests, sharp at any zoom), and nothing is rasterised or fetched. The figures come from
`comperbench.report.figures`; this module only chooses what they show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from comperbench.report.figures import forest_plot, heatmap, scatter_plot, svg
from comperbench.stats.settings import SETTINGS

_CELL_INCHES = 1.0
"""Width of one heatmap column: a value and its interval on two lines fit in it."""
_CELL_POINTS = 8.5
"""The heatmap's cell text: 11.3 px in a figure drawn at its own size (1 pt = 4/3 px)."""
_LINE_INCHES = 0.16
"""Height of one line of cell text, with its leading."""


def _html(figure: object, element_id: str, caption: str, fit: bool = True) -> str:
    """The figure as inline SVG under a caption: scaled to the box's width when `fit`, else at
    its own size, scrolling sideways within its box when wider (so its text never shrinks)."""
    drawn = svg(figure)  # type: ignore[arg-type]
    if fit:
        drawn = drawn.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
    return (
        f'<figure id="{element_id}" class="comperbench-figure" style="margin:0">'
        f'<div style="max-width:100%;overflow-x:auto">{drawn}</div>'
        f'<figcaption style="font-size:13px">{caption}</figcaption></figure>'
    )


def forest_html(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float],
    highs: Sequence[float],
    rank_ranges: Sequence[str],
    statistic: str,
) -> str:
    """Each ranked metric's value with its interval, best first, its rank range at the right."""
    if not labels:
        return "<p>No ranked metrics yet.</p>"
    figure = forest_plot(
        list(labels),
        list(values),
        list(lows),
        list(highs),
        xlabel=f"{statistic} with the human scores",
        rank_ranges=[f"rank {r}" for r in rank_ranges],
    )
    caption = (
        f"Dots: {statistic}; whiskers: {SETTINGS.confidence:.0%} bootstrap intervals; "
        "at the right: each metric's 95% rank range."
    )
    return _html(figure, "forest", caption)


@dataclass(frozen=True)
class Matrix:
    """Correlations of metrics (rows) on benchmarks (columns) with each cell's text."""

    metrics: list[str]
    benchmarks: list[str]
    values: np.ndarray
    text: list[list[str]]


def heatmap_html(matrix: Matrix, statistic: str, note: str = "") -> str:
    """The metric x benchmark heatmap at its own size: each cell's correlation and interval,
    grey where the metric is not ranked on the benchmark; `note` ends the caption."""
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
        text_size=_CELL_POINTS,
    )
    rows, cols = matrix.values.shape
    lines = max(text.count("\n") + 1 for line in matrix.text for text in line)
    labels = max(map(len, matrix.metrics))
    figure.set_size_inches(  # type: ignore[attr-defined]
        max(7.5, 2.2 + 0.085 * labels + _CELL_INCHES * cols),
        1.8 + (0.14 + _LINE_INCHES * lines) * rows + 0.07 * max(map(len, matrix.benchmarks)),
    )
    caption = (
        f"{statistic} of each metric on each benchmark's headline cell, its "
        f"{SETTINGS.confidence:.0%} interval under it; grey: not ranked there. {note}"
    )
    return _html(figure, "overall-heatmap", caption.strip(), fit=False)


def scatter_html(
    systems: Sequence[str],
    metric: Sequence[float],
    human: Sequence[float],
    left_out: Sequence[bool],
    annotation: str,
    names: tuple[str, str],
) -> str:
    """System means of a metric against the human means, the systems the protocol leaves out
    drawn hollow and labelled apart."""
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
    )
    caption = (
        "One point per system: the means of its items. Hollow grey points are systems the "
        "benchmark's protocol leaves out: drawn for reference, not in the correlation."
    )
    return _html(figure, "system-scatter", caption)
