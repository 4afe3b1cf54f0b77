"""Bad flags, bad files, unwritable paths and Ctrl-C: each one line on stderr, never a traceback."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from deadlines import DEADLINE_S
from test_leaderboard_deploy import _free_port

from comperbench.cli import main

ITEM_ID = "usr-topical/x"
CSV = f"item_id,m\n{ITEM_ID},1\n".encode()


def _corrupt(folder: Path) -> dict[str, Path]:
    """Score files whose packing (gzip, zip, xz, bzip2) is cut short."""
    packed = {
        "scores.csv.gz": gzip.compress(CSV),
        "scores.csv.xz": lzma.compress(CSV),
        "scores.csv.bz2": bz2.compress(CSV),
        "scores.csv.zip": b"PK\x03\x04" + b"\0" * 20,
    }
    paths = {}
    for name, data in packed.items():
        paths[name] = folder / name
        paths[name].write_bytes(data[: max(12, len(data) // 2)])
    return paths


def _exit_status(argv: list[str]) -> int | str | None:
    """`main`'s exit status, whether returned or raised by argparse."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    assert _exit_status(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("comperbench")]
    assert len(errors) == 1 and err.endswith(errors[0] + "\n"), err  # after any progress lines
    assert needle in errors[0], err


EVALUATE = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4"]
JUDGE = "cpdscore-simple[http:m,url=http://127.0.0.1:9/v1,{}]"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--resamples", "-1"], "argument --resamples: -1 is out of range: give a whole number"),
        (["--seed", "-1"], "argument --seed: -1 is out of range: give a whole number of 0"),
        (["--batch-size", "0"], "argument --batch-size: 0 is out of range: give a whole number"),
        (["--workers", "zero"], "argument --workers: expected a whole number"),
        (["--scheduler", "not a url"], "'not a url' is not a scheduler address"),
        (["--metrics", JUDGE.format("t=nan")], "judge option 't'"),
        (["--metrics", JUDGE.format("timeout=nan")], "judge option 'timeout'"),
        (["--metrics", JUDGE.format("timeout=inf")], "expected a finite number, got 'inf'"),
        (["--out", "o\udcff"], "argument o\\xff holds bytes that are not UTF-8"),
    ],
)
def test_bad_evaluate_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], needle: str
) -> None:
    _one_line_error(capsys, [*EVALUATE, "--out", str(tmp_path / "out"), *extra], needle)


@pytest.mark.parametrize("alpha", ["2", "0", "1", "-0.1", "nan", "x"])
def test_compare_refuses_a_level_outside_zero_and_one(
    capsys: pytest.CaptureFixture[str], alpha: str
) -> None:
    argv = ["compare", "--benchmark", "usr-topical", "--metrics", "bleu-4", "--alpha", alpha]
    _one_line_error(capsys, argv, "argument --alpha: ")


def test_evaluate_with_no_metric_that_can_run_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["evaluate", "--benchmark", "fed-dialogue", "--metrics", "length"]
    _one_line_error(capsys, [*argv, "--out", str(tmp_path / "out")], "no metric can run on")
    assert not (tmp_path / "out" / "table.json").exists()


@pytest.mark.parametrize(
    ("name", "shown"),
    [("\x1b[31mred.csv", "\\x1b[31mred.csv"), ("a\u202egnp.csv", "a\\u202egnp.csv")],
)
def test_a_file_name_in_an_error_is_printed_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, shown: str
) -> None:
    argv = ["compare", "--benchmark", "usr-topical", "--scores", str(tmp_path / name)]
    _one_line_error(capsys, argv, f"{shown} does not exist")


def test_bad_resampling_option_of_human_commands(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["human", "labels", "--seed=-3"]
    _one_line_error(capsys, argv, "argument --seed: -3 is out of range")


def test_unwritable_paths_and_bad_environment(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    data_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    _one_line_error(capsys, [*EVALUATE, "--out", str(blocker / "out")], str(blocker / "out"))
    monkeypatch.setenv("COMPERBENCH_CACHE", str(blocker / "cache"))
    _one_line_error(capsys, [*EVALUATE, "--out", str(tmp_path / "o1")], str(blocker / "cache"))
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPERBENCH_WORKERS", "abc")
    argv = [*EVALUATE, "--out", str(tmp_path / "o2"), "--no-cache"]
    _one_line_error(capsys, argv, "$COMPERBENCH_WORKERS is 'abc'")


def test_statistic_refused_on_a_benchmark(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_root: Path
) -> None:
    argv = ["evaluate", "--benchmark", "dstc7", "--metrics", "bleu-4", "--statistics", "acc-eq"]
    _one_line_error(capsys, [*argv, "--out", str(tmp_path / "o")], "pairwise accuracy over")


def test_corrupt_score_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_root: Path
) -> None:
    for path in _corrupt(tmp_path).values():
        argv = ["compare", "--benchmark", "usr-topical", "--scores", str(path)]
        _one_line_error(capsys, argv, f"scores file {path} cannot be read")


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """SIGINT once the server says it serves: one line, exit 130. A server still running at the
    deadline is made to print every thread's stack (faulthandler, on SIGABRT) for the report."""
    command = [sys.executable, "-m", "comperbench", "leaderboard", "serve"]
    command += ["--port", str(_free_port()), "--db", str(tmp_path / "board.sqlite"), "--create"]
    env = os.environ | {"COMPERBENCH_RESULTS_DIR": str(tmp_path / "results")}
    env["PYTHONFAULTHANDLER"] = "1"
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # as from a terminal: a suite run as a background job inherits SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        served = process.stdout.readline()  # blocks until it serves (or ends)
        assert "serving the leaderboard" in served, process.communicate(timeout=DEADLINE_S)
        process.send_signal(signal.SIGINT)
        try:
            _, err = process.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)
            _, stacks = process.communicate(timeout=DEADLINE_S)
            pytest.fail(f"still serving {DEADLINE_S:.0f} s after SIGINT:\n{stacks}")
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert err == "comperbench: interrupted\n"
