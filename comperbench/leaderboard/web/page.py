"""What the leaderboard's tabs share: the store, the view controls above the tabs and the
handlers that read or write the store for them.

Every check of a submission is made in `Page.on_upload`, which the form and the
`/gradio_api/call/on_upload` API share: sign-in where required, the restore still running, the
account's daily limit, the size and the validation; the limit is checked again in the
transaction that stores, so that requests running in parallel cannot all pass it (the app's
queue runs one submission at a time, and `/gradio_api/run` cannot skip it). The handler reads and deletes only a file that Gradio's upload route
handed out and that no other request has claimed; any other path is neither read nor deleted.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlencode

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.common.errors import ComperbenchError
from comperbench.common.extras import requires_extra
from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.placings import placings_of, placings_text
from comperbench.leaderboard.seeding.verdicts import OPENING_STATISTIC
from comperbench.leaderboard.service import Refused, Restoring, admit, ranking, submit
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import (
    MAX_FILE_BYTES,
    SubmissionError,
    SubmissionMeta,
    file_name_of,
)
from comperbench.leaderboard.web.views import (
    metric_choices,
    ranking_frame,
    ranking_notes,
    ranking_view,
    statistic_choices,
    view_levels,
)

with requires_extra("the leaderboard app"):
    import gradio as gr
    from gradio.components import Component

FLAGSHIP = "usr-topical"
"""The benchmark the page opens on when it has ranked metrics: a much cited one with references,
context and grounding, so that every turn-level baseline is ranked there."""
FAST: dict[str, Any] = {"queue": False, "show_progress": "hidden", "trigger_mode": "always_last"}
"""Options of the events that only read the ranking (a few milliseconds): no queue, no spinner,
and a choice made while the last one is drawn is drawn after it, never dropped (Gradio's default
for `.input` drops it, leaving a control that shows one view over the table of another)."""


def offered(choices: list[Any], chosen: str, fallback: str) -> tuple[str, Any]:
    """`chosen` if one of `choices` (values or (label, value) pairs) is it, else `fallback`;
    and the control's update: its choices, and its value only when that changes. An answer
    computed from the controls as they were must not write back a choice the user has changed
    since (a dropdown sends its choice twice, on choosing and on losing focus, so an answer to
    the older one can land after the next choice is made)."""
    values = [c[1] if isinstance(c, tuple) else c for c in choices]
    if chosen in values:
        return chosen, gr.update(choices=choices)
    return fallback, gr.update(choices=choices, value=fallback)


def check_view(benchmarks: list[str], benchmark: Any, *values: Any) -> None:
    """Refuse (`gr.Error`, a one-line message) a view whose values are not all text or whose
    benchmark is not one of `benchmarks`: the API lets a caller send any value."""
    for value in (benchmark, *values):
        if not isinstance(value, str):
            raise gr.Error(f"refused: the view's values are names, not {type(value).__name__}")
    if benchmark not in benchmarks:
        raise gr.Error(f"refused: unknown benchmark {benchmark[:100]!r}")


VIEW_OUTPUTS = 5
"""How many values `Page.refresh` returns."""
OWN_KEPT = 10_000
"""How many pages' own submissions are remembered (the page's memory stays bounded)."""
UPLOAD_STATISTIC = "spearman"
"""The statistic an accepted upload's placings are shown in (as `comperbench submit` prints
them by default)."""


class Listener(TypedDict):
    """The arguments of an event listener: the handler, its inputs and its outputs."""

    fn: Callable[..., Any]
    inputs: list[Component]
    outputs: list[Component]


@dataclass(frozen=True)
class Page:
    """The store, the item index uploads are checked against, the benchmarks (`first` shown on
    opening), the restore running in the background, whether submitting needs a sign-in, and
    the view controls: which benchmark, level, aspect and correlation is shown; `uploaded` is
    the app's set of files its upload route handed out (Gradio's `Blocks.upload_file_set`);
    `own` the submission each open page (by Gradio's session hash) stored last, highlighted
    in its plots."""

    store: Store
    index: ItemIndex
    benchmarks: list[str]
    first: str
    restoring: Restoring
    sign_in: bool
    benchmark: gr.Dropdown
    level: gr.Dropdown
    aspect: gr.Dropdown
    statistic: gr.Dropdown
    uploaded: set[str]
    own: dict[str, int] = field(default_factory=dict)

    @property
    def view(self) -> list[Component]:
        """The view controls, in the order of the handlers' view arguments."""
        return [self.benchmark, self.level, self.aspect, self.statistic]

    def ranked_benchmarks(self) -> list[str]:
        """The benchmarks with a ranked metric, in the page's order (the Overall tab's default)."""
        ranked = self.store.ranked_benchmarks()
        return [b for b in self.benchmarks if b in ranked]

    def choose(self, benchmark: str, level: str, aspect: str, statistic: str) -> tuple[Any, ...]:
        """The view the controls ask for, in one round trip: the benchmark's levels and aspects
        (a level or aspect it lacks is replaced by its first level or its default aspect) and
        the view drawn (`refresh`)."""
        check_view(self.benchmarks, benchmark, level, aspect, statistic)
        meta = get_metadata(benchmark)
        levels = view_levels(benchmark)
        level, level_update = offered(levels, level, levels[0])
        aspect, aspect_update = offered(list(meta.aspect_names), aspect, meta.default_aspect)
        return level_update, aspect_update, *self.refresh(benchmark, level, aspect, statistic)

    def refresh(
        self, benchmark: str, level: str, aspect: str, statistic: str, metric: Any = None
    ) -> tuple[Any, ...]:
        """The ranking (`RankingView`, which the table and the forest plot are drawn from), its
        notes, the signature, the metric choices (`metric` chosen when ranked, else the first)
        and the statistics scored at the level (`VIEW_OUTPUTS` values); a statistic not scored
        there is replaced by the first one that is, and only then is the statistic's value
        written (`offered`)."""
        check_view(self.benchmarks, benchmark, level, aspect, statistic)
        meta = get_metadata(benchmark)
        if level not in view_levels(benchmark):
            level = view_levels(benchmark)[0]
        if aspect not in meta.aspect_names:
            aspect = meta.default_aspect
        statistics = statistic_choices(level)
        statistic, statistic_update = offered(statistics, statistic, statistics[0][1])
        ranked = ranking(self.store, benchmark, level, aspect, statistic)
        choices = metric_choices(ranked)
        sig = ranked[0].row.signature if ranked else "no ranked submissions yet"
        notes = ranking_notes(self.store, benchmark, level, aspect, statistic)
        ids = [str(value) for _, value in choices]
        chosen = metric if str(metric) in ids else (choices[0][1] if choices else None)
        return (
            ranking_view(ranked, benchmark, level, aspect, statistic),
            f"{self.restoring_notice}\n{notes}" if self.restoring.running else notes,
            sig,
            gr.update(choices=choices, value=int(chosen) if chosen is not None else None),
            statistic_update,
        )

    def opened(self, statistic: str, request: gr.Request) -> tuple[Any, ...]:
        """The page as its address asks (`?benchmark=...&level=...&aspect=...&metric=...`, as
        `row_link` writes it; unknown values fall back to the defaults): the view controls,
        the drawn view, and whether a metric was asked for (the metric page is opened)."""
        asked = dict(request.query_params) if request is not None else {}
        benchmark = asked.get("benchmark", "")
        if benchmark not in self.benchmarks:
            benchmark = self.first
        meta = get_metadata(benchmark)
        levels = view_levels(benchmark)
        level = asked.get("level") if asked.get("level") in levels else levels[0]
        aspect = asked.get("aspect") or meta.default_aspect
        if aspect not in meta.aspect_names:
            aspect = meta.default_aspect
        drawn = self.refresh(benchmark, level, aspect, statistic, asked.get("metric"))
        return (
            gr.update(value=benchmark),
            gr.update(choices=levels, value=level),
            gr.update(choices=list(meta.aspect_names), value=aspect),
            *drawn,
            "metric" in asked,
        )

    def ranked_rows(
        self, benchmark: str, level: str, aspect: str, statistic: str
    ) -> list[dict[str, Any]]:
        """The ranking of one view (benchmark, level, aspect and correlation, as in the page's
        controls) as one record per ranked metric, keyed by the table's column names; a value
        not computed (the leader's p-value) is null."""
        check_view(self.benchmarks, benchmark, level, aspect, statistic)
        ranked = ranking(self.store, benchmark, level, aspect, statistic)
        frame = ranking_frame(ranked, benchmark)
        return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")

    @property
    def restoring_notice(self) -> str:
        return f"Restoring {self.restoring.count} saved submission(s)… the ranking is incomplete."

    def polling(self) -> Any:
        """The restore poll's timer, running only while the restore is (checked when a page
        loads, not when the app is built)."""
        return gr.Timer(active=self.restoring.running)

    def poll(self) -> Any:
        """The timer, stopped once the restore is done. The redraw follows as its own event, so
        that it reads the view as it is then, never as it was at the tick (a tick answered late
        must not undo a choice made meanwhile)."""
        return gr.update() if self.restoring.running else gr.Timer(active=False)

    def redrawn(self, *view: str) -> tuple[Any, ...]:
        """The redrawn view once the restore is done (it never runs again); no change before."""
        if self.restoring.running:
            return tuple(gr.update() for _ in range(VIEW_OUTPUTS))
        return self.refresh(*view)

    def on_upload(
        self,
        file: str | None,
        name: str,
        authors: str,
        link: str,
        description: str,
        reference_free: bool,
        trained_on: list[str],
        family: str | None,
        profile: gr.OAuthProfile | None,
        request: gr.Request | None = None,
    ) -> tuple[str, str]:
        """Check, validate, score and store an uploaded file as made by the signed-in account;
        what happened to it, for the user (an empty `family` declares none), with its value,
        interval, rank and rank range where it was scored, and links to its rows; the stored
        submission becomes the page's own (`own`, by the request's session). The file is
        deleted once handled; a path not handed out by the upload route, or claimed by another
        request already, is refused untouched."""
        if file and not self._claim(file):
            name = file_name_of(str(file))
            return f"refused: {name!r} is not a file uploaded here; upload it again", ""
        try:
            meta = SubmissionMeta(
                name=name or "",
                authors=authors or "",
                link=(link or "").strip(),
                description=description or "",
                reference_free=reference_free,
                trained_on=tuple(trained_on or ()),
                family=family or None,
            )
            account = None if profile is None else profile.username
            session = request.session_hash if request is not None else None
            return self._submit(file, meta, account, session)
        finally:
            if file:
                Path(file).unlink(missing_ok=True)

    def remember(self, session: str, submission_id: int) -> None:
        """Submission `submission_id` is the page `session`'s own (the oldest pages forgotten
        past `OWN_KEPT`)."""
        self.own.pop(session, None)
        self.own[session] = submission_id
        while len(self.own) > OWN_KEPT:
            del self.own[next(iter(self.own))]

    def mine(self, request: gr.Request | None = None) -> int | None:
        """The submission the requesting page stored last, if any."""
        return self.own.get(request.session_hash) if request and request.session_hash else None

    def _claim(self, file: str) -> bool:
        """Take `file` out of the uploaded set: whether it was there (only one request can)."""
        try:
            self.uploaded.remove(file)
        except KeyError:
            return False
        return True

    def _submit(
        self, file: str | None, meta: SubmissionMeta, account: str | None, session: str | None
    ) -> tuple[str, str]:
        try:
            admit(self.store, account, self.sign_in)
            if self.restoring.running:
                raise Refused(f"{self.restoring_notice} Submit again in a few minutes.")
            if not file:
                return "Choose a file to upload.", ""
            path = Path(file)
            if path.stat().st_size > MAX_FILE_BYTES:
                return f"rejected: the file is larger than {MAX_FILE_BYTES} bytes", ""
            raw = path.read_bytes()
            outcome = submit(
                path.name, raw, meta, self.store, self.index, account=account, limited=True
            )
        except Refused as exc:
            return f"refused: {exc}", ""
        except SubmissionError as exc:
            return str(exc), ""
        except ComperbenchError as exc:
            return f"rejected: {exc}", ""
        if session:
            self.remember(session, outcome.stored.submission_id)
        placed = placings_of(self.store, outcome, UPLOAD_STATISTIC)
        if not placed:
            return outcome.summary(), ""
        text = f"{outcome.summary()}\n{placings_text(placed, UPLOAD_STATISTIC)}"
        return text, row_links(placed)


def row_link(placing: dict[str, Any]) -> str:
    """The page's address (relative) that opens a placing's view with its metric chosen."""
    keys = ("benchmark", "level", "aspect", "metric_id")
    query = {k.removesuffix("_id"): placing[k] for k in keys}
    return f"?{urlencode(query)}"


def row_links(placings: list[dict[str, Any]]) -> str:
    """Links to the ranked rows of an upload, one per benchmark level, on its default aspect
    (escaped HTML)."""
    links = [
        f'<li><a href="{html.escape(row_link(p))}" target="_top">'
        f"{html.escape(p['metric'])} on {html.escape(p['benchmark'])} ({p['level']}): "
        f"rank {p['rank']} of {p['of']}</a></li>"
        for p in placings
        if "rank" in p and p["aspect"] == get_metadata(p["benchmark"]).default_aspect_at(p["level"])
    ]
    return f"<p>Open its rows:</p><ul>{''.join(links)}</ul>" if links else ""


def view_controls(store: Store, restoring: Restoring, sign_in: bool, uploaded: set[str]) -> Page:
    """The page on `store`, its view controls in a row, on the flagship benchmark (on the first
    ranked one when the flagship has no ranked metric but another has); `uploaded`: the files
    the app's upload route handed out."""
    index = ItemIndex()
    benchmarks = list_benchmarks()
    ranked = store.ranked_benchmarks()
    first = FLAGSHIP if FLAGSHIP in ranked or not ranked else ranked[0]
    meta = get_metadata(first)
    with gr.Row():
        benchmark = gr.Dropdown(benchmarks, value=first, label="benchmark")
        level = gr.Dropdown(view_levels(first), value=view_levels(first)[0], label="level")
        aspect = gr.Dropdown(list(meta.aspect_names), value=meta.default_aspect, label="aspect")
        statistic = gr.Dropdown(
            statistic_choices(view_levels(first)[0]), value=OPENING_STATISTIC, label="correlation"
        )
    return Page(
        store,
        index,
        benchmarks,
        first,
        restoring,
        sign_in,
        benchmark,
        level,
        aspect,
        statistic,
        uploaded,
    )
