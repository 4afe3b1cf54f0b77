"""Write the speed rows of a `make bench` log into the speed table of docs/speed.md.

The table sits between `<!-- speed:start -->` and `<!-- speed:end -->`; a row of the log replaces
the table's row of the same work, or is added; rows the log does not measure are kept.

Run: python perf/readme_table.py bench.log [docs/speed.md]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rows import ROW_PREFIX

START, END = "<!-- speed:start -->", "<!-- speed:end -->"
HEADER = [
    "| work | ours (CPU) | anchor, same process (CPU) | ratio | goal |",
    "|---|---|---|---|---|",
]


def work_of(row: str) -> str:
    return row.split("|")[1].strip()


def merged(table: list[str], measured: list[str]) -> list[str]:
    """The table's rows with each measured row in place of the old one of its work."""
    rows = {work_of(r): r for r in table[len(HEADER) :] if r.startswith("|")}
    rows.update((work_of(r), r) for r in measured)
    return [*HEADER, *rows.values()]


def main() -> None:
    log = Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()
    readme = Path(sys.argv[2] if len(sys.argv) > 2 else "docs/speed.md")
    measured = ["| " + line.removeprefix(ROW_PREFIX) for line in log if line.startswith(ROW_PREFIX)]
    if not measured:
        raise SystemExit(f"{sys.argv[1]}: no line starts with {ROW_PREFIX!r}")
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{readme}: no {START} ... {END} table")
    head, rest = text.split(START, 1)
    table, tail = rest.split(END, 1)
    lines = merged(table.strip().splitlines(), measured)
    readme.write_text(f"{head}{START}\n" + "\n".join(lines) + f"\n{END}{tail}", encoding="utf-8")
    print(f"{readme}: {len(measured)} speed rows written")


if __name__ == "__main__":
    main()
