"""What each leaderboard tab shows, as plain data: the ranking table and its notes, the
significance heatmap, the metric page, dataset items and the about page.

Everything is read from the local store and the local benchmark tables.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import metadata
from urllib.parse import urlparse

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.ceiling import GLOSSARY as CEILING_GLOSSARY
from comperbench.leaderboard.ceiling import Ceiling, ceiling_line, human_ceiling
from comperbench.leaderboard.comparison import view_verdicts
from comperbench.leaderboard.items import (
    cached_benchmark,
    scored_items,
    stored_levels,
    submission_template,
)
from comperbench.leaderboard.overall import Overall, overall, uninformative
from comperbench.leaderboard.scoring import leaderboard_statistics, scored_at
from comperbench.leaderboard.service import (
    Ranked,
    describe_apart,
    describe_unranked,
    ranking,
    set_apart,
    unranked,
    verdict_lines,
)
from comperbench.leaderboard.store import Row, Store
from comperbench.leaderboard.submission import MAX_FILE_BYTES, METRIC_FAMILIES
from comperbench.leaderboard.web.access.downloads import download
from comperbench.leaderboard.web.plots import (
    Matrix,
    forest_html,
    heatmap_html,
    item_scatter_html,
    scatter_html,
)
from comperbench.stats.metric_correlation.statistics import LEVELS, get_statistic, resampled_unit
from comperbench.stats.multiplicity import NAMES
from comperbench.stats.resampling import MIN_BOOTSTRAP_UNITS, bootstrap_note
from comperbench.stats.settings import SETTINGS

RANKING_COLUMNS = [
    "rank",
    "rank range",
    "metric",
    "value",
    "CI low",
    "CI high",
    "adjusted p vs leader",
    "tied with leader",
    "n",
    "reference-free",
    "baseline",
    "trained on this benchmark",
    "authors",
    "family",
]
"""The ranking's columns as downloaded and served by the API: numbers unrounded."""
INTERVAL = "95% CI"
SHOWN_COLUMNS = [*RANKING_COLUMNS[:4], INTERVAL, *RANKING_COLUMNS[6:]]
"""The table's columns: the interval's bounds as one "[low, high]" column."""
DEFAULT_COLUMNS = [
    "rank",
    "rank range",
    "metric",
    "value",
    INTERVAL,
    "adjusted p vs leader",
    "tied with leader",
    "n",
    "reference-free",
    "family",
]
"""The columns shown until others are chosen: they fit 1400 px without scrolling sideways."""
_TYPES = ["number", "str", "str", "number", "str", "number", "str", "number", *["str"] * 5]
COLUMN_TYPES = dict(zip(SHOWN_COLUMNS, _TYPES, strict=True))
"""Each shown column's Dataframe datatype."""
FIXED_WIDTH = "ui-monospace, monospace"
"""The interval column's font: its padded bounds line up in it."""
DECIMALS = 3
"""Decimals of every value, interval bound and p-value shown."""
UNKNOWN_FAMILY = "unknown"
FAMILIES = [*METRIC_FAMILIES, UNKNOWN_FAMILY]
"""Every family the ranking's family column may show."""
REFERENCES = ["all", "reference-free", "reference-based"]
FORMAT_HELP = f"""
**Submission format.** A CSV, JSONL or parquet file (optionally `.gz` or a `.zip` holding one
file, at most {MAX_FILE_BYTES // 2**20} MB) with an `item_id` column and a `score` column, or one
column per metric (named with letters, digits, `_`, `.`, `-`). Item ids are the release ids
(`benchmark/...`; download a template with `comperbench template NAME`); one file may cover
several benchmarks. Every score must be a finite number. Unknown or duplicate ids, missing
values, wrong columns, non-UTF-8 text and oversize files are refused with the line of each
problem, and nothing is stored. A file that covers only part of a benchmark is listed as
partial and not ranked. An identical file submitted twice is recognised.
"""


GLOSSARY = (
    "**rank**: place by the value shown (ties share the best place). Every verdict below comes "
    "from one computation per view: {test} between every pair of ranked metrics on the items "
    "all of them scored, with as many permutations as the {correction} over all pairs needs "
    "for a difference to be shown, as `comperbench compare` runs it. **rank range**: 1 + the "
    "metrics significantly better than this one, to the number of metrics less those "
    "significantly worse. **adjusted p vs leader**: the adjusted p-value that the leader "
    "correlates better; **tied with leader**: no leader is significantly better (adjusted p "
    "above {alpha:g}). The Comparison tab shows the same adjusted p-values for every pair and "
    "the significance clusters (the WMT metrics task's rank clusters, on adjusted p-values)."
)
"""The ranking columns explained, under the table."""
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""Text starting so is read as a formula by spreadsheets; downloads prefix it with a quote."""


def _quoted(value: object) -> object:
    return f"'{value}" if isinstance(value, str) and value.startswith(_FORMULA_STARTS) else value


def csv_file(frame: pd.DataFrame, stem: str) -> str:
    """`frame` as a CSV file for a download button, named by `stem` and its content (text
    cells and headers a spreadsheet would run as formulas are prefixed with a quote)."""
    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):
            safe[column] = safe[column].map(_quoted)
    safe.columns = [_quoted(column) for column in safe.columns]
    return download(safe.to_csv(index=False), stem)


def template_file(benchmark: str, level: str) -> str | None:
    """A submission file to fill for one benchmark level, as `comperbench template` writes it
    (None when the benchmark cannot be loaded); its item ids are kept as they are."""
    try:
        text = submission_template(benchmark, [level])
    except ComperbenchError:
        return None
    return download(text, f"{benchmark}-{level}-template")


def glossary() -> str:
    """`GLOSSARY` with the shared statistical setting's level, test and correction."""
    text = GLOSSARY.format(
        alpha=SETTINGS.alpha,
        test=SETTINGS.test.upper(),
        correction=f"{NAMES[SETTINGS.correction]} correction",
    )
    return f"{text} {CEILING_GLOSSARY}"


@dataclass(frozen=True)
class OverallShown:
    """What the Overall tab shows of one choice: the choices (coverage groups, then the metrics
    not ranked) and the one shown, its heading, table (`OVERALL_COLUMNS`), notes, the CSV of
    every row (`CSV_COLUMNS`) and the metric x benchmark heatmap."""

    choices: list[tuple[str, str]]
    choice: str | None
    heading: str
    table: pd.DataFrame
    notes: str
    csv: str
    heatmap: str


def _cell_text(row: Row | None) -> str:
    """A heatmap cell: the correlation, its interval and, where it rests on too few units,
    "not informative"."""
    if row is None:
        return ""
    text = f"{row.value:.2f}\n[{row.ci_low:.2f}, {row.ci_high:.2f}]"
    return f"{text}\nnot informative" if uninformative(row) else text


def overall_heatmap(shown: Overall, choice: str | None) -> str:
    """The heatmap of the metrics of `choice` on its benchmarks, in table order."""
    metrics, benchmarks, rows = shown.matrix(choice)
    values = np.array([[np.nan if r is None else r.value for r in by] for by in rows])
    text = [[_cell_text(r) for r in by] for by in rows]
    note = (
        f'"not informative": fewer than {MIN_BOOTSTRAP_UNITS} units resampled on that benchmark.'
        if any("not informative" in t for by in text for t in by)
        else ""
    )
    matrix = Matrix(metrics, benchmarks, values.reshape(len(metrics), len(benchmarks)), text)
    return heatmap_html(matrix, shown.statistic, note)


def overall_table(
    store: Store, statistic: str, benchmarks: list[str] | None = None, choice: str | None = None
) -> OverallShown:
    """The overall view by `statistic` over `benchmarks` (None: every benchmark with a ranked
    metric), showing the coverage group `choice` names (None or gone: the default)."""
    view = overall(store, statistic, benchmarks)
    choices = view.choices()
    if choice not in {value for _, value in choices}:
        choice = view.default()
    return OverallShown(
        choices,
        choice,
        view.heading(choice),
        view.table(choice),
        view.notes(choice),
        csv_file(view.csv_frame(), f"overall-{statistic}"),
        overall_heatmap(view, choice),
    )


def forest(
    ranked: list[Ranked],
    statistic: str,
    shown: Sequence[bool] | None = None,
    mine: int | None = None,
    ceiling: Ceiling | None = None,
) -> str:
    """The forest plot of a view's ranking: each `shown` metric's value, interval and rank
    range (every metric when `shown` is None), the best placed metric of submission `mine`
    highlighted, the human `ceiling` drawn as a reference line. An interval over too few units to mean anything (`bootstrap_note`, the CLI's
    rule) is drawn over every value the statistic can take, and its row is marked not
    informative."""
    labels = [label for label, _ in metric_choices(ranked)]
    full = get_statistic(statistic).value_range
    kept = [k for k in range(len(ranked)) if shown is None or shown[k]]
    lows, highs = [], []
    for k in kept:
        row = ranked[k].row
        small = bootstrap_note(row.n, resampled_unit(statistic, row.settings.level))
        lows.append(full[0] if small else row.ci_low)
        highs.append(full[1] if small else row.ci_high)
        if small:
            labels[k] += f" (n = {row.n}: not informative)"
    own = [labels[k] for k in kept if ranked[k].row.submission_id == mine]
    return forest_html(
        [labels[k] for k in kept],
        [ranked[k].row.value for k in kept],
        lows,
        highs,
        [f"{ranked[k].rank_low}-{ranked[k].rank_high}" for k in kept],
        statistic,
        own[0] if own else None,
        ceiling,
    )


def statistic_choices(level: str) -> list[tuple[str, str]]:
    """The (label, name) of each ranking statistic the leaderboard scores at `level`."""
    return [(s.display_name, s.name) for s in leaderboard_statistics() if scored_at(s, level)]


def view_levels(benchmark: str) -> list[str]:
    """The levels a view offers: the stored item levels, then system level."""
    return [*stored_levels(benchmark), "system"]


def source_level(benchmark: str, level: str) -> str:
    """The item level a view's scores are read at: system level aggregates the first one."""
    return stored_levels(benchmark)[0] if level == "system" else level


@dataclass(frozen=True)
class RankingView:
    """A view's ranking as the Ranking tab draws it: its ranked rows, their `ranking_frame`
    and the view's correlation."""

    ranked: list[Ranked]
    frame: pd.DataFrame
    statistic: str
    ceiling: Ceiling | None = None
    """The human ceiling of the view, drawn beside the ranked metrics (None: no ratings)."""


def ranking_view(
    ranked: list[Ranked], benchmark: str, level: str, aspect: str, statistic: str
) -> RankingView:
    """The view's ranking, its table and its human ceiling."""
    ceiling = human_ceiling(benchmark, level, aspect, statistic)
    return RankingView(ranked, ranking_frame(ranked, benchmark), statistic, ceiling)


def ranking_frame(ranked: list[Ranked], benchmark: str) -> pd.DataFrame:
    """The ranked metrics of a view of `benchmark` (`service.ranking`) as rows of
    `RANKING_COLUMNS`, numbers unrounded (the download and the API)."""
    rows = []
    for r in ranked:
        rows.append(
            [
                r.rank,
                f"{r.rank_low}-{r.rank_high}",
                r.row.metric,
                r.row.value,
                r.row.ci_low,
                r.row.ci_high,
                None if math.isnan(r.p_vs_leader) else r.p_vs_leader,
                "yes" if r.tied_with_leader else "no",
                r.row.n,
                "yes" if r.row.reference_free else "no",
                "yes" if r.row.baseline else "no",
                "yes" if benchmark in r.row.trained_on else "no",
                r.row.authors,
                family(r.row),
            ]
        )
    return pd.DataFrame(rows, columns=RANKING_COLUMNS)


def number(value: float | None) -> str:
    """A value, interval bound or p-value with `DECIMALS` decimals; "" when missing."""
    return "" if value is None or math.isnan(value) else f"{value:.{DECIMALS}f}"


def p_value(p: float | None) -> str:
    """A p-value with `DECIMALS` decimals, "<0.001" below that; "" when missing (the leader)."""
    if p is None or math.isnan(p):
        return ""
    return f"<{10**-DECIMALS:.{DECIMALS}f}" if p < 10**-DECIMALS else f"{p:.{DECIMALS}f}"


def interval(low: float, high: float) -> str:
    """An interval as "[low, high]", a bound without a minus sign led by a figure space (the
    width of a minus in the table's fixed-width font, and never collapsed as spaces are), so
    that the intervals of a column line up."""
    return f"[{_signed(low)}, {_signed(high)}]"


def _signed(value: float) -> str:
    return number(value) if value < 0 else f"\u2007{number(value)}"


@cache
def _registered_family(name: str) -> str:
    import comperbench.metrics  # noqa: F401  (fills the metric registry)
    from comperbench.metrics.registry import get

    try:
        return get(name).family
    except ComperbenchError:
        return UNKNOWN_FAMILY


def family(row: Row) -> str:
    """A baseline's metric family, from the metric registry; a submitted metric's, as its
    submission declares it ("unknown" when it declares none)."""
    if row.baseline:
        return _registered_family(row.metric)
    return row.family or UNKNOWN_FAMILY


def shown_rows(frame: pd.DataFrame, search: str, reference: str, families: list[str]) -> pd.Series:
    """Which ranking rows the table and plot show: those whose metric name contains `search`
    (any case), that are reference-free or reference-based as asked, of the chosen families."""
    keep = frame["metric"].str.contains(search.strip(), case=False, regex=False)
    if reference != "all":
        keep &= frame["reference-free"] == ("yes" if reference == "reference-free" else "no")
    return keep & frame["family"].isin(families)


def shown_ranking(
    frame: pd.DataFrame, search: str, reference: str, families: list[str], columns: list[str]
) -> Styler:
    """The rows `shown_rows` keeps, in the chosen columns of `SHOWN_COLUMNS` (table order),
    numbers kept and shown with `DECIMALS` decimals, the interval as one fixed-width column."""
    kept = frame.loc[shown_rows(frame, search, reference, families)]
    table = kept.drop(columns=["CI low", "CI high"])
    table.insert(
        4,
        INTERVAL,
        [interval(lo, hi) for lo, hi in zip(kept["CI low"], kept["CI high"], strict=True)],
    )
    table = table[[c for c in SHOWN_COLUMNS if c in columns]]
    formats = {"value": number, "adjusted p vs leader": p_value}
    styler = table.style.format({c: f for c, f in formats.items() if c in table.columns})
    if INTERVAL in table.columns:
        styler = styler.set_properties(subset=[INTERVAL], **{"font-family": FIXED_WIDTH})
    return styler.hide(axis="index")


def ranking_notes(
    store: Store, benchmark: str, level: str, aspect: str | None = None, statistic: str = "spearman"
) -> str:
    """What the table leaves out or cannot say: the protocol, small-n intervals, undefined,
    partial and set-apart rows."""
    meta = get_metadata(benchmark)
    aspect = aspect or meta.default_aspect
    view = (store, benchmark, level, aspect, statistic)
    parts = []
    if excluded := meta.protocol.reference_excluded_systems:
        parts.append(
            f"Protocol: every reference-based submission is correlated without "
            f"{', '.join(excluded)} ({meta.protocol.reason}); a reference-free one on every "
            "system, as `comperbench evaluate` does."
        )
    ranked = ranking(*view)
    if (ceiling := human_ceiling(benchmark, level, aspect, statistic)) is not None:
        parts.append(f"Reference (not ranked): {ceiling_line(ceiling)}.")
    parts.extend(f"{line[0].upper()}{line[1:]}." for line in verdict_lines(*view))
    parts.extend(f"Note: {note}." for note in dict.fromkeys(r.row.ci_note for r in ranked) if note)
    parts.extend(f"Not ranked: {describe_unranked(row)}." for row in unranked(*view))
    partial = store.partial(benchmark, source_level(benchmark, level))
    if partial:
        parts.append(
            "Partial submissions (not ranked): "
            + "; ".join(f"{name} ({covered}/{total} items)" for name, covered, total in partial)
        )
    else:
        parts.append("No partial submissions on this benchmark.")
    apart = set_apart(*view)
    if apart:
        parts.append(
            "Scored under other resampling settings, another protocol or another benchmark "
            "version (not ranked): " + "; ".join(describe_apart(r) for r in apart)
        )
    return "\n\n".join(parts)


_STRONG = (27, 94, 32)
"""The colour of p <= 0.001 (dark green); p = 1 is white, in between graded by -log10(p)."""


def p_colour(p: float) -> tuple[str, str]:
    """Background and text colour of a p-value cell: the smaller p, the darker the green."""
    if not math.isfinite(p):
        return "#eeeeee", "#000000"
    strength = min(max(-math.log10(max(p, 1e-12)) / 3.0, 0.0), 1.0)
    rgb = [round(255 + (c - 255) * strength) for c in _STRONG]
    background = "#" + "".join(f"{c:02x}" for c in rgb)
    return background, "#ffffff" if strength > 0.5 else "#000000"


def comparison(
    store: Store, ranked: list[Ranked], benchmark: str, level: str, aspect: str, statistic: str
) -> tuple[str, str | None]:
    """The heatmap of the adjusted p-values of 'row better than column' between the ranked
    metrics of a view, from the view's verdicts (`comparison.view_verdicts`, the object the
    ranking's rank ranges and ties come from), as escaped HTML, with the clusters and the
    resolution stated, and their CSV file, named by the view (None under two ranked metrics)."""
    if len(ranked) < 2:
        return "<p>At least two ranked metrics are needed for a comparison.</p>", None
    verdicts = view_verdicts(store, benchmark, level, aspect, statistic, [r.row for r in ranked])
    labels = {
        str(r.row.metric_id): label
        for r, (label, _) in zip(ranked, metric_choices(ranked), strict=True)
    }
    names = [labels[m] for m in verdicts.metrics]
    frame = pd.DataFrame(verdicts.adjusted, columns=names)
    frame.insert(0, "row better than column", names)
    stem = f"comparison-{benchmark}-{level}-{aspect}-{statistic}"
    caption = (
        f"adjusted p-value that the row metric correlates better than the column metric: "
        f"{html.escape(verdicts.describe())}; seed {SETTINGS.seed}, as "
        "<code>comperbench compare</code> prints them"
    )
    if note := verdicts.resolution.note:
        caption += f". <strong>Note: {html.escape(note)}</strong>"
    clusters = "".join(
        f"<li>cluster {k}: {', '.join(html.escape(labels[m]) for m in members)}</li>"
        for k, members in enumerate(verdicts.clusters(), start=1)
    )
    table = heatmap_table([html.escape(n) for n in names], verdicts.adjusted, caption)
    return f"{table}<p>Significance clusters:</p><ul>{clusters}</ul>", csv_file(frame, stem)


_HEATMAP_STYLE = {
    "box": "overflow-x:auto;max-width:100%",
    "table": "border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums",
    "cell": "padding:3px 5px;text-align:center",
    "col": "writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;"
    "text-align:left;vertical-align:bottom;padding:4px 2px;font-weight:600",
    "row": "position:sticky;left:0;z-index:1;background:var(--background-fill-primary,#fff);"
    "white-space:nowrap;text-align:right;padding:2px 8px;font-weight:600",
}
"""Inline styles of the heatmap: it scrolls sideways within its box when wider than the page,
column labels are written upwards so that 20 metrics fit 1400 px, row labels stay in view."""


def heatmap_table(names: list[str], p: np.ndarray, caption: str) -> str:
    """The p-values between the metrics `names` (escaped) as a colour-graded HTML table under
    `caption` (HTML)."""
    style = _HEATMAP_STYLE
    head = "".join(f'<th scope="col" style="{style["col"]}">{n}</th>' for n in names)
    body = []
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            if i == j:
                cells.append(f'<td style="background:#ddd;{style["cell"]}">-</td>')
                continue
            value = float(p[i, j])
            shade, colour = p_colour(value)
            text = f"{value:.3f}" if math.isfinite(value) else "n/a"
            cells.append(
                f'<td style="background:{shade};color:{colour};{style["cell"]}">{text}</td>'
            )
        body.append(f'<tr><th scope="row" style="{style["row"]}">{name}</th>{"".join(cells)}</tr>')
    return (
        f"<p>{caption}; the darker the green, the smaller p (white: p = 1, darkest: "
        f'p &le; 0.001)</p><div class="heatmap-scroll" style="{style["box"]}">'
        f'<table class="significance" style="{style["table"]}">'
        f'<thead><tr><th style="{style["row"]}"></th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def metric_choices(ranked: list[Ranked]) -> list[tuple[str, int]]:
    """The metric dropdown's (label, metric id) pairs; a name shared by several submissions is
    told apart by its submission number."""
    names = Counter(r.row.metric for r in ranked)
    return [
        (
            r.row.metric
            if names[r.row.metric] == 1
            else f"{r.row.metric} (#{r.row.submission_id})",
            r.row.metric_id,
        )
        for r in ranked
    ]


def ranked_row(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    metric: int | str | None,
) -> Row | None:
    """The ranked row of a metric chosen by its metric id (as the page sends it), if ranked."""
    rows = {
        str(r.row.metric_id): r.row for r in ranking(store, benchmark, level, aspect, statistic)
    }
    return rows.get(str(metric))


def metric_view(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    metric: int | str | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scatter data (metric vs human per item, on the items the protocol correlates) and
    per-system means of one ranked metric, chosen by its metric id, with whether the protocol
    leaves each system out."""
    empty = pd.DataFrame({"metric score": [], "human score": [], "system": []})
    row = ranked_row(store, benchmark, level, aspect, statistic, metric)
    if row is None:
        return empty, pd.DataFrame()
    frame, excluded = _item_frame(store, row, benchmark, level, aspect)
    means = (
        frame.groupby("system", sort=True)
        .agg(
            items=("metric score", "size"),
            metric=("metric score", "mean"),
            human=("human score", "mean"),
        )
        .reset_index()
        .round(4)
    )
    means["in the correlation"] = np.where(means["system"].isin(excluded), "no (protocol)", "yes")
    used = frame[~frame["system"].isin(excluded)]
    return used.dropna(), means


def _item_frame(
    store: Store, row: Row, benchmark: str, level: str, aspect: str
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Every item's metric and human score and system, and the systems the protocol leaves
    out for the row's kind of metric (none for a reference-free one)."""
    item_level = source_level(benchmark, level)
    scores = store.item_scores(row.metric_id, benchmark, item_level)
    bench = cached_benchmark(benchmark, item_level)
    frame = pd.DataFrame(
        {
            "metric score": scores,
            "human score": bench.human_scores(aspect),
            "system": bench.table.column("system").to_pylist(),
        }
    )
    return frame, scored_items(benchmark, item_level, row.reference_free).excluded_systems


def _placing(ranked: list[Ranked], metric_id: int) -> str:
    """A metric's value, interval, rank and rank range in words; an interval over too few units
    is said to be not informative right beside it (the CLI's rule)."""
    for r in ranked:
        if r.row.metric_id == metric_id:
            row = r.row
            small = bootstrap_note(
                row.n, resampled_unit(row.settings.statistic, row.settings.level)
            )
            shown = f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
            if small:
                shown += f" (not informative: {small})"
            return (
                f"{row.settings.statistic} = {row.value:.3f}, {SETTINGS.confidence:.0%} CI "
                f"{shown}, rank {r.rank} of {len(ranked)} (range {r.rank_low}-{r.rank_high}), "
                f"n = {row.n}"
            )
    return "not ranked at this level"


def metric_page(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    metric: int | str | None,
    mine: int | None = None,
) -> tuple[str, str, pd.DataFrame]:
    """The chosen metric's numbers (its correlation, interval, rank and rank range in the view
    and at system level, with the scatter of its system means against the humans'), the scatter
    of its item scores against the humans' on the items the protocol correlates, and its
    per-system means, from one read of its scores; both scatters are headed "your submission"
    when the metric is of submission `mine` (escaped HTML)."""
    row = ranked_row(store, benchmark, level, aspect, statistic, metric)
    items, means = metric_view(store, benchmark, level, aspect, statistic, metric)
    own = row is not None and row.submission_id == mine
    figure = item_scatter_html(
        items["system"].astype(str).tolist(),
        items["metric score"].tolist(),
        items["human score"].tolist(),
        ("" if row is None else row.metric, aspect),
        own=own,
    )
    if row is None:
        return "", figure, means
    return (
        _metric_numbers(store, row, (benchmark, level, aspect, statistic), means, own),
        figure,
        means,
    )


def _metric_numbers(
    store: Store, row: Row, view: tuple[str, str, str, str], means: pd.DataFrame, own: bool
) -> str:
    """The row's placing in the view and at system level, and its system-level scatter."""
    benchmark, level, aspect, statistic = view
    placed = _placing(ranking(store, *view), row.metric_id)
    system = statistic if scored_at(get_statistic(statistic), "system") else "spearman"
    at_system = _placing(ranking(store, benchmark, "system", aspect, system), row.metric_id)
    figure = scatter_html(
        means["system"].astype(str).tolist(),
        means["metric"].tolist(),
        means["human"].tolist(),
        (means["in the correlation"] != "yes").tolist(),
        f"system level: {at_system}",
        (row.metric, aspect),
        own=own,
    )
    return (
        f'<p id="metric-placing"><strong>{html.escape(row.metric)}</strong> on '
        f"{html.escape(benchmark)}, {html.escape(level)} level, {html.escape(aspect)}: "
        f"{html.escape(placed)}.</p>{figure}"
    )


def metric_details(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    metric: int | str | None,
) -> str:
    """The submission of one ranked metric as escaped HTML: name, number, authors, family, its
    link (http(s) only, rel="nofollow noopener") and its description."""
    row = ranked_row(store, benchmark, level, aspect, statistic, metric)
    if row is None:
        return ""
    [sub] = [s for s in store.submissions() if s["id"] == row.submission_id]
    who = html.escape(str(sub["authors"]) or "no authors given")
    parts = [
        f"<p><strong>{html.escape(row.metric)}</strong>, submission #{row.submission_id} by "
        f"{who}{' (baseline)' if row.baseline else ''}</p>",
        f"<p>Family: {html.escape(family(row))}</p>",
    ]
    if urlparse(row.link).scheme in ("http", "https"):
        link = html.escape(row.link)
        parts.append(
            f'<p>Link: <a href="{link}" rel="nofollow noopener noreferrer" '
            f'target="_blank">{link}</a></p>'
        )
    if description := str(sub["description"]).strip():
        parts.append(f"<p>{html.escape(description).replace(chr(10), '<br>')}</p>")
    return f'<div class="submission-details">{"".join(parts)}</div>'


def statistics_lines() -> list[str]:
    """One line per ranking statistic: what it measures and the levels it is scored at."""
    lines = []
    for statistic in leaderboard_statistics():
        levels = [level for level in LEVELS if scored_at(statistic, level)]
        lines.append(
            f"- **{statistic.display_name}** (`{statistic.name}`, {', '.join(levels)} level): "
            f"{statistic.description}."
        )
    return ["\n".join(lines)]


def citation_bibtex() -> str:
    """BibTeX of comperbench and of its leaderboard, from the installed package's metadata: its
    summary, version and project URL (left out when the package declares none)."""
    meta = metadata("comperbench")
    urls = [entry.split(",", 1)[-1].strip() for entry in meta.get_all("Project-URL") or []]
    url = f"  url = {{{urls[0]}}},\n" if urls else ""
    common = f"  author = {{{{comperbench contributors}}}},\n  version = {{{__version__}}},\n{url}"
    return (
        f"@software{{comperbench,\n  title = {{comperbench: {meta['Summary']}}},\n{common}"
        f"  note = {{Python package comperbench, version {__version__}}}\n}}\n\n"
        "@software{comperbench_leaderboard,\n  title = {comperbench leaderboard: correlation "
        f"of automatic dialogue metrics with human judgments}},\n{common}"
        f"  note = {{The Gradio leaderboard app of comperbench {__version__}}}\n}}"
    )


def about_markdown() -> str:
    """The about page: the statistics, the submission format and every benchmark's citation."""
    parts = [
        f"# comperbench leaderboard ({__version__})",
        "Correlation of automatic dialogue metrics with human judgments. Intervals are 95% "
        "percentile bootstrap intervals over items (systems at system level), seeded and shared "
        "by all metrics so that comparisons are paired.",
        "## Statistics",
        *statistics_lines(),
        FORMAT_HELP,
        "## Cite comperbench and this leaderboard",
        f"```bibtex\n{citation_bibtex()}\n```",
        "## Cite the benchmarks",
    ]
    for name in list_benchmarks():
        meta = get_metadata(name)
        parts.append(f"### {name}\n{meta.description}\n\n```bibtex\n{meta.citation.strip()}\n```")
    return "\n\n".join(parts)
