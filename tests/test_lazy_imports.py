"""What a run imports: the package and each command load only the libraries they use."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from comperbench.cli import COMMANDS, build_parser
from comperbench.cli.verbs import Parser

HEAVY = (
    "scipy.stats",
    "pandas",
    "matplotlib",
    "statsmodels",
    "sklearn",
    "torch",
    "gradio",
    "httpx",
)


def loaded_after(code: str, env: dict[str, str] | None = None) -> list[str]:
    """The libraries of HEAVY that a fresh interpreter has loaded after running `code`."""
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_package_and_its_statistics_loads_no_heavy_library() -> None:
    assert (
        loaded_after("import comperbench, comperbench.stats, comperbench.metrics, comperbench.cli")
        == []
    )


@pytest.mark.parametrize("command", ["submit", "evaluate", "list"])
def test_a_command_loads_only_what_its_own_module_needs(command: str) -> None:
    assert (
        loaded_after(f"from comperbench.cli import build_parser; build_parser({command!r})") == []
    )


def test_every_command_is_registered_by_the_module_listed_for_it() -> None:
    everything = build_parser()
    [commands] = [a for a in everything._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(commands.choices) == set(COMMANDS)
    for command, module in COMMANDS.items():
        own = Parser(prog="comperbench").add_subparsers()
        importlib.import_module(f"comperbench.cli.{module}").register(own)
        assert command in own.choices


def test_a_single_command_parses_as_with_every_command() -> None:
    argv = ["submit", "scores.csv", "--name", "mine", "--db", "lb.sqlite"]
    assert vars(build_parser("submit").parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_the_statistics_functions_keep_their_names_whatever_was_imported_first() -> None:
    code = (
        "import comperbench.stats.pair_ranking.soft_pairwise_accuracy, comperbench.stats.annotator_agreement.agreement\n"
        "import comperbench.stats.metric_correlation.statistics\n"
        "from comperbench import stats\n"
        "assert callable(stats.soft_pairwise_accuracy) and callable(stats.agreement)\n"
        "assert stats.soft_pairwise_accuracy.__module__ == 'comperbench.stats.pair_ranking.soft_pairwise_accuracy'\n"
        "assert stats.agreement.__module__ == 'comperbench.stats.annotator_agreement.agreement'\n"
        "from comperbench.stats import correlate\n"
        "assert correlate.__module__ == 'comperbench.stats.metric_correlation.correlation'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        importlib.import_module("comperbench.stats").nothing  # noqa: B018


def test_a_warm_evaluate_loads_no_heavy_library(data_root: Path, tmp_path: Path) -> None:
    run = (
        "from comperbench.cli import main\n"
        f"assert main(['evaluate', '--benchmark', 'usr-topical', '--metrics', 'bleu-4', "
        f"'--resamples', '50', '--data-dir', {str(data_root)!r}, '--out', "
        f"{str(tmp_path / 'out')!r}, '--force']) == 0"
    )
    env = {"COMPERBENCH_CACHE": str(tmp_path / "cache")}
    loaded_after(run, env)  # cold: fills the caches
    found = loaded_after(run, env)
    assert found == []  # the points and p-values need scipy.special, not scipy.stats
    assert (tmp_path / "out" / "table.json").is_file()
