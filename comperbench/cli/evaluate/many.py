"""`comperbench evaluate --benchmark all` (or a comma-separated list): each benchmark's table
as soon as it is done, then one summary table (also written as summary.csv)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from comperbench.cli.common import format_table
from comperbench.cli.evaluate.output import Job, all_nan_status, print_evaluation, write_job
from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import wrap
from comperbench.evaluation.result import SUMMARY_HEADERS, Evaluation, Evaluations


def evaluate_each(
    jobs: Mapping[str, Job], evaluations: Iterable[tuple[str, Evaluation]], args: argparse.Namespace
) -> int:
    """Write and print each evaluation as it comes, then the summary; a benchmark on which no
    metric can run is left out, said why. 1 when some benchmark's scores are all NaN."""
    done: dict[str, Evaluation] = {}
    documents: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    status = 0
    for count, (name, evaluation) in enumerate(evaluations, 1):
        if not args.json:
            print(f"{'' if count == 1 else chr(10)}== {name} ({count} of {len(jobs)}) ==")
        try:
            evaluation.result.require_a_run()
        except ComperbenchError as error:
            print(f"comperbench: left out: {error}", file=sys.stderr)
            left_out[name] = "no metric can run on it"
            continue
        written = write_job(jobs[name], evaluation)
        if not args.json:
            print_evaluation(evaluation, written, args.verbose)
        done[name], documents[name] = evaluation, written.document
        status |= all_nan_status(evaluation.result)
    if not done:
        raise ComperbenchError("no metric could run on any of the benchmarks")
    folder = Path(args.out or "results")
    summary = _write_summary(Evaluations(done), folder)
    if not args.json:
        _print_summary(Evaluations(done), folder, summary, left_out)
    else:
        print(
            json.dumps({"evaluations": documents, "summary": str(summary)}, indent=2, default=str)
        )
    return status


def _write_summary(evaluations: Evaluations, folder: Path) -> Path:
    """Every benchmark's rows, as `folder`/summary.csv."""
    path = folder / "summary.csv"
    evaluations.to_pandas().to_csv(path, index=False)
    return path


def _print_summary(
    evaluations: Evaluations, folder: Path, path: Path, left_out: Mapping[str, str]
) -> None:
    print(f"\n== summary of {len(evaluations)} benchmarks ==")
    print(format_table(SUMMARY_HEADERS, evaluations.summary_rows()))
    note = (
        f"lowest, highest: {evaluations.statistic()} over the benchmark's metrics (a range, not a "
        f"ranking: each table above says which differ); each benchmark's folder is in {folder}"
    )
    print(wrap(note, indent="  "))
    for name, why in left_out.items():
        print(f"left out {name}: {why}")
    print(f"wrote {path}")
