"""The leaderboard page as a visitor meets it, in Debian's Chromium at 1400x900 (Playwright):

1. page load: navigation start to the first ranking row visible, on a server just started
   (`comperbench leaderboard serve`, a fresh process) and then again on the warm server;
   goal under 1.5 s (the goals: `goals.py`). The floor beside it: a Gradio page of one table
   filled on load (in the first of two tabs), timed alike at the same time (what the browser
   and Gradio take on this machine as loaded now);
2. tab switch: a click on a tab to its content drawn (Overall, Metric, Comparison, Dataset,
   back to Ranking), from a page done loading (`settled`); goal under 0.5 s each (the row:
   the slowest), one after the other as a visitor clicks through, then each of the first three
   alone in fresh pages (printed beside the row: no earlier tab still drawing). The floor
   beside it: a switch between the floor page's two tabs;
3. an idle server: its CPU seconds over `--idle` seconds with no client connected, before any
   page was opened and after every page was closed; goal 0 (under 1% of one core).

Run: COMPERBENCH_DATA=/work/shared/data python perf/page_load.py --db LEADERBOARD.sqlite
(a database filled by `comperbench leaderboard seed --db LEADERBOARD.sqlite --create`).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
from goals import BY_WORK
from rows import print_goal_row

CHROMIUM = "/usr/bin/chromium"
LOAD, SWITCH = BY_WORK["page load"], BY_WORK["tab switch"]
LOAD_GOAL_S, SWITCH_GOAL_S = LOAD.limit, SWITCH.limit
IDLE_GOAL = 0.01
"""Idle CPU goal: a share of one core."""
FIRST_ROW = """() => {
  const row = document.querySelectorAll('#ranking-table [role=grid] [role=row]')[1];
  const box = row?.getBoundingClientRect();
  return box && box.height > 0 && box.top < innerHeight ? performance.now() : null;
}"""
"""Milliseconds from navigation start once the first ranking row is visible, else null."""
TABS = {
    "Overall": "#overall-table [role=grid] [role=row]:nth-child(2), #overall-heatmap svg",
    "Metric": "#metric-placing",
    "Comparison": "#heatmap th[scope=col]",
    "Dataset": "#dataset-item li",
    "Ranking": "#ranking-forest svg",
}
"""Each tab and what shows that it is drawn."""
SETTLE_MS = 1000
"""From the forest plot drawn to the first switch."""
ALONE_PAGES = 3
"""Fresh pages whose one first switch to a tab is timed alone (printed, not in the row)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(db: Path, port: int) -> subprocess.Popen[str]:
    """`comperbench leaderboard serve` on `db` at 127.0.0.1:`port`, once it says it serves."""
    port_args = ["--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, "-m", "comperbench", "leaderboard", "serve", "--db", str(db), *port_args],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"},
    )
    assert server.stdout is not None
    for line in server.stdout:
        if line.startswith("serving the leaderboard"):
            return server
    raise SystemExit(f"the server stopped before serving (exit {server.wait()})")


def idle_cpu(pid: int, seconds: float) -> float:
    """CPU seconds (user + system, its threads included) the process uses over `seconds`."""
    process = psutil.Process(pid)
    before = process.cpu_times()
    time.sleep(seconds)
    after = process.cpu_times()
    return (after.user - before.user) + (after.system - before.system)


FLOOR_APP = """
import threading, gradio as gr, pandas as pd
with gr.Blocks() as app:
    with gr.Tabs():
        with gr.Tab("Ranking"):
            table = gr.Dataframe(elem_id="ranking-table")
        with gr.Tab("Other"):
            gr.Markdown("other", elem_id="floor-other")
    app.load(lambda: pd.DataFrame({"metric": ["a", "b"]}), None, table, queue=False)
app.launch(server_name="127.0.0.1", server_port={port}, prevent_thread_lock=True, quiet=True)
print("serving the leaderboard floor", flush=True)
threading.Event().wait()
"""
"""The floor: a Gradio page with one table filled by its load event, in the first of two tabs
(the other holds one line of text)."""
FLOOR_TABS = {"Other": "#floor-other", "Ranking": "#ranking-table [role=grid]"}
FLOOR_SWITCHES = 5
"""Round trips between the floor's two tabs: the switch floor is their median."""


def serve_floor(port: int) -> subprocess.Popen[str]:
    """`FLOOR_APP` at 127.0.0.1:`port`, once it serves."""
    floor = subprocess.Popen(
        [sys.executable, "-c", FLOOR_APP.replace("{port}", str(port))],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"},
    )
    assert floor.stdout is not None
    for line in floor.stdout:
        if line.startswith("serving the leaderboard floor"):
            return floor
    raise SystemExit(f"the floor app stopped before serving (exit {floor.wait()})")


def load_seconds(browser: Any, url: str) -> tuple[float, Any]:
    """Navigation start to the first ranking row visible, in a fresh 1400x900 page; the
    page's context, left open."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(url, wait_until="commit")
    shown = page.wait_for_function(FIRST_ROW, polling="raf", timeout=120_000)
    return float(shown.json_value()) / 1000, context


def settled(page: Any) -> None:
    """Once the loaded page has drawn its forest plot, and a second after (a visitor's first
    look; the page draws the dataset item and the Overall tab meanwhile), so that a switch is
    timed alone, not with the end of the page load (Gradio's open event stream keeps the
    network from ever being idle)."""
    page.locator(TABS["Ranking"]).first.wait_for(state="visible", timeout=120_000)
    page.wait_for_timeout(SETTLE_MS)


def switch_seconds(page: Any, tab: str, drawn: str) -> float:
    """A click on `tab` to `drawn` visible."""
    started = time.perf_counter()
    page.get_by_role("tab", name=tab).click()
    page.locator(drawn).first.wait_for(state="visible", timeout=120_000)
    return time.perf_counter() - started


def floor_switch_seconds(browser: Any, floor_url: str) -> float:
    """The median switch between the floor page's two tabs, timed as `switch_seconds`."""
    _, context = load_seconds(browser, floor_url)
    page = context.pages[0]
    page.wait_for_timeout(SETTLE_MS)
    times = [
        switch_seconds(page, tab, drawn)
        for _ in range(FLOOR_SWITCHES)
        for tab, drawn in FLOOR_TABS.items()
    ]
    context.close()
    return statistics.median(times)


def alone_switch_seconds(browser: Any, url: str, tab: str, pages: int) -> float:
    """The median first switch to `tab` in `pages` fresh, settled pages: a switch with no
    earlier tab's drawing still under way."""
    times = []
    for _ in range(pages):
        _, context = load_seconds(browser, url)
        page = context.pages[0]
        settled(page)
        times.append(switch_seconds(page, tab, TABS[tab]))
        context.close()
    return statistics.median(times)


def verdict(seconds: float, goal: float) -> str:
    return "met" if seconds < goal else "not met"


def measure(url: str, floor_url: str, loads: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        first, context = load_seconds(browser, url)
        context.close()
        print(f"page load, first on a fresh server: {first:.2f} s (goal < {LOAD_GOAL_S} s)")
        warm, floor = [], []
        for _ in range(loads):
            for times, address in ((warm, url), (floor, floor_url)):
                seconds, context = load_seconds(browser, address)
                times.append(seconds)
                context.close()
        median, floor_median = statistics.median(warm), statistics.median(floor)
        print(
            f"page load, warm server, median of {loads}: {median:.2f} s (max {max(warm):.2f} s):"
            f" {verdict(max(first, median), LOAD_GOAL_S)}; floor (one Gradio table) at the same"
            f" time: median {floor_median:.2f} s"
        )
        slowest = max(first, median)
        print_goal_row(
            LOAD.work,
            f"{slowest:.2f} s (first, or the warm median)",
            slowest,
            floor_median,
            "one Gradio table (wall)",
            LOAD.text,
            LOAD.met(slowest),
        )
        _, context = load_seconds(browser, url)
        page = context.pages[0]
        settled(page)
        switches = []
        for rounds in ("first", "again"):
            for tab, drawn in TABS.items():
                switches.append(seconds := switch_seconds(page, tab, drawn))
                print(
                    f"tab switch to {tab} ({rounds}): {seconds:.2f} s (goal < {SWITCH_GOAL_S} s):"
                    f" {verdict(seconds, SWITCH_GOAL_S)}"
                )
        for tab in ("Overall", "Metric", "Comparison"):
            alone = alone_switch_seconds(browser, url, tab, ALONE_PAGES)
            print(
                f"tab switch to {tab} alone (first, median of {ALONE_PAGES} fresh pages): {alone:.2f} s"
            )
        switch_floor = floor_switch_seconds(browser, floor_url)
        print(f"tab switch floor (two bare Gradio tabs, median): {switch_floor:.2f} s")
        print_goal_row(
            SWITCH.work,
            f"{max(switches):.2f} s (the slowest of {len(switches)})",
            max(switches),
            switch_floor,
            "a switch between two bare Gradio tabs (wall, median)",
            SWITCH.text,
            SWITCH.met(max(switches)),
        )
        context.close()
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a seeded leaderboard database")
    parser.add_argument("--loads", type=int, default=5, help="warm page loads timed")
    parser.add_argument("--idle", type=float, default=60.0, help="idle seconds measured (0: none)")
    args = parser.parse_args()
    server = serve(args.db, port := _free_port())
    try:
        if args.idle:
            time.sleep(5)  # the start's own work (imports, the restore check) done
            cpu = idle_cpu(server.pid, args.idle)
            print(
                f"idle server before any client: {cpu:.2f} s CPU over {args.idle:g} s "
                f"({cpu / args.idle:.1%} of a core): {verdict(cpu / args.idle, IDLE_GOAL)}"
            )
        floor = serve_floor(floor_port := _free_port())
        try:
            measure(f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{floor_port}/", args.loads)
        finally:
            floor.terminate()
            floor.wait()
        if args.idle:
            time.sleep(5)  # the closed pages' connections dropped
            cpu = idle_cpu(server.pid, args.idle)
            print(
                f"idle server after its clients left: {cpu:.2f} s CPU over {args.idle:g} s "
                f"({cpu / args.idle:.1%} of a core): {verdict(cpu / args.idle, IDLE_GOAL)}"
            )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
