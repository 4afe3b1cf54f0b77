"""Figures drawn from hand data: what is drawn, what is written, and static SVG export."""

from __future__ import annotations

import itertools
import math
import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection

from comperbench.report.figures import (
    SYSTEM_COLOURS,
    forest_plot,
    heatmap,
    item_scatter,
    png,
    scatter_plot,
    svg,
    verdicts_figure,
)
from comperbench.stats.metric_tests.verdicts import metric_verdicts

NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def _texts(figure) -> list[str]:
    return [t.get_text() for ax in figure.axes for t in ax.texts]


def _forest():
    return forest_plot(
        ["bleu", "meteor", "judge", "rouge"],
        [0.30, math.nan, 0.10, -0.20],
        [0.10, None, None, -0.40],
        [0.50, None, None, 0.05],
        xlabel="Spearman",
        rank_ranges=["1-2", "–", "1-3", "3-4"],
        highlight="judge",
    )


def test_forest_plot_draws_each_interval_at_its_row_and_says_what_is_missing():
    figure = _forest()
    ax = figure.axes[0]
    (whiskers,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    ends = [tuple(map(tuple, segment)) for segment in whiskers.get_segments()]
    assert ends == [((0.10, 3.0), (0.50, 3.0)), ((-0.40, 0.0), (0.05, 0.0))]
    (points,) = [line for line in ax.lines if line.get_label() == "value"]
    assert list(points.get_xdata()) == [0.30, 0.10, -0.20]  # the NaN row is not drawn
    assert list(points.get_ydata()) == [3.0, 1.0, 0.0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["bleu", "meteor", "judge", "rouge"]
    texts = _texts(figure)
    assert texts.count("undefined") == 1 and texts.count("no interval") == 1
    assert {"1-2", "–", "1-3", "3-4"} <= set(texts)
    assert ax.get_yticklabels()[2].get_fontweight() == "bold"


def test_forest_plot_refuses_an_unknown_highlight_and_uneven_lengths():
    with pytest.raises(ValueError, match="'nope' is not one of the labels"):
        forest_plot(["a"], [0.1], [0.0], [0.2], xlabel="x", highlight="nope")
    with pytest.raises(ValueError, match="differ in length"):
        forest_plot(["a", "b"], [0.1], [0.0], [0.2], xlabel="x")


def test_scatter_plot_draws_left_out_points_apart_and_labels_them():
    figure = scatter_plot(
        [1.0, 2.0, 3.0, 4.0],
        [2.0, 3.0, 1.0, 5.0],
        labels=["s1", "s2", "s3", "ground truth"],
        left_out=[False, False, False, True],
        xlabel="metric",
        ylabel="human",
        annotation="r = 0.52 [0.31, 0.70], n = 3 systems",
    )
    ax = figure.axes[0]
    kept, out = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert kept.get_offsets().tolist() == [[1.0, 2.0], [2.0, 3.0], [3.0, 1.0]]
    assert out.get_offsets().tolist() == [[4.0, 5.0]]
    assert out.get_facecolors().size == 0  # hollow
    texts = _texts(figure)
    assert "ground truth (left out)" in texts and "s1" in texts
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "r = 0.52 [0.31, 0.70], n = 3 systems"
    assert [t.get_text() for t in legend.get_texts()] == ["correlated", "left out by the protocol"]


def test_scatter_plot_keeps_long_notes_and_labels_inside_the_figure():
    note = "interval over 998 of 1,000 resamples (the statistic is undefined on the others)"
    figure = scatter_plot(
        [0.1, 0.2, 1.0],
        [2.0, 3.0, 4.0],
        labels=["s1", "s2", "Original Ground Truth"],
        left_out=[False, False, True],
        xlabel="metric",
        ylabel="human",
        annotation=f"r = 0.97 [-0.45, 1.00], n = 2 systems\n{note}",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns when a legend squeezes the axes away
        figure.canvas.draw()
    ax = figure.axes[0]
    assert ax.get_position().width > 0.5
    title = ax.get_legend().get_title().get_text()
    assert title.startswith("r = 0.97 [-0.45, 1.00], n = 2 systems\n")
    assert max(map(len, title.split("\n"))) <= 56 and "undefined on the" in title
    renderer = figure.canvas.get_renderer()
    for text in ax.texts:
        assert text.get_window_extent(renderer).x1 <= figure.bbox.x1
    (rightmost,) = [t for t in ax.texts if t.get_text().startswith("Original")]
    assert rightmost.get_horizontalalignment() == "right"


def test_item_scatter_colours_each_system_and_draws_every_point_once():
    systems = ["b", "a", "b", "c", "a", "b"]
    x, y = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    figure = item_scatter(x, y, systems, xlabel="metric", ylabel="human", title="yours")
    ax = figure.axes[0]
    (points,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    offsets, colours = points.get_offsets(), points.get_facecolors()
    drawn = {tuple(p): tuple(c) for p, c in zip(offsets, colours, strict=True)}
    assert len(offsets) == 6 and sorted(drawn) == sorted(zip(x, y, strict=True))  # each once
    colour = {s: drawn[(x[i], y[i])] for i, s in enumerate(systems)}  # one colour per system
    assert all(drawn[(x[i], y[i])] == colour[s] for i, s in enumerate(systems))
    assert len(set(colour.values())) == 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    assert points.get_rasterized() and ax.get_title(loc="left") == "yours"
    text = svg(figure)  # the points one raster, the names and labels text
    assert text.count("<image") == 1
    assert all(f">{name}</text>" in text for name in ("a", "b", "c", "metric", "human"))


def test_item_scatter_of_many_systems_draws_one_colour_and_counts_them():
    n = SYSTEM_COLOURS + 1
    systems = [f"s{i}" for i in range(n)]
    figure = item_scatter(range(n), range(n), systems, xlabel="m", ylabel="h")
    (points,) = [c for c in figure.axes[0].collections if isinstance(c, PathCollection)]
    assert len({tuple(c) for c in points.get_facecolors()}) == 1
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == [f"{n} systems, one colour"]
    with pytest.raises(ValueError, match="one length"):
        item_scatter([1.0], [1.0, 2.0], ["a"], xlabel="m", ylabel="h")


def test_heatmap_greys_nan_cells_and_marks_them():
    values = np.array([[math.nan, 0.01], [0.4, math.nan]])
    figure = heatmap(
        values,
        ["a", "b"],
        ["a", "b"],
        cell_text=[["", "0.01"], ["0.40", ""]],
        colorbar_label="p (Holm)",
        vmin=0,
        vmax=1,
    )
    ax = figure.axes[0]
    image = ax.images[0]
    assert image.get_array().mask.tolist() == [[True, False], [False, True]]
    assert sorted(_texts(figure)) == ["0.01", "0.40", "–", "–"]
    assert figure.axes[1].get_ylabel() == "p (Holm)"
    with pytest.raises(ValueError, match=r"values are \(2, 2\), labels 3 x 2"):
        heatmap(values, ["a", "b", "c"], ["a", "b"], colorbar_label="p")


def test_svg_is_self_contained_xml_with_text_as_text():
    text = svg(_forest())
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert set(re.findall(r"https?://[^\"'\s<>)]+", text)) <= NAMESPACES
    assert "meteor" in text and "undefined" in text  # text kept as text, not glyph paths
    assert "<!DOCTYPE" not in text and "<metadata" not in text


def test_png_is_a_png():
    assert png(_forest()).startswith(b"\x89PNG\r\n\x1a\n")


def test_verdicts_figure_labels_never_overlap_at_24_metrics():
    from comperbench.report.figures import verdicts_figure
    from comperbench.stats.metric_tests.verdicts import metric_verdicts

    rng = np.random.default_rng(5)
    human = rng.normal(size=60)
    scores = {
        f"metric-with-a-long-name-{k}[encoder:L{k}]": human * k / 24 + rng.normal(size=60)
        for k in range(24)
    }
    verdicts = metric_verdicts(scores, human, permutations=1000)
    chart = verdicts_figure(verdicts, xlabel="pearson", title="which metrics differ")
    chart.canvas.draw()
    renderer = chart.canvas.get_renderer()
    for axes in chart.axes:
        boxes = [t.get_window_extent(renderer) for t in axes.get_yticklabels() if t.get_text()]
        assert len(boxes) == 24
        for first, second in itertools.pairwise(boxes):
            assert not first.overlaps(second)
    right = [t.get_text() for t in chart.axes[1].get_yticklabels()]
    clusters = verdicts.clusters()
    assert sum(text.startswith("cluster ") for text in right) == len(clusters)
    low, high = verdicts.rank_ranges[0]
    assert right[0] == f"cluster 1 | rank {low}-{high}"


HOSTILE_NAMES = [r"$\foo$", r"$x^{", "a_b^c$", r"\$", "$$", r"$\frac{1}{0}$ and $"]


def test_every_figure_draws_names_full_of_mathtext_as_the_plain_text_given():
    names = HOSTILE_NAMES
    n = len(names)
    figures = [
        forest_plot(names, [0.1] * n, [0.0] * n, [0.2] * n, xlabel="$", rank_ranges=names),
        scatter_plot(
            range(n), range(n), labels=names, xlabel=r"$\x$", ylabel="_^", annotation=r"$\y$"
        ),
        heatmap(np.zeros((n, n)), names, names, cell_text=[names] * n, colorbar_label="$\\z$"),
        item_scatter(range(n), range(n), names, xlabel=r"$\x$", ylabel="_^", title="$"),
        verdicts_figure(
            metric_verdicts(
                dict(zip(names, np.eye(n, 12) + np.arange(12), strict=True)), np.arange(12.0)
            ),
            xlabel="$",
        ),
    ]
    for figure in figures:
        png(figure)  # mathtext would raise ValueError while drawing
        drawn = "".join(t.get_text() for t in figure.findobj(lambda a: hasattr(a, "get_text")))
        text = svg(figure)
        for name in names:
            shown = name.replace("$", r"\$")
            assert shown in drawn
            escaped = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            assert escaped in text, name
