"""Shared fixtures: offline environment, a per-session cache, and the real data root."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llm_server
import pytest

from comperbench.metrics.llm import backend_factory as llm_backends
from comperbench.metrics.llm.backends.http_endpoint import HttpBackend

for _name in (
    "HF_HUB_OFFLINE",
    "HF_DATASETS_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "COMPERBENCH_OFFLINE",
):
    os.environ[_name] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("COMPERBENCH_CACHE_KEY", "the-cache-key-of-the-tests")
"""The key of the cache's digests, so that no test writes one into the user config folder."""

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which the browser tests drive."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's, driven by Playwright), one per test module."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test session gets its own cache so that no result leaks in from outside."""
    path = tmp_path_factory.mktemp("comperbench-cache")
    os.environ["COMPERBENCH_CACHE"] = str(path)
    return path


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The real raw data (COMPERBENCH_DATA); CI always has it, elsewhere its absence skips."""
    env = os.environ.get("COMPERBENCH_DATA")
    if env and Path(env).is_dir():
        return Path(env)
    if os.environ.get("CI"):
        pytest.fail("COMPERBENCH_DATA must point at the raw benchmark data in CI")
    pytest.skip("COMPERBENCH_DATA is not set to the raw benchmark data")


_USES_DATA = ("uses_data_root", True)
_data_tests = {"started": 0, "ran": 0}
"""Tests needing the data root that were set up, and those whose body ran; counted from the
reports, which xdist forwards to the controller, so the controller's counts cover every worker."""


def pytest_sessionstart(session: pytest.Session) -> None:
    _data_tests.update(started=0, ran=0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tag tests that use `data_root`; the tag travels with their reports across xdist."""
    for item in items:
        if "data_root" in getattr(item, "fixturenames", ()):
            item.user_properties.append(_USES_DATA)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _USES_DATA not in report.user_properties:
        return
    if report.when == "setup":
        _data_tests["started"] += 1
    elif report.when == "call":
        _data_tests["ran"] += 1


def _data_tests_missing(config: pytest.Config) -> bool:
    """In CI, outside xdist workers: tests needing the data were run, but none got past setup."""
    if not os.environ.get("CI") or hasattr(config, "workerinput"):
        return False
    return _data_tests["started"] > 0 and _data_tests["ran"] == 0


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Fail a CI run whose data-dependent tests were all skipped or errored in setup."""
    if _data_tests_missing(session.config) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if _data_tests_missing(config):
        terminalreporter.write_line(
            f"CI: none of the {_data_tests['started']} tests that need COMPERBENCH_DATA ran",
            red=True,
        )


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The base URL of the chat-completions test server (`llm_server`)."""
    with llm_server.serving() as url:
        yield url


@pytest.fixture
def judge_server(server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """The test server as every HTTP judge's default, fresh: no request seen, no backend built,
    an empty cache, quick retries."""
    llm_server.reset()
    monkeypatch.setenv("COMPERBENCH_LLM_BASE_URL", server)
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path))
    llm_backends._BACKENDS.clear()
    monkeypatch.setattr(llm_backends, "HttpBackend", functools.partial(HttpBackend, backoff_s=0.01))
    return server
