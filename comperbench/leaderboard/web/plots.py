"""The leaderboard's figures as inline SVG for `gr.HTML`: the ranking's forest plot, the overall
metric x benchmark heatmap and the metric page's two scatters (per item, per system).

SVG rather than `gr.Plot`: its text stays text (selectable, found by search and by the browser
tests, sharp at any zoom), and nothing is fetched; only the item scatter's thousands of points
are one raster inside its SVG. The figures come from `comperbench.report.figures`; this module
only chooses what they show.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from comperbench.report.figures import (
    Reference,
    forest_plot,
    heatmap,
    item_scatter,
    scatter_plot,
    svg,
)
from comperbench.stats.settings import SETTINGS

if TYPE_CHECKING:
    from comperbench.leaderboard.ceiling import Ceiling

_CELL_INCHES = 1.0
"""Width of one heatmap column: a value and its interval on two lines fit in it."""
_CELL_POINTS = 8.5
"""The heatmap's cell text: 11.3 px in a figure drawn at its own size (1 pt = 4/3 px)."""
_LINE_INCHES = 0.16
"""Height of one line of cell text, with its leading."""
SCATTER_LABEL = "metric vs human per item (the items the protocol correlates)"


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
    highlight: str | None = None,
    ceiling: Ceiling | None = None,
) -> str:
    """Each ranked metric's value with its interval, best first, its rank range at the right;
    the row labelled `highlight` (the visitor's own submission) marked; with a defined
    `ceiling`, the human ceiling as a labelled vertical line, its interval a band (said in the
    caption, as is why it is missing or weak). Drawn once per set of rows: the page redraws the
    same plot on every load and search."""
    if not labels:
        return "<p>No ranked metrics shown.</p>"
    columns = (labels, values, lows, highs, rank_ranges)
    return _forest_html(*(tuple(c) for c in columns), statistic, highlight, ceiling)


@lru_cache(maxsize=256)
def _forest_html(
    labels: tuple[str, ...],
    values: tuple[float, ...],
    lows: tuple[float, ...],
    highs: tuple[float, ...],
    rank_ranges: tuple[str, ...],
    statistic: str,
    highlight: str | None,
    ceiling: Ceiling | None,
) -> str:
    reference = None
    if ceiling is not None and np.isfinite(ceiling.value):
        label = f"{ceiling.label} {ceiling.value:.3f}"
        reference = Reference(label, ceiling.value, ceiling.ci_low, ceiling.ci_high)
    figure = forest_plot(
        list(labels),
        list(values),
        list(lows),
        list(highs),
        xlabel=f"{statistic} with the human scores",
        rank_ranges=[f"rank {r}" for r in rank_ranges],
        highlight=highlight,
        reference=reference,
    )
    caption = (
        f"Dots: {statistic}; whiskers: {SETTINGS.confidence:.0%} bootstrap intervals (over every "
        "possible value where too few units were resampled for an interval to mean anything: "
        "such rows are marked not informative); at the right: each metric's rank range from "
        "the pairwise tests of the Comparison tab."
    )
    if highlight is not None:
        caption += f" Highlighted: your submission, {html.escape(highlight)}."
    return _html(figure, "forest", caption + _ceiling_caption(ceiling))


def _ceiling_caption(ceiling: Ceiling | None) -> str:
    """The caption's sentence on the human ceiling line (escaped), or nothing without one."""
    if ceiling is None:
        return ""
    if not np.isfinite(ceiling.value):
        return html.escape(f" No human ceiling line: {ceiling.note or 'undefined'}.")
    band = " with its interval as a band" if np.isfinite(ceiling.ci_low) else ""
    units = "systems" if ceiling.level == "system" else "items"
    text = (
        f" Vertical line: the human ceiling ({ceiling.method}, {ceiling.annotators} "
        f"annotators, {ceiling.n} {units}){band}; a reference, not a ranked metric."
    )
    return html.escape(text + (f" {ceiling.note}." if ceiling.note else ""))


def _key(values: Sequence[float]) -> tuple[float | None, ...]:
    """`values` as a cache key: NaN (never equal to itself, so never found) as None."""
    return tuple(None if math.isnan(v) else float(v) for v in values)


def _values(key: tuple[float | None, ...]) -> list[float]:
    """The values a `_key` was made of."""
    return [math.nan if v is None else v for v in key]


@dataclass(frozen=True)
class Matrix:
    """Correlations of metrics (rows) on benchmarks (columns) with each cell's text."""

    metrics: list[str]
    benchmarks: list[str]
    values: np.ndarray
    text: list[list[str]]


def heatmap_html(matrix: Matrix, statistic: str, note: str = "") -> str:
    """The metric x benchmark heatmap at its own size: each cell's correlation and interval,
    grey where the metric is not ranked on the benchmark; `note` ends the caption. Drawn once
    per content: the Overall tab redraws the same heatmap on every opening."""
    if not matrix.metrics or not matrix.benchmarks:
        return "<p>No ranked metric on the chosen benchmarks.</p>"
    return _heatmap_html(
        tuple(matrix.metrics),
        tuple(matrix.benchmarks),
        tuple(map(_key, matrix.values.tolist())),
        tuple(map(tuple, matrix.text)),
        statistic,
        note,
    )


@lru_cache(maxsize=64)
def _heatmap_html(
    metrics: tuple[str, ...],
    benchmarks: tuple[str, ...],
    values: tuple[tuple[float | None, ...], ...],
    text: tuple[tuple[str, ...], ...],
    statistic: str,
    note: str,
) -> str:
    figure = heatmap(
        np.array(values, dtype=float).reshape(len(metrics), len(benchmarks)),
        list(metrics),
        list(benchmarks),
        cell_text=[list(line) for line in text],
        colorbar_label=statistic,
        vmin=-1.0,
        vmax=1.0,
        cmap="RdBu",
        text_size=_CELL_POINTS,
    )
    rows, cols = len(metrics), len(benchmarks)
    lines = max(cell.count("\n") + 1 for line in text for cell in line)
    labels = max(map(len, metrics))
    figure.set_size_inches(  # type: ignore[attr-defined]
        max(7.5, 2.2 + 0.085 * labels + _CELL_INCHES * cols),
        1.8 + (0.14 + _LINE_INCHES * lines) * rows + 0.07 * max(map(len, benchmarks)),
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
    own: bool = False,
) -> str:
    """System means of a metric against the human means, the systems the protocol leaves out
    drawn hollow and labelled apart; headed "your submission" when the metric is the
    visitor's own. Drawn once per content, as the forest plot."""
    if not systems:
        return "<p>No system means to plot.</p>"
    return _scatter_html(
        tuple(systems), _key(metric), _key(human), tuple(left_out), annotation, names, own
    )


@lru_cache(maxsize=256)
def _scatter_html(
    systems: tuple[str, ...],
    metric: tuple[float | None, ...],
    human: tuple[float | None, ...],
    left_out: tuple[bool, ...],
    annotation: str,
    names: tuple[str, str],
    own: bool,
) -> str:
    figure = scatter_plot(
        _values(metric),
        _values(human),
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


def item_scatter_html(
    systems: Sequence[str],
    metric: Sequence[float],
    human: Sequence[float],
    names: tuple[str, str],
    own: bool = False,
) -> str:
    """Each item's metric score against its human score, coloured by its system, under
    SCATTER_LABEL ("your submission" added when the metric is the visitor's own). A static
    figure, not a browser-drawn plot: thousands of points cost the page one picture. Drawn
    once per content, as the forest plot."""
    if not systems:
        return "<p>No item scores to plot.</p>"
    return _item_scatter_html(tuple(systems), _key(metric), _key(human), names, own)


@lru_cache(maxsize=32)
def _item_scatter_html(
    systems: tuple[str, ...],
    metric: tuple[float | None, ...],
    human: tuple[float | None, ...],
    names: tuple[str, str],
    own: bool,
) -> str:
    figure = item_scatter(
        _values(metric),
        _values(human),
        list(systems),
        xlabel=f"{names[0]} (item score)",
        ylabel=f"human {names[1]}",
        title=f"your submission: {names[0]}" if own else None,
    )
    heading = f"{SCATTER_LABEL}: your submission" if own else SCATTER_LABEL
    caption = (
        f"{heading}. One point per item, coloured by its system; the systems the benchmark's "
        "protocol leaves out are not drawn."
    )
    return _html(figure, "item-scatter", html.escape(caption))
