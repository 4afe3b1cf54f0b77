"""The numbers of google-research/mt-metrics-eval's own test suite, held here.

Inputs and expected values are those of `mt_metrics_eval/stats_test.py` (test names cited per
case). Its `Correlation(num_sys, gold, metric)` packs a systems x items matrix row by row;
`average_by="sys"` averages within systems, `"item"` within items, `"none"` pools everything.
mt-metrics-eval counts the +-1 of a two-item group and lets b / k be a p-value; those numbers are
held under the `MT_METRICS_EVAL` conventions. Cases held in other files: Kendall variants and tie
calibration (`test_stats_pair_accuracy.py`), soft pairwise accuracy
(`test_stats_soft_pairwise_accuracy.py`). `testSigDiffWithAvgAndNones` (Williams' test over an
item-averaged correlation with n counting the missing score) has no equivalent: Williams' test is
defined for one Pearson correlation over complete items, and comperbench refuses it on averages.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats import correlate, significance_matrix
from comperbench.stats.averaging import MT_METRICS_EVAL, Averaging, Conventions
from comperbench.stats.metric_correlation.statistics import kendall_like_statistic
from comperbench.stats.metric_tests.significance import (
    EarlyStopping,
    perm_both,
    permutation_test,
)
from comperbench.stats.pair_ranking.pair_accuracy import point as pairwise_accuracy_point
from comperbench.stats.settings import Resampling

GOLD = [1, 2, 3, 4, 5, 6]
METRIC = [2, 1, 4, 3, 3, 7]
TWO = MT_METRICS_EVAL.averaging


def unpack(num_sys: int, gold: list | tuple, metric: list | tuple, average_by: str) -> tuple:
    """Human and metric vectors (None as NaN) and the groups `average_by` means."""
    n_items = len(gold) // num_sys
    index = np.arange(len(gold))
    groups = {"none": None, "sys": index // n_items, "item": index % n_items}[average_by]
    human = np.array([np.nan if g is None else g for g in gold], dtype=float)
    return human, np.asarray(metric, dtype=float), groups


def value(num_sys, gold, metric, average_by, method, averaging=TWO) -> float:
    human, scores, groups = unpack(num_sys, gold, metric, average_by)
    return correlate(
        scores,
        human,
        statistic=method,
        groups=groups,
        resampling=Resampling(resamples=0, conventions=Conventions(averaging)),
    ).value


@pytest.mark.parametrize(
    ("method", "none", "sys", "item"),
    [
        ("pearson", 0.776, 0.760, 1.0),  # testPearson
        ("kendall-b", 0.552, 0.575, 1.0),  # testKendall
        ("kendall-c", 0.556, 0.611, 1.0),  # testKendallC
    ],
)
def test_correlations_averaged_three_ways(method: str, none: float, sys: float, item: float):
    for average_by, expected in (("none", none), ("sys", sys), ("item", item)):
        assert value(2, GOLD, METRIC, average_by, method) == pytest.approx(expected, abs=5e-4)


def test_groups_of_two_are_left_out_by_default() -> None:
    # the "item" groups of testPearson have two items each: +1 and +1 and +1 under
    # mt-metrics-eval's convention, undefined under comperbench's
    result = correlate(METRIC, GOLD, groups=[0, 1, 2, 0, 1, 2], resampling=Resampling(resamples=0))
    assert np.isnan(result.value) and "undefined in every group" in result.reason


def test_average_by_system_and_by_item() -> None:
    g, m = [1, 2, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1 = sps.pearsonr([1, 2, 3], [2, 1, 8])[0]  # testAverageBySystem
    p2 = sps.pearsonr([4, 5, 6], [3, 5, 6])[0]
    assert value(2, g, m, "sys", "pearson") == pytest.approx((p1 + p2) / 2)
    # testAverageByItem: the three two-item groups give +1, +1 and -1
    assert value(2, g, m, "item", "pearson") == pytest.approx(1 / 3)
    # testAverageByItemWithMissingEntries: the second group keeps one item and drops out
    assert value(2, [1, None, 3, 4, 5, 6], m, "item", "pearson") == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("metric", "human"),
    [
        ([2, 1, 8, 3, 5, 4, 4], [1, 2, 3, 4, 5, 6, 7]),
        ([2, 1, 8, 3, 5, 4, 6], [1, 2, 3, 4, 5, 6, 6]),
    ],
)
def test_a_tied_two_item_group_is_undefined_not_zero(metric: list, human: list) -> None:
    # the last group's two items are tied by the metric, or by the humans: its Pearson is NaN
    # in mt-metrics-eval and drops out, leaving the first group's r and the second's +1
    p1 = sps.pearsonr([1, 2, 3], [2, 1, 8])[0]
    groups = [0, 0, 0, 1, 1, 2, 2]
    result = correlate(
        metric,
        human,
        groups=groups,
        resampling=Resampling(resamples=0, conventions=Conventions(TWO)),
    )
    assert result.value == pytest.approx((p1 + 1) / 2)


def test_undefined_groups_dropped_or_counted_as_zero() -> None:
    g, m = [1, 2, 3, 4, 5, 6], [2, 2, 2, 4, 5, 6]  # the first system's scores are constant
    assert value(2, g, m, "sys", "pearson") == pytest.approx(1.0)  # testNaNHandling
    zero = Averaging(undefined="zero")  # testNaNHandlingWithZeros
    assert value(2, g, m, "sys", "pearson", zero) == pytest.approx(0.5)


def test_micro_averaging_weighs_groups_by_their_items() -> None:
    # testMicroAveraging: (2 p1 + 3 p2) / 5, the first system keeping two of its three items
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1 = sps.pearsonr([1, 3], [2, 8])[0]
    p2 = sps.pearsonr([4, 5, 6], [3, 5, 6])[0]
    micro = Averaging(weighting="items", groups_of_two=True)
    assert value(2, g, m, "sys", "pearson", micro) == pytest.approx((2 * p1 + 3 * p2) / 5)


def test_kendall_like() -> None:
    gold, metric = [10, 11, 100, 150], [2, 1, 4, 3]
    # CorrelationFunctionsTest.testKendallLike: 3/5 at the default threshold 25, 2/6 at 1
    assert kendall_like_statistic(25).value(metric, gold) == pytest.approx(3 / 5)
    assert kendall_like_statistic(1).value(metric, gold) == pytest.approx(2 / 6)
    # CorrelationTest.testKendallLike
    like = kendall_like_statistic(1)
    assert value(1, [10, None, 100, 150], metric, "none", like) == pytest.approx(1 / 3)
    assert value(2, gold, metric, "item", like) == 1
    assert value(2, [10, None, 100, 150], metric, "item", like) == 1


def test_agreement_is_acc23() -> None:
    # CorrelationFunctionsTest.testAgreement: 5 of 10 pairs agree in sign
    assert value(1, [1, 2, 3, 3, 4], [1, 1, 2, 1, 2], "none", "acc23") == pytest.approx(0.5)


def test_tau23_and_acc23_with_ties_on_both_sides() -> None:
    # testKendallVariants_23: 14 right pairs of 21 (4 apart, 3 tied in x, 2 tied in y...)
    x, y = np.array([1, 1, 1, 2, 2, 3, 4.0]), np.array([1, 1, 2, 2, 4, 3, 3.0])
    assert pairwise_accuracy_point(y, x, calibrate=False, tau=True)[0] == pytest.approx(7 / 21)
    assert pairwise_accuracy_point(y, x, calibrate=False, tau=False)[0] == pytest.approx(14 / 21)


class TestPermutationSigDiff:
    """PermutationSigDiffTest: four systems of two items."""

    gold = (1, 2, 3, 4, 5, 5, 7, 8)
    metric1 = (1, 2, 3, 3, 7, 3, 5, 5)
    metric2 = (2, 1, 2, 6, 8, 8, 7, 6)

    def run(self, average_by: str, method: str = "pearson", resamples: int = 1000, **options):
        human, m2, groups = unpack(4, self.gold, self.metric2, average_by)
        m1 = np.asarray(self.metric1, dtype=float)
        resampling = Resampling(resamples, conventions=MT_METRICS_EVAL)
        return perm_both(
            m2, m1, human, statistic=method, groups=groups, resampling=resampling, **options
        )

    def test_pearson_without_averaging_or_early_stopping(self) -> None:
        delta = sps.pearsonr(self.metric2, self.gold)[0] - sps.pearsonr(self.metric1, self.gold)[0]
        result = self.run("none")
        assert result.p_value > 0 and result.delta == pytest.approx(delta)
        # 1,000 permutations asked of 8 items: the 2^8 = 256 swap patterns are enumerated
        assert result.n_resamples == 256
        assert self.run("none", resamples=255).n_resamples == 255

    def test_early_stopping_stops_before_the_last_permutation(self) -> None:
        # testPearsonNoAvgWithEarlyStop: blocks of 50, stop once p > 0.2 (fewer permutations
        # asked than the 256 patterns, which would be enumerated to the end)
        result = self.run("none", resamples=250, early_stopping=EarlyStopping(50, 0.02, 0.2))
        assert result.p_value > 0.2 and result.n_resamples < 250
        assert result.n_resamples % 50 == 0

    @pytest.mark.parametrize("average_by", ["sys", "item"])
    def test_pearson_averaged(self, average_by: str) -> None:
        # testPearsonSysNoEarlyStop, testPearsonItemNoEarlyStop
        delta = value(4, self.gold, self.metric2, average_by, "pearson") - value(
            4, self.gold, self.metric1, average_by, "pearson"
        )
        result = self.run(average_by)
        assert result.p_value > 0 and result.delta == pytest.approx(delta)

    @pytest.mark.parametrize("method", ["kendall-b", "kendall-c", "acc-eq"])
    def test_kendall_variants_by_item(self, method: str) -> None:
        # testKendallItemWithEarlyStop, testKendallC, testTauOptimization: 10 permutations
        delta = value(4, self.gold, self.metric2, "item", method) - value(
            4, self.gold, self.metric1, "item", method
        )
        result = self.run("item", method, resamples=10, early_stopping=EarlyStopping(10))
        assert result.p_value > 0 and result.delta == pytest.approx(delta)
        assert result.n_resamples == 10

    def test_pairwise_permutation_keeps_each_metrics_epsilon(self) -> None:
        human, m2, groups = unpack(4, self.gold, self.metric2, "item")
        m1 = np.asarray(self.metric1, dtype=float)
        delta = value(4, self.gold, self.metric2, "item", "acc-eq") - value(
            4, self.gold, self.metric1, "item", "acc-eq"
        )
        result = permutation_test(m2, m1, human, statistic="acc-eq", groups=groups)
        assert result.delta == pytest.approx(delta) and 0 < result.p_value <= 1


def test_williams() -> None:
    # WilliamsSigDiffTest.testSigDiff: p 0.019, r1 0.999, r2 0.987
    gold = [1, 2, 3, 4, 5]
    scores = {"m1": [1.1, 2, 3.1, 4, 5.1], "m2": [1.5, 2, 3.1, 4, 5.5]}
    for conventions, reverse in ((None, 0.981), (MT_METRICS_EVAL, 0.019)):
        resampling = Resampling() if conventions is None else Resampling(conventions=conventions)
        result = significance_matrix(scores, gold, test="williams", resampling=resampling)
        assert result.metrics == ["m1", "m2"]
        np.testing.assert_allclose(result.values, [0.999, 0.987], atol=5e-4)
        assert result.p_values[0, 1] == pytest.approx(0.019, abs=5e-4)
        # "m2 better than m1": 1 - p by comperbench's sign, the same p by sf(|t|)
        assert result.p_values[1, 0] == pytest.approx(reverse, abs=5e-4)
