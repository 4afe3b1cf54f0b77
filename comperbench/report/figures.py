"""Figures of an evaluation as matplotlib Figures, exported as static SVG or PNG.

The functions take plain sequences and return a `matplotlib.figure.Figure` drawn on the Agg
canvas. Figures are made without pyplot, so none is kept in a global registry: a figure's
memory is freed as soon as nothing refers to it. matplotlib is imported when a figure is made,
so `import comperbench` does not load it. Every text is drawn as given (`plain`): a `$` in a
metric's name never starts mathtext.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from comperbench.stats.metric_tests.verdicts import Verdicts

POINT = "#1f5fa8"
HIGHLIGHT = "#d1495b"
LEFT_OUT = "#8c8c8c"
MISSING = "#d9d9d9"
WIDTH = 7.5
"""Inches: every figure is this wide, so they line up on a page."""
LEGEND_CHARACTERS = 56
"""A legend title's lines wrap here, so a long note never pushes the axes off the figure."""


REFERENCE = "#2a9d8f"


@dataclass(frozen=True)
class Reference:
    """A value the rows are read against (the human ceiling), drawn as a vertical line with its
    interval as a band."""

    label: str
    value: float
    low: float | None = None
    high: float | None = None


def _figure(height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def plain(text: object) -> str:
    """`text` as matplotlib draws it literally: every `$` escaped, so that no part of a name or
    note is read as mathtext (whose parser raises on, e.g., `$\\foo$`)."""
    return str(text).replace("$", r"\$")


def _defined(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def forest_plot(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    *,
    xlabel: str,
    title: str | None = None,
    rank_ranges: Sequence[str] | None = None,
    highlight: str | None = None,
    reference: Reference | None = None,
) -> Figure:
    """One row per label, top to bottom in the given order: the value as a point and its interval
    as a whisker. A NaN value is written "undefined" (nothing is drawn); a row without an interval
    shows its point and says "no interval". `rank_ranges` are written at the right; the row
    labelled `highlight` is marked; a defined `reference` is a labelled vertical line, its
    interval a band."""
    n = len(labels)
    if not len(values) == len(lows) == len(highs) == n:
        raise ValueError("forest_plot: labels, values, lows and highs differ in length")
    if rank_ranges is not None and len(rank_ranges) != n:
        raise ValueError("forest_plot: rank_ranges and labels differ in length")
    figure = _figure(1.1 + 0.32 * max(n, 1))
    ax = figure.add_subplot()
    ys = np.arange(n)[::-1].astype(float)
    drawn = [i for i in range(n) if _defined(values[i])]
    whiskers = [i for i in drawn if _defined(lows[i]) and _defined(highs[i])]
    ax.hlines(
        [ys[i] for i in whiskers],
        [float(lows[i]) for i in whiskers],  # type: ignore[arg-type]
        [float(highs[i]) for i in whiskers],  # type: ignore[arg-type]
        color=POINT,
        linewidth=1.6,
        label="interval",
    )
    ax.plot(
        [float(values[i]) for i in drawn],
        [ys[i] for i in drawn],
        "o",
        color=POINT,
        markersize=5,
        label="value",
    )
    label_axis = ax.get_yaxis_transform()  # x in axes fractions, y in data
    for i in range(n):
        if i not in drawn:
            ax.text(0.01, ys[i], "undefined", transform=label_axis, va="center", color=LEFT_OUT)
        elif i not in whiskers:
            ax.annotate(
                "no interval",
                (float(values[i]), ys[i]),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                color=LEFT_OUT,
                fontsize="small",
            )
    if rank_ranges is not None:
        for i, text in enumerate(rank_ranges):
            ax.text(1.01, ys[i], plain(text), transform=label_axis, va="center", fontsize="small")
    ax.set_yticks(ys, [plain(label) for label in labels])
    ax.set_ylim(-0.7, n - 0.3)
    if highlight is not None:
        _highlight_row(ax, list(labels), highlight, ys)
    if reference is not None and _defined(reference.value):
        _reference_line(ax, reference)
    _zero_line(ax)
    ax.set_xlabel(plain(xlabel))
    ax.grid(axis="x", color="#eeeeee")
    ax.set_axisbelow(True)
    if title:
        ax.set_title(plain(title), loc="left")
    return figure


def _reference_line(ax: Axes, reference: Reference) -> None:
    """The reference value as a vertical line, its interval (when defined) as a band, and its
    label over the axes at the line, on the side with more room."""
    low, high = reference.low, reference.high
    if low is not None and high is not None and _defined(low) and _defined(high):
        ax.axvspan(low, high, color=REFERENCE, alpha=0.15, linewidth=0)
    ax.axvline(reference.value, color=REFERENCE, linewidth=1.4)
    left, right = ax.get_xlim()
    ax.annotate(
        reference.label,
        (reference.value, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(0, 2),
        textcoords="offset points",
        ha="right" if reference.value > (left + right) / 2 else "left",
        va="bottom",
        color=REFERENCE,
        fontsize="small",
    )


def _highlight_row(ax: Axes, labels: list[str], highlight: str, ys: np.ndarray) -> None:
    if highlight not in labels:
        raise ValueError(f"forest_plot: highlight {highlight!r} is not one of the labels")
    i = labels.index(highlight)
    ax.axhspan(ys[i] - 0.45, ys[i] + 0.45, color=HIGHLIGHT, alpha=0.12, linewidth=0)
    tick = ax.get_yticklabels()[i]
    tick.set_color(HIGHLIGHT)
    tick.set_fontweight("bold")


def _zero_line(ax: Axes) -> None:
    """A thin line at 0 when the axis spans it (no correlation)."""
    low, high = ax.get_xlim()
    if low < 0 < high:
        ax.axvline(0, color="#999999", linewidth=0.8, linestyle="--", zorder=0)


def scatter_plot(
    x: Sequence[float],
    y: Sequence[float],
    *,
    labels: Sequence[str] | None = None,
    left_out: Sequence[bool] | None = None,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    annotation: str | None = None,
) -> Figure:
    """The points (x, y), each named by its label; points in `left_out` are drawn hollow and grey
    and labelled as left out. `annotation` (e.g. the correlation) heads the legend, placed
    where it hides the fewest points."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError("scatter_plot: x and y must be sequences of one length")
    out = np.zeros(len(xs), bool) if left_out is None else np.asarray(left_out, dtype=bool)
    if out.shape != xs.shape or (labels is not None and len(labels) != len(xs)):
        raise ValueError("scatter_plot: labels and left_out must have one entry per point")
    figure = _figure(4.8)
    ax = figure.add_subplot()
    ax.scatter(xs[~out], ys[~out], color=POINT, s=36, label="correlated", zorder=3)
    if out.any():
        ax.scatter(
            xs[out],
            ys[out],
            facecolors="none",
            edgecolors=LEFT_OUT,
            s=36,
            label="left out by the protocol",
            zorder=3,
        )
    _label_points(ax, xs, ys, labels, out)
    ax.margins(0.12)  # room for the labels of the outermost points
    if annotation or out.any():
        legend = ax.legend(
            loc="best",
            fontsize="small",
            title=_wrapped(annotation),
            title_fontsize="small",
            framealpha=0.9,
        )
        legend.get_title().set_multialignment("left")
    _scatter_axes(ax, xlabel, ylabel, title)
    return figure


SYSTEM_COLOURS = 10
"""Systems from which an item scatter draws every point in one colour: more than the distinct
colours a legend can tell apart."""


def item_scatter(
    x: Sequence[float],
    y: Sequence[float],
    systems: Sequence[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
) -> Figure:
    """Many points (x, y), each of a system: one colour per system, with a legend of them, up
    to `SYSTEM_COLOURS` systems; beyond, one colour, the legend counting the systems. The points
    are drawn in a seeded shuffled order, so that no system hides under the others, and
    as one embedded raster while axes and text stay vector: thousands cost a picture."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    labels = np.asarray(systems, dtype=str)
    if not xs.shape == ys.shape == labels.shape or xs.ndim != 1:
        raise ValueError("item_scatter: x, y and systems must be sequences of one length")
    names, which = np.unique(labels, return_inverse=True)
    colours = _system_colours(len(names))
    order = np.random.default_rng(0).permutation(len(xs))
    figure = _figure(4.8)
    ax = figure.add_subplot()
    ax.scatter(
        xs[order],
        ys[order],
        c=colours[which[order] % len(colours)],
        s=9,
        alpha=0.55,
        linewidths=0,
        rasterized=True,
    )
    _system_legend(ax, names, colours)
    _scatter_axes(ax, xlabel, ylabel, title)
    return figure


def _system_colours(n_systems: int) -> np.ndarray:
    """(colours, 4) RGBA: tab10's first `n_systems`, or POINT alone for more than SYSTEM_COLOURS."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba

    if n_systems > SYSTEM_COLOURS:
        return np.array([to_rgba(POINT)])
    return np.array(colormaps["tab10"].colors[: max(n_systems, 1)], dtype=float)


def _system_legend(ax: Axes, names: np.ndarray, colours: np.ndarray) -> None:
    """A legend beside the axes: one marker per system, or one saying how many share one colour."""
    from matplotlib.lines import Line2D

    def marker(colour: np.ndarray, label: str) -> Line2D:
        return Line2D([], [], linestyle="", marker="o", color=colour, label=plain(label))

    if len(colours) < len(names) or len(names) == 0:
        handles = [marker(colours[0], f"{len(names)} systems, one colour")]
    else:
        handles = [marker(c, str(k)) for c, k in zip(colours, names, strict=True)]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small", frameon=False
    )


def _scatter_axes(ax: Axes, xlabel: str, ylabel: str, title: str | None) -> None:
    """A scatter's axis labels, light grid under the points and, if given, its title."""
    ax.set_xlabel(plain(xlabel))
    ax.set_ylabel(plain(ylabel))
    ax.grid(color="#eeeeee")
    ax.set_axisbelow(True)
    if title:
        ax.set_title(plain(title), loc="left")


def _label_points(
    ax: Axes, xs: np.ndarray, ys: np.ndarray, labels: Sequence[str] | None, out: np.ndarray
) -> None:
    """Each point's label beside it: on its right, or on its left in the right third of the axis so
    it stays inside the figure; neighbours in height alternate above and below."""
    drawn = xs[np.isfinite(xs)]
    right_third = (drawn.min() + 2 * drawn.max()) / 3 if len(drawn) > 1 else math.inf
    for rank, i in enumerate(np.argsort(ys, kind="stable")):
        if labels is None and not out[i]:
            continue
        name = "" if labels is None else str(labels[i])
        text = f"{name} (left out)".strip() if out[i] else name
        left = bool(xs[i] > right_third)
        ax.annotate(
            plain(text),
            (xs[i], ys[i]),
            xytext=(-5 if left else 5, 4 if rank % 2 else -10),
            textcoords="offset points",
            horizontalalignment="right" if left else "left",
            fontsize="small",
            color=LEFT_OUT if out[i] else "#333333",
        )


def _wrapped(text: str | None) -> str | None:
    """`text` with each of its lines wrapped at LEGEND_CHARACTERS."""
    if not text:
        return text
    return "\n".join(plain(textwrap.fill(line, LEGEND_CHARACTERS)) for line in text.split("\n"))


def heatmap(
    values: Sequence[Sequence[float]] | np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    cell_text: Sequence[Sequence[str]] | None = None,
    colorbar_label: str,
    vmin: float | None = None,
    vmax: float | None = None,
    cmap: str = "viridis_r",
    title: str | None = None,
    text_size: float | None = None,
) -> Figure:
    """A matrix of colours with a colour bar; NaN cells are grey and marked "–". `cell_text`
    (one string per cell) is written in the cells, at `text_size` points (default: "small", or
    "x-small" above 12 rows or columns)."""
    import matplotlib as mpl

    matrix = np.asarray(values, dtype=float)
    if matrix.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"heatmap: values are {matrix.shape}, labels {len(row_labels)} x {len(col_labels)}"
        )
    if cell_text is not None and np.shape(np.asarray(cell_text, dtype=object)) != matrix.shape:
        raise ValueError("heatmap: cell_text must have one string per cell")
    rows, cols = matrix.shape
    figure = _figure(1.6 + 0.34 * max(rows, 1) + 0.06 * max(map(len, col_labels), default=0))
    ax = figure.add_subplot()
    colours = mpl.colormaps[cmap].with_extremes(bad=MISSING)
    image = ax.imshow(
        np.ma.masked_invalid(matrix), cmap=colours, vmin=vmin, vmax=vmax, aspect="auto"
    )
    figure.colorbar(image, ax=ax, label=plain(colorbar_label), shrink=0.9)
    ax.set_xticks(range(cols), [plain(c) for c in col_labels], rotation=45, ha="right")
    ax.set_yticks(range(rows), [plain(r) for r in row_labels])
    ax.tick_params(length=0)
    size = text_size or ("small" if max(rows, cols) <= 12 else "x-small")
    for i in range(rows):
        for j in range(cols):
            if math.isnan(matrix[i, j]):
                text = "–"
            elif cell_text is not None:
                text = plain(cell_text[i][j])
            else:
                continue
            ax.text(j, i, text, ha="center", va="center", fontsize=size, color=_ink(image, i, j))
    if title:
        ax.set_title(plain(title), loc="left")
    return figure


def _ink(image, i: int, j: int) -> str:
    """Black or white, whichever reads on the cell's colour."""
    value = image.get_array()[i, j]
    if np.ma.is_masked(value):
        return "#333333"
    red, green, blue, _ = image.to_rgba(value)
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"


_NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


def svg(figure: Figure) -> str:
    """The figure as an `<svg>` element, ready to inline in HTML or save as a file: text stays
    text, nothing refers outside it (no DTD, no metadata links)."""
    import matplotlib as mpl

    buffer = io.StringIO()
    with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "comperbench"}):
        figure.savefig(buffer, format="svg", metadata=_NO_METADATA)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def png(figure: Figure, dpi: int = 150) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def p_value_heatmap(
    labels: Sequence[str],
    p_values: Sequence[Sequence[float]] | np.ndarray,
    *,
    colorbar_label: str,
    title: str | None = None,
) -> Figure:
    """`heatmap` of a square matrix of p-values (row against column), each written in its cell
    (`<0.001` below), dark where small; the diagonal and undefined tests grey."""
    matrix = np.asarray(p_values, dtype=float)
    text = [["<0.001" if p < 1e-3 else f"{p:.3f}" for p in row] for row in matrix]
    return heatmap(
        matrix,
        labels,
        labels,
        cell_text=text,
        colorbar_label=colorbar_label,
        vmin=0.0,
        vmax=1.0,
        cmap="Blues_r",
        title=title,
    )


CLUSTER_SHADES = ("#eef3fa", "#ffffff")
"""Alternating backgrounds of the significance clusters."""


def verdicts_figure(verdicts: Verdicts, *, xlabel: str, title: str | None = None) -> Figure:
    """The metrics best first, one row each (so labels never overlap, however many): the value
    as a point, the significance clusters as alternating bands, and at the right each metric's
    rank range from the same verdicts, its cluster named on the cluster's first row."""
    n = len(verdicts.metrics)
    figure = _figure(1.3 + 0.3 * max(n, 1))
    ax = figure.add_subplot()
    ys = np.arange(n)[::-1].astype(float)
    right = [f"rank {low}-{high}" for low, high in verdicts.rank_ranges]
    start = 0
    for k, members in enumerate(verdicts.clusters()):
        stop = start + len(members)
        ax.axhspan(ys[stop - 1] - 0.5, ys[start] + 0.5, color=CLUSTER_SHADES[k % 2], zorder=0)
        right[start] = f"cluster {k + 1} | {right[start]}"
        start = stop
    ax.plot(verdicts.values, ys, "o", color=POINT, markersize=5)
    ax.set_yticks(ys, [plain(m) for m in verdicts.metrics])
    ax.set_ylim(-0.5, n - 0.5)
    twin = ax.twinx()
    twin.set_ylim(ax.get_ylim())
    twin.set_yticks(ys, right, fontsize="small")
    _zero_line(ax)
    ax.set_xlabel(plain(xlabel))
    ax.grid(axis="x", color="#eeeeee")
    if title:
        ax.set_title(_wrapped(title), loc="left", fontsize="medium")
    return figure
