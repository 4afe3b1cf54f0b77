"""The documentation pages (docs/): every code block is closed and holds no section, every
`comperbench` command parses, every Python example runs on the shared data and prints what the
page shows, and the site builds with `mkdocs build --strict`."""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import markdown_check
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(path for path in DOCS.rglob("*.md") if "_gen" not in path.parts)
IDS = [str(path.relative_to(DOCS)) for path in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_code_blocks_are_closed_and_hold_no_section(page: Path) -> None:
    problems = markdown_check.fence_problems(page.read_text(), str(page.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_commands_parse(page: Path) -> None:
    problems = markdown_check.command_problems(page.read_text(), str(page.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_python_examples_run_and_print_what_the_page_shows(
    page: Path, data_root: Path, tmp_path: Path
) -> None:
    problems = markdown_check.example_problems(page, str(page.relative_to(ROOT)), tmp_path)
    assert not problems, "\n".join(problems)


def test_the_pages_show_the_commands_and_examples_of_the_main_jobs() -> None:
    text = "\n".join(page.read_text() for page in PAGES)
    verbs = {command.args[0] for command in markdown_check.commands(text)}
    assert {"evaluate", "compare", "leaderboard", "human", "export", "reproduce"} <= verbs
    assert len(markdown_check.python_blocks(text)) >= 10


def test_a_python_block_that_fails_or_prints_otherwise_is_named() -> None:
    text = (
        "Intro.\n\n```python\nx = 2\nprint(x + 1)\n```\n\n<!-- docs: output -->\n```text\n4\n```"
        "\n\n```python\nraise ValueError('no such benchmark')\n```\n\n"
        "<!-- docs: not run: needs your own scores -->\n```python\nmy_frame.plot()\n```\n\n"
        "<!-- docs: needs comperbench.no_such_name -->\n```python\nundefined_name\n```\n\n"
        "```python\nprint(x)\n```\n\n<!-- docs: output -->\n```text\n2\n```\n"
    )
    blocks = markdown_check.python_blocks(text)
    assert [(b.line, b.not_run, b.needs, b.output) for b in blocks] == [
        (3, None, None, "4\n"),
        (13, None, None, None),
        (18, "needs your own scores", None, None),
        (23, None, "comperbench.no_such_name", None),
        (27, None, None, "2\n"),
    ]
    assert markdown_check.run_problems(blocks, "P.md") == [
        "P.md:3: the block prints\n3\ninstead of what the page shows:\n4\n",
        "P.md:13: the block raises ValueError: no such benchmark",
    ]


def test_a_marker_without_its_reason_is_named() -> None:
    text = "<!-- docs: not run -->\n```python\nx\n```\n\n<!-- docs: needs -->\n```py\ny\n```\n"
    blocks = markdown_check.python_blocks(text)
    assert markdown_check.marker_problems(blocks, "P.md") == [
        "P.md:2: a Python block left unrun must say why",
        "P.md:7: a Python block left unrun must say why",
    ]


def test_a_needed_name_or_keyword_exists_only_when_it_does() -> None:
    assert markdown_check.exists("comperbench.stats.settings.Resampling")
    assert markdown_check.exists("comperbench.load_benchmark(data_dir)")
    assert not markdown_check.exists("comperbench.load_benchmark(no_such_keyword)")
    assert not markdown_check.exists("comperbench.no_such_name")
    assert not markdown_check.exists("no_such_package.name")


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
    }
    site = tmp_path / "site"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    done = subprocess.run(build, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    pages = {path.relative_to(site).as_posix() for path in site.rglob("*.html")}
    assert {"index.html", "benchmarks/usr-topical.html", "metrics/list.html"} <= pages
    assert "api/stats.html" in pages
    external = re.compile(r"<(?:script|link|img)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)
    for path in site.rglob("*.html"):
        assert not external.search(path.read_text()), f"{path} loads a file from elsewhere"


def _generated(script: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The pages a generator script of docs/_gen writes, by path, without a site build."""
    pages: dict[str, io.StringIO] = {}

    @contextlib.contextmanager
    def open_page(path: str, mode: str) -> Iterator[io.StringIO]:
        pages[path] = io.StringIO()
        yield pages[path]

    monkeypatch.setitem(sys.modules, "mkdocs_gen_files", types.SimpleNamespace(open=open_page))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(DOCS / "_gen" / script))
    return {path: page.getvalue() for path, page in pages.items()}


def test_the_metric_pages_are_the_metric_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    from comperbench.metrics import available, info
    from comperbench.metrics.about.cards import render_card

    pages = _generated("metric_pages.py", monkeypatch)
    names = available()
    assert sorted(pages) == sorted(["metrics/list.md", *(f"metrics/cards/{n}.md" for n in names)])
    assert pages["metrics/cards/bleu-4.md"] == render_card(info("bleu-4"))
    listed = pages["metrics/list.md"]
    assert all(f"[`{n}`](cards/{n}.md)" in listed for n in names)


def test_the_benchmark_pages_are_the_cards_without_their_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pages = _generated("benchmark_pages.py", monkeypatch)
    names = sorted(path.parent.name for path in (ROOT / "dataset_cards").glob("*/README.md"))
    assert sorted(pages) == sorted(["benchmarks/index.md", *(f"benchmarks/{n}.md" for n in names)])
    assert pages["benchmarks/usr-topical.md"].startswith("\n# USR-TopicalChat\n")
    assert "| [`usr-topical`](usr-topical.md) | USR-TopicalChat |" in pages["benchmarks/index.md"]


def test_a_shell_block_waiting_for_a_command_is_checked_once_the_cli_has_it() -> None:
    waiting = (
        "<!-- docs: needs comperbench list --no-such-flag -->\n```bash\ncomperbench frob\n```\n"
    )
    assert markdown_check.command_problems(waiting, "P.md") == []
    ready = waiting.replace("list --no-such-flag", "list --json")
    [problem] = markdown_check.command_problems(ready, "P.md")
    assert problem.startswith("P.md:3: `comperbench frob` does not parse: ")
    assert "unknown command 'frob'" in problem
