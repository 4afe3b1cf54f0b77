"""How soon the CLI answers: `comperbench --version`, `list` and `human plan ab`, each in fresh
processes, against their goals (`goals.py`: < 0.3 s, < 1 s and < 1 s of CPU).

Each command is run REPEATS times as a user runs it (`python -m comperbench ...`) and timed by
the CPU seconds (user + system) of the child process (`resource.getrusage(RUSAGE_CHILDREN)`);
the fastest run counts. Its anchor is the same command with every command's parser built first
(every command's module imported, as every run did before), whose output must be identical.
The floors are timed the same way: a bare interpreter (`python -c pass`), one that imports the
package (`python -c "import comperbench"`), and one that imports scipy.stats, which `human plan
ab` does without (`stats/human/planning/power.py` takes its exact binomial from scipy.special,
the same numbers). Each command prints a speed
row (`rows.py`) for the README's table.

Run: COMPERBENCH_DATA=/work/shared/data python perf/cli_start.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

from goals import BY_WORK
from rows import print_goal_row

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

REPEATS = 5
COMMANDS = {
    "`comperbench --version`": ["--version"],
    "`comperbench list`": ["list"],
    "`comperbench human plan ab --difference 0.1`": ["human", "plan", "ab", "--difference", "0.1"],
}
EVERY_PARSER_FIRST = (
    "import sys\n"
    "from comperbench.cli import build_parser, main\n"
    "build_parser()  # every command's module, as before\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def child_cpu(command: list[str]) -> tuple[float, str]:
    """CPU seconds (user + system) of one fresh process running `command`, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def fastest(command: list[str]) -> tuple[float, str]:
    """The least CPU of REPEATS runs of `command`, and its output (the same every run)."""
    runs = [child_cpu(command) for _ in range(REPEATS)]
    outputs = {out for _, out in runs}
    assert len(outputs) == 1, f"{' '.join(command)}: the output differs between runs"
    return min(cpu for cpu, _ in runs), outputs.pop()


def main() -> None:
    python = sys.executable
    bare, _ = fastest([python, "-c", "pass"])
    package, _ = fastest([python, "-c", "import comperbench"])
    scipy_stats, _ = fastest([python, "-c", "import scipy.stats"])
    print(
        f"floors (fastest of {REPEATS}): `python -c pass` {bare:.3f} s CPU, "
        f'`python -c "import comperbench"` {package:.3f} s, '
        f'`python -c "import scipy.stats"` {scipy_stats:.3f} s'
    )
    for label, argv in COMMANDS.items():
        goal = BY_WORK[label]
        child_cpu([python, "-m", "comperbench", *argv])  # warm-up: fills the table cache
        now, out_now = fastest([python, "-m", "comperbench", *argv])
        before, out_before = fastest([python, "-c", EVERY_PARSER_FIRST, *argv])
        assert out_now == out_before, f"{label}: the output differs\n{out_before}\n{out_now}"
        print(
            f"{label} (outputs identical): {now:.3f} s CPU; with every command's module "
            f"imported first {before:.3f} s"
        )
        print_goal_row(
            label,
            f"{now:.3g} s (fastest of {REPEATS})",
            now,
            before,
            "the same run, every command's module imported first",
            goal.text,
            goal.met(now),
        )


if __name__ == "__main__":
    main()
