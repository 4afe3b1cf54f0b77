"""The overall view: metrics ranked across benchmarks, with bootstrap intervals and rank ranges.

Each benchmark contributes one headline cell (`headline_cell`) and, there, the rows that
benchmark's own ranking ranks (full coverage, defined correlation, its reference resampling
settings). Metrics are ranked within coverage groups (`COVERAGE_RULE`): those ranked on the
same benchmarks of the view, on the mean over exactly those, so that every rank compares means
over one set of benchmarks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.leaderboard.items import stored_levels
from comperbench.leaderboard.scoring import CONFIDENCE, best_places, scored_at, standings
from comperbench.leaderboard.service import ranked_rows
from comperbench.leaderboard.store import Row, Store
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.resampling import percentile_interval

HEADLINE_STATISTIC = "spearman"
"""The statistic the overall view ranks by unless told otherwise."""
OVERALL_COLUMNS = [
    "rank",
    "rank range",
    "metric",
    "coverage",
    "mean correlation",
    "95% CI",
    "mean rank",
    "mean rank 95% CI",
    "benchmarks covered",
]
"""The long list of covered benchmarks comes last, so the numbers are in view without scrolling."""
Key = tuple[str, str]
"""A metric across benchmarks: its name and its authors."""


def headline_cell(benchmark: str, statistic: str = HEADLINE_STATISTIC) -> tuple[str, str]:
    """(level, aspect) a benchmark is represented by: its first stored level (system level for a
    statistic scored there only) and the metadata's default aspect at that level."""
    first = stored_levels(benchmark)[0]
    level = first if scored_at(get_statistic(statistic), first) else "system"
    return level, get_metadata(benchmark).default_aspect_at(first)


@dataclass(frozen=True)
class _Cell:
    """The rows ranked at one benchmark's headline cell, by metric (newest submission kept)."""

    benchmark: str
    rows: dict[Key, Row]


def _cell(store: Store, benchmark: str, statistic: str) -> _Cell:
    level, aspect = headline_cell(benchmark, statistic)
    rows = ranked_rows(store, benchmark, level, aspect, statistic)
    newest_last = sorted(rows, key=lambda r: r.submission_id)
    return _Cell(benchmark, {(r.metric, r.authors): r for r in newest_last})


@dataclass(frozen=True)
class _Overall:
    """The ranked metrics' means over the view's benchmarks and their replicates (metrics x B)."""

    keys: list[Key]
    correlation: np.ndarray
    correlation_replicates: np.ndarray
    rank: np.ndarray
    rank_replicates: np.ndarray


def _overall(cells: Sequence[_Cell], keys: list[Key]) -> _Overall:
    """Means over benchmarks of each metric's correlation and of its rank among `keys`.

    Replicate r of a mean is the mean over benchmarks of each benchmark's replicate r. The
    resamples of one benchmark are shared by its metrics (paired), and those of different
    benchmarks are drawn from independent samples, so taking replicate r of every benchmark
    together is a valid joint bootstrap draw. Benchmarks holding more replicates than the
    others contribute their first B, B the fewest held. An undefined replicate ranks last.
    """
    b = min(len(cell.rows[k].replicates) for cell in cells for k in keys)
    values = np.array([[cell.rows[k].value for cell in cells] for k in keys])
    reps = np.array([[cell.rows[k].replicates[:b] for cell in cells] for k in keys], dtype=float)
    ranks = best_places(values)
    rank_reps = best_places(np.nan_to_num(reps, nan=-np.inf))
    return _Overall(keys, values.mean(1), reps.mean(1), ranks.mean(1), rank_reps.mean(1))


def _interval(replicates: np.ndarray, digits: int) -> str:
    ci = percentile_interval(replicates, CONFIDENCE)
    return f"[{ci.low:.{digits}f}, {ci.high:.{digits}f}]"


def _ranked_rows(
    o: _Overall, labels: dict[Key, str], covered: str, names: str
) -> list[list[object]]:
    """Table rows of the ranked metrics, best mean rank first (ties by mean correlation)."""
    places = [s for s in standings(-o.rank, -o.rank_replicates) if s is not None]
    order = sorted(range(len(places)), key=lambda i: (places[i].rank, -o.correlation[i]))
    return [
        [
            places[i].rank,
            f"{places[i].rank_low}-{places[i].rank_high}",
            labels[o.keys[i]],
            covered,
            round(float(o.correlation[i]), 4),
            _interval(o.correlation_replicates[i], 4),
            round(float(o.rank[i]), 2),
            _interval(o.rank_replicates[i], 2),
            names,
        ]
        for i in order
    ]


def _labels(keys: Sequence[Key]) -> dict[Key, str]:
    """The metric's name, with its authors when several authors use that name."""
    names = Counter(name for name, _ in keys)
    return {
        (name, authors): name if names[name] == 1 else f"{name} ({authors or 'no authors'})"
        for name, authors in keys
    }


def _notes(cells: Sequence[_Cell], statistic: str, unranked: dict[str, str]) -> str:
    if not cells:
        return "No benchmark has a ranked metric yet."
    cells_text = "; ".join(
        f"{c.benchmark} ({', '.join(headline_cell(c.benchmark, statistic))})" for c in cells
    )
    parts = [
        f"Overall {statistic} on each benchmark's headline cell (level, aspect): {cells_text}.",
        COVERAGE_RULE,
        "Metrics are matched by name and authors; the newest submission counts where one was "
        "submitted again.",
        "Mean rank: the mean of each metric's rank on each benchmark among the metrics of its "
        "coverage group (ties share the best place); the rank orders the mean ranks. Intervals "
        "and rank ranges are 95% bootstrap ranges: replicate r of a mean averages each "
        "benchmark's stored replicate r (paired across metrics, independent across benchmarks).",
    ]
    parts.extend(f"Not ranked: {label} ({reason})." for label, reason in unranked.items())
    return "\n\n".join(parts)


COVERAGE_RULE = (
    "Coverage groups: a metric is ranked among the metrics ranked on exactly the same selected "
    "benchmarks, on the mean over those benchmarks; means over different sets of benchmarks are "
    "never compared (benchmarks differ in difficulty), so each group has its own ranks 1, 2, ... "
    "Choose fewer benchmarks to put more metrics in one group."
)
"""How the overall view treats partial coverage, shown under its table."""


def _group_rows(
    cells: Sequence[_Cell], keys: list[Key], labels: dict[Key, str], total: int
) -> list[list[object]]:
    """The rows of one coverage group: the metrics ranked on exactly `cells` of the view."""
    names = ", ".join(c.benchmark for c in cells)
    return _ranked_rows(_overall(cells, keys), labels, f"{len(cells)} of {total}", names)


def coverage_groups(
    cells: Sequence[_Cell], keys: Sequence[Key]
) -> list[tuple[list[_Cell], list[Key]]]:
    """The metrics of `keys` grouped by the cells they are ranked on (none: left out), the
    groups covering the most benchmarks first (then in the order of their first metric)."""
    groups: dict[tuple[int, ...], list[Key]] = {}
    for key in keys:
        covered = tuple(i for i, c in enumerate(cells) if key in c.rows)
        if covered:
            groups.setdefault(covered, []).append(key)
    ordered = sorted(groups.items(), key=lambda g: -len(g[0]))
    return [([cells[i] for i in covered], members) for covered, members in ordered]


def _view(
    store: Store, statistic: str, benchmarks: Sequence[str] | None
) -> tuple[list[_Cell], list[Key]]:
    """The cells of the view (default: every benchmark with a ranked row at its headline cell)
    and every metric ranked on a stored benchmark."""
    known = set(list_benchmarks())
    stored = [b for b in store.ranked_benchmarks() if b in known]
    chosen = [b for b in (benchmarks or []) if b in known]
    found = {b: _cell(store, b, statistic) for b in dict.fromkeys([*stored, *chosen])}
    view = chosen if benchmarks is not None else [b for b in stored if found[b].rows]
    keys = list(dict.fromkeys(k for c in found.values() for k in c.rows))
    return [found[b] for b in view], keys


def overall_view(
    store: Store, statistic: str = HEADLINE_STATISTIC, benchmarks: Sequence[str] | None = None
) -> tuple[pd.DataFrame, str]:
    """The overall ranking (`OVERALL_COLUMNS`) over `benchmarks` (default: every benchmark with
    a ranked row at its headline cell) and the notes shown under it.

    Every metric ranked on some benchmark of the view is ranked within its coverage group
    (`COVERAGE_RULE`); metrics ranked on other benchmarks only are listed last without numbers.
    """
    cells, keys = _view(store, statistic, benchmarks)
    labels = _labels(keys)
    rows: list[list[object]] = []
    for group_cells, members in coverage_groups(cells, keys):
        rows += _group_rows(group_cells, members, labels, len(cells))
    listed = {row[2] for row in rows}
    unranked = {
        labels[k]: f"ranked on none of the {len(cells)} benchmarks of the view"
        for k in keys
        if labels[k] not in listed
    }
    for label in unranked:
        rows.append([None, "not ranked", label, f"0 of {len(cells)}", "", *[None] * 4])
    frame = pd.DataFrame(rows, columns=OVERALL_COLUMNS).astype({"rank": "Int64"})
    return frame, _notes(cells, statistic, unranked)


def overall_matrix(
    store: Store, statistic: str, benchmarks: Sequence[str] | None, metrics: Sequence[str]
) -> tuple[list[str], np.ndarray, list[list[str]]]:
    """The benchmarks of the view, and for each metric label of `metrics` its correlation on
    each of them (NaN where not ranked) with the cells' text: value and 95% interval."""
    cells, keys = _view(store, statistic, benchmarks)
    by_label = {label: key for key, label in _labels(keys).items()}
    values = np.full((len(metrics), len(cells)), np.nan)
    text = [["" for _ in cells] for _ in metrics]
    for i, label in enumerate(metrics):
        for j, cell in enumerate(cells):
            row = cell.rows.get(by_label.get(label, ("", "")))
            if row is not None:
                values[i, j] = row.value
                text[i][j] = f"{row.value:.2f}\n[{row.ci_low:.2f}, {row.ci_high:.2f}]"
    return [c.benchmark for c in cells], values, text
