"""Comparisons of two systems (A/B votes) and their counts: win/tie/loss, WMT scores, wins per pair.

A comparison is (system a, system b, outcome) with outcome 1 (a wins), 0 (b wins) or 0.5 (tie).
Ratings are in `bradley_terry` and `online_ratings` (Elo, TrueSkill), tests in `vote_tests`,
vote-count input in `votes`, and the whole analysis in `vote_analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Comparisons:
    """Comparisons as parallel arrays (a, b, outcome), with the sorted systems they name."""

    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    systems: np.ndarray
    units: np.ndarray | None = None
    """The unit (context, prompt) that produced each comparison; the bootstrap resamples units
    when known, since comparisons from one context are not independent."""
    unit_kind: str = "context"
    """What a unit is (context, item, turn), as named in notes and signatures."""

    @classmethod
    def of(
        cls,
        a: Sequence[str],
        b: Sequence[str],
        outcome: Sequence[float],
        units: Sequence[object] | np.ndarray | None = None,
        unit_kind: str = "context",
    ) -> Comparisons:
        """Comparisons from sequences, checked and stored as arrays.

        Args:
            a: each comparison's first system.
            b: each comparison's second system.
            outcome: each comparison's outcome for `a` (1 win, 0.5 tie, 0 loss).
            units: each comparison's resampling unit, or None (each comparison its own).
            unit_kind: what a unit is (context, item, turn), for notes and signatures.

        Returns:
            The comparisons.
        """
        a_arr, b_arr = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        out = np.asarray(outcome, dtype=float)
        if not (a_arr.shape == b_arr.shape == out.shape):
            raise ValueError("a, b and outcome must have the same length")
        unit_arr = None
        if units is not None:
            unit_arr = np.asarray(units, dtype=object)
            if unit_arr.shape != out.shape:
                raise ValueError("units must have one entry per comparison")
        bad = ~np.isin(out, [0.0, 0.5, 1.0])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"comparison {i}: outcome {float(out[i])} is not 1 (a wins), 0 or 0.5 (tie)"
            )
        same = a_arr == b_arr
        if same.any():
            raise ValueError(f"comparison {int(np.flatnonzero(same)[0])}: a system against itself")
        return cls(a_arr, b_arr, out, np.unique(np.r_[a_arr, b_arr]), unit_arr, unit_kind)

    @property
    def unit_name(self) -> str:
        """What the bootstrap resamples: the unit kind when units are known, else
        `comparison`."""
        return "comparison" if self.units is None else self.unit_kind

    def unit_inverse(self) -> tuple[np.ndarray, int]:
        """(unit index of each comparison, number of units); each comparison its own unit when
        no units are known.

        Returns:
            (unit index of each comparison, number of units).
        """
        if self.units is None:
            return np.arange(self.a.size), self.a.size
        _, inverse = np.unique(self.units.astype(str), return_inverse=True)
        return inverse, int(inverse.max()) + 1 if inverse.size else 0

    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        """The system indices of each comparison's two sides.

        Returns:
            (index of `a`, index of `b`) of each comparison in `systems`.
        """
        return np.searchsorted(self.systems, self.a), np.searchsorted(self.systems, self.b)


def win_tie_loss(c: Comparisons) -> pd.DataFrame:
    """Per system: wins, ties, losses, comparisons, win rate without ties and with ties as halves.

    Args:
        c: the comparisons.

    Returns:
        One row per system.
    """
    rows = []
    for s in c.systems:
        as_a, as_b = c.a == s, c.b == s
        wins = int(np.sum(c.outcome[as_a] == 1) + np.sum(c.outcome[as_b] == 0))
        losses = int(np.sum(c.outcome[as_a] == 0) + np.sum(c.outcome[as_b] == 1))
        ties = int(np.sum(c.outcome[as_a | as_b] == 0.5))
        n = wins + ties + losses
        decided = wins + losses
        rows.append(
            {
                "system": s,
                "wins": wins,
                "ties": ties,
                "losses": losses,
                "comparisons": n,
                "win_rate": wins / decided if decided else np.nan,
                "score": (wins + ties / 2) / n if n else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("system")


def majority(
    item_ids: Sequence[str], a: Sequence[str], b: Sequence[str], outcome: Sequence[float]
) -> Comparisons:
    """One comparison per (item, pair) by majority of its judgments (a tie when no majority).

    Args:
        item_ids: each judgment's item.
        a: each judgment's first system.
        b: each judgment's second system.
        outcome: each judgment's outcome for `a` (1 win, 0.5 tie, 0 loss).

    Returns:
        The majority comparisons, one per (item, pair), without units.
    """
    frame = pd.DataFrame({"item": item_ids, "a": a, "b": b, "o": np.asarray(outcome, float)})
    flip = frame["a"] > frame["b"]
    frame.loc[flip, ["a", "b"]] = frame.loc[flip, ["b", "a"]].to_numpy()
    frame.loc[flip, "o"] = 1 - frame.loc[flip, "o"]
    mean = frame.groupby(["item", "a", "b"], sort=True)["o"].mean().reset_index()
    decided = np.where(mean["o"] > 0.5, 1.0, np.where(mean["o"] < 0.5, 0.0, 0.5))
    return Comparisons.of(mean["a"].tolist(), mean["b"].tolist(), decided)


def wmt_scores(
    item_ids: Sequence[str], a: Sequence[str], b: Sequence[str], outcome: Sequence[float]
) -> pd.DataFrame:
    """Per system, the WMT "> others" score (wins / (wins + losses); ties left out, as WMT has done
    since 2012) on two aggregations: `major`, one comparison per (item, pair) by majority vote of its
    judgments, and `distinct`, every judgment counted on its own; `*_n` is the number of decided
    comparisons behind each score.

    Args:
        item_ids: each judgment's item.
        a: each judgment's first system.
        b: each judgment's second system.
        outcome: each judgment's outcome for `a` (1 win, 0.5 tie, 0 loss).

    Returns:
        One row per system: major, major_n, distinct, distinct_n.
    """
    distinct = win_tie_loss(Comparisons.of(a, b, outcome))
    major = win_tie_loss(majority(item_ids, a, b, outcome))
    return pd.DataFrame(
        {
            "major": major["win_rate"],
            "major_n": major["wins"] + major["losses"],
            "distinct": distinct["win_rate"],
            "distinct_n": distinct["wins"] + distinct["losses"],
        }
    )


def canonical(c: Comparisons) -> Comparisons:
    """The comparisons in an order that does not depend on the order given: each written from
    its alphabetically first system (the outcome flipped to match) and sorted by unit, systems
    and outcome. Equal comparisons are interchangeable, so every input order gives the same.

    Args:
        c: the comparisons.

    Returns:
        The same comparisons, in canonical order.
    """
    swap = c.a.astype(str) > c.b.astype(str)
    a, b = np.where(swap, c.b, c.a), np.where(swap, c.a, c.b)
    outcome = np.where(swap, 1 - c.outcome, c.outcome)
    units = np.zeros(c.a.size, dtype=str) if c.units is None else c.units.astype(str)
    order = np.lexsort((outcome, b.astype(str), a.astype(str), units))
    kept_units = None if c.units is None else c.units[order]
    return Comparisons(a[order], b[order], outcome[order], c.systems, kept_units, c.unit_kind)


def pair_counts(c: Comparisons) -> pd.DataFrame:
    """Per pair of systems that met (system_a before system_b alphabetically): wins of each
    and ties.

    Args:
        c: the comparisons.

    Returns:
        One row per pair: system_a, system_b, wins_a, wins_b, ties.
    """
    canon = canonical(c)
    frame = pd.DataFrame(
        {"system_a": canon.a, "system_b": canon.b, "outcome": canon.outcome.astype(float)}
    )
    counts = pd.crosstab([frame["system_a"], frame["system_b"]], frame["outcome"])
    counts = counts.reindex(columns=[1.0, 0.0, 0.5], fill_value=0)
    counts.columns = ["wins_a", "wins_b", "ties"]
    return counts.astype(int).reset_index()
