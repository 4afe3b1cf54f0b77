"""`comperbench reproduce`: published numbers beside ours, from the raw data."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import asdict

from comperbench.cli.common import format_table
from comperbench.common.textutil import wrap
from comperbench.reproduction.run import (
    TOLERANCE,
    Reproduced,
    reproduce_correlations,
    reproduce_facts,
)


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def render(rows: list[Reproduced]) -> str:
    body = [
        [
            r.benchmark,
            r.what,
            _number(r.published),
            _number(r.ours),
            _number(r.difference, signed=True),
            r.status,
        ]
        for r in rows
    ]
    headers = ["benchmark", "published cell", "published", "ours", "difference", "status"]
    return format_table(headers, body)


def _summary(rows: list[Reproduced]) -> str:
    count = Counter(r.status for r in rows)
    agreeing = [abs(r.difference) for r in rows if r.status == "ok" and r.difference is not None]
    return (
        f"{count['ok']} of {len(rows) - count['skipped']} computed values within {TOLERANCE} of "
        f"the published value (largest difference among them {max(agreeing, default=0):.4f}); "
        f"{count['known']} known differences, {count['differs']} unexplained, "
        f"{count['skipped']} skipped"
    )


def run_reproduce(args: argparse.Namespace) -> int:
    benchmarks = args.benchmark or None
    rows = [] if args.facts_only else reproduce_correlations(benchmarks)
    if not args.correlations_only:
        rows += reproduce_facts(benchmarks)
    if args.json:
        document = [
            {**asdict(r), "difference": r.difference, "status": r.status, "cause": r.known_cause}
            for r in rows
        ]
        print(json.dumps(document, indent=2, default=str))
        return 0
    print(render(rows))
    print()
    print(wrap(_summary(rows)))
    for cause, cells in _known_differences(rows).items():
        print(wrap(f"known difference, {'; '.join(cells)}: {cause}", indent="  "))
    for reason in sorted({r.skipped for r in rows if r.skipped}):
        print(wrap(reason, first="skipped: ", indent="  "))
    if args.sources:
        for r in rows:
            print(wrap(f"{r.benchmark} {r.what}: {r.source}", indent="  "))
    return 0


def _known_differences(rows: list[Reproduced]) -> dict[str, list[str]]:
    """Each established cause of a difference, with the cells it explains."""
    causes: dict[str, list[str]] = {}
    for r in rows:
        if r.status == "known" and r.known_cause:
            causes.setdefault(r.known_cause, []).append(f"{r.benchmark} {r.what}")
    return causes


def register(commands: argparse._SubParsersAction) -> None:
    reproduce = commands.add_parser("reproduce")
    reproduce.add_argument(
        "--benchmark", action="append", help="only this benchmark (repeatable; default: all)"
    )
    only = reproduce.add_mutually_exclusive_group()
    only.add_argument("--correlations-only", action="store_true")
    only.add_argument("--facts-only", action="store_true")
    reproduce.add_argument("--sources", action="store_true", help="print each value's source")
    reproduce.add_argument("--json", action="store_true", help="print JSON instead of a table")
    reproduce.set_defaults(run=run_reproduce)
