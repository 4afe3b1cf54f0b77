"""The HTML report of `evaluate` in Debian's Chromium (Playwright), opened from file:// with every
network request refused: each figure is drawn at a visible size. Screenshots go to
test-artifacts/report/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deadlines import DEADLINE_MS

import comperbench

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "report"


def test_report_draws_every_figure_offline(browser: Any, data_root: Path, tmp_path: Path) -> None:
    bench = comperbench.load_benchmark("usr-topical", data_dir=data_root)
    evaluation = comperbench.evaluate(
        bench, ["meteor", "bleu-4", "length"], resampling=comperbench.Resampling(200)
    )
    report = evaluation.report(tmp_path / "report.html")
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    requested: list[str] = []

    def refuse(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            requested.append(route.request.url)
            route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    page.goto(report.as_uri())
    page.locator("figure svg").first.wait_for(timeout=DEADLINE_MS)
    figures = page.locator("figure svg")
    assert figures.count() == 5  # forest, three scatter plots (two collapsed), heatmap
    page.locator("details").evaluate_all("nodes => nodes.forEach(n => n.open = true)")
    for i in range(figures.count()):
        box = figures.nth(i).bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100, (i, box)
    assert page.locator("table").first.locator("td", has_text="meteor").count() == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "evaluate-report.png"), full_page=True)
    context.close()
    assert requested == [], f"the report asked for: {requested}"
