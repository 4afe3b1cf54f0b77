"""An evaluation in words: the header, the table's cells, the notes and the signatures that
`comperbench evaluate` prints and the HTML report shows."""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from comperbench.benchmark import VERIFIED
from comperbench.common.textutil import interval, number
from comperbench.common.textutil import table as format_table
from comperbench.stats.annotator_agreement.ceiling import CITATION, LABEL

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from comperbench.evaluation.table import EvaluationTable
    from comperbench.metrics.runner import RunResult
    from comperbench.stats.metric_tests.verdicts import Verdicts
    from comperbench.stats.settings import Resampling


class PlanView(Protocol):
    """What the text and the page read of an evaluation's plan (`evaluation.EvaluationPlan`)."""

    @property
    def resampling(self) -> Resampling: ...


class EvaluationView(Protocol):
    """What the text and the page read of an evaluation (`evaluation.Evaluation`, which renders
    itself with them, so they name it by its shape)."""

    @property
    def plan(self) -> PlanView: ...
    @property
    def result(self) -> RunResult: ...
    @property
    def table(self) -> EvaluationTable: ...
    def plot_forest(self, statistic: str | None = None) -> Figure: ...
    def plot_scatter(self, metric: str) -> Figure: ...
    def plot_significance(self, statistic: str | None = None) -> Figure: ...
    def significance(self, statistic: str | None = None) -> Verdicts: ...


WIDTH = 120
"""Longest line `evaluate` prints by default."""


def wrapped(lines: list[str], width: int = WIDTH) -> list[str]:
    """Each line cut at spaces to `width` characters, continuations indented by two."""
    return [
        part
        for line in lines
        for part in textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
    ]


def _p_cell(value: float) -> str:
    """A p-value with three decimals, `<0.001` below (the exact value is in table.json)."""
    if value is None or math.isnan(value):
        return "-"
    return "<0.001" if value < 1e-3 else f"{value:.3f}"


def table_cells(
    rows: list[dict[str, Any]], statistics: tuple[str, ...], nan_column: bool = True
) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the correlation table: metric, n, per statistic its value, 95%
    interval and p-value, and the count of NaN scores; one number format per column."""
    headers = ["metric", "n"]
    for method in statistics:
        headers += [method, "95% CI", "p"]
    headers += ["NaN"] if nan_column else []
    body = []
    for r in rows:
        line = [r["metric"], str(r.get("n", "-"))]
        for method in statistics:
            bounds = r.get(f"{method}_ci")
            line += [
                number(r.get(method, math.nan)),
                "-" if bounds is None else interval(*bounds),
                _p_cell(r.get(f"{method}_p", math.nan)),
            ]
        body.append([*line, str(r["nan_scores"])] if nan_column else line)
    return headers, body


NAME_WIDTH = 40
"""Longest metric name in a text table; longer ones are shortened in the middle."""


def _short(name: str) -> str:
    if len(name) <= NAME_WIDTH:
        return name
    half = (NAME_WIDTH - 1) // 2
    return f"{name[:half]}…{name[-(NAME_WIDTH - 1 - half) :]}"


def text_tables(
    rows: list[dict[str, Any]],
    statistics: tuple[str, ...],
    width: int = WIDTH,
    reference: dict[str, Any] | None = None,
) -> list[str]:
    """The correlation table as text no wider than `width`: the statistics that do not fit
    beside the first ones go into further tables of the same rows, and metric names longer
    than `NAME_WIDTH` are shortened in the middle (table.json has them in full). A `reference`
    row (the human ceiling) comes last, under a rule of its own."""
    shown = [dict(r, metric=_short(r["metric"])) for r in rows]
    below = [reference] if reference else []

    def render(block: list[str], last: bool) -> str:
        text = format_table(*table_cells(shown + below, tuple(block), nan_column=last))
        return set_apart(text, len(below))

    blocks: list[list[str]] = [[]]
    for method in statistics:
        trial = [*blocks[-1], method]
        too_wide = max(map(len, render(trial, True).splitlines())) > width
        if too_wide and blocks[-1]:
            blocks.append([method])
        else:
            blocks[-1] = trial
    return [render(block, i == len(blocks) - 1) for i, block in enumerate(blocks)]


def set_apart(text: str, last: int) -> str:
    """A text table with the header's rule repeated above its `last` rows."""
    if not last:
        return text
    lines = text.splitlines()
    return "\n".join([*lines[:-last], lines[1], *lines[-last:]])


def ceiling_lines(table: EvaluationTable) -> list[str]:
    """What the human ceiling row is and rests on, its notes, or why there is none."""
    row = table.ceiling_row()
    if row is None:
        reason = table.ceiling_reason()
        return [f"note: {LABEL}: not available: {reason}"] if reason else []
    first = next(iter(table.ceilings.values()))
    resampled = "systems" if first.level == "system" else "items"
    interval = ""
    if first.ci is not None:
        interval = (
            f"; percentile bootstrap intervals over {first.ci.n_resamples} resamples of the "
            f"{resampled}, every annotator recomputed in each"
        )
    counts = sorted({r.annotators for r in table.ceilings.values() if r.assignment})
    annotators = " to ".join(map(str, counts))
    what = (
        "system means correlated with the other annotators' system means over the same items"
        if first.level == "system"
        else "scores correlated with the mean of the other annotators' scores on the same items"
    )
    lines = [
        f"{LABEL}: each annotator's {what}, averaged over {annotators} annotators, on "
        f"{row['n']} {resampled}{interval}; {CITATION}. A reference, not a metric: not ranked"
    ]
    reasons: dict[str, list[str]] = {}
    for method in table.statistics:
        if note := row.get(f"{method}_note"):
            reasons.setdefault(note, []).append(method)
    lines += [f"note: {LABEL} ({', '.join(m)}): {note}" for note, m in reasons.items()]
    return lines


def protocol_lines(table: EvaluationTable, result: RunResult) -> list[str]:
    """What the benchmark's evaluation protocol left out, for whom and why, or that it was not
    applied."""
    protocol = table.protocol
    if not protocol.reference_excluded_systems:
        return []
    if not table.protocol_applied:
        return ["protocol not applied (--all-systems): every metric is correlated on every system"]
    excluded = table.excluded_items(result)
    if not excluded:
        return [f"protocol: {protocol.source}; no metric here needs references"]
    left_out = ", ".join(f"{s} ({n} items)" for s, n in excluded.items())
    return [
        f"protocol: metrics needing references leave out {left_out}: {protocol.reason}",
        f"protocol source: {protocol.source} (--all-systems keeps every system)",
    ]


def header_lines(evaluation: EvaluationView) -> list[str]:
    """The benchmark, its fingerprint, level, aspect and unit count, where the data and items
    come from, and what the protocol left out."""
    result, table = evaluation.result, evaluation.table
    bench, level = result.benchmark, result.level
    human_n = len(result.systems) if level == "system" else len(bench)
    grouped = ""
    if table.grouped:
        grouped = ", correlations within each dialogue averaged"
        if label := evaluation.plan.resampling.conventions.averaging.label:
            grouped += f" ({label})"
    lines = [
        f"{bench.label} ({bench.fingerprint[:12]}), {level} level{grouped}, aspect "
        f"{table.aspect}: {human_n} {'systems' if level == 'system' else 'items'}"
    ]
    if bench.provenance != VERIFIED:
        lines.append(f"data: {bench.provenance}")
    if bench.selection:
        lines.append(f"items: {bench.selection.describe()}")
    return lines + protocol_lines(table, result)


_JUDGE_COUNTS = ("first_answers", "first_answers_rejected")


def notes_summary(notes: dict[str, Any]) -> str:
    """The non-zero counts of a metric's run notes and its first error, on one line."""
    counts = [
        f"{key.replace('_', ' ')} {value}"
        for key, value in notes.items()
        if isinstance(value, int)
        and not isinstance(value, bool)
        and value
        and key not in ("n", "seed", *_JUDGE_COUNTS)
    ]
    errors = notes.get("errors") or []
    return "; ".join([*counts, *([f"first error: {errors[0]}"] if errors else [])])


def judge_answer_lines(notes: dict[str, Any]) -> list[str]:
    """A judge's share of unusable first answers, why answers stayed unusable after every retry,
    and which usable answers were kept with a flag."""
    if not notes.get("first_answers"):
        return []
    first, rejected = notes["first_answers"], notes["first_answers_rejected"]
    lines = [f"first answers unusable: {rejected} of {first} ({100 * rejected / first:.1f}%)"]
    if reasons := notes.get("rejected_by_reason"):
        text = ", ".join(f"{reason} {count}" for reason, count in reasons.items())
        lines.append(f"unusable after every retry: {text}")
    if flags := notes.get("flagged_by_reason"):
        text = ", ".join(f"{flag} {count}" for flag, count in flags.items())
        lines.append(f"kept with a flag: {text}")
    return lines


def run_notes(evaluation: EvaluationView) -> list[str]:
    """Metrics skipped and why, what each metric's scoring reported, NaN scores, and human
    scores missing."""
    result = evaluation.result
    lines = [f"skipped {name}: {reason}" for name, reason in result.skipped.items()]
    for run in result.runs:
        if summary := notes_summary(run.notes):
            lines.append(f"note: {run.metric.name}: {summary}")
        lines += [f"note: {run.metric.name}: {line}" for line in judge_answer_lines(run.notes)]
        if run.nans:
            lines.append(
                f"note: {run.metric.name} scored NaN on {run.nans} of {len(run.scores)} (left out)"
            )
    aspect, bench = evaluation.table.aspect, result.benchmark
    if result.level == "system":
        human = bench.systems()[aspect].reindex(result.systems).to_numpy(dtype=float)
    else:
        human = bench.human_scores(aspect)
    if missing := int(np.isnan(human).sum()):
        unit = "systems" if result.level == "system" else "items"
        lines.append(f"note: {missing} {unit} without a human {aspect} score are left out")
    return lines


def row_notes(row: dict[str, Any], statistics: tuple[str, ...]) -> list[str]:
    """Why a row's values are undefined or weak, one line per distinct reason, and the tie
    threshold a calibrated statistic chose."""
    reasons: dict[str, list[str]] = {}
    for method in statistics:
        if note := row.get(f"{method}_note"):
            reasons.setdefault(note, []).append(method)
    lines = [
        f"note: {row['metric']} ({', '.join(labels)}): {note}" for note, labels in reasons.items()
    ]
    if note := row.get("distribution_note"):
        lines.append(f"note: {row['metric']}: {note}")
    for method in statistics:
        if note := row.get(f"{method}_p_ci_note"):
            lines.append(f"note: {row['metric']} ({method}): {note}")
    chose: dict[str, list[str]] = {}
    for method in statistics:
        if (epsilon := row.get(f"{method}_epsilon")) is not None:
            chose.setdefault(f"{epsilon:.4g}", []).append(method)
    for epsilon, labels in chose.items():
        lines.append(
            f"note: {row['metric']} ({', '.join(labels)}): tie threshold epsilon {epsilon}"
        )
    for method in statistics:
        if (contexts := row.get(f"{method}_contexts")) is not None:
            left_out = row[f"{method}_dropped"]
            lines.append(
                f"note: {row['metric']} ({method}): on the {contexts} contexts every system "
                f"answered with both scores ({left_out} items in other contexts left out)"
            )
    return lines


def table_notes(table: EvaluationTable) -> list[str]:
    """`row_notes` of every row."""
    return [line for row in table.rows for line in row_notes(row, table.statistics)]


def signature_lines(table: EvaluationTable) -> list[str]:
    """One signature per statistic and protocol group, prefixed by the systems the group leaves
    out when the groups differ, then the human ceiling's."""
    several = len(table.groups) > 1
    lines = []
    for signed in table.signatures:
        prefix = ""
        if several:
            left_out = ", ".join(signed.excluded)
            prefix = f"without {left_out}: " if signed.excluded else "all systems: "
        lines.append(prefix + signed.signature)
    if table.ceiling_row() is not None:
        lines += [f"{LABEL}: {r.signature}" for r in table.ceilings.values()]
    return lines


def metric_lines(result: RunResult) -> list[str]:
    """How each metric's scores were made: `metric NAME|library versions|settings`."""
    return [f"metric {run.metric.signature()}" for run in result.runs]
