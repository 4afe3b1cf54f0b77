"""A package outside comperbench adds a metric and a benchmark through its entry points, and a
plugin that fails to import is named without breaking the others.

The plugin of tests/fixtures/plugin_pkg is put on a temporary path with the dist-info its
pyproject.toml declares (what `pip install` writes), so `importlib.metadata` finds its entry
points exactly as it finds an installed package's."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import comperbench
from comperbench.common.registry import PluginWarning, Registry

ROOT = Path(comperbench.__file__).resolve().parents[1]
PLUGIN = Path(__file__).parent / "fixtures" / "plugin_pkg"


def _dist_info(site: Path, name: str, version: str, groups: dict[str, dict[str, str]]) -> None:
    """The METADATA and entry_points.txt of an installed distribution."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    sections = [
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items())
        for group, entries in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(sections))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo plugin installed, and a broken one whose module cannot be imported."""
    site = tmp_path_factory.mktemp("site")
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    shutil.copytree(PLUGIN / "comperbench_plugin_demo", site / "comperbench_plugin_demo")
    _dist_info(site, project["name"], project["version"], project["entry-points"])
    (site / "comperbench_broken_plugin.py").write_text(
        "raise ImportError('needs a library that is not installed')\n"
    )
    broken = {"comperbench.metrics": {"broken": "comperbench_broken_plugin"}}
    _dist_info(site, "comperbench-broken-plugin", "0.1.0", broken)
    return site


def _comperbench(site: Path, tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]),
        "COMPERBENCH_CACHE": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [sys.executable, "-m", "comperbench", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )


BROKEN = (
    "comperbench: warning: plugin 'broken' (comperbench.metrics) was not loaded: "
    "ImportError: needs a library that is not installed\n"
)


def test_the_plugin_metric_is_listed_and_the_broken_one_named(site: Path, tmp_path: Path) -> None:
    done = _comperbench(site, tmp_path, "list", "metrics")
    assert done.returncode == 0, done.stderr
    assert done.stderr == BROKEN
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line}
    assert rows["demo-characters"] == ["ngram", "response", "yes"]
    assert "bleu-4" in rows and "meteor" in rows
    described = json.loads(_comperbench(site, tmp_path, "list", "metrics", "--json").stdout)
    demo = next(d for d in described if d["name"] == "demo-characters")
    assert demo["link"] == "https://example.org/comperbench-plugin-demo"


def test_the_plugin_benchmark_is_listed(site: Path, tmp_path: Path) -> None:
    done = _comperbench(site, tmp_path, "list", "--no-sizes")
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()[2:] if line]
    assert "demo-chat" in names and "usr-topical" in names


def test_evaluate_scores_the_plugin_benchmark_with_the_plugin_metric(
    site: Path, tmp_path: Path
) -> None:
    shutil.copytree(PLUGIN / "data", tmp_path / "data")
    argv = ["evaluate", "--benchmark", "demo-chat", "--metrics", "demo-characters,bleu-4"]
    argv += ["--data-dir", "data", "--out", "out", "--resamples", "50"]
    done = _comperbench(site, tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    table = json.loads((tmp_path / "out" / "table.json").read_text())
    assert table["benchmark"] == "demo-chat"
    assert table["metrics"]["demo-characters"]["signature"].startswith("demo-characters|")
    rows = [json.loads(line) for line in (PLUGIN / "data/demo/ratings.jsonl").open()]
    lengths = [float(len(row["response"])) for row in rows]
    expected = statistics.correlation(lengths, [float(row["overall"]) for row in rows])
    (found,) = [row for row in table["rows"] if row["metric"] == "demo-characters"]
    assert found["n"] == 8 and found["pearson"] == pytest.approx(expected, abs=1e-12)


def test_a_failing_plugin_is_recorded_and_warned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    class Entry:
        name = "broken"

        def load(self) -> None:
            raise ModuleNotFoundError("No module named 'missing_library'")

    registry: Registry[int] = Registry("metric", group="comperbench.test-plugins")
    monkeypatch.setattr("comperbench.common.registry.entry_points", lambda group: [Entry()])
    with pytest.warns(PluginWarning, match="metric plugin 'broken'.*No module named"):
        assert registry.names() == []
    assert registry.failures == {"broken": "ModuleNotFoundError: No module named 'missing_library'"}
    registry.add("kept", 1)
    assert registry.get("kept") == 1  # loaded once: no second warning
