"""Where a submission landed: its value, interval, rank and rank range in every view it was
scored in, as `comperbench submit` prints it and the app's upload tab shows it."""

from __future__ import annotations

from typing import Any

from comperbench.common.textutil import LINE_WIDTH, interval, number, table, wrap
from comperbench.leaderboard.service import Outcome
from comperbench.leaderboard.store import Row, Store

PLACING_HEADERS = [
    "metric",
    "benchmark",
    "level",
    "aspect",
    "value",
    "95% CI",
    "n",
    "rank",
    "range",
]


def _scored_views(outcome: Outcome) -> list[tuple[str, str]]:
    """The (benchmark, level) views the submission's full coverages are scored in: each covered
    level, and system level from a benchmark's first stored level."""
    from comperbench.leaderboard.items import stored_levels

    views: dict[tuple[str, str], None] = {}
    for coverages in outcome.submission.metrics.values():
        for c in coverages:
            if c.full:
                views[(c.benchmark, c.level)] = None
                if c.level == stored_levels(c.benchmark)[0]:
                    views[(c.benchmark, "system")] = None
    return list(views)


def placings_of(store: Store, outcome: Outcome, statistic: str) -> list[dict[str, Any]]:
    """The submission's stored correlations of `statistic` in every view it is scored in, metric
    by metric, each with its place: rank among the ranked rows and rank range, or why it is not
    ranked (undefined, or scored under other settings)."""
    from comperbench.benchmark import get_metadata
    from comperbench.leaderboard.scoring import scored_at
    from comperbench.leaderboard.service import ranking, set_apart, unranked
    from comperbench.stats.metric_correlation.statistics import get_statistic

    own = outcome.stored.submission_id
    found: list[tuple[int, dict[str, Any]]] = []
    for benchmark, level in _scored_views(outcome):
        if not scored_at(get_statistic(statistic), level):
            continue
        for aspect in get_metadata(benchmark).aspect_names:
            view = (store, benchmark, level, aspect, statistic)
            ranked = ranking(*view)
            places = [
                (
                    r.row,
                    {"rank": r.rank, "of": len(ranked), "rank_range": [r.rank_low, r.rank_high]},
                )
                for r in ranked
            ]
            places += [(row, {"not_ranked": _undefined(row)}) for row in unranked(*view)]
            places += [(row, {"not_ranked": "other scoring settings"}) for row in set_apart(*view)]
            found += [
                (row.metric_id, _placing(row, benchmark, aspect, place))
                for row, place in places
                if row.submission_id == own
            ]
    return [placing for _, placing in sorted(found, key=lambda f: f[0])]


def _undefined(row: Row) -> str:
    return f"correlation undefined ({row.reason or 'reason not recorded'})"


def _placing(row: Row, benchmark: str, aspect: str, place: dict[str, Any]) -> dict[str, Any]:
    return {
        "metric": row.metric,
        "metric_id": row.metric_id,
        "benchmark": benchmark,
        "level": row.settings.level,
        "aspect": aspect,
        "value": row.value,
        "ci": [row.ci_low, row.ci_high],
        "ci_note": row.ci_note,
        "n": row.n,
        **place,
    }


def _placing_rows(placings: list[dict[str, Any]]) -> tuple[list[list[object]], dict[str, int]]:
    """The rows of the placings table, and why rows are not ranked, each reason numbered once
    (a row's range cell refers to its number)."""
    reasons: dict[str, int] = {}
    rows: list[list[object]] = []
    for p in placings:
        if "rank" in p:
            rank, span = f"{p['rank']}/{p['of']}", "{}-{}".format(*p["rank_range"])
        else:
            mark = reasons.setdefault(p["not_ranked"], len(reasons) + 1)
            rank, span = "-", f"not ranked [{mark}]"
        where = [p["metric"], p["benchmark"], p["level"], p["aspect"]]
        rows.append([*where, number(p["value"]), interval(*p["ci"]), p["n"], rank, span])
    return rows, reasons


def placings_text(placings: list[dict[str, Any]], statistic: str) -> str:
    """The placings as the table `comperbench submit` prints, within `LINE_WIDTH`: the reasons
    rows are not ranked, numbered, and the notes of small samples under it."""
    rows, reasons = _placing_rows(placings)
    lines = [
        f"{statistic} with the human scores; rank among the ranked stored metrics:",
        table(PLACING_HEADERS, rows, 2, LINE_WIDTH),
    ]
    lines += [
        wrap(reason, first=f"  [{mark}] ", indent="      ") for reason, mark in reasons.items()
    ]
    notes = dict.fromkeys(p["ci_note"] for p in placings if p["ci_note"])
    lines += [wrap(f"note: {note}", indent="  ") for note in notes]
    return "\n".join(lines)
