"""Shared fixtures: offline environment, a per-session cache, and the real data root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

for _name in (
    "HF_HUB_OFFLINE",
    "HF_DATASETS_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "COMPERBENCH_OFFLINE",
):
    os.environ[_name] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"


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
