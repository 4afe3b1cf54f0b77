"""The built wheel installs with plain pip into an environment that already has other numpy and
pandas releases than the tested set (their lower bounds in pyproject.toml), leaves them alone, and
runs a real job there with the same numbers as here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from comperbench.cli import main

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "comperbench")
PRESET = ("numpy", "pandas")
# what the core install must not bring
HEAVY = ("torch", "transformers", "gradio")
JOB = ["--benchmark", "usr-topical", "--metrics", "bleu-4", "--resamples", "50"]
INSTALL_TIMEOUT_S = 1800


def lower_bound(name: str) -> str:
    """The `>=` version of a core dependency in pyproject.toml."""
    for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(line)
        if canonicalize_name(requirement.name) == name:
            return next(spec.version for spec in requirement.specifier if spec.operator == ">=")
    raise AssertionError(f"{name} is not a dependency in pyproject.toml")


def constrained(name: str) -> str:
    """The version of a package in constraints.txt."""
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        package, _, version = line.partition("==")
        if version and canonicalize_name(package) == name:
            return version
    raise AssertionError(f"{name} is not in constraints.txt")


def run(*command: str | Path, env: dict[str, str], timeout: float = INSTALL_TIMEOUT_S) -> str:
    result = subprocess.run(
        [str(part) for part in command], env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def build_wheel(tmp_path: Path, env: dict[str, str]) -> Path:
    """The wheel, built from a clean copy of the sources (no stale build folder)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "dist", source, env=env)
    (wheel,) = (tmp_path / "dist").glob("comperbench-*.whl")
    return wheel


def installed_versions(python: Path, names: tuple[str, ...], env: dict[str, str]) -> dict:
    """The version of each distribution in the environment of `python`, None when it is missing."""
    code = (
        "import importlib.metadata as m, json, sys\n"
        "def version(name):\n"
        "    try:\n"
        "        return m.version(name)\n"
        "    except m.PackageNotFoundError:\n"
        "        return None\n"
        "print(json.dumps({name: version(name) for name in sys.argv[1:]}))"
    )
    return json.loads(run(python, "-c", code, *names, env=env))


def rows(table: Path) -> list[dict]:
    """table.json's rows, numbers to 10 decimals (bootstrap sums may differ in the last bits)."""
    return json.loads(table.read_text(), parse_float=lambda text: round(float(text), 10))["rows"]


@pytest.mark.slow
def test_core_wheel_keeps_the_numpy_and_pandas_it_finds(
    tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preset = {name: lower_bound(name) for name in PRESET}
    for name, version in preset.items():
        assert Version(version).release[:2] != Version(constrained(name)).release[:2], (
            f"{name}'s lower bound {version} is the minor CI already tests"
        )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(COMPERBENCH_DATA=str(data_root), COMPERBENCH_CACHE=str(tmp_path / "cache"))
    wheel = build_wheel(tmp_path, env)
    # the venv without a pip of its own: this pip installs into it (`--python`)
    run(sys.executable, "-m", "venv", "--without-pip", tmp_path / "venv", env=env)
    python = tmp_path / "venv" / "bin" / "python"
    # wheels wherever a release has one, so nothing is compiled; the few sdist-only packages (pure
    # Python) are built once, then taken from pip's wheel cache
    pip = (sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--prefer-binary")
    run(*pip, *(f"{name}=={version}" for name, version in preset.items()), env=env)
    run(*pip, wheel, env=env)

    installed = installed_versions(python, (*PRESET, *HEAVY), env=env)
    assert installed == {**preset, **dict.fromkeys(HEAVY)}
    assert "usr-topical" in run(python.parent / "comperbench", "list", env=env, timeout=300)
    run(
        python.parent / "comperbench",
        "evaluate",
        *JOB,
        "--out",
        tmp_path / "there",
        env=env,
        timeout=600,
    )

    assert main(["evaluate", *JOB, "--out", str(tmp_path / "here")]) == 0
    capsys.readouterr()
    assert rows(tmp_path / "there" / "table.json") == rows(tmp_path / "here" / "table.json")
