"""Every numeric flag is range-checked as it is parsed, and a file argument must be a regular file
of a bounded size: each bad value is one line naming the flag, the value and the range, exit 2,
before any work (no benchmark is loaded: these run without the raw data)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from deadlines import DEADLINE_S

from comperbench.cli import build_parser, main
from comperbench.cli.flags import MAX_FILE_BYTES, MAX_RESAMPLES

COMPARE = ["compare", "--benchmark", "usr-topical", "--metrics", "bleu-4"]
EVALUATE = ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4"]
VOTES = ["human", "votes", "--benchmark", "usr-topical"]
LABELS = ["human", "labels", "--benchmark", "dstc9", "--aspect", "consistent"]
PLAN_AB = ["human", "plan", "ab", "--difference", "0.1"]
HUGE = "2000000000"


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line `comperbench ARGV` answers with, after checking it exits 2 before any
    output and prints no traceback."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.count("\n") == 1 and captured.err.startswith("comperbench"), captured.err
    return captured.err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["leaderboard", "serve", "--port", "70000"], "--port: 70000 is out of range"),
        (["leaderboard", "serve", "--port", "-1"], "--port: -1 is out of range"),
        (["leaderboard", "serve", "--port", "0"], "give a whole number from 1 to 65535"),
        (["leaderboard", "serve", "--port", "http"], "--port: expected a whole number from 1"),
        ([*COMPARE, "--resamples", "0"], "--resamples: 0 is out of range: give a whole number"),
        ([*COMPARE, "--resamples", "-5"], "from 1 to 1,000,000"),
        ([*COMPARE, "--seed", "-1"], "--seed: -1 is out of range: give a whole number of 0"),
        ([*COMPARE, "--alpha", "1"], "--alpha: 1 is out of range: give a number between 0 and 1"),
        ([*COMPARE, "--alpha", "inf"], "--alpha: inf is out of range"),
        ([*COMPARE, "--early-stop", "0"], "--early-stop '0': 0 is out of range"),
        ([*COMPARE, "--early-stop", HUGE], "from 1 to 1,000,000"),
        ([*COMPARE, "--early-stop", "100:0.6:0.1"], "0 <= below <= above <= 1"),
        ([*COMPARE, "--early-stop", "100:x:0.1"], "could not convert string to float"),
        (["agreement", "--benchmark", "dstc9", "--resamples", "-1"], "from 0 to 1,000,000"),
        ([*EVALUATE, "--resamples", "1000001"], "--resamples: 1000001 is out of range"),
        ([*EVALUATE, "--workers", "0"], "--workers: 0 is out of range"),
        ([*EVALUATE, "--workers", "100000"], "give a whole number from 1 to 1024"),
        ([*EVALUATE, "--sample", "0"], "--sample: 0 is out of range: give a whole number of 1"),
        ([*EVALUATE, "--limit", "-3"], "--limit: -3 is out of range"),
        ([*EVALUATE, "--sample-seed", "-1"], "--sample-seed: -1 is out of range"),
        ([*VOTES, "--permutations", "0"], "--permutations: 0 is out of range"),
        ([*VOTES, "--permutations", HUGE], "--permutations: 2000000000 is out of range"),
        ([*VOTES, "--resamples", "0"], "--resamples: 0 is out of range"),
        ([*VOTES, "--expected", "1.5"], "--expected: 1.5 is out of range"),
        ([*LABELS, "--confidence", "1"], "--confidence: 1 is out of range"),
        ([*LABELS, "--confidence", "nan"], "--confidence: nan is out of range"),
        ([*LABELS, "--draws", "0"], "--draws: 0 is out of range"),
        ([*LABELS, "--alpha", "-0.1"], "--alpha: -0.1 is out of range"),
        ([*LABELS, "--resamples", "-1"], "--resamples: -1 is out of range: give a whole number"),
        ([*LABELS, "--seed", "x"], "--seed: expected a whole number of 0 or more, got 'x'"),
        ([*PLAN_AB, "--alpha", "1.5"], "--alpha: 1.5 is out of range"),
        ([*PLAN_AB, "--power", "0"], "--power: 0 is out of range"),
        ([*PLAN_AB, "--n", "0"], "--n: 0 is out of range: give a whole number from 1"),
        ([*PLAN_AB, "--n", "10000000"], "give a whole number from 1 to 1,000,000"),
        (["human", "plan", "ab", "--difference", "inf"], "--difference: inf is out of range"),
        (["human", "plan", "soba-k", "--difference", "0.1", "--k", "1"], "--k: 1 is out of range"),
        (["human", "plan", "ratings", "--difference", "1", "--sd", "0"], "--sd: 0 is out of"),
        (["human", "plan", "sata-pair", "--p10", "1.5", "--p01", "0.1"], "--p10: 1.5 is out"),
        (["human", "plan", "sata-k", "--p", "0.3,-1"], "--p: -1 is out of range"),
        (["human", "plan", "sata-k", "--p", "0.3,x"], "--p: expected a number between 0 and 1"),
        (
            ["human", "plan", "sata-k", "--difference", "0.1", "--simulations", "0"],
            "--simulations: 0 is out of range",
        ),
        (["human", "plan", "sata-rate", "--difference", "0.1", "--expected", "0"], "--expected"),
        (["human", "plan", "labels", "--difference", "0.1", "--rate", "1"], "--rate: 1 is out"),
    ],
)
def test_a_value_out_of_range_is_one_line_naming_flag_value_and_range(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    assert needle in refused(capsys, argv)


def test_a_huge_resample_count_is_refused_with_what_it_would_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = refused(capsys, [*COMPARE, "--resamples", HUGE])
    assert (
        "--resamples: 2000000000 is out of range: give a whole number from 1 to 1,000,000" in line
    )
    # 8 bytes per value kept, and 2,000,000 times the work of 1,000 resamples
    assert (
        "would hold 16 GB per metric and statistic, and take 2,000,000x the time of 1,000" in line
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["leaderboard", "serve", "--port", "1"],
        ["leaderboard", "serve", "--port", "65535"],
        [*COMPARE, "--resamples", "1", "--alpha", "0.999"],
        [*COMPARE, "--resamples", str(MAX_RESAMPLES), "--early-stop", "1:0:1"],
        [*EVALUATE, "--resamples", "0", "--workers", "1024", "--seed", str(2**64)],
        ["agreement", "--benchmark", "dstc9", "--resamples", "0"],
        [*LABELS, "--resamples", "0", "--confidence", "0.5"],
        ["human", "plan", "sata-pair", "--p10", "0", "--p01", "1"],
        [*PLAN_AB, "--n", "1000000", "--alpha", "1e-9"],
    ],
)
def test_the_ends_of_each_range_are_accepted(argv: list[str]) -> None:
    build_parser().parse_args(argv)


def test_a_device_a_fifo_or_an_oversized_file_is_refused_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "votes.fifo"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    small = tmp_path / "labels.csv"
    small.write_text("dialogue,turn,system,behaviour,value,annotator\n")
    not_regular = "is not a regular file (a device, FIFO or socket, which may never end)"
    for argv, needle in [
        (["human", "votes", "--file", "/dev/zero"], f"--file: '/dev/zero' {not_regular}"),
        (["human", "ratings", "--file", str(fifo)], f"--file: '{fifo}' {not_regular}"),
        (["human", "selections", "--file", "/dev/null"], not_regular),
        ([*LABELS[:2], "--file", str(small), "--ratings", "/dev/zero"], "--ratings: '/dev/zero'"),
        ([*LABELS[:2], "--file", str(small), "--comparisons", str(fifo)], "--comparisons: "),
        (["compare", "--benchmark", "usr-topical", "--scores", "/dev/zero"], "--scores: "),
        (["submit", "/dev/zero", "--name", "m"], f"argument file: '/dev/zero' {not_regular}"),
        (
            [*EVALUATE, "--judge-key-file", "/dev/zero"],
            "--judge-key-file: '/dev/zero' is not a regular",
        ),
        (["human", "votes", "--file", str(huge)], f"holds {MAX_FILE_BYTES + 1:,} bytes"),
    ]:
        assert needle in refused(capsys, argv), argv


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["leaderboard", "serve", "--port", "70000"], "argument --port: 70000 is out of range"),
        (["human", "votes", "--file", "/dev/zero"], "'/dev/zero' is not a regular file"),
        ([*COMPARE, "--resamples", "0"], "argument --resamples: 0 is out of range"),
    ],
)
def test_a_fresh_process_answers_in_one_line_with_exit_2(argv: list[str], needle: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "comperbench", *argv],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert needle in done.stderr
