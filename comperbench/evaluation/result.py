"""The result of an evaluation: the scores, the correlation table, the judges' issue reports and
the plan that made them, as a DataFrame, as `table.json`'s document, as figures or as an HTML
report; and `Evaluations`, the results of several benchmarks evaluated in one process."""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from comperbench.benchmark import Benchmark
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import write_file
from comperbench.common.textutil import interval, number
from comperbench.evaluation.document import table_document
from comperbench.evaluation.plan import EvaluationPlan
from comperbench.evaluation.run import group_inputs
from comperbench.evaluation.table import EvaluationTable, ProtocolGroup
from comperbench.metrics.runner import RunResult
from comperbench.stats.annotator_agreement.ceiling import LABEL
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.statistics import get_statistic, supports
from comperbench.stats.settings import Resampling

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from comperbench.stats.metric_tests.verdicts import Verdicts


@dataclass(repr=False)
class Evaluation:
    """The result of `evaluate`.

    Args:
        plan: what was evaluated and how (`EvaluationPlan`).
        result: the scores of every metric (`RunResult`).
        table: the correlation table (`EvaluationTable`).
        issues: per judge that lists issues, its issue report.
    """

    plan: EvaluationPlan
    result: RunResult
    table: EvaluationTable
    issues: dict[str, dict[str, Any]]

    @property
    def benchmark(self) -> Benchmark:
        """The benchmark evaluated, as selected."""
        return self.result.benchmark

    def __repr__(self) -> str:
        table = self.table
        metrics = ", ".join(row["metric"] for row in table.rows) or "none"
        first = table.statistics[0] if table.statistics else None
        values = ", ".join(
            f"{row['metric']} {number(row.get(first, np.nan))}" for row in table.rows
        )
        lines = [
            f"Evaluation of {self.benchmark.tag}: {self.result.level} level, aspect {table.aspect}",
            f"  metrics: {metrics}",
            f"  statistics: {', '.join(table.statistics)}",
        ]
        if first and values:
            lines.append(f"  {first}: {values}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The table's values (per statistic: value, interval, p-value) as an HTML table."""
        from comperbench.report.evaluation_text import table_cells

        headers, body = table_cells(self.table.rows, self.table.statistics)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in line) + "</tr>" for line in body
        )
        caption = html.escape(
            f"{self.benchmark.tag}: {self.result.level} level, {self.table.aspect}"
        )
        return f"<table><caption>{caption}</caption><tr>{head}</tr>{rows}</table>"

    def document(self) -> dict[str, Any]:
        """What `table.json` holds.

        Returns:
            The run's settings, every value and its provenance, JSON-ready (NaN is null).
        """
        return {"run": self.plan.settings(), **table_document(self.result, self.table, self.issues)}

    def signature(self, statistic: str, excluded: Sequence[str]) -> str:
        """The signature of a statistic on one protocol group.

        Args:
            statistic: a computed statistic's name.
            excluded: the systems the group's metrics leave out.

        Returns:
            The signature, "" when that statistic was not computed on such a group.
        """
        for signed in self.table.signatures:
            if signed.statistic == statistic and list(signed.excluded) == list(excluded):
                return signed.signature
        return ""

    def to_pandas(self) -> pd.DataFrame:
        """The table as a DataFrame.

        Returns:
            One row per metric: n, NaN scores, the systems the protocol left out, and per
            statistic its value, interval, p-value, p-value method, note and signature.
        """
        import pandas as pd

        records = []
        for row in self.table.rows:
            excluded = row.get("protocol_excluded", [])
            record: dict[str, Any] = {
                "metric": row["metric"],
                "n": row.get("n"),
                "nan_scores": row["nan_scores"],
                "protocol_excluded": ", ".join(excluded),
            }
            for s in self.table.statistics:
                low, high = row.get(f"{s}_ci") or (np.nan, np.nan)
                record |= {
                    s: row.get(s, np.nan),
                    f"{s}_ci_low": low,
                    f"{s}_ci_high": high,
                    f"{s}_p": row.get(f"{s}_p", np.nan),
                    f"{s}_p_method": row.get(f"{s}_p_method"),
                    f"{s}_note": row.get(f"{s}_note"),
                    f"{s}_signature": self.signature(s, excluded),
                }
            records.append(record)
        return pd.DataFrame.from_records(records)

    def _statistic(self, statistic: str | None) -> str:
        if statistic is None:
            return self.table.statistics[0]
        name = get_statistic(statistic).name
        if name not in self.table.statistics:
            raise ComperbenchError(
                f"{name} was not computed; this evaluation has {', '.join(self.table.statistics)}"
            )
        return name

    def plot_forest(self, statistic: str | None = None) -> Figure:
        """Each metric's value of a statistic with its interval, and the human ceiling as a
        reference line where there is one.

        Args:
            statistic: a computed statistic (default: the first).

        Returns:
            The matplotlib figure.
        """
        from comperbench.report.figures import Reference, forest_plot

        name = self._statistic(statistic)
        rows = self.table.rows
        bounds = [row.get(f"{name}_ci") or (None, None) for row in rows]
        ceiling = self.table.ceilings.get(name)
        reference = None
        if ceiling is not None and ceiling.assignment is not None:
            low, high = (ceiling.ci.low, ceiling.ci.high) if ceiling.ci else (None, None)
            reference = Reference(f"{LABEL} {number(ceiling.value)}", ceiling.value, low, high)
        return forest_plot(
            [row["metric"] for row in rows],
            [float(row.get(name, np.nan)) for row in rows],
            [b[0] for b in bounds],
            [b[1] for b in bounds],
            xlabel=f"{name} with {self.table.aspect} ({self.result.level} level), 95% CI",
            title=f"{self.benchmark.label}: {name} per metric",
            reference=reference,
        )

    def system_points(self, metric: str) -> pd.DataFrame:
        """The system means of a metric and of the human scores.

        Args:
            metric: a metric of this evaluation.

        Returns:
            Per system (the index): the metric's mean score (`metric`), the mean human score
            (`human`; over the items where both exist; a corpus metric's own value at system
            level) and whether the protocol left the system out for this metric (`left_out`).
        """
        import pandas as pd

        row = next((r for r in self.table.rows if r["metric"] == metric), None)
        if row is None:
            names = ", ".join(r["metric"] for r in self.table.rows)
            raise ComperbenchError(f"no metric {metric!r} in this evaluation; it has {names}")
        excluded = set(row.get("protocol_excluded", []))
        if self.result.level == "system":
            frame = self.result.system_frame()[[metric]].rename(columns={metric: "metric"})
            human = self.benchmark.systems()[self.table.aspect]
            frame["human"] = human.reindex(frame.index).to_numpy(dtype=float)
        else:
            items = self.result.item_frame()
            if metric not in items:
                raise ComperbenchError(f"{metric} has no item scores to average per system")
            pairs = pd.DataFrame(
                {
                    "system": items["system"],
                    "metric": items[metric],
                    "human": self.benchmark.human_scores(self.table.aspect),
                }
            ).dropna()
            frame = pairs.groupby("system", sort=True)[["metric", "human"]].mean()
        frame["left_out"] = frame.index.isin(excluded)
        return frame.dropna(subset=["metric", "human"])

    def plot_scatter(self, metric: str) -> Figure:
        """Each system's mean score against its mean human score, with Pearson's r over the
        systems the protocol keeps (and its bootstrap interval over systems); systems it leaves
        out for this metric are drawn apart.

        Args:
            metric: a metric of this evaluation.

        Returns:
            The matplotlib figure.
        """
        from comperbench.report.figures import scatter_plot

        points = self.system_points(metric)
        kept = points[~points["left_out"]]
        r = correlation_table(
            {metric: kept["metric"].to_numpy()},
            kept["human"].to_numpy(),
            level="system",
            statistic="pearson",
            systems=np.arange(len(kept)),
            resampling=Resampling(
                self.plan.resampling.resamples, self.plan.resampling.seed, self.plan.resampling.ci
            ),
        )[0]
        ci = f" {interval(r.ci.low, r.ci.high)}" if r.ci else ""
        annotation = f"Pearson r = {number(r.value)}{ci}, n = {len(kept)} systems"
        annotation += "".join(f"\n{note}" for note in (r.reason, r.ci_note) if note)
        return scatter_plot(
            points["metric"].to_numpy(),
            points["human"].to_numpy(),
            labels=list(points.index),
            left_out=points["left_out"].to_numpy(),
            xlabel=f"{metric} (system mean)",
            ylabel=f"human {self.table.aspect} (system mean)",
            title=f"{self.benchmark.label}: {metric} per system",
            annotation=annotation,
        )

    def significance(self, statistic: str | None = None) -> Verdicts:
        """The verdicts between the metrics on a statistic, on the systems the protocol keeps
        for all of them (`metric_verdicts`: PERM-BOTH with as many permutations as Holm's
        correction needs, the verdicts of `compare`).

        Args:
            statistic: a computed statistic (default: the first).

        Returns:
            The `Verdicts`: the significance matrix, adjusted p-values and clusters.
        """
        from comperbench.stats.metric_tests.verdicts import metric_verdicts

        name = self._statistic(statistic)
        excluded = tuple(sorted({s for g in self.table.groups for s in g.excluded}))
        group = ProtocolGroup(excluded, tuple(r["metric"] for r in self.table.rows))
        over_contexts = supports(name, "over_contexts")
        inputs = group_inputs(
            self.result, group, self.table.aspect, self.plan.grouped, over_contexts
        )
        if len(inputs.scores) < 2:
            raise ComperbenchError("a significance test needs two metrics with scores")
        return metric_verdicts(
            inputs.scores,
            inputs.human,
            level=self.result.level,  # type: ignore[arg-type]
            statistic=name,
            groups=inputs.groups,
            systems=inputs.systems,
            resampling=Resampling(
                seed=self.plan.resampling.seed, conventions=self.plan.resampling.conventions
            ),
            benchmark=self.benchmark.without_systems(excluded).tag,
        )

    def plot_significance(self, statistic: str | None = None) -> Figure:
        """The significance clusters and the pairs shown to differ (`significance`).

        Args:
            statistic: a computed statistic (default: the first).

        Returns:
            The matplotlib figure.
        """
        from comperbench.report.figures import verdicts_figure

        name = self._statistic(statistic)
        verdicts = self.significance(name)
        return verdicts_figure(
            verdicts, xlabel=name, title=f"{self.benchmark.label}: which metrics differ"
        )

    def report(self, path: str | Path, overwrite: bool = False) -> Path:
        """Write the evaluation as one self-contained HTML page.

        Args:
            path: the page's file.
            overwrite: replace an existing file (else an existing one is refused).

        Returns:
            The path written.
        """
        from comperbench.report.html import evaluation_page

        write_file(path, evaluation_page(self), overwrite=overwrite)
        return Path(path)


SUMMARY_HEADERS = ("benchmark", "level", "aspect", "items", "metrics", "lowest", "highest")
SUMMARY_HEADERS += ("human ceiling",)
"""The columns of `Evaluations.summary_rows`: the lowest and highest value of the first statistic
over the metrics (a range, not a ranking), and its human ceiling."""


@dataclass(frozen=True, repr=False)
class Evaluations(Mapping[str, Evaluation]):
    """The evaluations of several benchmarks, by benchmark name, in the order asked.

    Args:
        by_benchmark: each benchmark's `Evaluation`.
    """

    by_benchmark: dict[str, Evaluation]

    def __getitem__(self, name: str) -> Evaluation:
        return self.by_benchmark[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_benchmark)

    def __len__(self) -> int:
        return len(self.by_benchmark)

    def __repr__(self) -> str:
        lines = [f"Evaluations of {len(self)} benchmarks"]
        lines += ["  " + "  ".join(str(c) for c in row) for row in self.summary_rows()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The summary as an HTML table."""
        caption = html.escape(f"lowest and highest {self.statistic()} over the metrics")
        head = "".join(f"<th>{html.escape(h)}</th>" for h in SUMMARY_HEADERS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
            for row in self.summary_rows()
        )
        return f"<table><caption>{caption}</caption><tr>{head}</tr>{body}</table>"

    def statistic(self) -> str:
        """The statistic the summary shows: the first one computed ("" when none was)."""
        tables = [e.table for e in self.values()]
        return next((t.statistics[0] for t in tables if t.statistics), "")

    def summary_rows(self) -> list[list[object]]:
        """One row per benchmark in the columns of `SUMMARY_HEADERS`.

        Returns:
            Name, level, aspect, items, metrics run, the lowest and the highest value of
            `statistic()` over the metrics (a range, not a ranking: which differences are
            real is each table's to say), and its human ceiling ("-" where there is none).
        """
        return [summary_row(name, e) for name, e in self.items()]

    def to_pandas(self) -> pd.DataFrame:
        """Every benchmark's table in one frame.

        Returns:
            The rows of each `Evaluation.to_pandas()`, after columns naming the benchmark, its
            level and aspect.
        """
        import pandas as pd

        frames = []
        for name, evaluation in self.items():
            frame = evaluation.to_pandas()
            frame.insert(0, "aspect", evaluation.table.aspect)
            frame.insert(0, "level", evaluation.result.level)
            frame.insert(0, "benchmark", name)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)


def summary_row(name: str, evaluation: Evaluation) -> list[object]:
    """One benchmark's line of the summary (see `Evaluations.summary_rows`)."""
    table = evaluation.table
    first = table.statistics[0] if table.statistics else None
    values = [float(row[first]) for row in table.rows if first and row.get(first) is not None]
    values = [v for v in values if v == v]  # NaN is no value
    low, high = (number(min(values)), number(max(values))) if values else ("-", "-")
    ceiling = table.ceilings.get(first) if first else None
    shown = ceiling is not None and ceiling.assignment is not None
    return [
        name,
        evaluation.result.level,
        table.aspect,
        len(evaluation.benchmark),
        len(table.rows),
        low,
        high,
        number(ceiling.value) if shown else "-",
    ]
