"""The analysis of per-turn selections (interactive evaluation), with the tests each setting
prescribes.

- SOBA (select one best): the selected system beats every other one shown. Two systems: the
  exact two-sided binomial (sign) test of equal chances; more: Pearson's chi-square goodness of
  fit of the selection counts to equal chances among the systems shown, then the binomial test
  of every pair on the turns where one of the two was selected.
- SATA (select all that apply): of two systems shown, the one selected beats the one not
  selected; both or neither is a tie, kept apart as a tie win (both selected: both met the
  user's expectations) and a tie loss (neither selected), as the interactive per-turn paper
  reports them (Liu et al., Table 3 and "Ties in SATA settings"). Two systems: McNemar's exact test (the sign test on the
  discordant turns); more: Cochran's Q on the turns that showed every system, then McNemar's
  test of every pair.

Each system's selection rate (selected / shown) comes with a Wilson interval, and optionally an
exact binomial test against an expected rate; ratings and win/tie/loss come from
`vote_analysis.analyse`, whose bootstrap resamples turns. The cascading and anchoring checks
are `selection_effects`'. SATA turns that show one response are the single-model setting
(`single_response`), left out here.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.common.deprecation import deprecated, renamed_keywords
from comperbench.stats.human.judgments.selection_effects import (
    Anchoring,
    Cascading,
    anchoring,
    cascading,
)
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.online_ratings import DEFAULT_PERMUTATIONS
from comperbench.stats.human.votes.vote_analysis import OmnibusTest, VoteAnalysis, analyse
from comperbench.stats.human.votes.vote_tests import cochrans_q
from comperbench.stats.multiplicity import Correction
from comperbench.stats.rates import Alternative, rate_tests, rates
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

OMNIBUS = {
    "soba": "Pearson's chi-square goodness of fit of the selection counts to equal chances",
    "sata": "Cochran's Q on the turns that showed every system",
}
PAIR_TEST = {
    "soba": "exact binomial (sign) test on the turns where one of the two was selected",
    "sata": "McNemar's exact test (binomial on the turns where exactly one was selected)",
}


@dataclass(frozen=True)
class SelectionAnalysis:
    """Everything `analyse_selections` computes for one setting."""

    setting: str
    turns: int
    """Judged turns (rows of the file), counting each annotator's judgment."""
    rates: pd.DataFrame
    """Per system: n (turns shown), count (turns selected), rate, Wilson low and high."""
    votes: VoteAnalysis
    """The votes the selections imply: win/tie/loss, ratings and the test of every pair
    (`pairs.sign_p`: the setting's test)."""
    omnibus: OmnibusTest | None
    """The setting's test over more than two systems (see `OMNIBUS`); None for two."""
    omnibus_note: str | None
    """Why the omnibus test is missing or what it left out."""
    expected: pd.DataFrame | None
    ties: pd.DataFrame | None
    """SATA: per pair shown together, the turns only A, only B, both (tie wins) and neither (tie
    losses) were selected (`sata_pair_outcomes`); None for SOBA."""
    cascading: Cascading
    """Re-selection in consecutive turns (`selection_effects.cascading`)."""
    anchoring: Anchoring
    """Selection rate by the position a response was shown in (`selection_effects.anchoring`)."""

    @property
    def pairwise(self) -> VoteAnalysis:
        """Deprecated: `votes`."""
        deprecated("SelectionAnalysis.pairwise", "SelectionAnalysis.votes")
        return self.votes


def _soba_comparisons(rows: pd.DataFrame) -> tuple[list, list, list, list]:
    a, b, outcome, units = [], [], [], []
    for shown, selected, unit in zip(rows["shown"], rows["selected"], rows["unit"], strict=True):
        for other in shown:
            if other != selected[0]:
                a.append(selected[0])
                b.append(other)
                outcome.append(1.0)
                units.append(unit)
    return a, b, outcome, units


def _sata_comparisons(rows: pd.DataFrame) -> tuple[list, list, list, list]:
    a, b, outcome, units = [], [], [], []
    for shown, selected, unit in zip(rows["shown"], rows["selected"], rows["unit"], strict=True):
        for first, second in combinations(sorted(shown), 2):
            won = (first in selected) - (second in selected)
            a.append(first)
            b.append(second)
            outcome.append(0.5 + won / 2)
            units.append(unit)
    return a, b, outcome, units


SATA_OUTCOMES = ("a_only", "b_only", "tie_wins", "tie_losses")


def sata_pair_outcomes(rows: pd.DataFrame) -> pd.DataFrame:
    """Per pair of systems shown together in SATA turns (system_a before system_b): the turns
    only A was selected in, only B, both (tie wins) and neither (tie losses), and all of them.

    Args:
        rows: SATA selections as `read_selections` gives them.

    Returns:
        One row per pair of systems.
    """
    counts: dict[tuple[str, str], list[int]] = {}
    for shown, selected in zip(rows["shown"], rows["selected"], strict=True):
        for first, second in combinations(sorted(shown), 2):
            a_in, b_in = first in selected, second in selected
            cell = 2 if a_in and b_in else 0 if a_in else 1 if b_in else 3  # SATA_OUTCOMES
            counts.setdefault((first, second), [0, 0, 0, 0])[cell] += 1
    table = pd.DataFrame(
        [(a, b, *c) for (a, b), c in sorted(counts.items())],
        columns=["system_a", "system_b", *SATA_OUTCOMES],
    )
    return table.assign(turns=table[list(SATA_OUTCOMES)].sum(axis=1))


def selection_comparisons(rows: pd.DataFrame, setting: str) -> Comparisons:
    """The comparisons implied by one setting's selections, each turn their resampling unit.

    Args:
        rows: selections as `read_selections` gives them.
        setting: `soba` or `sata`.

    Returns:
        The comparisons, each turn their unit.
    """
    build = _soba_comparisons if setting == "soba" else _sata_comparisons
    return Comparisons.of(*build(rows), unit_kind="turn")


def selection_rates(rows: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per system: turns shown (n), turns selected (count), rate and Wilson interval.

    Args:
        rows: selections as `read_selections` gives them.
        confidence: the intervals' confidence level.

    Returns:
        One row per system: n, count, rate, low, high.
    """
    shown = rows[["shown", "selected"]].explode("shown")
    chosen = [name in sel for name, sel in zip(shown["shown"], shown["selected"], strict=True)]
    return rates(shown["shown"].to_numpy(dtype=object), np.asarray(chosen, float), confidence)


def _soba_goodness_of_fit(rows: pd.DataFrame, systems: np.ndarray) -> OmnibusTest:
    """Selection counts against their expectation when each system shown is equally likely."""
    index = {name: i for i, name in enumerate(systems)}
    observed, expected = np.zeros(systems.size), np.zeros(systems.size)
    for shown, selected in zip(rows["shown"], rows["selected"], strict=True):
        observed[index[selected[0]]] += 1
        for name in shown:
            expected[index[name]] += 1 / len(shown)
    statistic, p = sps.chisquare(observed, expected)
    return OmnibusTest(float(statistic), float(p), systems.size - 1, len(rows))


def _sata_cochran(rows: pd.DataFrame, systems: np.ndarray) -> tuple[OmnibusTest | None, str | None]:
    every = set(systems)
    complete = rows[[set(shown) == every for shown in rows["shown"]]]
    left_out = len(rows) - len(complete)
    note = f"{left_out} turns that did not show every system are left out" if left_out else None
    if len(complete) < 2:
        return None, f"fewer than two turns showed every system ({len(complete)})"
    matrix = np.array([[name in sel for name in systems] for sel in complete["selected"]], float)
    q, p, dof = cochrans_q(matrix)
    if not np.isfinite(q):
        return None, "undefined: every turn selects all or none of the systems"
    return OmnibusTest(q, p, dof, len(complete)), note


@takes_resampling()
@renamed_keywords(n_permutations="permutations")
def analyse_selections(
    rows: pd.DataFrame,
    setting: str,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    permutations: int = DEFAULT_PERMUTATIONS,
    correction: Correction = "holm",
    expected: float | None = None,
    alternative: Alternative = "two-sided",
) -> SelectionAnalysis:
    """The analysis of the selections of one setting; turns that show one response are left
    out.

    Args:
        rows: selections as read by `comperbench.human_io.selections.read_selections`.
        setting: `soba` or `sata`.
        resampling: bootstrap resamples and seed of the ratings; percentile intervals only.
        permutations: random orders whose median is the Elo and TrueSkill rating.
        correction: the multiplicity correction of the tests.
        expected: the selection rate each system is tested against, or None.
        alternative: the side of the rate tests.

    Returns:
        The `SelectionAnalysis`.
    """
    rows = rows[(rows["setting"] == setting) & (rows["shown"].map(len) >= 2)]
    if rows.empty:
        raise ValueError(f"no {setting.upper()} selections of two or more responses")
    games = selection_comparisons(rows, setting)
    votes = analyse(
        games,
        resampling=resampling,
        permutations=permutations,
        correction=correction,
    )
    table = selection_rates(rows)
    omnibus, note = None, None
    if games.systems.size > 2:
        if setting == "soba":
            omnibus = _soba_goodness_of_fit(rows, games.systems)
        else:
            omnibus, note = _sata_cochran(rows, games.systems)
    tested = None
    if expected is not None:
        tested = rate_tests(table["count"], table["n"], expected, alternative, correction)
    ties = sata_pair_outcomes(rows) if setting == "sata" else None
    return SelectionAnalysis(
        setting,
        len(rows),
        table,
        votes,
        omnibus,
        note,
        tested,
        ties,
        cascading(rows, setting, correction),
        anchoring(rows, setting),
    )
