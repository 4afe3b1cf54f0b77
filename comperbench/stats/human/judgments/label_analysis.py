"""The analysis of binary labels per system (behaviour labels, or a benchmark's 0-1 aspect):
rates with Wilson intervals, corrected two-proportion z-tests between systems, a chi-square
over systems x label, optionally an exact binomial test against an expected rate, and
Krippendorff's alpha (nominal) on the items labelled twice or more, with a BCa interval."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from comperbench.stats.annotator_agreement.agreement import AgreementResult, agreement
from comperbench.stats.human.votes.vote_analysis import OmnibusTest
from comperbench.stats.human.votes.vote_tests import chi_square
from comperbench.stats.multiplicity import Correction
from comperbench.stats.rates import Alternative, pairwise_rate_tests, rate_tests, rates
from comperbench.stats.settings import Resampling, takes_resampling


@dataclass(frozen=True)
class LabelAnalysis:
    """Everything `analyse_labels` computes for one behaviour."""

    behaviour: str
    rates: pd.DataFrame
    """Per system: n (items with a majority label), count (labelled 1), rate, Wilson low, high."""
    split: int
    """Items whose labels are evenly split, left out of the rates."""
    tests: pd.DataFrame | None
    """Two-proportion z-tests of every pair of systems (two or more systems)."""
    chi_square: OmnibusTest | None
    expected: pd.DataFrame | None
    agreement: AgreementResult | None
    """Krippendorff's alpha (nominal), when individual labels are given."""


def majority(means: np.ndarray) -> tuple[np.ndarray, int]:
    """Per item, from the mean of its 0/1 labels: 1 above 0.5, 0 below, NaN at exactly 0.5 (an
    evenly split vote) or without labels; and the number of split items.

    Args:
        means: each item's mean 0/1 label (NaN: no labels).

    Returns:
        (majority label per item, number of split items).
    """
    means = np.asarray(means, dtype=float)
    labels = np.where(means > 0.5, 1.0, np.where(means < 0.5, 0.0, np.nan))
    return labels, int(np.sum(means == 0.5))


def majority_labels(labels: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Per item (item_id, system) its `majority` label; items with evenly split labels are
    dropped, and counted.

    Args:
        labels: individual labels: item_id, system, annotator, value.

    Returns:
        (one row per decided item with its majority label, number of split items).
    """
    items = labels.groupby(["item_id", "system"], sort=True)["value"].mean().reset_index()
    items["value"], split = majority(items["value"].to_numpy())
    return items.dropna(subset=["value"]), split


LABEL_RESAMPLING = Resampling(ci="bca")
"""The default of `analyse_labels`: BCa intervals of Krippendorff's alpha."""


@takes_resampling()
def analyse_labels(
    systems: np.ndarray,
    labels: np.ndarray,
    behaviour: str,
    *,
    split: int = 0,
    individual: pd.DataFrame | None = None,
    confidence: float = 0.95,
    correction: Correction = "holm",
    expected: float | None = None,
    alternative: Alternative = "two-sided",
    resampling: Resampling = LABEL_RESAMPLING,
    benchmark: str | None = None,
) -> LabelAnalysis:
    """The analysis of one behaviour from each item's system and 0/1 label: rates per system,
    their tests, and Krippendorff's alpha of the individual labels.

    Args:
        systems: each item's system.
        labels: each item's 0/1 label (NaN: left out).
        behaviour: the behaviour (aspect) labelled.
        split: the number of items left out as undecided, reported with the analysis.
        individual: the individual labels (item_id, aspect, annotator, value) for alpha, or
            None.
        confidence: the intervals' confidence level.
        correction: the multiplicity correction of the tests.
        expected: the rate each system is tested against, or None.
        alternative: the side of the rate tests.
        resampling: resamples, seed and interval method of alpha's interval (BCa by default).
        benchmark: the benchmark's name, for alpha's signature.

    Returns:
        The `LabelAnalysis`.
    """
    table = rates(systems, labels, confidence)
    tests = chi = None
    if len(table) > 1:
        tests = pairwise_rate_tests(table, correction)
        counts = np.column_stack([table["count"], table["n"] - table["count"]])
        try:
            chi = OmnibusTest(*chi_square(counts), n=int(table["n"].sum()))
        except ValueError:  # every item carries the same label: nothing to test
            chi = None
    tested = None
    if expected is not None:
        tested = rate_tests(table["count"], table["n"], expected, alternative, correction)
    alpha = None
    if individual is not None:
        alpha = agreement(
            individual,
            behaviour,
            ("alpha-nominal",),
            resampling=resampling,
            confidence=confidence,
            benchmark=benchmark,
        )[0]
    return LabelAnalysis(behaviour, table, split, tests, chi, tested, alpha)
