"""The README's speed table written from a `make bench` log (perf/readme_table.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PERF = Path(__file__).resolve().parent.parent / "perf"
README = """# title

<!-- speed:start -->
| work | ours (CPU) | anchor, same process (CPU) | ratio | goal |
|---|---|---|---|---|
| kept row | 1 s | x: 2 s | 2.0x | >= 1x, met |
| replaced row | 9 s | x: 1 s | 0.1x | >= 2x, not met |
<!-- speed:end -->
after
"""


def run(log: Path, readme: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(PERF / "readme_table.py"), str(log), str(readme)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_measured_rows_replace_their_work_and_the_others_stay(tmp_path: Path) -> None:
    readme, log = tmp_path / "README.md", tmp_path / "bench.log"
    readme.write_text(README, encoding="utf-8")
    log.write_text(
        "noise\nspeed row | replaced row | 1 s | x: 3 s | 3.0x | >= 2x, met |\n"
        "speed row | new row | 2 s | y: 2 s | 1.0x | >= 5x, not met |\n",
        encoding="utf-8",
    )
    assert run(log, readme).returncode == 0
    table = readme.read_text(encoding="utf-8").split("<!-- speed:start -->\n")[1]
    rows = table.split("<!-- speed:end -->")[0].splitlines()
    assert rows[2:] == [
        "| kept row | 1 s | x: 2 s | 2.0x | >= 1x, met |",
        "| replaced row | 1 s | x: 3 s | 3.0x | >= 2x, met |",
        "| new row | 2 s | y: 2 s | 1.0x | >= 5x, not met |",
    ]
    assert readme.read_text(encoding="utf-8").endswith("<!-- speed:end -->\nafter\n")


def test_a_log_without_rows_or_a_readme_without_the_table_is_refused(tmp_path: Path) -> None:
    readme, log = tmp_path / "README.md", tmp_path / "bench.log"
    readme.write_text(README, encoding="utf-8")
    log.write_text("no rows here\n", encoding="utf-8")
    assert "no line starts with" in run(log, readme).stderr
    log.write_text("speed row | a | 1 s | x: 1 s | 1.0x | >= 1x, met |\n", encoding="utf-8")
    readme.write_text("# no table\n", encoding="utf-8")
    assert "no <!-- speed:start -->" in run(log, readme).stderr


def goals_printed(log: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(PERF / "goals.py"), str(log)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_each_goal_is_printed_met_not_met_or_not_measured(tmp_path: Path) -> None:
    log = tmp_path / "bench.log"
    log.write_text(
        "speed row | `comperbench --version` | 0.09 s | x: 2 s | 22x | < 0.3 s CPU, met |\n"
        "speed row | `comperbench list` | 1.2 s | x: 3 s | 2.5x | < 1 s CPU, not met |\n",
        encoding="utf-8",
    )
    lines = goals_printed(log)
    assert lines[:3] == [
        "goals:",
        "`comperbench --version` | goal < 0.3 s CPU | 0.09 s | met",
        "`comperbench list` | goal < 1 s CPU | 1.2 s | not met",
    ]
    assert "| goal < 0.3 s CPU | not measured (no row of perf/server_submit.py in the log)" in (
        "\n".join(lines)
    )
    assert (
        "`submit` of 10,000 dstc7 items, fresh process | goal <= import floor + 0.5 s CPU, "
        "< 300 MB | not measured (no row of perf/cli.py in the log)"
    ) in lines


def test_a_goal_without_its_script_says_so(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(PERF))
    from goals import Goal, report

    goal = Goal("a future row", "no_such_script.py", "CPU", 1.0)
    assert report(goal, {}) == (
        "a future row | goal < 1 s CPU | not measured (perf/no_such_script.py does not exist yet)"
    )


def test_a_goal_above_a_floor_is_judged_against_the_measured_floor(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(PERF))
    from goals import BY_WORK

    submit = BY_WORK["`submit` of 10,000 dstc7 items, fresh process"]
    assert submit.stated(0.9) == "<= import floor (0.90 s) + 0.5 s CPU, < 300 MB"
    assert submit.met(1.4, floor_s=0.9, peak_mb=299)
    assert not submit.met(1.41, floor_s=0.9, peak_mb=299)
    assert not submit.met(1.0, floor_s=0.9, peak_mb=300)
    bertscore = BY_WORK["BERTScore, 300 dstc7 items"]
    assert bertscore.met(2.2, floor_s=2.0) and not bertscore.met(2.21, floor_s=2.0)
