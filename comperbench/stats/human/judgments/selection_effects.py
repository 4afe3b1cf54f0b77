"""Whether per-turn selections are independent samples: the cascading and anchoring checks of
the interactive per-turn paper (Liu et al., "Examining turn-level sample independence" and
"Examining anchoring effects").

- Cascading: over consecutive turns (t and t + 1 of one dialogue, judged by one annotator), the
  probability that a system selected at t is selected again at t + 1, beside its selection rate
  over all turns (the paper's win rate); SATA adds the same for tie wins (every response
  selected) and tie losses (none). The paper compares these rates by eye and names no test;
  comperbench tests the null that the selection at t + 1 does not depend on the one at t with
  Fisher's exact test (two-sided) on the 2 x 2 table of the consecutive pairs (selected at t or
  not x at t + 1 or not). A dependence can come from cascading or from users whose choices stay
  alike through a dialogue (the paper's reading of its clustered ties): the test does not tell
  them apart.
- Anchoring: the rate at which the response shown in each position (first, second, ...) is
  selected, over the turns that showed the same number of responses. The paper compares the
  rates by eye; comperbench tests the null of equal rates in every position with the setting's
  own test, positions in place of systems: SOBA the exact binomial test (two responses) or
  Pearson's chi-square goodness of fit to equal counts (more); SATA McNemar's exact test (two)
  or Cochran's Q (more). Meaningful only when the order of the responses is randomised, as in
  the paper.

An analysis the selections cannot support is returned undefined with its reason, never as a
number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.human.votes.vote_tests import cochrans_q, mcnemar
from comperbench.stats.multiplicity import Correction, adjust

CASCADING_TEST = (
    "Fisher's exact test (two-sided) of selection at turn t + 1 against selection at turn t"
)
ANCHORING_TESTS = {
    ("soba", 2): "exact binomial test of the first position's share against 1/2",
    ("soba", 3): "Pearson's chi-square goodness of fit to equal counts per position",
    ("sata", 2): "McNemar's exact test of the two positions",
    ("sata", 3): "Cochran's Q over the positions",
}
"""(setting, 2 or 3 for more responses) -> the test of equal selection rates per position."""
TIE_WIN, TIE_LOSS = "tie win", "tie loss"
CASCADING_COLUMNS = [
    "pairs",
    "before",
    "again",
    "reselection_rate",
    "rate_after_other",
    "selection_rate",
    "odds_ratio",
    "p_value",
    "p_adjusted",
    "reason",
]


@dataclass(frozen=True)
class Cascading:
    """Per event (index: a system selected; SATA also a tie win or tie loss): the consecutive `pairs`
    of turns it could occur in both, the turns t it occurred in (`before`), those followed by
    it again at t + 1 (`again`), `reselection_rate` = again / before, `rate_after_other` (its
    rate at t + 1 after a turn without it), `selection_rate` over every turn, and Fisher's
    `odds_ratio` and p (`reason` says why a test is undefined). `table` is None, with the
    `reason`, when no consecutive turns are known."""

    table: pd.DataFrame | None
    reason: str | None = None


@dataclass(frozen=True)
class PositionTest:
    """The anchoring check over the turns that showed `shown` responses."""

    shown: int
    turns: int
    rates: pd.DataFrame
    """Per position (index, 1 = shown first): turns selected and rate (selected / turns)."""
    test: str
    statistic: float
    p_value: float
    dof: int | None
    reason: str | None
    """Why the test is undefined (statistic and p NaN), or None."""


@dataclass(frozen=True)
class Anchoring:
    """One `PositionTest` per number of responses shown; none, with the `reason`, when every
    turn shows one response."""

    groups: tuple[PositionTest, ...]
    reason: str | None = None


def consecutive_pairs(rows: pd.DataFrame) -> pd.DataFrame | str:
    """Each judged turn beside the next turn of its dialogue by the same annotator (columns
    suffixed `_t` and `_next`), or why turns cannot be paired.

    Args:
        rows: selections as `read_selections` gives them.

    Returns:
        The paired turns, or the reason they cannot be paired.
    """
    turns = pd.to_numeric(rows["turn"], errors="coerce")
    whole = turns.notna() & (turns == turns.round())
    if not whole.all():
        bad = rows.loc[~whole].iloc[0]
        return (
            f"turn {bad['turn']!r} (dialogue {bad['dialogue']!r}) is not a whole number, so "
            "consecutive turns are unknown"
        )
    keyed = rows.assign(number=turns.astype(int))[
        ["dialogue", "annotator", "number", "shown", "selected"]
    ]
    nexts = keyed.assign(number=keyed["number"] - 1)
    pairs = keyed.merge(nexts, on=["dialogue", "annotator", "number"], suffixes=("_t", "_next"))
    if pairs.empty:
        return "no two consecutive turns (t and t + 1 of one dialogue, judged by one annotator)"
    return pairs


def _fisher(table: np.ndarray) -> tuple[float, float, str | None]:
    """(odds ratio, p, None) of a 2 x 2 table of (before, after) counts, or NaNs with the reason
    a margin leaves nothing to compare."""
    empty = {
        "never occurs at turn t": table[0].sum() == 0,
        "occurs at every turn t": table[1].sum() == 0,
        "never occurs at turn t + 1": table[:, 0].sum() == 0,
        "occurs at every turn t + 1": table[:, 1].sum() == 0,
    }
    found = [why for why, is_empty in empty.items() if is_empty]
    if found:
        return np.nan, np.nan, f"undefined: it {found[0]} of the pairs"
    result = sps.fisher_exact(table)
    return float(result.statistic), float(result.pvalue), None


Event = tuple[str, Callable[[tuple], bool], Callable[[tuple, tuple], bool]]
"""(name, whether a turn showing these systems can have it, whether it occurs given the systems
shown and selected)."""


def _event_row(event: Event, rows: pd.DataFrame, pairs: pd.DataFrame) -> dict:
    """One event's counts over the pairs it could occur in both times, with its rate over every
    turn it could occur in."""
    name, applies, occurs = event

    def happened(shown: pd.Series, selected: pd.Series) -> np.ndarray:
        return np.array([occurs(s, c) for s, c in zip(shown, selected, strict=True)], bool)

    possible = rows[rows["shown"].map(applies)]
    both = pairs[pairs["shown_t"].map(applies) & pairs["shown_next"].map(applies)]
    before = happened(both["shown_t"], both["selected_t"])
    after = happened(both["shown_next"], both["selected_next"])
    table = np.array(
        [[np.sum(before & after), np.sum(before & ~after)],
         [np.sum(~before & after), np.sum(~before & ~after)]]
    )  # fmt: skip
    odds, p, reason = _fisher(table)
    if not before.size:
        reason = "undefined: no consecutive turns show it both times"
    again, n_before, n_other = int(table[0, 0]), int(table[0].sum()), int(table[1].sum())
    return {
        "event": name,
        "pairs": int(before.size),
        "before": n_before,
        "again": again,
        "reselection_rate": again / n_before if n_before else np.nan,
        "rate_after_other": table[1, 0] / n_other if n_other else np.nan,
        "selection_rate": float(happened(possible["shown"], possible["selected"]).mean()),
        "odds_ratio": odds,
        "p_value": p,
        "reason": reason,
    }


def _several(shown: tuple) -> bool:
    return len(shown) >= 2


def _events(rows: pd.DataFrame, setting: str) -> list[Event]:
    """Each system selected; SATA turns showing two or more responses add tie wins (every
    response selected) and tie losses (none)."""
    events: list[Event] = [
        (name, lambda shown, name=name: name in shown, lambda _, sel, name=name: name in sel)
        for name in sorted(set(rows["shown"].explode()))
    ]
    if setting == "sata" and rows["shown"].map(_several).any():
        events += [
            (TIE_WIN, _several, lambda shown, sel: len(sel) == len(shown)),
            (TIE_LOSS, _several, lambda _, sel: not sel),
        ]
    return events


def cascading(rows: pd.DataFrame, setting: str, correction: Correction = "holm") -> Cascading:
    """The cascading check of one setting's selections (rows as `read_selections` gives them,
    all of `setting`); the tests of all events are one family, adjusted by `correction`.

    Args:
        rows: one setting's selections as `read_selections` gives them.
        setting: `soba` or `sata`.
        correction: the multiplicity correction of the events' tests.

    Returns:
        The `Cascading` check.
    """
    pairs = consecutive_pairs(rows)
    if isinstance(pairs, str):
        return Cascading(None, pairs)
    found = [_event_row(event, rows, pairs) for event in _events(rows, setting)]
    table = pd.DataFrame(found).set_index("event")
    table["p_adjusted"] = adjust(table["p_value"].to_numpy(), correction)
    return Cascading(table[CASCADING_COLUMNS])


def _position_matrix(rows: pd.DataFrame) -> np.ndarray:
    """Turns x positions: 1 where the response shown in that position was selected."""
    pairs = zip(rows["shown"], rows["selected"], strict=True)
    return np.array([[name in chosen for name in shown] for shown, chosen in pairs], dtype=float)


def _fixed_order(rows: pd.DataFrame) -> bool:
    """Every system is always shown in the same position."""
    positions = rows["shown"].map(lambda s: list(enumerate(s))).explode()
    places = pd.DataFrame(positions.tolist(), columns=["position", "system"])
    return bool((places.groupby("system")["position"].nunique() == 1).all())


def _position_test(matrix: np.ndarray, setting: str) -> tuple[float, float, int | None, str | None]:
    """(statistic, p, dof, reason) of equal selection rates per position."""
    turns, k = matrix.shape
    if setting == "soba" and k == 2:
        first = int(matrix[:, 0].sum())
        return float(first), float(sps.binomtest(first, turns, 0.5).pvalue), None, None
    if setting == "soba":
        result = sps.chisquare(matrix.sum(axis=0))
        return float(result.statistic), float(result.pvalue), k - 1, None
    if k == 2:
        if not np.any(matrix[:, 0] != matrix[:, 1]):
            return np.nan, np.nan, None, "undefined: every turn selects both responses or neither"
        statistic, p = mcnemar(matrix[:, 0].astype(bool), matrix[:, 1].astype(bool))
        return statistic, p, None, None
    q, p, dof = cochrans_q(matrix)
    if not np.isfinite(q):
        return np.nan, np.nan, dof, "undefined: every turn selects all responses or none"
    return q, p, dof, None


def _group(rows: pd.DataFrame, setting: str) -> PositionTest:
    matrix = _position_matrix(rows)
    turns, k = matrix.shape
    selected = matrix.sum(axis=0).astype(int)
    rates = pd.DataFrame(
        {"selected": selected, "rate": selected / turns},
        index=pd.RangeIndex(1, k + 1, name="position"),
    )
    test = ANCHORING_TESTS[(setting, min(k, 3))]
    if _fixed_order(rows):
        reason = (
            "undefined: every system is always shown in the same position, so a position "
            "effect cannot be told from a system effect"
        )
        return PositionTest(k, turns, rates, test, np.nan, np.nan, None, reason)
    statistic, p, dof, reason = _position_test(matrix, setting)
    return PositionTest(k, turns, rates, test, statistic, p, dof, reason)


def anchoring(rows: pd.DataFrame, setting: str) -> Anchoring:
    """The anchoring check of one setting's selections (`shown` in the order shown), per number
    of responses shown.

    Args:
        rows: one setting's selections as `read_selections` gives them.
        setting: `soba` or `sata`.

    Returns:
        The `Anchoring` check.
    """
    sizes = rows["shown"].map(len)
    if not (sizes >= 2).any():
        return Anchoring((), "undefined: every turn shows one response, so no position to compare")
    groups = tuple(_group(rows[sizes == k], setting) for k in sorted(set(sizes[sizes >= 2])))
    return Anchoring(groups)
