"""The Gradio leaderboard app: the page assembled from its tabs, its launch options, serving it.

gradio is imported when the app is built, so that importing this module needs no app extra.
Everything is served from the local store and the local benchmark tables; the theme uses system
fonts so that the page makes no request outside the machine. An empty store is rebuilt from the
results folder, when one is configured (see `mirror`), in a background thread while the page is
served: the ranking notes say so, and the page redraws itself when the restore is done.
Submissions are refused until then: they would be numbered before the older kept ones, and
the daily limit would count an account's submissions before all of them are back.

Where sign-in is required (`service.sign_in_required`), the Upload tab has Gradio's
`LoginButton`, and the app refuses to start where that sign-in would not be real (`sign_in`):
without a session secret, or off a Space without an explicit local account.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from comperbench.common.extras import requires_extra
from comperbench.leaderboard.mirror import configured
from comperbench.leaderboard.service import restore_in_background, sign_in_required
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import MAX_FILE_BYTES
from comperbench.leaderboard.web.access.sign_in import local_banner, local_sign_in
from comperbench.stats.settings import SETTINGS

if TYPE_CHECKING:
    from gradio import Blocks

QUEUE_IDLE_SECONDS = (0.05, 0.1)
"""How long Gradio's queue sleeps between looks at its events and at their progress when it has
none (Gradio's own on Windows; its 1 ms and 10 ms elsewhere keep an idle server at 6-7% of a
core with no page open). Events that only read the ranking skip the queue (`page.FAST`)."""
POLL_SECONDS = 2.0
"""How often an open page asks whether the background restore is done."""
PAGE_CSS = """
#result textarea { font-family: ui-monospace, monospace; }
#page-header h1 { font-size: 1.5rem; margin: 0; }
#page-header small { font-size: 0.95rem; font-weight: normal; margin-left: 0.6em; }
#ranking-table [role=columnheader], #ranking-table [role=columnheader] * {
  word-break: normal !important; overflow-wrap: normal !important; }
#statistical-setting, #statistical-setting * { font-size: 0.8rem !important; margin: 0; }
"""
"""The upload's result in a fixed-width font (its table of placings lines up); a one-line
header and a small statistics line, so that the ranking starts high on the page; the ranking's
headers wrap between words only."""
TEMP_FILES_KEPT = (900, 3600)
"""Every 15 minutes, Gradio deletes the files it made for a page (downloads) that are older than an
hour; uploads never submitted are deleted sooner (`uploads.UPLOAD_LIFE`), a handled one at once."""


def build(db: str | os.PathLike[str] | None = None, warmed: bool = False) -> Blocks:
    """The Gradio Blocks app on the store at `db` (restored in the background from the results
    folder when it is empty): the view controls above the tabs, and the events that redraw the
    tabs when the view changes, a submission is stored or the restore is done; `warmed`: the
    opening page drawn once first (`warm`), as `serve` does."""
    with requires_extra("the leaderboard app"):
        import gradio as gr

    local = local_sign_in()
    store = Store(db)
    restoring = restore_in_background(store, configured())

    from comperbench.leaderboard.web.page import FAST, view_controls
    from comperbench.leaderboard.web.tabs import (
        CLOSED,
        about_tab,
        comparison_tab,
        dataset_tab,
        metric_tab,
        opening,
        overall_tab,
        ranking_tab,
        upload_tab,
    )

    with gr.Blocks(
        title="comperbench leaderboard", analytics_enabled=False, delete_cache=TEMP_FILES_KEPT
    ) as app:
        gr.Markdown(
            "# comperbench leaderboard <small>How well do dialogue metrics agree with people?"
            "</small>",
            elem_id="page-header",
        )
        if local:
            gr.Markdown(local_banner(local), elem_id="local-sign-in")
        page = view_controls(store, restoring, sign_in_required(), app.upload_file_set)
        if warmed:
            from comperbench.leaderboard.web.warm import warm

            warm(page)
        gr.Markdown(f"Statistics: {SETTINGS.describe()}.", elem_id="statistical-setting")
        timer = gr.Timer(POLL_SECONDS, active=False)
        with gr.Tabs() as tabs:
            ranked = ranking_tab(page)
            overall, draw_overall = overall_tab(page)  # drawn once loaded, and when opened
            metric = metric_tab(page)
            compared = comparison_tab(page)
            dataset, show_item = dataset_tab(page)
            upload, submitted = upload_tab(page)
            about = about_tab()

        outputs = [
            ranked.full,
            ranked.notes,
            ranked.signature,
            metric.metric,
            page.statistic,
        ]
        chosen = gr.on(  # one event, so that the answers to the controls land in turn
            [control.input for control in page.view],
            page.choose,
            page.view,
            [page.level, page.aspect, *outputs],
            **FAST,
        )
        for other in (ranked.tab, overall, compared.tab, dataset, upload, about):
            other.select(outputs=metric.is_open, **CLOSED)
        for other in (ranked.tab, overall, metric.tab, dataset, upload, about):
            other.select(outputs=compared.is_open, **CLOSED)
        polled = timer.tick(page.poll, None, timer, **FAST).then(
            page.redrawn, page.view, outputs, **FAST
        )
        for event in (chosen, submitted.then(page.refresh, page.view, outputs), polled):
            event.then(**metric.redraw_listener)
            event.then(**compared.redraw_listener)
            event.then(**ranked.show, **FAST).then(**ranked.plot, **FAST)
        gr.api(page.ranked_rows, api_name="ranking", queue=False)
        asked = gr.State(False)
        loaded = app.load(  # one request to the first row, then the plot: see tabs.opening
            opening(page),
            [page.statistic, *ranked.show["inputs"][1:]],
            [
                page.benchmark,
                page.level,
                page.aspect,
                *outputs,
                asked,
                ranked.table,
                ranked.download,
            ],
            **FAST,
        )
        loaded.then(**ranked.plot, **FAST).then(**show_item, **FAST).then(**draw_overall, **FAST)
        app.load(page.polling, None, timer, **FAST)
        loaded.then(**metric.redraw_listener)  # a Metric tab opened before the page loaded
        loaded.then(
            lambda wanted, *view: (
                (gr.Tabs(selected="metric"), *metric.open_metric(*view))
                if wanted
                else (gr.update(), *(gr.update() for _ in range(5)))
            ),
            [asked, *page.view, metric.metric],
            [tabs, metric.is_open, metric.details, metric.numbers, metric.scatter, metric.means],
        )
    app.queue(api_open=False)  # a submission waits its turn: /run cannot skip the queue
    queue = app._queue  # no public setting: see QUEUE_IDLE_SECONDS
    queue.sleep_when_free, queue.progress_update_sleep_when_free = QUEUE_IDLE_SECONDS
    return app


def launch_options() -> dict[str, Any]:
    """`launch` arguments: system fonts (no font CDN), no share link, no SSR node, the size limit
    of one file, the bounds of one request and of the uploads held (`limits.BoundedBody`), and
    the expiry of uploads never submitted (`uploads.sweeping`), and the client's mistakes answered
    as such (`answers.ClientErrors`)."""
    with requires_extra("the leaderboard app"):
        import gradio as gr
        from starlette.middleware import Middleware

    from comperbench.leaderboard.web.access.answers import ClientErrors
    from comperbench.leaderboard.web.access.limits import BoundedBody
    from comperbench.leaderboard.web.access.uploads import sweeping

    theme = gr.themes.Default(
        font=["ui-sans-serif", "system-ui", "sans-serif"],
        font_mono=["ui-monospace", "monospace"],
    )
    return {
        "theme": theme,
        "share": False,
        "ssr_mode": False,
        "max_file_size": MAX_FILE_BYTES,
        "app_kwargs": {
            "middleware": [Middleware(BoundedBody), Middleware(ClientErrors)],
            "lifespan": sweeping,
        },
        "footer_links": [],
        "css": PAGE_CSS,
    }


def sign_in_checked(host: str) -> str | None:
    """`sign_in.local_sign_in` for serving at `host`, before anything is built."""
    with requires_extra("the leaderboard app"):
        return local_sign_in(host)


def serve(
    db: str | os.PathLike[str] | None = None, host: str = "127.0.0.1", port: int = 7860
) -> None:
    """Serve the app on the store at `db` at `host`:`port`."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from comperbench.leaderboard.web.access.uploads import own_folder

    os.environ.setdefault("GRADIO_TEMP_DIR", str(own_folder()))
    local = sign_in_checked(host)
    app = build(db, warmed=True)
    app.launch(
        server_name=host, server_port=port, quiet=True, prevent_thread_lock=True, **launch_options()
    )
    print(f"serving the leaderboard on {app.local_url} (Ctrl+C stops it)", flush=True)
    if local:
        print(f"warning: local sign-in: everyone who signs in is {local}", file=sys.stderr)
    try:
        threading.Event().wait()  # Ctrl+C: the KeyboardInterrupt is the command line's to report
    finally:
        app.close()
