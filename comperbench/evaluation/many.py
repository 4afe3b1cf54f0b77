"""Several benchmarks evaluated in one process: `evaluate(["usr-topical", "fed-turn"])`.

Every benchmark is planned before any is scored, so that an unknown name, level or aspect fails
before minutes of scoring. They are then scored in turn in this process: a model loaded for one
benchmark serves the next (the metrics keep their models for the process), and each library is
imported once.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import number

if TYPE_CHECKING:
    import pandas as pd

    from comperbench.benchmark import Benchmark
    from comperbench.evaluation.plan import EvaluationPlan
    from comperbench.evaluation.result import Evaluation

SUMMARY_HEADERS = ("benchmark", "level", "aspect", "items", "metrics", "range", "human ceiling")
"""The columns of `Evaluations.summary_rows` ("range" is of the first statistic)."""


@dataclass(frozen=True, repr=False)
class Evaluations(Mapping[str, "Evaluation"]):
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
        head = "".join(f"<th>{html.escape(h)}</th>" for h in SUMMARY_HEADERS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
            for row in self.summary_rows()
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    def summary_rows(self) -> list[list[object]]:
        """One row per benchmark in the columns of `SUMMARY_HEADERS`.

        Returns:
            Name, level, aspect, items, metrics run, the range of the first statistic's
            values over the metrics (a range, not a ranking: which differences are real is
            each table's to say), and its human ceiling ("-" where there is none).
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
    spread = f"{first} {low}" if low == high else f"{first} {low} to {high}"
    ceiling = table.ceilings.get(first) if first else None
    shown = ceiling is not None and ceiling.assignment is not None
    return [
        name,
        evaluation.result.level,
        table.aspect,
        len(evaluation.benchmark),
        len(table.rows),
        spread,
        number(ceiling.value) if shown else "-",
    ]


def plan_each(
    benchmarks: Sequence[str | Benchmark], plan: Callable[[str | Benchmark], EvaluationPlan]
) -> dict[str, EvaluationPlan]:
    """The plan of every benchmark, by name, made before any is scored; a benchmark named
    twice is refused, and an error names the benchmark it came from."""
    if not benchmarks:
        raise ComperbenchError("no benchmark to evaluate: name at least one")
    plans: dict[str, EvaluationPlan] = {}
    for benchmark in benchmarks:
        name = benchmark if isinstance(benchmark, str) else benchmark.name
        if name in plans:
            raise ComperbenchError(f"benchmark {name} is named twice")
        plans[name] = within(name, lambda b=benchmark: plan(b))
    return plans


def within(name: str, work: Callable[[], Any]) -> Any:
    """`work()`, its ComperbenchError said again after the benchmark's name."""
    try:
        return work()
    except ComperbenchError as error:
        raise ComperbenchError(f"{name}: {error}") from error
