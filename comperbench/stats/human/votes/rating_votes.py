"""Votes and per-context selections derived from ratings of several systems' responses
to the same context.

Benchmarks that rate every system's response to a shared context (USR, GRADE, DSTC7, Zhao) hold an
implicit A/B evaluation: a judge who rated A's response above B's in the same context preferred
A. `rating_votes` turns the ratings into those preferences, one per judge and pair of systems
where the judge is known, else one per pair from the mean ratings. `selections` marks, in every
context every system answered, the systems rated best (the per-turn selection protocol).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from comperbench.stats.human.votes.comparisons import Comparisons

MEAN_JUDGE = "<mean>"
"""Judge label of preferences taken from mean ratings (ratings without an annotator id)."""


def _unit_system_values(ratings: pd.DataFrame) -> pd.DataFrame:
    missing = {"unit", "system", "judge", "value"} - set(ratings.columns)
    if missing:
        raise ValueError(f"ratings need the columns unit, system, judge, value; missing {missing}")
    frame = ratings[["unit", "system", "judge", "value"]].copy()
    frame["value"] = pd.to_numeric(frame["value"], errors="raise").astype(float)
    frame = frame.dropna(subset=["value"])
    frame["judge"] = frame["judge"].where(frame["judge"].notna(), MEAN_JUDGE).astype(str)
    return frame


def rating_votes(ratings: pd.DataFrame) -> pd.DataFrame:
    """One preference per (context, judge, pair of systems) that judge rated in that context.

    `ratings` has one row per rating: unit (the shared context), system, judge (annotator id, or
    missing) and value. Ratings of one judge for one system in one unit are averaged; ratings with
    no judge are averaged per (unit, system) and compared as judge `MEAN_JUDGE`. Returns columns
    unit, judge, a, b, outcome with a < b alphabetically and outcome 1 (a rated higher), 0 (b rated
    higher) or 0.5 (equal ratings: a tie).

    Args:
        ratings: one row per rating: unit, system, judge, value.

    Returns:
        Columns unit, judge, a, b, outcome.
    """
    frame = _unit_system_values(ratings)
    means = frame.groupby(["unit", "judge", "system"], sort=True)["value"].mean().unstack("system")
    parts = []
    for a, b in combinations(means.columns, 2):
        both = means[[a, b]].dropna()
        if both.empty:
            continue
        diff = both[a].to_numpy() - both[b].to_numpy()
        parts.append(
            pd.DataFrame(
                {
                    "unit": both.index.get_level_values("unit"),
                    "judge": both.index.get_level_values("judge"),
                    "a": a,
                    "b": b,
                    "outcome": np.where(diff > 0, 1.0, np.where(diff < 0, 0.0, 0.5)),
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=["unit", "judge", "a", "b", "outcome"])
    return pd.concat(parts, ignore_index=True).sort_values(["unit", "judge", "a", "b"])


def as_comparisons(judgments: pd.DataFrame) -> Comparisons:
    """The judgments of `rating_votes` as comparisons for the ratings of `comparisons`, with
    their context (`unit`) as the unit the bootstrap resamples.

    Args:
        judgments: rows of `rating_votes`.

    Returns:
        The comparisons, units the contexts when known.
    """
    return Comparisons.of(
        judgments["a"].tolist(),
        judgments["b"].tolist(),
        judgments["outcome"].to_numpy(),
        units=judgments["unit"].to_numpy() if "unit" in judgments else None,
    )


def selections(ratings: pd.DataFrame) -> pd.DataFrame:
    """Units x systems 0/1 matrix: 1 where the system's mean rating is the best of its unit (ties:
    every best system is selected). Only units where every system has a rating are kept, as
    Cochran's Q and McNemar need complete rows.

    Args:
        ratings: one row per rating: unit, system, judge, value.

    Returns:
        Units x systems 0/1.
    """
    frame = _unit_system_values(ratings)
    means = frame.groupby(["unit", "system"], sort=True)["value"].mean().unstack("system")
    complete = means.dropna()
    best = complete.max(axis=1)
    return complete.eq(best, axis=0).astype(int)
