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
from comperbench.cli.human_commands import ACTIONS as HUMAN_ACTIONS
from comperbench.cli.verbs import Parser, Verbs

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
    code = f"from comperbench.cli import build_parser; build_parser(every=False).parse_args([{command!r}, '--help'])"
    assert (
        loaded_after(
            f"import contextlib\nwith contextlib.suppress(SystemExit):\n    exec({code!r})"
        )
        == []
    )


def run_loads(argv: list[str], libraries: tuple[str, ...]) -> list[str]:
    """Which of `libraries` a fresh `comperbench ARGV` has loaded when it ends (its exit status
    must be 0)."""
    probe = (
        "import json, sys\n"
        "from comperbench.cli import main\n"
        "try:\n"
        f"    status = main({argv!r})\n"
        "except SystemExit as exited:\n"
        "    status = exited.code\n"
        f"print(json.dumps([status, [m for m in {libraries!r} if m in sys.modules]]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 0, done.stderr
    return loaded


def test_the_version_and_the_list_of_commands_load_no_numpy_and_no_command_module() -> None:
    verbs = [*COMMANDS.values(), *HUMAN_ACTIONS.values()]
    tables = {"comperbench.cli.human_commands"}  # the table of human actions: names and help
    modules = tuple(sorted({verb.module for verb in verbs} - tables))
    for argv in (["--version"], ["--help"], ["human", "--help"]):
        assert run_loads(argv, ("numpy", "pyarrow", *modules)) == [], argv


def test_list_and_a_plan_load_none_of_the_analysis_libraries() -> None:
    assert run_loads(["list"], ("scipy", "statsmodels", "torch", "gradio", "matplotlib")) == []
    other_actions = tuple(v.module for k, v in HUMAN_ACTIONS.items() if k != "plan")
    plan = ["human", "plan", "ab", "--difference", "0.1"]
    heavy = ("scipy.stats", "statsmodels", "torch", "gradio", "pyarrow")
    assert run_loads(plan, (*heavy, *other_actions)) == []


def test_every_command_is_registered_by_the_module_listed_for_it() -> None:
    for table in (COMMANDS, HUMAN_ACTIONS):
        for name, verb in table.items():
            own = Parser(prog="comperbench").add_subparsers(action=Verbs, verbs=table)
            own.build(name)
            parser = own.choices[name]
            assert parser.add_help, f"{verb.module} does not build {name}"
            nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            assert tuple(a for n in nested for a in n.choices) == verb.actions


def test_the_listing_is_the_table_and_a_command_parses_as_with_every_command_built() -> None:
    lazy, every = build_parser(every=False), build_parser()
    assert lazy.format_help() == every.format_help()
    for name, verb in COMMANDS.items():
        assert verb.help in " ".join(every.format_help().split()), name
    for argv in (
        ["submit", "scores.csv", "--name", "mine", "--db", "lb.sqlite"],
        ["human", "plan", "ab", "--difference", "0.1"],
    ):
        one, both = build_parser(every=False).parse_args(argv), every.parse_args(argv)
        runs = one.__dict__.pop("run"), both.__dict__.pop("run")
        assert vars(one) == vars(both)
        assert len({run.__qualname__ for run in runs}) == 1


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


@pytest.mark.slow
def test_a_submission_and_its_ranking_load_no_heavy_library(
    data_root: Path, tmp_path: Path
) -> None:
    from comperbench.leaderboard.items import cached_benchmark

    ids = cached_benchmark("dstc7", "turn").item_ids  # ten systems: no exact system p-value
    files = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for step, path in enumerate(files, start=2):
        path.write_text("item_id,score\n" + "".join(f"{i},{k % step}\n" for k, i in enumerate(ids)))

    def run(db: Path) -> str:
        return (
            "from comperbench.cli import main\n"
            f"for k, path in enumerate({[str(f) for f in files]!r}):\n"
            f"    assert main(['submit', path, '--name', f'm{{k}}', '--db', {str(db)!r}, '--create']) == 0"
        )

    env = {"COMPERBENCH_CACHE": str(tmp_path / "cache"), "COMPERBENCH_DATA": str(data_root)}
    loaded_after(run(tmp_path / "cold.sqlite"), env)  # cold: fills the caches
    found = loaded_after(run(tmp_path / "warm.sqlite"), env)
    assert found == []  # the second is ranked: its verdicts need scipy.special alone
