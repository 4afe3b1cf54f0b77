"""What each leaderboard tab shows, as plain data: the ranking table and its notes, the
significance heatmap, the metric page, dataset items and the about page.

Everything is read from the local store and the local benchmark tables.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from functools import cache
from importlib.metadata import metadata
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.leaderboard.comparison import pairwise_tests
from comperbench.leaderboard.items import (
    cached_benchmark,
    scored_items,
    stored_levels,
    submission_template,
)
from comperbench.leaderboard.overall import overall_matrix, overall_view
from comperbench.leaderboard.scoring import leaderboard_statistics, scored_at
from comperbench.leaderboard.service import (
    Ranked,
    describe_apart,
    describe_unranked,
    ranking,
    set_apart,
    unranked,
)
from comperbench.leaderboard.store import Row, Store
from comperbench.leaderboard.submission import MAX_FILE_BYTES, METRIC_FAMILIES
from comperbench.leaderboard.web.downloads import download
from comperbench.leaderboard.web.plots import Matrix, forest_html, heatmap_html, scatter_html
from comperbench.stats import multiplicity
from comperbench.stats.metric_correlation.statistics import LEVELS, get_statistic
from comperbench.stats.multiplicity import NAMES
from comperbench.stats.settings import SETTINGS

RANKING_COLUMNS = [
    "rank",
    "rank range",
    "metric",
    "value",
    "CI low",
    "CI high",
    "p vs leader",
    "tied with leader",
    "n",
    "reference-free",
    "baseline",
    "trained on this benchmark",
    "authors",
    "family",
]
_TYPES = ["number", "str", "str", *["number"] * 4, "str", "number", *["str"] * 5]
COLUMN_TYPES = dict(zip(RANKING_COLUMNS, _TYPES, strict=True))
"""Each ranking column's Dataframe datatype."""
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
    "**rank**: place by the value (ties share the best place). **rank range**: the 2.5th to "
    "97.5th percentile of the metric's rank over the paired bootstrap resamples, every metric "
    "ranked in every resample, so it moves with all the metrics near it. **p vs leader**: "
    "one-sided paired bootstrap p-value (same resamples) that the leader correlates better "
    "than this metric; **tied with leader**: p vs leader of at least {alpha:g}. The two answer "
    "different questions and are kept as they are: the range is two-sided (2.5% in each tail) "
    "and counts every metric at once, the test is one-sided at {alpha:g} and compares one pair, "
    "so a metric that beats the leader in about 3% of the resamples has a range starting at 1 "
    "yet is not tied (p about 0.03); and its range can reach far down when many metrics close "
    "behind it overtake it. The Comparison tab tests every pair with {test} and {correction}, "
    "as `comperbench compare` does."
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
    return GLOSSARY.format(
        alpha=SETTINGS.alpha,
        test=SETTINGS.test.upper(),
        correction=f"{NAMES[SETTINGS.correction]} correction",
    )


def overall_table(
    store: Store, statistic: str, benchmarks: list[str] | None = None
) -> tuple[pd.DataFrame, str, str, str]:
    """The overall ranking by `statistic` over `benchmarks`, its notes, its CSV file and the
    metric x benchmark heatmap of the ranked metrics."""
    frame, notes = overall_view(store, statistic, benchmarks)
    ranked = [str(m) for m, r in zip(frame["metric"], frame["rank"], strict=True) if pd.notna(r)]
    names, values, text = overall_matrix(store, statistic, benchmarks, ranked)
    figure = heatmap_html(Matrix(ranked, names, values, text), statistic)
    return frame, notes, csv_file(frame, f"overall-{statistic}"), figure


def forest(ranked: list[Ranked], statistic: str) -> str:
    """The forest plot of a view's ranking: each metric's value, interval and rank range."""
    labels = [label for label, _ in metric_choices(ranked)]
    rows = [r.row for r in ranked]
    return forest_html(
        labels,
        [r.value for r in rows],
        [r.ci_low for r in rows],
        [r.ci_high for r in rows],
        [f"{r.rank_low}-{r.rank_high}" for r in ranked],
        statistic,
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


def ranking_frame(ranked: list[Ranked], benchmark: str) -> pd.DataFrame:
    """The ranked metrics of a view of `benchmark` (`service.ranking`) as the table's rows, in
    `RANKING_COLUMNS`."""
    rows = []
    for r in ranked:
        rows.append(
            [
                r.rank,
                f"{r.rank_low}-{r.rank_high}",
                r.row.metric,
                round(r.row.value, 4),
                round(r.row.ci_low, 4),
                round(r.row.ci_high, 4),
                None if math.isnan(r.p_vs_leader) else round(r.p_vs_leader, 4),
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


def shown_ranking(
    frame: pd.DataFrame, search: str, reference: str, families: list[str], columns: list[str]
) -> pd.DataFrame:
    """The ranking rows whose metric name contains `search` (any case), that are reference-free
    or reference-based as asked, of the chosen families; the chosen columns, in table order."""
    keep = frame["metric"].str.contains(search.strip(), case=False, regex=False)
    if reference != "all":
        keep &= frame["reference-free"] == ("yes" if reference == "reference-free" else "no")
    keep &= frame["family"].isin(families)
    return frame.loc[keep, [c for c in RANKING_COLUMNS if c in columns]]


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
            f"Protocol: every submission is correlated without {', '.join(excluded)} "
            f"({meta.protocol.reason})."
        )
    ranked = ranking(*view)
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
    """The heatmap of the p-values of 'row better than column' between the ranked metrics of a
    view (`comparison.pairwise_tests`: the test and correction of `stats.settings`, adjusted),
    as escaped HTML, and their CSV file, named by the view (None under two ranked metrics)."""
    if len(ranked) < 2:
        return "<p>At least two ranked metrics are needed for a comparison.</p>", None
    metrics = tuple(
        (r.row.metric_id, label, r.row.settings.benchmark)
        for r, (label, _) in zip(ranked, metric_choices(ranked), strict=True)
    )
    sig, adjusted = pairwise_tests(store, benchmark, level, aspect, statistic, metrics)
    frame = pd.DataFrame(adjusted, columns=sig.metrics)
    frame.insert(0, "row better than column", sig.metrics)
    stem = f"comparison-{benchmark}-{level}-{aspect}-{statistic}"
    described = multiplicity.describe(
        SETTINGS.correction, multiplicity.family_size(adjusted), "one-sided pairwise tests"
    )
    caption = (
        f"p-value that the row metric correlates better than the column metric: "
        f"{SETTINGS.test.upper()} over {sig.n} {sig.unit} ({SETTINGS.n_resamples} permutations, "
        f"seed {SETTINGS.seed}), {described}, as <code>comperbench compare</code> prints them"
    )
    tests = multiplicity.family_size(adjusted)
    floor = tests / (SETTINGS.n_resamples + 1)
    if SETTINGS.correction == "holm" and floor > SETTINGS.alpha:
        caption += (
            f". With {tests} tests and {SETTINGS.n_resamples} permutations the smallest Holm "
            f"p-value is {floor:.3f}, so no pair can be told apart at {SETTINGS.alpha:g} here "
            "(<code>comperbench compare --resamples</code> draws more)"
        )
    names = [html.escape(n) for n in sig.metrics]
    return heatmap_table(names, adjusted, caption), csv_file(frame, stem)


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
    out."""
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
    return frame, scored_items(benchmark, item_level).excluded_systems


def _placing(ranked: list[Ranked], metric_id: int) -> str:
    for r in ranked:
        if r.row.metric_id == metric_id:
            row = r.row
            return (
                f"{row.settings.statistic} = {row.value:.3f}, {SETTINGS.confidence:.0%} CI "
                f"[{row.ci_low:.3f}, {row.ci_high:.3f}], rank {r.rank} of {len(ranked)} "
                f"(range {r.rank_low}-{r.rank_high}), n = {row.n}"
            )
    return "not ranked at this level"


def metric_numbers(
    store: Store,
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    metric: int | str | None,
) -> str:
    """The chosen metric's correlation, interval, rank and rank range in the view and at system
    level, and the system-level scatter of its system means against the humans' (escaped
    HTML)."""
    row = ranked_row(store, benchmark, level, aspect, statistic, metric)
    if row is None:
        return ""
    view = _placing(ranking(store, benchmark, level, aspect, statistic), row.metric_id)
    system = statistic if scored_at(get_statistic(statistic), "system") else "spearman"
    at_system = _placing(ranking(store, benchmark, "system", aspect, system), row.metric_id)
    _, means = metric_view(store, benchmark, level, aspect, statistic, metric)
    figure = scatter_html(
        means["system"].astype(str).tolist(),
        means["metric"].tolist(),
        means["human"].tolist(),
        (means["in the correlation"] != "yes").tolist(),
        f"system level: {at_system}",
        (row.metric, aspect),
    )
    return (
        f'<p id="metric-placing"><strong>{html.escape(row.metric)}</strong> on '
        f"{html.escape(benchmark)}, {html.escape(level)} level, {html.escape(aspect)}: "
        f"{html.escape(view)}.</p>{figure}"
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
