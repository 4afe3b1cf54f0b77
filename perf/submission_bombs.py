"""The CPU time and peak memory each hostile submission file (`tests/hostile/bombs.py`) costs
before it is refused, each parsed in a fresh process. Target: under 2 s of CPU and 300 MB.

Run: COMPERBENCH_DATA=/work/shared/data python perf/submission_bombs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "hostile"))

from bombs import BOMBS
from measure import parse_measured


def main() -> None:
    print(f"{'file':<24} {'bytes':>9} {'CPU s':>6} {'RSS +MB':>7} {'traced MB':>9}  refusal")
    for build in BOMBS.values():
        name, data = build()
        found = parse_measured(name, data)
        first = (found.refusal or "ACCEPTED").splitlines()
        shown = " / ".join(line.strip() for line in first[:2])[:150]
        print(
            f"{name:<24} {len(data):>9} {found.cpu_seconds:>6.2f}"
            f" {found.grown_bytes / 2**20:>7.1f} {found.traced_bytes / 2**20:>9.1f}  {shown}"
        )


if __name__ == "__main__":
    main()
