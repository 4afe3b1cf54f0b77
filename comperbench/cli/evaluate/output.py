"""What `comperbench evaluate` writes and prints for one benchmark: scores.parquet, table.json,
the --report page, and the table with its notes."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from comperbench.cli.judge_output import print_issue_reports
from comperbench.common.arrow_arrays import float_array, text_array
from comperbench.evaluation.judges import explanation_columns
from comperbench.evaluation.plan import EvaluationPlan
from comperbench.evaluation.result import Evaluation
from comperbench.metrics.runner import RunResult
from comperbench.report.evaluation_text import (
    ceiling_lines,
    header_lines,
    metric_lines,
    run_notes,
    signature_lines,
    table_notes,
    text_tables,
    wrapped,
)


@dataclass(frozen=True)
class Job:
    """One benchmark's evaluation: its plan and where its outputs go (checked before scoring)."""

    plan: EvaluationPlan
    out: Path
    report: Path | None


@dataclass(frozen=True)
class Written:
    """What one evaluation wrote: table.json's document and the files."""

    document: dict[str, Any]
    paths: list[Path]


def write_outputs(out: Path, result: RunResult, document: dict[str, Any]) -> tuple[Path, Path]:
    """scores.parquet (items or systems x metrics) and table.json (correlations + provenance)."""
    out.mkdir(parents=True, exist_ok=True)
    scores_path, table_path = out / "scores.parquet", out / "table.json"
    if result.level == "system":
        result.system_frame().reset_index().to_parquet(scores_path, index=False)
    else:
        pq.write_table(item_table(result), scores_path)
    table_path.write_text(json.dumps(document, indent=2, default=str) + "\n")
    return scores_path, table_path


def item_table(result: RunResult) -> pa.Table:
    """`item_frame()` and the explanation columns as pandas writes them, without loading pandas."""
    columns = {"item_id": text_array(result.item_ids), "system": text_array(result.item_systems)}
    for run in result.runs:
        if not run.metric.corpus:
            columns[run.metric.name] = float_array(run.scores)
    for name, explained in explanation_columns(result).items():
        columns[name] = text_array(explained)
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def write_job(job: Job, evaluation: Evaluation) -> Written:
    """The job's scores, table and --report page (its path refused before scoring unless
    --overwrite); refused when no metric could run."""
    evaluation.result.require_a_run()
    document = evaluation.document()
    paths = list(write_outputs(job.out, evaluation.result, document))
    if job.report is not None:
        metrics = len(evaluation.table.rows)
        print(
            f"writing {job.report}: testing every pair of the {metrics} metrics (PERM-BOTH, as "
            "many permutations as Holm's correction needs)...",
            file=sys.stderr,
            flush=True,
        )
        paths.append(evaluation.report(job.report, overwrite=True))
    return Written(document, paths)


def print_evaluation(evaluation: Evaluation, written: Written, verbose: bool) -> None:
    """The header, the table, the notes, the score counts and the files written; signatures
    and metric settings with `verbose`."""
    for line in wrapped(header_lines(evaluation)):
        print(line)
    table = evaluation.table
    if table.rows:
        for text in text_tables(table.rows, table.statistics, reference=table.ceiling_row()):
            print()
            print(text)
    else:
        print("no metric could run on this benchmark")
    for line in wrapped(run_notes(evaluation) + table_notes(table) + ceiling_lines(table)):
        print(line)
    print_issue_reports(evaluation.issues)
    if verbose:
        print()
        for line in signature_lines(table) + metric_lines(evaluation.result):
            print(line)
    elif table.signatures:
        print("signatures and metric settings: table.json, or -v")
    result = evaluation.result
    cached = sum(r.cached for r in result.runs)
    computed = sum(r.computed for r in result.runs)
    print(f"\n{computed} scores computed{_places(result)}, {cached} from the cache")
    for path in written.paths:
        print(f"wrote {path}")


def _places(result: RunResult) -> str:
    """' (12000 on the Dask cluster at ..., 300 in this process)', or '' when all were here."""
    counts: dict[str, int] = {}
    for run in result.runs:
        if run.computed:
            counts[run.place] = counts.get(run.place, 0) + run.computed
    if set(counts) <= {"this process"}:
        return ""
    return " (" + ", ".join(f"{n} on {place}" for place, n in counts.items()) + ")"


def all_nan_status(result: RunResult) -> int:
    """1, said on stderr, when every score of every metric that ran is NaN; else 0."""
    if not result.runs or any(run.nans < len(run.scores) for run in result.runs):
        return 0
    for run in result.runs:
        print(f"comperbench: every score of {run.metric.name} is NaN", file=sys.stderr)
    return 1
