"""The overall view: metrics ranked across benchmarks within coverage groups, with bootstrap
intervals and rank ranges.

Each benchmark contributes one headline cell (`headline_cell`) and, there, the rows that
benchmark's own ranking ranks (full coverage, defined correlation, its reference resampling
settings). A coverage group is the metrics ranked on exactly the same benchmarks of the view
(`COVERAGE_RULE`); each group of two or more metrics is ranked on its own, by the mean
correlation over its benchmarks, and a metric alone in its group is listed, never ranked. No
rank column ever spans two groups: the page shows one group at a time and the CSV names each
row's group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.leaderboard.items import stored_levels
from comperbench.leaderboard.scoring import CONFIDENCE, scored_at, standings
from comperbench.leaderboard.service import ranked_rows as view_rows
from comperbench.leaderboard.service import unranked
from comperbench.leaderboard.store import Row, Store
from comperbench.stats.metric_correlation.statistics import get_statistic, resampled_unit
from comperbench.stats.resampling import (
    MIN_BOOTSTRAP_UNITS,
    bootstrap_note,
    percentile_interval,
)

HEADLINE_STATISTIC = "spearman"
"""The statistic the overall view ranks by unless told otherwise."""
DIGITS = 4
"""Decimals of the mean correlation shown; the rank orders the means at this precision, so
means that look equal share a place."""
OVERALL_COLUMNS = [
    "rank",
    "rank range",
    "metric",
    "mean correlation",
    "CI low",
    "CI high",
    "CI note",
    "coverage",
    "coverage group",
]
"""The long list of the group's benchmarks comes last, so the numbers are in view without
scrolling."""
CSV_COLUMNS = [*OVERALL_COLUMNS, "ranked"]
"""The download: every row of every group, its group named, and whether it is ranked."""
NOT_RANKED = "not ranked"
"""The choice of the list of the metrics that are not ranked; each says why after it."""
ALONE = "alone in its coverage group"
UNCOVERED = "ranked on none of the chosen benchmarks"
COVERAGE_RULE = (
    "Coverage groups: a metric is ranked among the metrics ranked on exactly the same selected "
    "benchmarks, on the mean over those benchmarks; means over different sets of benchmarks are "
    "never compared (benchmarks differ in difficulty), so each group is ranked on its own and "
    "shown on its own. A metric alone in its group is listed, not ranked. Choose fewer "
    "benchmarks to put more metrics in one group."
)
"""How the overall view treats partial coverage, shown under its table."""
Key = tuple[str, str]
"""A metric across benchmarks: its name and its authors."""


def headline_cell(benchmark: str, statistic: str = HEADLINE_STATISTIC) -> tuple[str, str]:
    """(level, aspect) a benchmark is represented by: its first stored level (system level for a
    statistic scored there only) and the metadata's default aspect at that level."""
    first = stored_levels(benchmark)[0]
    level = first if scored_at(get_statistic(statistic), first) else "system"
    return level, get_metadata(benchmark).default_aspect_at(first)


@dataclass(frozen=True)
class Cell:
    """The rows ranked at one benchmark's headline cell, by metric (newest submission kept), and
    why the correlation of the others there is undefined."""

    benchmark: str
    rows: dict[Key, Row]
    undefined: dict[Key, str]


def _cell(store: Store, benchmark: str, statistic: str) -> Cell:
    view = (store, benchmark, *headline_cell(benchmark, statistic), statistic)
    newest_last = sorted(view_rows(*view), key=lambda r: r.submission_id)
    rows = {(r.metric, r.authors): r for r in newest_last}
    undefined = {(r.metric, r.authors): r.reason or "reason not recorded" for r in unranked(*view)}
    return Cell(benchmark, rows, undefined)


def uninformative(row: Row) -> bool:
    """Whether a row's interval rests on too few units to mean anything (`bootstrap_note`)."""
    unit = resampled_unit(row.settings.statistic, row.settings.level)
    return bootstrap_note(row.n, unit) is not None


def interval_mark(cells: Sequence[Cell], key: Key) -> str:
    """ "not informative" and the benchmarks whose own interval, in the mean's, rests on too few
    units (`uninformative`); empty when none does."""
    names = [c.benchmark for c in cells if uninformative(c.rows[key])]
    return f"not informative ({', '.join(names)})" if names else ""


def interval_notes(cells: Sequence[Cell], keys: Sequence[Key]) -> list[str]:
    """The interval notes (`Row.ci_note`, as `leaderboard show` prints them) of the metrics'
    rows on `cells`, each after its benchmark, once each."""
    notes = (
        f"{c.benchmark}: {note}" for key in keys for c in cells if (note := c.rows[key].ci_note)
    )
    return list(dict.fromkeys(notes))


@dataclass(frozen=True)
class Group:
    """A coverage group: the metrics ranked on exactly `cells` of the view."""

    cells: list[Cell]
    keys: list[Key]

    @property
    def benchmarks(self) -> list[str]:
        return [c.benchmark for c in self.cells]

    @property
    def name(self) -> str:
        """The group's benchmarks, which name it."""
        return ", ".join(self.benchmarks)

    @property
    def ranked(self) -> bool:
        """Only a group of two or more metrics is ranked."""
        return len(self.keys) >= 2


def coverage_groups(cells: Sequence[Cell], keys: Sequence[Key]) -> list[Group]:
    """The metrics of `keys` grouped by the cells they are ranked on (none: left out), largest
    first: the most benchmarks, then the most metrics (an overall view is about breadth; a
    group on one benchmark is that benchmark's own ranking), then the order of their first
    metric."""
    found: dict[tuple[int, ...], list[Key]] = {}
    for key in keys:
        covered = tuple(i for i, c in enumerate(cells) if key in c.rows)
        if covered:
            found.setdefault(covered, []).append(key)
    ordered = sorted(found.items(), key=lambda g: (-len(g[0]), -len(g[1])))
    return [Group([cells[i] for i in covered], members) for covered, members in ordered]


@dataclass(frozen=True)
class _Means:
    """A group's means over its benchmarks and their replicates (metrics x B)."""

    correlation: np.ndarray
    replicates: np.ndarray


def _means(group: Group) -> _Means:
    """Means over the group's benchmarks of each member's correlation.

    Replicate r of a mean is the mean over benchmarks of each benchmark's replicate r. The
    resamples of one benchmark are shared by its metrics (paired), and those of different
    benchmarks are drawn from independent samples, so taking replicate r of every benchmark
    together is a valid joint bootstrap draw. Benchmarks holding more replicates than the
    others contribute their first B, B the fewest held. An undefined replicate leaves the mean
    undefined in that replicate (it ranks last there and leaves the interval).
    """
    rows = [[cell.rows[k] for cell in group.cells] for k in group.keys]
    b = min(len(row.replicates) for by_cell in rows for row in by_cell)
    values = np.array([[row.value for row in by_cell] for by_cell in rows])
    reps = np.array([[row.replicates[:b] for row in by_cell] for by_cell in rows], dtype=float)
    return _Means(values.mean(1), reps.mean(1))


def _coverage(group: Group, total: int) -> str:
    return f"{len(group.cells)} of {total}"


def ranked_rows(group: Group, labels: dict[Key, str], total: int) -> list[list[object]]:
    """The rows of a group of two or more metrics (`OVERALL_COLUMNS`), best first: ranked by the
    mean correlation shown (`DIGITS` decimals; ties share the best place, then by name), rank
    ranges from the replicates of the means."""
    means = _means(group)
    shown = np.round(means.correlation, DIGITS)
    places = [s for s in standings(shown, means.replicates) if s is not None]
    order = sorted(range(len(places)), key=lambda i: (places[i].rank, labels[group.keys[i]]))
    rows: list[list[object]] = []
    for i in order:
        ci = percentile_interval(means.replicates[i], CONFIDENCE)
        rows.append(
            [
                places[i].rank,
                f"{places[i].rank_low}-{places[i].rank_high}",
                labels[group.keys[i]],
                float(shown[i]),
                round(ci.low, DIGITS),
                round(ci.high, DIGITS),
                interval_mark(group.cells, group.keys[i]),
                _coverage(group, total),
                group.name,
            ]
        )
    return rows


def _listed(reason: str, label: str, coverage: str, group: str) -> list[object]:
    """A row of a metric that is not ranked: why in the place of the rank, no numbers."""
    return [f"{NOT_RANKED}: {reason}", "", label, None, None, None, "", coverage, group]


def _labels(keys: Sequence[Key]) -> dict[Key, str]:
    """The metric's name, with its authors when several authors use that name."""
    names = Counter(name for name, _ in keys)
    return {
        (name, authors): name if names[name] == 1 else f"{name} ({authors or 'no authors'})"
        for name, authors in keys
    }


def _view(
    store: Store, statistic: str, benchmarks: Sequence[str] | None
) -> tuple[list[Cell], list[Key]]:
    """The cells of the view (default: every benchmark with a ranked row at its headline cell)
    and every metric ranked on a stored benchmark or stored with an undefined correlation on a
    benchmark of the view."""
    known = set(list_benchmarks())
    stored = [b for b in store.ranked_benchmarks() if b in known]
    chosen = [b for b in (benchmarks or []) if b in known]
    found = {b: _cell(store, b, statistic) for b in dict.fromkeys([*stored, *chosen])}
    view = chosen if benchmarks is not None else [b for b in stored if found[b].rows]
    cells = [found[b] for b in view]
    keys = [k for c in found.values() for k in c.rows] + [k for c in cells for k in c.undefined]
    return cells, list(dict.fromkeys(keys))


@dataclass(frozen=True)
class Overall:
    """The overall view of one statistic over the chosen benchmarks: its coverage groups, the
    metrics not ranked and why."""

    statistic: str
    cells: list[Cell]
    groups: list[Group]
    """Every coverage group, largest first (`coverage_groups`)."""
    labels: dict[Key, str]
    uncovered: dict[Key, str]
    """Metrics ranked on none of the chosen benchmarks, and why."""

    @property
    def ranked_groups(self) -> list[Group]:
        return [g for g in self.groups if g.ranked]

    @property
    def alone(self) -> list[Group]:
        return [g for g in self.groups if not g.ranked]

    def choices(self) -> list[tuple[str, str]]:
        """(label, value) of what the page can show: each ranked group (by its name), then the
        list of the metrics not ranked."""
        total = len(self.cells)
        shown = [
            (f"{len(g.keys)} metrics on {_coverage(g, total)} benchmarks: {g.name}", g.name)
            for g in self.ranked_groups
        ]
        if missing := len(self.alone) + len(self.uncovered):
            metrics = "metric" if missing == 1 else "metrics"
            shown.append((f"{NOT_RANKED} ({missing} {metrics})", NOT_RANKED))
        return shown

    def default(self) -> str | None:
        """The largest group of two or more metrics, else the list of those not ranked."""
        values = [value for _, value in self.choices()]
        return values[0] if values else None

    def _group(self, choice: str | None) -> Group | None:
        """The ranked group `choice` names (an unknown choice: the default), None for the list
        of the metrics not ranked or when nothing is shown."""
        if choice not in {value for _, value in self.choices()}:
            choice = self.default()
        return next((g for g in self.ranked_groups if g.name == choice), None)

    def table(self, choice: str | None) -> pd.DataFrame:
        """The rows of the group named `choice` (an unknown choice: the default), or of the
        metrics not ranked, in `OVERALL_COLUMNS`."""
        group = self._group(choice)
        if group is None:
            return pd.DataFrame(self._not_ranked(), columns=OVERALL_COLUMNS)
        rows = ranked_rows(group, self.labels, len(self.cells))
        return pd.DataFrame(rows, columns=OVERALL_COLUMNS).astype({"rank": "Int64"})

    def _not_ranked(self) -> list[list[object]]:
        total = len(self.cells)
        rows = [
            _listed(ALONE, self.labels[g.keys[0]], _coverage(g, total), g.name) for g in self.alone
        ]
        for key, reason in self.uncovered.items():
            rows.append(_listed(reason, self.labels[key], f"0 of {total}", ""))
        return rows

    def csv_frame(self) -> pd.DataFrame:
        """Every row (`CSV_COLUMNS`): each ranked group's, largest first, then the metrics not
        ranked with an empty rank and why under "ranked"."""
        rows = [
            [*row, "yes"]
            for g in self.ranked_groups
            for row in ranked_rows(g, self.labels, len(self.cells))
        ]
        rows += [[None, *row[1:], row[0]] for row in self._not_ranked()]
        return pd.DataFrame(rows, columns=CSV_COLUMNS).astype({"rank": "Int64"})

    def heading(self, choice: str | None) -> str:
        """What the table of `choice` shows and what sets its rank (Markdown)."""
        if not self.cells:
            return "No benchmark has a ranked metric yet."
        group = self._group(choice)
        if group is None:
            none = "Nothing is ranked: no coverage group holds two or more metrics. "
            nothing = "" if self.ranked_groups else none
            return (
                f"**{nothing}Not ranked**: the metrics alone in their coverage group (a mean over "
                "benchmarks that no other metric shares compares with nothing) and those ranked "
                "on none of the chosen benchmarks, each with its benchmarks."
            )
        k = self.ranked_groups.index(group) + 1
        return (
            f"**Coverage group {k} of {len(self.ranked_groups)}**: the {len(group.keys)} metrics "
            f"ranked on the same {_coverage(group, len(self.cells))} chosen benchmarks "
            f"({group.name}). The rank orders the mean {self.statistic} shown (ties share the "
            "best place); the rank range and the interval are 95% bootstrap ranges."
        )

    def matrix(self, choice: str | None) -> tuple[list[str], list[str], list[list[Row | None]]]:
        """The heatmap of `choice`: its metrics in table order, its benchmarks (a group's own, or
        every chosen one for the metrics not ranked) and each metric's row on each (None where
        not ranked)."""
        by_label = {label: key for key, label in self.labels.items()}
        metrics = [str(m) for m in self.table(choice)["metric"]]
        group = self._group(choice)
        cells = self.cells if group is None else group.cells
        rows = [[c.rows.get(by_label[m]) for c in cells] for m in metrics]
        return metrics, [c.benchmark for c in cells], rows

    def notes(self, choice: str | None) -> str:
        """The cells read, how metrics are matched, how the intervals are drawn and the notes of
        the intervals of `choice`'s table, and which metrics are not ranked."""
        if not self.cells:
            return "No benchmark has a ranked metric yet."
        cells_text = "; ".join(
            f"{c.benchmark} ({', '.join(headline_cell(c.benchmark, self.statistic))})"
            for c in self.cells
        )
        parts = [
            f"Overall {self.statistic} on each benchmark's headline cell (level, aspect): "
            f"{cells_text}.",
            COVERAGE_RULE,
            "Metrics are matched by name and authors; the newest submission counts where one was "
            "submitted again.",
            "Intervals and rank ranges are 95% bootstrap ranges: replicate r of a mean averages "
            "each benchmark's stored replicate r (paired across metrics, independent across "
            f'benchmarks). CI note: "not informative" where the interval of one of the '
            f"benchmarks rests on fewer than {MIN_BOOTSTRAP_UNITS} resampled units (each is "
            "noted below); such an interval is shown at its full width all the same.",
        ]
        if group := self._group(choice):
            parts += [f"Note: {n}." for n in interval_notes(group.cells, group.keys)]
        parts += [f"Not ranked: {self.labels[g.keys[0]]} ({ALONE})." for g in self.alone]
        parts += [f"Not ranked: {self.labels[k]} ({r})." for k, r in self.uncovered.items()]
        return "\n\n".join(parts)


def _uncovered(cells: Sequence[Cell], keys: Sequence[Key]) -> dict[Key, str]:
    """The metrics of `keys` ranked on none of `cells`, with why: undefined on them, or absent."""
    out: dict[Key, str] = {}
    for key in keys:
        if any(key in c.rows for c in cells):
            continue
        reasons = [c.undefined[key] for c in cells if key in c.undefined]
        out[key] = (
            f"correlation undefined on the chosen benchmarks ({reasons[0]})"
            if reasons
            else UNCOVERED
        )
    return out


def overall(
    store: Store, statistic: str = HEADLINE_STATISTIC, benchmarks: Sequence[str] | None = None
) -> Overall:
    """The overall view of `statistic` over `benchmarks` (default: every benchmark with a ranked
    row at its headline cell)."""
    cells, keys = _view(store, statistic, benchmarks)
    groups = coverage_groups(cells, keys)
    return Overall(statistic, cells, groups, _labels(keys), _uncovered(cells, keys))
