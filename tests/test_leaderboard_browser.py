"""The Gradio app in Debian's Chromium (Playwright): ranking, uploads, escaping, switching
benchmark, abusive uploads (nested JSON, a bidi override in a name); and the public app: sign-in,
the daily limit per account, and the page served while saved submissions are restored.

One app start per module for each: on 127.0.0.1, the first seeded with two fast baselines on the
USR benchmarks; the public ones require sign-in (Gradio's local mock OAuth, its Hub look-up of
the machine's profile replaced by a fixed one), one with a daily limit of one submission, the
other restoring a kept submission that waits until the test lets it go. Every request to a host other than 127.0.0.1 is recorded and refused;
screenshots of each tab go to test-artifacts/leaderboard/.
"""

from __future__ import annotations

import io
import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd
import pytest
from deadlines import DEADLINE_MS
from oauth_mock import ACCOUNT, SESSION_SECRET

from comperbench.leaderboard.web.access.sign_in import LOCAL_LOGIN_ENV
from comperbench.leaderboard.web.plots import SCATTER_LABEL
from comperbench.leaderboard.web.views import DEFAULT_COLUMNS, RANKING_COLUMNS

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("GRADIO_TEMP_DIR", tempfile.mkdtemp(prefix="comperbench-gradio-"))

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "leaderboard"
XSS_NAME = "<img src=x onerror=alert(1)>"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(app: Any) -> str:
    """Serve the built `app` on a free port of 127.0.0.1 with the app's launch options; its URL."""
    from comperbench.leaderboard.web.app import launch_options

    port = _free_port()
    app.launch(
        server_name="127.0.0.1",
        server_port=port,
        prevent_thread_lock=True,
        quiet=True,
        **launch_options(),
    )
    return f"http://127.0.0.1:{port}/"


def _submit_many_metrics(store: Any, count: int) -> None:
    """`count` noisy copies of the human scores on usr-persona, one column each, in files of at
    most MAX_METRIC_COLUMNS columns (with the two baselines, 20 ranked metrics there)."""
    from comperbench.leaderboard.items import ItemIndex, cached_benchmark
    from comperbench.leaderboard.service import submit
    from comperbench.leaderboard.submission import MAX_METRIC_COLUMNS, SubmissionMeta

    bench = cached_benchmark("usr-persona", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    rng = np.random.default_rng(0)
    names = [f"noisy-human-copy-{k:02d}" for k in range(count)]
    columns = [human + rng.normal(scale=0.3 + 0.1 * k, size=len(human)) for k in range(count)]
    for start in range(0, count, MAX_METRIC_COLUMNS):
        part = slice(start, start + MAX_METRIC_COLUMNS)
        lines = ["item_id," + ",".join(names[part])] + [
            ",".join([item, *(repr(float(c[j])) for c in columns[part])])
            for j, item in enumerate(bench.item_ids)
        ]
        raw = ("\n".join(lines) + "\n").encode()
        meta = SubmissionMeta(f"many-{start}")
        submit(f"many-{start}.csv", raw, meta, store, ItemIndex(["usr-persona"]))


@pytest.fixture(scope="module")
def server(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from comperbench.leaderboard.seeding.baselines import seed
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.web.app import build

    folder = tmp_path_factory.mktemp("leaderboard")
    os.environ["GRADIO_TEMP_DIR"] = str(folder / "gradio")
    store = Store(folder / "lb.sqlite")
    seed(store, ["length", "f1"], ["usr-topical", "usr-persona"], progress=lambda _: None)
    _submit_many_metrics(store, 18)
    app = build(store.path)
    url = _launch(app)
    try:
        yield {"url": url, "store": store, "folder": folder}
    finally:
        app.close()


@contextmanager
def _opened(browser: Any, url: str, height: int = 1000) -> Iterator[Any]:
    """A page on `url` in a fresh context 1400 px wide; no request outside the machine, no
    script run."""
    context = browser.new_context(viewport={"width": 1400, "height": height})
    context.set_default_timeout(DEADLINE_MS)  # clicks and waits alike, however loaded the machine
    outside: list[str] = []
    dialogs: list[str] = []

    def guard(route: Any) -> None:
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    yield page
    context.close()
    assert outside == [], f"the app made requests outside the machine: {outside}"
    assert dialogs == [], f"a script ran in the page: {dialogs}"


@pytest.fixture
def page(browser: Any, server: dict[str, Any]) -> Iterator[Any]:
    with _opened(browser, server["url"]) as page:
        _grid(page).get_by_role("row").nth(1).wait_for(timeout=DEADLINE_MS)
        yield page


def _grid(page: Any, table: str = "#ranking-table") -> Any:
    return page.locator(table).get_by_role("grid")


def _column(page: Any, column: int, table: str = "#ranking-table") -> list[str]:
    """The texts of a column's cells, read at once (the table may be redrawn meanwhile)."""
    return list(
        _grid(page, table).evaluate(
            "(grid, k) => [...grid.querySelectorAll('[role=row]')].slice(1)"
            ".map(row => row.querySelectorAll('[role=gridcell]')[k]?.innerText.trim() ?? '')",
            column,
        )
    )


def _metric_cells(page: Any) -> list[str]:
    return _column(page, 2)


def _downloaded(page: Any, button: str) -> str:
    """The text of the file the download button `button` (a CSS selector) gives."""
    with page.expect_download(timeout=DEADLINE_MS) as download:
        page.locator(button).click()
    return Path(download.value.path()).read_text(encoding="utf-8")


def _choose(page: Any, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).first.click()
    page.get_by_role("option", name=option, exact=True).click()


def _upload(page: Any, path: Path, name: str, **fields: str) -> str:
    """Submit `path` as `name` in the Upload tab (other `fields` by label); the result."""
    page.get_by_role("tab", name="Upload").click()
    page.locator("#upload-file input[type=file]").set_input_files(str(path))
    page.get_by_label("metric name").fill(name)
    for label, value in fields.items():
        page.get_by_label(label, exact=True).fill(value)
    result = page.locator("#result textarea")
    before = result.input_value()
    page.get_by_role("button", name="Submit").click()
    page.wait_for_function(
        "(before) => ![before, ''].includes(document.querySelector('#result textarea').value)",
        arg=before,
        timeout=DEADLINE_MS,
    )
    return str(result.input_value())


def _noisy_file(folder: Path, name: str, seed: int) -> Path:
    from comperbench.leaderboard.items import cached_benchmark

    bench = cached_benchmark("usr-topical", "turn")
    human = np.nan_to_num(bench.human_scores("overall"))
    noisy = human + np.random.default_rng(seed).normal(scale=0.5, size=len(human))
    path = folder / name
    path.write_text(
        "item_id,score\n"
        + "".join(f"{i},{float(s)!r}\n" for i, s in zip(bench.item_ids, noisy, strict=True))
    )
    return path


def test_ranking_renders_the_seeded_baselines(page: Any) -> None:
    assert sorted(_metric_cells(page)) == ["f1", "length"]
    assert "stat:spearman|level:turn" in page.get_by_label("signature").input_value()


def test_the_page_opens_on_the_flagship_benchmark(page: Any) -> None:
    from comperbench.leaderboard.web.page import FLAGSHIP

    assert FLAGSHIP == "usr-topical"  # usr-persona, ranked too, comes first alphabetically
    assert page.get_by_label("benchmark", exact=True).first.input_value() == FLAGSHIP


def test_overall_tab_ranks_metrics_across_benchmarks(page: Any) -> None:
    page.get_by_role("tab", name="Overall").click()
    _grid(page, "#overall-table").get_by_role("row").nth(1).wait_for(timeout=DEADLINE_MS)
    metrics, ranks = (_column(page, k, "#overall-table") for k in (2, 0))
    ranked = dict(zip(metrics, ranks, strict=True))
    assert ranked["f1"].isdigit() and ranked["length"].isdigit()
    assert "Coverage groups" in page.locator("#overall-notes textarea").input_value()
    assert "never compared" in page.locator("#overall-coverage").inner_text()
    assert _downloaded(page, "#overall-csv").startswith("rank,rank range,metric,")
    _choose(page, "overall correlation", "Kendall tau-b")
    page.wait_for_function(
        "() => document.querySelector('#overall-notes textarea').value.includes('kendall-b')",
        timeout=DEADLINE_MS,
    )
    assert page.locator(".toast-body.error").count() == 0


def _shown_metrics_become(page: Any, test: Any) -> list[str]:
    deadline = time.monotonic() + DEADLINE_MS / 1000
    while not test(shown := _metric_cells(page)) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    return shown


def _filters(page: Any) -> None:
    """Open the folded filters and columns."""
    page.get_by_text("filters and columns").click()
    page.locator("#ranking-columns").wait_for(state="visible", timeout=DEADLINE_MS)


def test_ranking_search_filters_columns_and_downloads(page: Any) -> None:
    assert not page.locator("#ranking-columns").is_visible()  # folded until asked for
    _filters(page)
    search = page.locator("#ranking-search textarea")
    search.press_sequentially("LEN")  # typed: filling the box sends no input event
    assert _shown_metrics_become(page, lambda m: m == ["length"]) == ["length"]
    search.press("Control+a")
    search.press("Backspace")
    page.locator("#ranking-references").get_by_label("reference-based").check()
    shown = _shown_metrics_become(page, lambda m: "length" not in m)
    assert "f1" in shown and "length" not in shown  # length needs no reference
    page.locator("#ranking-references").get_by_label("all").check()
    page.locator("#ranking-families").get_by_label("unknown").uncheck()
    shown = _shown_metrics_become(page, lambda m: sorted(m) == ["f1", "length"])
    assert sorted(shown) == ["f1", "length"]  # the baselines, both n-gram metrics
    page.locator("#ranking-columns").get_by_label("authors").check()  # not shown by default
    headers = _grid(page).get_by_role("columnheader")
    page.wait_for_function(
        "() => document.querySelector('#ranking-table [role=grid]').innerText.includes('authors')",
        timeout=DEADLINE_MS,
    )
    assert "family" in headers.all_inner_texts()[-1]
    page.locator("#ranking-columns").get_by_label("family").uncheck()
    page.wait_for_function(
        "() => !document.querySelector('#ranking-table [role=grid]').innerText.includes('family')",
        timeout=DEADLINE_MS,
    )
    assert "authors" in headers.all_inner_texts()[-1]
    text = _downloaded(page, "#ranking-csv")  # every column, whichever are shown
    assert text.splitlines()[0] == ",".join(RANKING_COLUMNS)
    assert sorted(line.split(",")[2] for line in text.splitlines()[1:]) == ["f1", "length"]
    page.get_by_role("tab", name="Comparison").click()
    page.locator("#heatmap th[scope=col]").first.wait_for(timeout=DEADLINE_MS)
    assert _downloaded(page, "#comparison-csv").startswith("row better than column,")


SETTLED = """() => document.fonts.ready.then(() => new Promise(
  (done) => requestAnimationFrame(() => requestAnimationFrame(done))))"""
"""Resolves once the fonts are loaded and the page has been laid out and painted since."""
TABS = ("Ranking", "Overall", "Metric", "Comparison", "Dataset", "Upload", "About")
CLIPPED = """() => {
  const width = document.documentElement.clientWidth;
  const scrolled = (el) => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return true;
    }
    return false;
  };
  const clipped = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || el.closest('.sr-only, .visually-hidden')) continue;
    const overflow = getComputedStyle(el).overflowX;
    const name = `${el.tagName}#${el.id}.${el.className}`;
    if (box.right > width + 1 && !scrolled(el)) clipped.push(`${name} ends at ${box.right}`);
    if (['hidden', 'clip'].includes(overflow) && el.scrollWidth > el.clientWidth + 1)
      clipped.push(`${name} hides ${el.scrollWidth - el.clientWidth}px`);
  }
  return {page: document.documentElement.scrollWidth, width, clipped};
}"""
"""What sticks out of a 1400 px page or is cut off by its box (not what scrolls in its box)."""


def _heatmap_of(page: Any, count: int) -> Any:
    """The heatmap's column labels, once it shows `count` metrics."""
    page.wait_for_function(
        "(n) => document.querySelectorAll('#heatmap th[scope=col]').length === n",
        arg=count,
        timeout=DEADLINE_MS,  # PERM-BOTH between 20 metrics takes seconds, more on a loaded machine
    )
    return page.locator("#heatmap th[scope=col]")


def test_every_tab_fits_1400_px(page: Any) -> None:
    _choose(page, "benchmark", "usr-persona")  # 20 ranked metrics in its heatmap
    page.wait_for_function(
        "() => document.querySelector('#ranking-forest').innerText.includes('noisy-human-copy-17')",
        timeout=DEADLINE_MS,
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for tab in TABS:
        page.get_by_role("tab", name=tab).click()
        page.get_by_role("tab", name=tab, selected=True).wait_for(timeout=DEADLINE_MS)
        if tab == "Comparison":
            _heatmap_of(page, 20)
        page.evaluate(SETTLED)
        page.screenshot(path=str(ARTIFACTS / f"tab-{tab.lower()}.png"), full_page=True)
        found = page.evaluate(CLIPPED)
        assert found["page"] <= found["width"] == 1400 and found["clipped"] == [], (tab, found)


def test_heatmap_of_20_metrics_is_readable_at_1400_px(page: Any) -> None:
    _choose(page, "benchmark", "usr-persona")
    page.get_by_role("tab", name="Comparison").click()
    labels = _heatmap_of(page, 20)
    caption = page.locator("#heatmap p").first.inner_text()
    assert "over 380 one-sided pairwise tests" in caption  # Holm over every ordered pair
    # enough permutations for Holm over 380 tests to show a difference: 380 / 16,001
    assert "16000 permutations at most; smallest achievable adjusted p 0.0237" in caption
    box = page.locator("#heatmap .heatmap-scroll")
    fits = box.evaluate("b => b.scrollWidth <= b.clientWidth")
    assert fits or box.evaluate("b => getComputedStyle(b).overflowX") == "auto"
    for label in (labels.first, page.locator("#heatmap th[scope=row]").last):
        assert label.evaluate("l => parseFloat(getComputedStyle(l).fontSize)") >= 12
        assert label.evaluate("l => l.scrollWidth <= l.clientWidth")  # the whole name shows
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    box.screenshot(path=str(ARTIFACTS / "comparison-20-metrics.png"))


def _options(page: Any, label: str) -> list[str]:
    page.get_by_label(label, exact=True).first.click()
    options = page.get_by_role("option")
    options.first.wait_for(timeout=DEADLINE_MS)
    shown = [t.strip() for t in options.all_inner_texts()]
    page.keyboard.press("Escape")
    return shown


def _signature_shows(page: Any, text: str) -> None:
    """Wait for a text area to hold `text`; past the deadline, fail saying what the view's
    controls and text areas hold (a choice the page dropped vs an answer that never came)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "(text) => [...document.querySelectorAll('textarea')].some(t => t.value.includes(text))",
            arg=text,
            timeout=DEADLINE_MS,
        )
    except PlaywrightTimeout:
        controls = {
            label: page.get_by_label(label, exact=True).first.input_value()
            for label in ("benchmark", "level", "aspect", "correlation")
        }
        shown = [t.input_value()[:200] for t in page.locator("textarea").all()]
        pytest.fail(f"no text area shows {text!r}; controls {controls}; text areas {shown}")


def test_kendall_is_offered_only_at_system_level(page: Any) -> None:
    assert "Kendall tau-b" not in _options(page, "correlation")
    _choose(page, "level", "system")
    _signature_shows(page, "stat:spearman|level:system")
    _choose(page, "correlation", "Kendall tau-b")
    _signature_shows(page, "stat:kendall-b|level:system")
    assert {"f1", "length"} <= set(_metric_cells(page))
    _choose(page, "level", "turn")
    _signature_shows(page, "stat:pearson|level:turn")  # the first statistic scored there
    assert page.get_by_label("correlation", exact=True).first.input_value() == "Pearson r"
    assert "Kendall tau-b" not in _options(page, "correlation")
    assert {"f1", "length"} <= set(_metric_cells(page))


def test_dataset_tab_shows_a_dialogue_and_filters_by_system(page: Any) -> None:
    page.get_by_role("tab", name="Dataset").click()
    item = page.locator("#dataset-item")
    item.locator("li").first.wait_for(timeout=DEADLINE_MS)
    assert "(rated response):" in item.inner_text()
    assert item.locator("table.ratings tr").count() > 1
    page.locator("#dataset-counter").get_by_text("item 1 of 360 (all systems)").wait_for()
    _choose(page, "system", "Original Ground Truth")
    page.locator("#dataset-counter").get_by_text("(Original Ground Truth)").wait_for()
    assert "item 1 of 60" in page.locator("#dataset-counter").inner_text()
    assert "system Original Ground Truth" in item.inner_text()


def test_switching_benchmark_updates_the_table(page: Any) -> None:
    shown = page.get_by_label("benchmark", exact=True).first.input_value()
    other = "usr-persona" if shown == "usr-topical" else "usr-topical"
    before = _grid(page).inner_text()
    _choose(page, "benchmark", other)
    page.wait_for_function(
        "([before]) => document.querySelector('#ranking-table [role=grid]').innerText !== before",
        arg=[before],
        timeout=DEADLINE_MS,
    )
    n = _grid(page).get_by_role("row").nth(1).get_by_role("gridcell").nth(7).inner_text()
    # the protocol leaves USR's ground truth out of every ranking
    assert n.strip() == ("240" if other == "usr-persona" else "300")


def test_valid_upload_appears_in_the_ranking(page: Any, server: dict[str, Any]) -> None:
    path = _noisy_file(server["folder"], "good.csv", 1)
    message = _upload(page, path, "noisy-oracle")
    assert "stored as submission" in message and "360/360 items, ranked" in message
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-topical")
    page.wait_for_function(
        "() => document.querySelector('#ranking-table [role=grid]').innerText.includes('noisy-oracle')",
        timeout=DEADLINE_MS,
    )
    assert _metric_cells(page)[0] == "noisy-oracle"


def test_invalid_upload_shows_its_error_and_stores_nothing(
    page: Any, server: dict[str, Any]
) -> None:
    before = server["store"].count()
    message = _upload(page, FIXTURES / "bad.jsonl", "broken")
    assert "submission bad.jsonl was rejected" in message
    assert (
        "line 2, item_id 'usr-topical/0000/original-ground-truth', column 'score': missing value"
        in message
    )
    assert server["store"].count() == before
    page.screenshot(path=str(ARTIFACTS / "upload-rejected.png"), full_page=True)


def test_markup_in_a_name_is_shown_as_text(page: Any, server: dict[str, Any]) -> None:
    path = _noisy_file(server["folder"], "xss.csv", 2)
    assert "stored as submission" in _upload(page, path, XSS_NAME)
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-topical")
    page.wait_for_function(
        "(name) => document.querySelector('#ranking-table [role=grid]').innerText.includes(name)",
        arg=XSS_NAME,
        timeout=DEADLINE_MS,
    )
    assert XSS_NAME in _metric_cells(page)
    assert page.locator("img[src=x]").count() == 0
    page.get_by_role("tab", name="Comparison").click()
    page.wait_for_function(
        "(name) => document.querySelector('#heatmap').innerText.includes(name)",
        arg=XSS_NAME,
        timeout=DEADLINE_MS,
    )
    assert page.locator("img[src=x]").count() == 0


def test_metric_tab_shows_the_submission_link_and_description(
    page: Any, server: dict[str, Any]
) -> None:
    link = "https://example.org/paper?a=1&b=2"
    fields = {"link (paper or code)": link, "description": f"Noisy humans. {XSS_NAME}"}
    path = _noisy_file(server["folder"], "described.csv", 7)
    assert "stored as submission" in _upload(page, path, "described", **fields)
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-topical")
    page.get_by_role("tab", name="Metric").click()
    page.locator("#metric-choice input").click()
    page.get_by_role("option", name="described", exact=True).click()
    anchor = page.locator("#submission-details a")
    anchor.wait_for(timeout=DEADLINE_MS)
    assert anchor.get_attribute("href") == link and anchor.inner_text() == link
    assert set(str(anchor.get_attribute("rel")).split()) >= {"nofollow", "noopener"}
    assert f"Noisy humans. {XSS_NAME}" in page.locator("#submission-details").inner_text()
    assert page.locator("img[src=x]").count() == 0


def test_upload_tab_downloads_a_template_of_the_chosen_benchmark(page: Any) -> None:
    from comperbench.leaderboard.items import cached_benchmark

    page.get_by_role("tab", name="Upload").click()
    assert _downloaded(page, "#template-csv").startswith("item_id,score\nusr-topical/")
    _choose(page, "template benchmark", "dstc9")
    deadline = time.monotonic() + DEADLINE_MS / 1000
    while "dstc9/" not in (text := _downloaded(page, "#template-csv")):
        assert time.monotonic() < deadline, "the template did not follow the benchmark"
        page.wait_for_timeout(300)
    lines = text.splitlines()
    ids = cached_benchmark("dstc9", "dialogue").item_ids
    assert lines == ["item_id,score", *(f"{i}," for i in ids)]


def test_about_tab_has_the_citation_block(page: Any) -> None:
    page.get_by_role("tab", name="About").click()
    heading = page.get_by_role("heading", name="Cite comperbench and this leaderboard")
    heading.wait_for(timeout=DEADLINE_MS)
    block = page.locator("code", has_text="@software{comperbench_leaderboard").first
    assert "author = {{comperbench contributors}}" in block.inner_text()


def test_markup_in_a_partial_submission_name_is_shown_as_text(page: Any) -> None:
    assert "stored as submission" in _upload(page, FIXTURES / "partial.csv", XSS_NAME)
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-persona")
    _choose(page, "benchmark", "usr-topical")
    page.wait_for_function(
        "(name) => document.querySelector('#partial textarea').value.includes(name)",
        arg=XSS_NAME,
        timeout=DEADLINE_MS,
    )
    assert page.locator("img[src=x]").count() == 0


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_the_statistical_setting_is_named_on_the_page(page: Any) -> None:
    from comperbench.stats.settings import SETTINGS

    text = page.locator("#statistical-setting").inner_text()
    assert f"seed {SETTINGS.seed}" in text and "PERM-BOTH" in text and "Holm" in text


def _overall_opened(page: Any) -> None:
    page.get_by_role("tab", name="Overall").click()
    page.locator("#overall-heatmap svg").wait_for(timeout=DEADLINE_MS)
    _grid(page, "#overall-table").get_by_role("row").nth(1).wait_for(timeout=DEADLINE_MS)


HEATMAP_TEXT_PX = """() => [...document.querySelectorAll('#overall-heatmap svg text')].map((t) => {
  const m = t.getScreenCTM();
  return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
})"""
"""The rendered size in px of every text of the overall heatmap (its font size times the SVG's
scale on the screen)."""


def test_overall_opens_on_a_ranked_group_whose_rank_follows_the_value(page: Any) -> None:
    from comperbench.leaderboard.overall import OVERALL_COLUMNS

    page.set_viewport_size({"width": 1400, "height": 900})
    _overall_opened(page)
    column = {name: k for k, name in enumerate(OVERALL_COLUMNS)}
    ranks, metrics, means, groups = (
        _column(page, column[c], "#overall-table")
        for c in ("rank", "metric", "mean correlation", "coverage group")
    )
    assert ranks[0] == "1" and len(set(groups)) == 1  # one group, first row ranked first
    table = pd.read_csv(io.StringIO(_downloaded(page, "#overall-csv")))
    group = table[table["coverage group"] == groups[0]]
    assert len(group) >= 2 and (group["ranked"] == "yes").all()
    assert metrics[0] in set(group["metric"])
    shown = np.array([float(m) for m in means])
    expected = [1 + int(np.sum(shown > value)) for value in shown]  # ties share the best place
    assert [int(r) for r in ranks] == expected
    heading = page.locator("#overall-heading").inner_text()
    assert f"the {len(group)} metrics ranked on the same" in heading and "mean spearman" in heading
    page.evaluate(SETTLED)
    sizes = page.evaluate(HEATMAP_TEXT_PX)
    assert len(sizes) > 10 and min(sizes) >= 10, sorted(sizes)[:5]
    page.locator("#overall-heading").scroll_into_view_if_needed()
    _shot(page, "overall.png")


def test_overall_shows_one_coverage_group_at_a_time(page: Any) -> None:
    from comperbench.leaderboard.overall import OVERALL_COLUMNS

    _overall_opened(page)
    table = pd.read_csv(io.StringIO(_downloaded(page, "#overall-csv")))  # every group's rows
    # the module's own rows (other tests' uploads on one benchmark may sit alone in a group)
    own = table[table["metric"].isin(["f1", "length"]) | table["metric"].str.startswith("many-")]
    assert len(own) == 20 and (own["ranked"] == "yes").all()
    group = dict(zip(table["metric"], table["coverage group"], strict=True))
    assert group["f1"] == group["length"] == "usr-persona, usr-topical"
    assert group["many-0/noisy-human-copy-00"] == "usr-persona"  # submitted on usr-persona only
    assert sorted(table.loc[table["coverage group"] == "usr-persona", "rank"])[0] == 1
    coverage = OVERALL_COLUMNS.index("coverage")
    assert set(_column(page, coverage, "#overall-table")) == {"2 of 2"}  # the largest group
    assert "noisy-human-copy" not in page.locator("#overall-heatmap").inner_text()
    _choose(page, "coverage group", "18 metrics on 1 of 2 benchmarks: usr-persona")
    page.wait_for_function(
        "() => document.querySelector('#overall-heatmap').textContent.includes('copy-17')",
        timeout=DEADLINE_MS,
    )
    assert set(_column(page, coverage, "#overall-table")) == {"1 of 2"}
    figure = page.locator("#overall-heatmap").inner_text()
    assert re.search(r"-?0\.\d\d\s*\[-?0\.\d\d, -?0\.\d\d\]", figure)  # value and CI
    _shot(page, "overall-coverage-heatmap.png")
    page.locator("#overall-benchmarks").get_by_label("usr-persona").uncheck()
    page.wait_for_function(
        "() => document.querySelector('#overall-table [role=grid]').innerText.includes('1 of 1')",
        timeout=DEADLINE_MS,
    )
    assert set(_column(page, coverage, "#overall-table")) == {"1 of 1"}  # the choice is gone
    _choose(page, "coverage group", "not ranked (18 metrics)")
    page.wait_for_function(
        "() => document.querySelector('#overall-table [role=grid]').innerText.includes("
        "'ranked on none of the chosen benchmarks')",
        timeout=DEADLINE_MS,
    )
    ranks = set(_column(page, 0, "#overall-table"))
    assert ranks == {"not ranked: ranked on none of the chosen benchmarks"}
    assert "not ranked: why" in page.locator("#overall-table").inner_text()  # its label
    assert page.locator(".toast-body.error").count() == 0


def test_ranking_shows_a_forest_plot_and_its_glossary(page: Any) -> None:
    forest = page.locator("#ranking-forest svg")
    forest.wait_for(timeout=DEADLINE_MS)
    text = page.locator("#ranking-forest").inner_text()
    assert "f1" in text and "length" in text and re.search(r"rank \d+-\d+", text)
    glossary = page.locator("#ranking-glossary").inner_text()
    assert "rank range" in glossary and "tied with leader" in glossary and "adjusted" in glossary
    page.locator("#ranking-forest").scroll_into_view_if_needed()
    _shot(page, "ranking-forest.png")


def _open_metric(page: Any, name: str) -> None:
    page.get_by_role("tab", name="Metric").click()
    page.locator("#metric-placing").wait_for(timeout=DEADLINE_MS)  # the page drawn on opening
    page.locator("#metric-choice input").click()
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_function(
        "(name) => document.querySelector('#metric-placing')?.innerText.startsWith(name)",
        arg=name,
        timeout=DEADLINE_MS,
    )


def test_metric_tab_shows_its_numbers_and_the_left_out_system_apart(page: Any) -> None:
    _open_metric(page, "f1")  # reference-based: USR's ground truth left out
    placing = page.locator("#metric-placing").inner_text()
    assert re.search(
        r"spearman = -?\d\.\d{3}, 95% CI \[-?\d\.\d{3}, -?\d\.\d{3}\], rank \d+ of \d+ "
        r"\(range \d+-\d+\), n = 300",
        placing,
    ), placing
    scatter = page.locator("#system-scatter").inner_text()
    assert "Original Ground Truth (left out)" in scatter
    assert re.search(r"system level: spearman = -?\d\.\d{3}, 95% CI", scatter)
    means = page.locator(".table-wrap", has_text="in the correlation").first.inner_text()
    assert "no (protocol)" in means
    page.locator("#metric-numbers").scroll_into_view_if_needed()
    _shot(page, "metric-system-scatter.png")
    items = page.locator("#item-scatter")
    text = items.inner_text()
    assert "f1 (item score)" in text and "Original Ground Truth" not in text
    assert items.locator("image").count() == 1  # the points: one picture in the SVG
    assert items.evaluate("(figure) => figure.getBoundingClientRect().height") > 200
    items.scroll_into_view_if_needed()
    _shot(page, "metric-item-scatter.png")


def test_an_upload_shows_its_value_interval_and_rank_and_links_to_its_row(
    page: Any, server: dict[str, Any]
) -> None:
    path = _noisy_file(server["folder"], "placed.csv", 11)
    message = _upload(page, path, "placed-metric")
    assert "spearman with the human scores; rank among the ranked stored metrics:" in message
    line = next(
        line for line in message.splitlines() if re.search(r"usr-topical\s+turn\s+overall", line)
    )
    assert re.search(r"0\.\d+\s+\[0\.\d+, 0\.\d+\]\s+300\s+\d+/\d+\s+\d+-\d+", line), line
    link = page.locator("#result-links a", has_text="usr-topical (turn)")
    href = str(link.get_attribute("href"))
    assert href.startswith("?benchmark=usr-topical&level=turn&aspect=overall&metric=")
    _shot(page, "upload-placings.png")
    page.goto(server["url"] + href)
    page.wait_for_function(
        "() => document.querySelector('#metric-placing')?.innerText.startsWith('placed-metric')",
        timeout=DEADLINE_MS,
    )
    assert page.get_by_role("tab", name="Metric", selected=True).count() == 1
    assert re.search(r"rank \d+ of \d+", page.locator("#metric-placing").inner_text())
    _shot(page, "upload-link-opens-row.png")


def test_comparison_is_perm_both_with_holm_as_compare(page: Any, server: dict[str, Any]) -> None:
    from comperbench.leaderboard.comparison import view_verdicts
    from comperbench.leaderboard.service import ranking

    page.get_by_role("tab", name="Comparison").click()
    page.locator("#heatmap th[scope=col]").first.wait_for(timeout=DEADLINE_MS)
    caption = page.locator("#heatmap p").first.inner_text()
    assert "PERM-BOTH" in caption and "Holm" in caption and "comperbench compare" in caption
    view = ("usr-topical", "turn", "overall", "spearman")
    ranked = ranking(server["store"], *view)
    adjusted = view_verdicts(server["store"], *view, [r.row for r in ranked]).adjusted
    rows = _downloaded(page, "#comparison-csv").splitlines()[1:]
    shown = np.array([[float(v) if v else np.nan for v in r.split(",")[1:]] for r in rows])
    np.testing.assert_allclose(shown, adjusted)


def _refused_in_the_page(page: Any, server: dict[str, Any], path: Path, name: str) -> str:
    """The result shown for `path` submitted as `name`, which must store nothing."""
    before = server["store"].count()
    message = _upload(page, path, name)
    assert page.locator("#result textarea").is_visible()
    assert server["store"].count() == before
    assert name not in [s["name"] for s in server["store"].submissions()]
    return message


def test_deeply_nested_json_is_refused_in_the_page(page: Any, server: dict[str, Any]) -> None:
    from comperbench.leaderboard.items import cached_benchmark
    from comperbench.leaderboard.submission import MAX_JSON_DEPTH

    first = cached_benchmark("usr-topical", "turn").item_ids[0]
    path = server["folder"] / "deep.jsonl"
    path.write_text(f'{{"item_id": "{first}", "score": 1}}\n' + "[" * 100_000 + "\n")
    message = _refused_in_the_page(page, server, path, "deep")
    assert message == (
        "submission deep.jsonl was rejected (1 problem):\n"
        f"  line 2: JSON nested deeper than {MAX_JSON_DEPTH} levels; write one flat object per line"
    )


def test_a_bidi_override_in_a_name_is_refused_in_the_page(
    page: Any, server: dict[str, Any]
) -> None:
    path = _noisy_file(server["folder"], "bidi.csv", 8)
    message = _refused_in_the_page(page, server, path, "evil\u202egnp.exe")
    assert message == (
        "submission bidi.csv was rejected (1 problem):\n"
        "  field 'name': a bidi override or isolate (U+202E) at character 5"
    )


@pytest.fixture(scope="module")
def limited(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The app on an empty store with sign-in required (Gradio's mock OAuth, the fixed profile)
    and a daily limit of one submission per account when it is built; a test that submits sets
    the limit again (it is read at each submission)."""
    from comperbench.leaderboard import service
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.web.app import build

    folder = tmp_path_factory.mktemp("limited")
    store = Store(folder / "lb.sqlite")
    with pytest.MonkeyPatch.context() as launching:
        launching.setenv(service.SIGN_IN_ENV, "1")
        launching.setenv(service.PER_DAY_ENV, "1")
        launching.setenv(LOCAL_LOGIN_ENV, ACCOUNT)
        launching.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)
        app = build(store.path)
        url = _launch(app)
    try:
        yield {"url": url, "store": store}
    finally:
        app.close()


@pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")
def test_the_daily_limit_refuses_a_second_submission_in_the_page(
    browser: Any, limited: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.leaderboard.service import DAY, PER_DAY_ENV

    monkeypatch.setenv(PER_DAY_ENV, "1")
    store = limited["store"]
    with _opened(browser, limited["url"]) as page:
        page.get_by_role("tab", name="Upload").click()
        page.get_by_text("an account may store 1 submissions in any 24 hours").wait_for()
        banner = page.locator("#local-sign-in")
        assert f"everyone who signs in here is signed in as {ACCOUNT}" in banner.inner_text()
        with page.expect_navigation(url=limited["url"], timeout=DEADLINE_MS):
            page.locator("#sign-in").click()  # the mock login redirects back to the page
        page.get_by_role("tab", name="Upload").click()
        page.get_by_role("button", name=f"Logout ({ACCOUNT})").wait_for(timeout=DEADLINE_MS)
        first = _upload(page, FIXTURES / "partial.csv", "first")  # two items: scored at once
        assert first.startswith("stored as submission #1"), first
        [made] = store.submitted_by(ACCOUNT, 0)
        second = _upload(page, _noisy_file(tmp_path, "second.csv", 9), "second")
        next_at = datetime.fromtimestamp(made + DAY, UTC).strftime("%Y-%m-%d %H:%M UTC")
        assert re.fullmatch(
            rf"refused: {ACCOUNT} has stored 1 submission\(s\) in the last 24 hours and the"
            rf" limit is 1: the next one is allowed at {next_at} \(in 2[34] h \d+ min\)",
            second,
        ), second
        assert page.locator("#result textarea").is_visible()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "upload-daily-limit.png"), full_page=True)
    assert [(s["name"], s["account"]) for s in store.submissions()] == [("first", ACCOUNT)]


@pytest.fixture(scope="module")
def public(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The app with sign-in required, on an empty store restoring one kept submission, whose
    restore waits for `release`."""
    from comperbench.leaderboard import service
    from comperbench.leaderboard.mirror import DIR_ENV, Mirror
    from comperbench.leaderboard.store import Store
    from comperbench.leaderboard.submission import SubmissionMeta
    from comperbench.leaderboard.web.app import build

    folder = tmp_path_factory.mktemp("public")
    kept = _noisy_file(folder, "kept.csv", 3).read_bytes()
    meta = SubmissionMeta("kept-metric")
    service.submit(
        "kept.csv", kept, meta, Store(folder / "first.sqlite"), None, 50, Mirror(folder / "results")
    )
    release = threading.Event()
    accept = service.accept

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait()
        return accept(*args, **kwargs)

    store = Store(folder / "lb.sqlite")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "accept", held)
        with pytest.MonkeyPatch.context() as launching:
            launching.setenv(service.SIGN_IN_ENV, "1")
            launching.setenv(DIR_ENV, str(folder / "results"))
            launching.setenv(LOCAL_LOGIN_ENV, ACCOUNT)
            launching.setattr("gradio.oauth.OAUTH_CLIENT_SECRET", SESSION_SECRET)
            app = build(store.path)
            url = _launch(app)
        try:
            yield {"url": url, "store": store, "release": release}
        finally:
            release.set()
            app.close()


def _notes(page: Any) -> str:
    return str(page.locator("#partial textarea").input_value())


@pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")
def test_submitting_without_sign_in_is_refused_in_the_page(
    browser: Any, public: dict[str, Any], tmp_path: Path
) -> None:
    with _opened(browser, public["url"]) as page:
        page.get_by_role("tab", name="Upload").click()
        page.locator("#sign-in").wait_for(timeout=DEADLINE_MS)
        unsigned = _noisy_file(tmp_path, "unsigned.csv", 4)
        page.locator("#upload-file input[type=file]").set_input_files(str(unsigned))
        page.get_by_text(
            "refused: sign in with Hugging Face to upload a submission file"
        ).wait_for()
        message = _upload(page, unsigned, "unsigned")
        assert message == "refused: sign in with Hugging Face to submit"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "upload-sign-in.png"), full_page=True)
    assert "unsigned" not in [s["name"] for s in public["store"].submissions()]


@pytest.mark.filterwarnings("ignore:Gradio does not support OAuth:UserWarning")
def test_the_page_is_served_while_the_restore_runs_and_redrawn_after(
    browser: Any, public: dict[str, Any], tmp_path: Path
) -> None:
    with _opened(browser, public["url"]) as page:
        page.wait_for_function(
            "() => document.querySelector('#partial textarea')?.value.startsWith('Restoring')",
            timeout=DEADLINE_MS,
        )
        assert _notes(page).startswith("Restoring 1 saved submission(s)…")
        page.get_by_role("tab", name="Upload").click()
        with page.expect_navigation(url=public["url"], timeout=DEADLINE_MS):
            page.locator("#sign-in").click()  # the mock login redirects back to the page
        page.get_by_role("tab", name="Upload").click()
        page.get_by_role("button", name=f"Logout ({ACCOUNT})").wait_for(timeout=DEADLINE_MS)
        early = _upload(page, _noisy_file(tmp_path, "early.csv", 5), "early")
        assert early.startswith("refused: Restoring 1 saved submission(s)…")
        page.get_by_role("tab", name="Ranking").click()
        _choose(page, "benchmark", "usr-topical")
        public["release"].set()
        page.wait_for_function(
            "() => document.querySelector('#ranking-table [role=grid]').innerText"
            ".includes('kept-metric')",
            timeout=DEADLINE_MS,
        )
        assert not _notes(page).startswith("Restoring")
        later = _upload(page, _noisy_file(tmp_path, "later.csv", 6), "later")
        assert later.startswith("stored as submission #2"), later
    assert len(public["store"].submitted_by(ACCOUNT, 0)) == 1


ABOVE_THE_FOLD = """() => [...document.querySelectorAll('#ranking-table [role=grid] [role=row]')]
  .slice(1).filter((row) => { const box = row.getBoundingClientRect();
    return box.height > 0 && box.bottom <= innerHeight; }).length"""
"""How many ranking rows are wholly on the first screen."""


def test_the_first_screen_at_1400x900_shows_12_ranking_rows(
    browser: Any, server: dict[str, Any]
) -> None:
    with _opened(browser, server["url"], height=900) as page:
        _grid(page).get_by_role("row").nth(1).wait_for(timeout=DEADLINE_MS)
        _choose(page, "benchmark", "usr-persona")  # 20 ranked metrics
        _grid(page).get_by_role("row").nth(20).wait_for(timeout=DEADLINE_MS)
        page.evaluate(SETTLED)
        assert page.evaluate(ABOVE_THE_FOLD) >= 12
        assert not page.locator("#ranking-columns").is_visible()  # folded
        headers = [h.strip() for h in _grid(page).get_by_role("columnheader").all_inner_texts()]
        assert headers == DEFAULT_COLUMNS
        found = page.evaluate(CLIPPED)
        assert found["page"] <= found["width"] == 1400 and found["clipped"] == [], found
        assert page.evaluate(SCROLLED_SIDEWAYS) == []
        _shot_first_screen(page, "page-ranking-1400x900.png")


SCROLLED_SIDEWAYS = """() => {
  const table = document.querySelector('#ranking-table').getBoundingClientRect();
  const wider = [...document.querySelectorAll('#ranking-table *')].filter(
    (e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible');
  const out = [...document.querySelectorAll('#ranking-table [role=columnheader]')].filter(
    (h) => h.getBoundingClientRect().right > table.right + 1);
  return [...wider, ...out].map((e) => `${e.tagName}.${e.className}`);
}"""
"""What of the ranking table scrolls sideways or ends past its box."""


def _shot_first_screen(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def test_numbers_have_one_format_per_column(page: Any) -> None:
    _grid(page).get_by_role("row").nth(2).wait_for(timeout=DEADLINE_MS)
    values, intervals, p = (_column(page, DEFAULT_COLUMNS.index(c)) for c in COLUMNS_FORMATTED)
    assert all(re.fullmatch(r"-?\d\.\d{3}", v) for v in values), values
    assert all(
        re.fullmatch("\\[[\u2007-]\\d\\.\\d{3}, [\u2007-]\\d\\.\\d{3}\\]", i) for i in intervals
    ), intervals
    assert p[0] == "" and all(re.fullmatch(r"<0\.001|\d\.\d{3}", v) for v in p[1:]), p
    fonts, widths = zip(*_text_boxes(page, DEFAULT_COLUMNS.index("95% CI")), strict=True)
    assert all("monospace" in f for f in fonts), fonts
    assert max(widths) - min(widths) < 0.5, widths  # the bounds line up
    table = pd.read_csv(io.StringIO(_downloaded(page, "#ranking-csv")))
    assert list(table.columns) == RANKING_COLUMNS  # numbers, unrounded
    assert table["CI low"].dtype == float and (table["CI low"] < table["CI high"]).all()
    shown = [float(v) for v in values]
    np.testing.assert_allclose(shown, table["value"], atol=5e-4)
    assert any(len(repr(v).split(".")[1]) > 3 for v in table["value"])


COLUMNS_FORMATTED = ("value", "95% CI", "adjusted p vs leader")


def _text_boxes(page: Any, column: int) -> list[tuple[str, float]]:
    """The font and the width of the text of each cell of a ranking column."""
    return [
        tuple(pair)
        for pair in _grid(page).evaluate(
            """(grid, k) => [...grid.querySelectorAll('[role=row]')].slice(1).map((row) => {
                 const cell = row.querySelectorAll('[role=gridcell]')[k];
                 const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                 let node = texts.nextNode();
                 while (node && !node.textContent.trim()) node = texts.nextNode();
                 const range = document.createRange();
                 range.selectNodeContents(node);
                 return [getComputedStyle(node.parentElement).fontFamily,
                         range.getBoundingClientRect().width];
               })""",
            column,
        )
    ]


def _forest_labels(page: Any) -> str:
    return str(page.locator("#ranking-forest").inner_text())


def test_a_search_filters_the_forest_plot_too(page: Any) -> None:
    _choose(page, "benchmark", "usr-persona")
    page.wait_for_function(
        "() => document.querySelector('#ranking-forest').innerText.includes('noisy-human-copy-17')",
        timeout=DEADLINE_MS,
    )
    assert "length" in _forest_labels(page)
    page.locator("#ranking-search textarea").press_sequentially("copy-1")
    shown = _shown_metrics_become(page, lambda m: len(m) == 8)
    assert shown and all("noisy-human-copy-1" in m for m in shown), shown
    page.wait_for_function(
        "() => !document.querySelector('#ranking-forest').innerText.includes('copy-07')",
        timeout=DEADLINE_MS,
    )
    plotted = _forest_labels(page)
    assert all(m in plotted for m in shown)
    for hidden in ("length", "f1", "noisy-human-copy-00", "noisy-human-copy-09"):
        assert hidden not in plotted
    _filters(page)
    page.locator("#ranking-families").get_by_label("unknown").uncheck()  # every copy
    page.wait_for_function(
        "() => document.querySelector('#ranking-forest').innerText.includes('No ranked metrics')",
        timeout=DEADLINE_MS,
    )


def test_the_page_s_own_upload_is_highlighted_in_its_plots(
    browser: Any, page: Any, server: dict[str, Any]
) -> None:
    path = _noisy_file(server["folder"], "mine.csv", 12)
    assert "stored as submission" in _upload(page, path, "my-own-metric")
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-topical")
    caption = "Highlighted: your submission, my-own-metric."
    page.wait_for_function(
        "(text) => document.querySelector('#ranking-forest').innerText.includes(text)",
        arg=caption,
        timeout=DEADLINE_MS,
    )
    from comperbench.report.figures import HIGHLIGHT

    assert HIGHLIGHT.lower() in page.locator("#ranking-forest svg").inner_html().lower()
    page.locator("#ranking-forest").scroll_into_view_if_needed()
    _shot(page, "page-forest-highlight.png")
    _open_metric(page, "my-own-metric")
    scatter = page.locator("#system-scatter").inner_text()
    assert "your submission: my-own-metric" in scatter
    assert "your submission" in page.get_by_text(SCATTER_LABEL).first.inner_text()
    with _opened(browser, server["url"]) as other:  # another visitor's page
        other.locator("#ranking-forest svg").wait_for(timeout=DEADLINE_MS)
        assert "my-own-metric" in other.locator("#ranking-forest").inner_text()
        assert "your submission" not in other.locator("#ranking-forest").inner_text()


def _calls(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[bool]:
    """Each call of `cls.name` (looked up on the instance when called) from now on."""
    calls: list[bool] = []
    method = getattr(cls, name)

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(True)
        return method(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_MS / 1000
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _placing_on(page: Any, benchmark: str) -> None:
    page.locator("#metric-placing", has_text=f" on {benchmark}, ").wait_for(
        state="attached", timeout=DEADLINE_MS
    )


def test_a_closed_metric_tab_is_not_redrawn_and_an_open_one_is(
    page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Leaving the Metric tab clears its open flag in the browser (no request): a view chosen
    behind another tab leaves the metric's drawing alone (its redraw, started with the
    ranking's, is done by the time the ranking's plot is); opening the tab, or a view chosen
    on it, draws the view."""
    from comperbench.leaderboard.web.tabs import MetricTab

    _open_metric(page, "f1")
    _placing_on(page, "usr-topical")
    drawings = _calls(monkeypatch, MetricTab, "drawn")
    page.get_by_role("tab", name="Ranking").click()
    _choose(page, "benchmark", "usr-persona")
    page.locator("#ranking-forest", has_text="noisy-human-copy-00").wait_for(timeout=DEADLINE_MS)
    assert drawings == []
    page.get_by_role("tab", name="Metric").click()
    _placing_on(page, "usr-persona")
    _choose(page, "benchmark", "usr-topical")
    _placing_on(page, "usr-topical")
