"""The leaderboard's tabs, one builder each: ranking, metric page, comparison, dataset, upload and
about. A builder lays its tab out, wires the events within it and returns what the page wires
across tabs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from comperbench.common.extras import requires_extra
from comperbench.leaderboard.items import stored_levels
from comperbench.leaderboard.overall import (
    COVERAGE_RULE,
    HEADLINE_STATISTIC,
    NOT_RANKED,
    OVERALL_COLUMNS,
)
from comperbench.leaderboard.scoring import leaderboard_statistics
from comperbench.leaderboard.service import ranking, submissions_per_day
from comperbench.leaderboard.submission import METRIC_FAMILIES
from comperbench.leaderboard.web.dataset_view import ALL_SYSTEMS, item_view, system_choices
from comperbench.leaderboard.web.page import FAST, Listener, Page, check_view
from comperbench.leaderboard.web.plots import SCATTER_LABEL
from comperbench.leaderboard.web.views import (
    COLUMN_TYPES,
    DEFAULT_COLUMNS,
    FAMILIES,
    FORMAT_HELP,
    REFERENCES,
    SHOWN_COLUMNS,
    RankingView,
    about_markdown,
    comparison,
    csv_file,
    glossary,
    metric_details,
    metric_page,
    overall_table,
    shown_ranking,
    shown_rows,
    template_file,
)
from comperbench.leaderboard.web.views import forest as forest_of

with requires_extra("the leaderboard app"):
    import gradio as gr
    from gradio.events import Dependency

TABLE_HEIGHT = 620
"""The ranking table's height before it scrolls within its box: 15 rows."""


@dataclass(frozen=True)
class RankingTab:
    """The ranking table (the view's `RankingView` in `full`, the rows searched and filtered
    shown), its CSV download, the forest plot of the same rows, its notes (partial, set-apart
    and unranked rows) and the signature; `show` draws the table, `plot` the forest plot."""

    tab: gr.Tab
    full: gr.State
    table: gr.Dataframe
    download: gr.DownloadButton
    forest: gr.HTML
    notes: gr.Textbox
    signature: gr.Textbox
    show: Listener
    plot: Listener


def _shown(
    view: RankingView | None, search: str, reference: str, families: list[str], columns: list[str]
) -> tuple[Any, Any]:
    """The table of the rows searched and filtered, in the chosen columns, and every column of
    those rows as CSV (numbers unrounded)."""
    if view is None:  # before the page's first view is drawn
        return gr.update(), gr.update()
    shown = shown_ranking(view.frame, search, reference, families, columns)
    datatype = [COLUMN_TYPES[c] for c in shown.columns]
    kept = view.frame.loc[shown_rows(view.frame, search, reference, families)]
    return gr.Dataframe(shown, datatype=datatype), csv_file(kept, "ranking")


def ranking_tab(page: Page) -> RankingTab:
    """The ranking of the full-coverage submissions of the view: search by name, filters by
    references and family and a choice of columns (folded), the shown rows as CSV and their
    forest plot, the page's own submission highlighted."""
    with gr.Tab("Ranking", id="ranking") as tab:
        with gr.Row(equal_height=False, elem_id="ranking-controls"):
            search = gr.Textbox(
                label="search metric",
                show_label=False,
                placeholder="search metric",
                container=False,
                elem_id="ranking-search",
                scale=1,
                min_width=220,
            )
            with (
                gr.Column(scale=4, min_width=300),
                gr.Accordion("filters and columns", open=False, elem_id="ranking-filters"),
            ):
                with gr.Row():
                    reference = gr.Radio(
                        REFERENCES,
                        value="all",
                        label="references",
                        elem_id="ranking-references",
                        scale=2,
                    )
                    families = gr.CheckboxGroup(
                        FAMILIES,
                        value=FAMILIES,
                        label="family",
                        elem_id="ranking-families",
                        scale=3,
                    )
                columns = gr.CheckboxGroup(
                    SHOWN_COLUMNS,
                    value=DEFAULT_COLUMNS,
                    label="columns",
                    elem_id="ranking-columns",
                )
            download = gr.DownloadButton(
                "Download CSV", elem_id="ranking-csv", size="sm", scale=0, min_width=130
            )
        full = gr.State(None)
        table = gr.Dataframe(
            headers=DEFAULT_COLUMNS,
            datatype=[COLUMN_TYPES[c] for c in DEFAULT_COLUMNS],
            interactive=False,
            show_label=False,
            label="full-coverage submissions",
            max_height=TABLE_HEIGHT,
            wrap=True,
            elem_id="ranking-table",
        )
        forest = gr.HTML(elem_id="ranking-forest")
        gr.Markdown(glossary(), elem_id="ranking-glossary")
        notes = gr.Textbox(label="partial", interactive=False, elem_id="partial")
        signature = gr.Textbox(label="signature", interactive=False)
    filters = [full, search, reference, families]
    show: Listener = {
        "fn": _shown,
        "inputs": [*filters, columns],
        "outputs": [table, download],
    }

    def plotted(
        view: RankingView | None,
        search: str,
        reference: str,
        families: list[str],
        request: gr.Request,
    ) -> Any:
        if view is None:
            return gr.update()
        shown = shown_rows(view.frame, search, reference, families).tolist()
        return forest_of(view.ranked, view.statistic, shown, page.mine(request), view.ceiling)

    plot: Listener = {"fn": plotted, "inputs": filters, "outputs": [forest]}
    for control in (search, reference, families):
        control.input(**show, **FAST).then(**plot, **FAST)
    columns.input(**show, **FAST)
    return RankingTab(tab, full, table, download, forest, notes, signature, show, plot)


def opening(page: Page) -> Callable[..., tuple[Any, ...]]:
    """The page's load in one request: the view its address asks for (`Page.opened`), then the
    ranking table of it and its CSV (the forest plot follows as its own event)."""

    def opened(
        statistic: str,
        search: str,
        reference: str,
        families: list[str],
        columns: list[str],
        request: gr.Request,
    ) -> tuple[Any, ...]:
        drawn = page.opened(statistic, request)
        return (*drawn, *_shown(drawn[3], search, reference, families, columns))

    return opened


_OVERALL_TYPES = ["number", "str", "str", "number", "number", "number", "str", "str", "str"]
"""The overall table's column datatypes; the list of metrics not ranked has text as its rank."""
_RANKED_LABEL = "ranked by the mean correlation shown, within one coverage group"
_NOT_RANKED_LABEL = "not ranked: why, in the place of the rank"


def _overall(page: Page, statistic: str, chosen: list[str], group: str | None) -> tuple[Any, ...]:
    check_view(page.benchmarks, page.first, statistic, *(chosen or []), *([group] if group else []))
    shown = overall_table(page.store, statistic, chosen or None, group)
    listed = shown.choice == NOT_RANKED
    label = _NOT_RANKED_LABEL if listed else _RANKED_LABEL
    types = ["str" if listed else "number", *_OVERALL_TYPES[1:]]
    return (
        gr.Dropdown(choices=shown.choices, value=shown.choice),
        shown.heading,
        gr.Dataframe(shown.table, datatype=types, label=label),
        shown.notes,
        shown.csv,
        shown.heatmap,
    )


def overall_tab(page: Page) -> tuple[gr.Tab, Listener]:
    """Metrics ranked across the chosen benchmarks by a chosen statistic, one coverage group at
    a time (the largest group of two or more metrics first; the metrics not ranked are a choice
    of their own), the rule under the table, the notes and the metric x benchmark heatmap; the
    tab and the listener that draws it (also on opening the tab or changing its choices).

    One group at a time rather than every group in a section of its own: one table keeps one
    rank column that Gradio sorts and searches, and its heatmap stays next to it.
    """
    with gr.Tab("Overall", id="overall") as tab:
        with gr.Row():
            statistic = gr.Dropdown(
                [(s.display_name, s.name) for s in leaderboard_statistics()],
                value=HEADLINE_STATISTIC,
                label="overall correlation",
                scale=1,
            )
            benchmarks = gr.CheckboxGroup(
                page.benchmarks,
                value=page.ranked_benchmarks(),
                label="benchmarks (none chosen: every benchmark with a ranked metric)",
                elem_id="overall-benchmarks",
                scale=4,
            )
        group = gr.Dropdown(  # its choices change with the view: a gone one shows the default
            [], label="coverage group", elem_id="overall-group", allow_custom_value=True
        )
        heading = gr.Markdown(elem_id="overall-heading")
        table = gr.Dataframe(
            headers=OVERALL_COLUMNS,
            datatype=_OVERALL_TYPES,
            interactive=False,
            label=_RANKED_LABEL,
            elem_id="overall-table",
        )
        gr.Markdown(COVERAGE_RULE, elem_id="overall-coverage")
        download = gr.DownloadButton("Download CSV (every group)", elem_id="overall-csv", size="sm")
        heatmap = gr.HTML(elem_id="overall-figure")
        notes = gr.Textbox(label="notes", interactive=False, elem_id="overall-notes")

    draw: Listener = {
        "fn": lambda *chosen: _overall(page, *chosen),
        "inputs": [statistic, benchmarks, group],
        "outputs": [group, heading, table, notes, download, heatmap],
    }
    for control in (statistic, benchmarks, group):
        control.input(**draw)
    tab.select(**draw)
    return tab, draw


@dataclass(frozen=True)
class MetricTab:
    """One metric against the human scores: a scatter per item and the per-system means.

    The page is drawn while it is open (on opening it, choosing its metric, or changing the view
    while it is open), not on every ranking refresh behind another tab. Its item scatter is a
    static figure: thousands of points drawn by the browser slowed the next switch down.
    """

    page: Page
    tab: gr.Tab
    metric: gr.Dropdown
    details: gr.HTML
    numbers: gr.HTML
    scatter: gr.HTML
    means: gr.Dataframe
    is_open: gr.Checkbox

    @property
    def redraw_listener(self) -> Listener:
        """Redraws the details, numbers, scatters and means of the chosen metric if the page is
        open."""
        inputs = [self.is_open, *self.page.view, self.metric]
        outputs = [self.details, self.numbers, self.scatter, self.means]
        return {"fn": self.redraw, "inputs": inputs, "outputs": outputs}

    def redraw(
        self,
        is_open: bool,
        benchmark: str,
        level: str,
        aspect: str,
        statistic: str,
        metric: int | str | None,
        request: gr.Request | None = None,
    ) -> tuple[Any, ...]:
        """The metric's submission, scatter and means, or no change while the page is closed."""
        if not is_open:
            return gr.update(), gr.update(), gr.update(), gr.update()
        return self.drawn(benchmark, level, aspect, statistic, metric, request)

    def drawn(
        self,
        benchmark: str,
        level: str,
        aspect: str,
        statistic: str,
        metric: int | str | None,
        request: gr.Request | None = None,
    ) -> tuple[Any, ...]:
        """The submission, numbers, scatters and means of the view and metric; the plots say
        so when the metric is of the page's own submission."""
        check_view(self.page.benchmarks, benchmark, level, aspect, statistic)
        store = self.page.store
        view = (store, benchmark, level, aspect, statistic, metric)
        mine = self.page.mine(request)
        return metric_details(*view), *metric_page(*view, mine)

    def open_metric(
        self,
        benchmark: str,
        level: str,
        aspect: str,
        statistic: str,
        metric: int | str | None,
        request: gr.Request | None = None,
    ) -> tuple[Any, ...]:
        """The page opened: it is open, with the submission, scatter and means of the metric."""
        return (True, *self.drawn(benchmark, level, aspect, statistic, metric, request))


def open_flag() -> gr.Checkbox:
    """Whether a tab is open: a hidden checkbox, not a `gr.State`, so that the other tabs clear it
    in the browser (`CLOSED`) rather than by a request on every switch."""
    return gr.Checkbox(False, visible="hidden")


CLOSED: dict[str, Any] = {"fn": None, "inputs": None, "js": "() => false", **FAST}
"""An event that clears an `open_flag` (its output) in the browser."""


def metric_tab(page: Page) -> MetricTab:
    """The metric page: drawn on opening it and on choosing its metric (which is only done on
    the open page, so it is drawn whether or not the drawing on opening is done)."""
    with gr.Tab("Metric", id="metric") as tab:
        metric = gr.Dropdown([], label="metric", elem_id="metric-choice")
        details = gr.HTML(elem_id="submission-details")
        numbers = gr.HTML(elem_id="metric-numbers")
        scatter = gr.HTML(label=SCATTER_LABEL, elem_id="metric-items")
        means = gr.Dataframe(label="per-system means", interactive=False)
        is_open = open_flag()
    shown = MetricTab(page, tab, metric, details, numbers, scatter, means, is_open)
    drawn = [details, numbers, scatter, means]
    metric.input(shown.drawn, [*page.view, metric], drawn)  # chosen on the open page
    tab.select(shown.open_metric, [*page.view, metric], [is_open, *drawn])
    return shown


@dataclass(frozen=True)
class ComparisonTab:
    """The heatmap of pairwise tests between the view's ranked metrics and their CSV, drawn
    while the tab is open (the tests take seconds on large views). A view chosen while it is
    closed leaves it as it is: that redraw may be answered after the tab has opened and drawn
    the view, and must not undo it."""

    page: Page
    tab: gr.Tab
    heatmap: gr.HTML
    download: gr.DownloadButton
    is_open: gr.Checkbox

    def drawn(self, *view: str) -> tuple[str, str | None]:
        check_view(self.page.benchmarks, *view)
        return comparison(self.page.store, ranking(self.page.store, *view), *view)

    def redraw(self, is_open: bool, *view: str) -> tuple[Any, ...]:
        return self.drawn(*view) if is_open else (gr.update(), gr.update())

    @property
    def redraw_listener(self) -> Listener:
        inputs = [self.is_open, *self.page.view]
        return {"fn": self.redraw, "inputs": inputs, "outputs": [self.heatmap, self.download]}


def comparison_tab(page: Page) -> ComparisonTab:
    """The tab, its heatmap of pairwise p-values between the ranked metrics and their CSV."""
    with gr.Tab("Comparison", id="comparison") as tab:
        heatmap = gr.HTML(elem_id="heatmap")
        download = gr.DownloadButton("Download CSV", elem_id="comparison-csv", size="sm")
        is_open = open_flag()
    shown = ComparisonTab(page, tab, heatmap, download, is_open)
    opened = [is_open, heatmap, download]
    # FAST: the verdicts it draws are those of the ranking, already computed by its own FAST event
    tab.select(lambda *view: (True, *shown.drawn(*view)), page.view, opened, **FAST)
    return shown


def dataset_tab(page: Page) -> tuple[gr.Tab, Listener]:
    """The dataset browser, one item at a time as a dialogue with its ratings, optionally of one
    system; the tab and the listener that shows its item."""
    levels = stored_levels(page.first)
    with gr.Tab("Dataset", id="dataset") as tab:
        with gr.Row():
            benchmark = gr.Dropdown(page.benchmarks, value=page.first, label="benchmark")
            level = gr.Dropdown(levels, value=levels[0], label="level")
            system = gr.Dropdown(
                system_choices(page.first, levels[0]), value=ALL_SYSTEMS, label="system"
            )
            position = gr.Number(value=0, precision=0, label="item (0-based)")
        counter = gr.Markdown(elem_id="dataset-counter")
        item = gr.HTML(elem_id="dataset-item")

    def systems(name: str, chosen_level: str) -> Any:
        check_view(page.benchmarks, name, chosen_level)
        return gr.update(choices=system_choices(name, chosen_level), value=ALL_SYSTEMS)

    def switched(name: str) -> tuple[Any, Any]:
        check_view(page.benchmarks, name)
        first = stored_levels(name)[0]
        return gr.update(choices=stored_levels(name), value=first), systems(name, first)

    benchmark.input(switched, benchmark, [level, system], **FAST)
    level.input(systems, [benchmark, level], system, **FAST)

    def shown_item(name: str, chosen_level: str, system: str, position: float) -> tuple[str, str]:
        check_view(page.benchmarks, name, chosen_level, system)
        return item_view(name, chosen_level, system, position)

    show_item: Listener = {
        "fn": shown_item,
        "inputs": [benchmark, level, system, position],
        "outputs": [item, counter],
    }
    for control in (benchmark, level, system, position):
        control.change(**show_item)
    return tab, show_item


def template_row(page: Page) -> None:
    """A benchmark and level, and their submission template to download."""
    levels = stored_levels(page.first)
    with gr.Row():
        benchmark = gr.Dropdown(page.benchmarks, value=page.first, label="template benchmark")
        level = gr.Dropdown(levels, value=levels[0], label="template level")
        download = gr.DownloadButton(
            "Download template", template_file(page.first, levels[0]), elem_id="template-csv"
        )

    def switched(name: str) -> tuple[Any, str | None]:
        check_view(page.benchmarks, name)
        first = stored_levels(name)[0]
        return gr.update(choices=stored_levels(name), value=first), template_file(name, first)

    def template(name: str, chosen_level: str) -> str | None:
        check_view(page.benchmarks, name, chosen_level)
        return template_file(name, chosen_level)

    benchmark.input(switched, benchmark, [level, download], **FAST)
    level.input(template, [benchmark, level], download, **FAST)


def upload_tab(page: Page) -> tuple[gr.Tab, Dependency]:
    """The submission form (with the sign-in button where submitting needs it) and its result;
    the tab and the submit event. Submissions are handled one at a time, so that an account's
    count of stored submissions is exact when its limit is checked; the file is cleared after."""
    with gr.Tab("Upload", id="upload") as tab:
        if page.sign_in:
            gr.Markdown(
                "**Sign in with Hugging Face to submit.** Your account name is recorded with"
                f" the submission; an account may store {submissions_per_day()} submissions"
                " in any 24 hours."
            )
            gr.LoginButton(elem_id="sign-in")
        gr.Markdown(FORMAT_HELP)
        template_row(page)
        upload = gr.File(
            label="submission file",
            file_count="single",
            type="filepath",
            elem_id="upload-file",
        )
        with gr.Row():
            name = gr.Textbox(label="metric name")
            authors = gr.Textbox(label="authors")
            link = gr.Textbox(label="link (paper or code)")
        description = gr.Textbox(label="description", lines=2)
        with gr.Row():
            reference_free = gr.Checkbox(label="reference-free")
            trained_on = gr.Dropdown(page.benchmarks, multiselect=True, label="trained or tuned on")
            family = gr.Dropdown(
                [("not declared", ""), *METRIC_FAMILIES], value="", label="metric family"
            )
        send = gr.Button("Submit", variant="primary")
        result = gr.Textbox(label="result", lines=8, interactive=False, elem_id="result")
        links = gr.HTML(elem_id="result-links")
    fields = [upload, name, authors, link, description, reference_free, trained_on, family]
    submitted = send.click(page.on_upload, fields, [result, links], concurrency_limit=1)
    submitted.then(lambda: None, None, upload, **FAST)  # the handled upload is deleted
    return tab, submitted


def about_tab() -> gr.Tab:
    """The statistics, the submission format and the benchmarks' citations."""
    with gr.Tab("About", id="about") as tab:
        gr.Markdown(about_markdown())
    return tab
