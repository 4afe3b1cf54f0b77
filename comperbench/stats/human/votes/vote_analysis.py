"""The whole analysis of one set of A/B votes: counts, ratings and tests."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from comperbench.common.deprecation import deprecated, renamed_keywords
from comperbench.stats.human.percentile import percentile_only
from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.chateval import ChatEvalScores
from comperbench.stats.human.votes.comparisons import Comparisons, win_tie_loss, wmt_scores
from comperbench.stats.human.votes.online_ratings import (
    DEFAULT_PERMUTATIONS,
    elo,
    trueskill_ratings,
)
from comperbench.stats.human.votes.system_ratings import Ratings
from comperbench.stats.human.votes.vote_tests import (
    chi_square,
    cochrans_q,
    empty_lines,
    pair_tests,
    small_expected_reason,
)
from comperbench.stats.multiplicity import Correction
from comperbench.stats.rates import Alternative, rate_tests
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling


@dataclass(frozen=True)
class OmnibusTest:
    """One test's statistic, p-value and degrees of freedom, with the count it was run on."""

    statistic: float
    p_value: float
    dof: int
    n: int


@dataclass(frozen=True)
class VoteAnalysis:
    """Everything `analyse` computes for one set of comparisons."""

    comparisons: Comparisons
    win_tie_loss: pd.DataFrame
    wmt: pd.DataFrame | None
    """WMT major/distinct scores; None without units (votes), as `major` needs items."""
    ratings: dict[str, Ratings]
    """Bradley-Terry, Elo and TrueSkill, those that are defined."""
    undefined: dict[str, str]
    """Statistic name -> why it is undefined here (e.g. no Bradley-Terry MLE)."""
    chi_square: OmnibusTest | None
    dropped_outcomes: list[str]
    """Outcome columns (wins, ties, losses) that never occur and left the chi-square table."""
    cochran: OmnibusTest | None
    """Cochran's Q over the systems' selections, when given for more than two systems."""
    pairs: pd.DataFrame
    """`pair_tests` of every pair of systems."""
    expected: pd.DataFrame | None
    """Each system's win rate (ties left out) against the expected rate (`rates.rate_tests`)."""
    correction: Correction
    resamples: int
    """Bootstrap resamples of the ratings' intervals and of the pairs' bootstrap tests."""
    chateval: ChatEvalScores
    """The ChatEval protocol's Major and Distinct scores per pair and its win-count ranking."""

    @property
    def n_resamples(self) -> int:
        """Deprecated: `resamples`."""
        deprecated("VoteAnalysis.n_resamples", "VoteAnalysis.resamples")
        return self.resamples


def _ratings(
    c: Comparisons, resampling: Resampling, permutations: int, benchmark: str | None
) -> tuple[dict[str, Ratings], dict[str, str]]:
    """The ratings by name, and for each one undefined here, why."""
    rated, undefined = {}, {}
    for name, rate in (
        ("Bradley-Terry", lambda: bradley_terry(c, resampling, benchmark)),
        (
            "Elo",
            lambda: elo(c, resampling=resampling, benchmark=benchmark, permutations=permutations),
        ),
        ("TrueSkill", lambda: trueskill_ratings(c, resampling, benchmark, permutations)),
    ):
        try:
            rated[name] = rate()
        except ValueError as exc:  # e.g. no Bradley-Terry MLE when a system never loses
            undefined[name] = str(exc)
    return rated, undefined


def _chi_square(
    wtl: pd.DataFrame, undefined: dict[str, str]
) -> tuple[OmnibusTest | None, list[str]]:
    """Chi-square over systems x (wins, ties, losses) and the outcome columns it dropped as
    empty; None, with the reason in `undefined`, where it is not defined or its expected
    counts are too small for it."""
    outcomes = wtl[["wins", "ties", "losses"]]
    _, empty = empty_lines(outcomes.to_numpy())
    try:
        statistic, p, dof = chi_square(outcomes.to_numpy())
    except ValueError as exc:
        undefined["chi-square"] = str(exc)
        return None, []
    if reason := small_expected_reason(outcomes.to_numpy()):
        undefined["chi-square"] = reason
        return None, []
    n = int(outcomes.to_numpy().sum())
    return OmnibusTest(statistic, p, dof, n), [str(outcomes.columns[i]) for i in empty]


@takes_resampling()
@renamed_keywords(n_permutations="permutations")
def analyse(
    c: Comparisons,
    *,
    selected: pd.DataFrame | None = None,
    resampling: Resampling = DEFAULT_RESAMPLING,
    permutations: int = DEFAULT_PERMUTATIONS,
    benchmark: str | None = None,
    correction: Correction = "holm",
    expected: float | None = None,
    alternative: Alternative = "two-sided",
) -> VoteAnalysis:
    """The whole analysis of A/B votes: win/tie/loss, WMT scores (when comparisons have units),
    the ChatEval scores, Bradley-Terry, Elo and TrueSkill ratings, chi-square over systems x
    (win, tie, loss), Cochran's Q over `selected`, sign and McNemar tests of every pair, and
    optionally each system's win rate against an `expected` rate.

    Args:
        c: the comparisons.
        selected: contexts x systems 0/1, for Cochran's Q and McNemar's tests, or None.
        resampling: bootstrap resamples (at least 1) and seed; percentile intervals only.
        permutations: random orders whose median is the Elo and TrueSkill rating.
        benchmark: the benchmark's name, for the signatures.
        correction: the multiplicity correction of the pair tests and rate tests.
        expected: the win rate each system is tested against, or None.
        alternative: the side of the rate tests.

    Returns:
        The `VoteAnalysis`.
    """
    percentile_only(resampling, "analyse")
    if resampling.resamples < 1 or permutations < 1:
        raise ValueError("the ratings need at least one bootstrap resample and one permutation")
    wtl = win_tie_loss(c)
    wmt = None if c.units is None else wmt_scores(c.units.astype(str), c.a, c.b, c.outcome)
    ratings, undefined = _ratings(c, resampling, permutations, benchmark)
    chi, dropped = _chi_square(wtl, undefined)
    cochran = None
    if selected is not None and len(selected) and selected.shape[1] > 2:
        cochran = OmnibusTest(*cochrans_q(selected.to_numpy()), n=len(selected))
    tested = None
    if expected is not None:
        decided = wtl["wins"] + wtl["losses"]
        tested = rate_tests(wtl["wins"], decided, expected, alternative, correction)
    pairs = pair_tests(c, selected, correction, resampling)
    return VoteAnalysis(
        c,
        wtl,
        wmt,
        ratings,
        undefined,
        chi,
        dropped,
        cochran,
        pairs,
        tested,
        correction,
        resampling.resamples,
        ChatEvalScores.of(c),
    )
