"""Pair accuracy (WMT's pairwise accuracy) with ties and tie calibration (acc-eq, acc23, tau-eq).

Reference values are those of google-research/mt-metrics-eval's own tests:
`mt_metrics_eval/stats_test.py` (testKendallVariants, testKendallWithTiesOpt) and
`mt_metrics_eval/tau_optimization_test.py` (zero and nonzero best thresholds, the regression
example over rows with missing values).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats import correlate, perm_both
from comperbench.stats.averaging import Averaging, Conventions
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.pair_ranking.pair_accuracy import (
    MAX_PAIRS,
    grouped_accuracy,
    resampled_accuracy,
    resampled_group_accuracy,
)
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups

GOLD = np.array([1, 2, 2, 3, 4.0])
METRIC = np.array([2, 1, 1.5, 5, 3.0])


def accuracy_by_hand(x: np.ndarray, y: np.ndarray, epsilon: float) -> float:
    """acc23 over every pair: right when ordered as the humans, or tied where they tie."""
    right = [
        (abs(x[i] - x[j]) <= epsilon) == (y[i] == y[j])
        and (abs(x[i] - x[j]) <= epsilon or np.sign(x[i] - x[j]) == np.sign(y[i] - y[j]))
        for i, j in combinations(range(x.size), 2)
    ]
    return float(np.mean(right))


def best_by_hand(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The smallest epsilon among 0 and every pair's gap that maximises acc23."""
    candidates = sorted({0.0, *(abs(a - b) for a, b in combinations(x, 2))})
    values = [accuracy_by_hand(x, y, e) for e in candidates]
    best = int(np.argmax(values))
    return values[best], candidates[best]


def test_mt_metrics_eval_kendall_variants() -> None:
    # stats_test.py testKendallVariants: acc23 0.6, tau23 0.2, acc23 at epsilon 2 0.4
    assert get_statistic("acc23").value(METRIC, GOLD) == pytest.approx(0.6)
    assert accuracy_by_hand(METRIC, GOLD, 2.0) == pytest.approx(0.4)
    assert 2 * get_statistic("acc23").value(METRIC, GOLD) - 1 == pytest.approx(0.2)


def test_mt_metrics_eval_kendall_with_ties_opt() -> None:
    # stats_test.py testKendallWithTiesOpt: 0.7 at sample_rate 1
    assert get_statistic("acc-eq").value(METRIC, GOLD) == pytest.approx(0.7)
    assert get_statistic("tau-eq").value(METRIC, GOLD) == pytest.approx(0.4)
    assert get_statistic("acc-eq").chosen(METRIC, GOLD) == {"epsilon": 0.5}


@pytest.mark.parametrize(
    ("human", "epsilon", "accuracy"),
    [([1, 2, 3, 4], 0.0, 1.0), ([1, 1, 1, 4], 4.0, 4 / 6)],
)
def test_mt_metrics_eval_tau_optimization(human: list, epsilon: float, accuracy: float) -> None:
    metric = np.array([0, 2, 6, 8.0])
    values, chosen = grouped_accuracy(metric, np.array(human, float), Groups.single(4), True)
    assert values[0, 0] == pytest.approx(accuracy) and chosen[0] == epsilon


def test_mt_metrics_eval_regression_example_over_groups_with_missing_values() -> None:
    # tau_optimization_test.py test_regression_example: best threshold 1, tau 0.49166...
    metric = [[0, 5, 2, 3, 2], [None, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1]]
    human = [[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, None, 3, 2]]
    cells = [
        (m, h, g)
        for g, (ms, hs) in enumerate(zip(metric, human, strict=True))
        for m, h in zip(ms, hs, strict=True)
    ]
    x = np.array([np.nan if m is None else m for m, _, _ in cells], dtype=float)
    y = np.array([np.nan if h is None else h for _, h, _ in cells], dtype=float)
    groups = [g for _, _, g in cells]
    result = correlate(x, y, statistic="acc-eq", groups=groups, resampling=Resampling(resamples=0))
    assert result.value == pytest.approx(0.4916666666666668)
    assert result.chosen == {"epsilon": 1.0} and result.n_dropped == 2 and result.n == 4


def test_calibration_equals_a_search_by_hand() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        y = rng.integers(1, 4, size=9).astype(float)
        x = np.round(rng.normal(size=9), 1)
        value, epsilon = best_by_hand(x, y)
        assert get_statistic("acc-eq").value(x, y) == pytest.approx(value)
        assert get_statistic("acc-eq").chosen(x, y)["epsilon"] == pytest.approx(epsilon)
        assert get_statistic("acc23").value(x, y) == pytest.approx(accuracy_by_hand(x, y, 0))


def test_item_resamples_equal_the_statistic_of_the_gathered_sample() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(1, 5, size=12).astype(float)
    X = np.round(rng.normal(size=(2, 12)), 1)
    indices = bootstrap_indices(12, 30, 4)
    W = counts_from_indices(indices, 12)
    for calibrate in (True, False):
        fast = resampled_accuracy(X, y, W, calibrate)
        for r, idx in enumerate(indices):
            for m in range(2):
                x, h = X[m, idx], y[idx]
                expected = best_by_hand(x, h)[0] if calibrate else accuracy_by_hand(x, h, 0)
                assert fast[m, r] == pytest.approx(expected)


def test_group_resamples_recalibrate_over_the_drawn_groups() -> None:
    rng = np.random.default_rng(2)
    labels = np.repeat(np.arange(6), 4)
    y = rng.integers(1, 4, size=24).astype(float)
    x = np.round(rng.normal(size=24), 1)
    drawn = bootstrap_indices(6, 25, 3)
    C = counts_from_indices(drawn, 6)
    fast = resampled_group_accuracy(x, y, Groups.of(labels), C, calibrate=True)[0]
    for r, groups in enumerate(drawn):
        candidates = sorted(
            {0.0} | {abs(a - b) for g in groups for a, b in combinations(x[labels == g], 2)}
        )
        per_epsilon = [
            np.mean([accuracy_by_hand(x[labels == g], y[labels == g], e) for g in groups])
            for e in candidates
        ]
        assert fast[r] == pytest.approx(max(per_epsilon))


def test_system_level_and_grouped_correlations_carry_the_epsilon() -> None:
    rng = np.random.default_rng(3)
    systems = np.repeat(np.array(list("abcdefgh")), 5)
    y = rng.normal(size=40)
    x = y + rng.normal(size=40)
    result = correlate(
        x,
        y,
        level="system",
        systems=systems,
        statistic="acc-eq",
        resampling=Resampling(resamples=50),
    )
    means_x = np.array([x[systems == s].mean() for s in "abcdefgh"])
    means_y = np.array([y[systems == s].mean() for s in "abcdefgh"])
    assert result.value == pytest.approx(best_by_hand(means_x, means_y)[0])
    assert result.p_method == "exact-permutation" and "epsilon" in result.chosen
    assert result.ci is not None and result.ci.low <= result.value <= result.ci.high


def test_perm_both_with_acc_eq_separates_a_good_metric_from_noise() -> None:
    rng = np.random.default_rng(4)
    labels = np.repeat(np.arange(40), 5)
    human = rng.integers(1, 6, size=200).astype(float)
    good = human + rng.normal(scale=0.5, size=200)
    noise = rng.normal(size=200)
    _, p, _ = perm_both(
        good, noise, human, statistic="acc-eq", groups=labels, resampling=Resampling(resamples=200)
    )
    assert p < 0.01


def test_one_huge_group_is_refused_with_the_way_out() -> None:
    n = int(np.ceil(np.sqrt(2 * MAX_PAIRS))) + 2
    with pytest.raises(ValueError, match="within contexts \\(grouped\\) or at system level"):
        get_statistic("acc-eq").value(np.arange(n, dtype=float), np.arange(n, dtype=float))


def test_groups_of_one_item_are_undefined_and_left_out() -> None:
    values, _ = grouped_accuracy(
        np.array([1.0, 2, 3]), np.array([1.0, 2, 5]), Groups.of([0, 0, 1]), True
    )
    assert values[0, 0] == 1.0 and np.isnan(values[0, 1])


def test_items_weighted_calibration_equals_a_weighted_search_by_hand() -> None:
    rng = np.random.default_rng(9)
    labels = np.repeat(np.arange(5), [2, 3, 6, 4, 5])
    y = rng.integers(1, 4, labels.size).astype(float)
    x = np.round(y + rng.normal(scale=0.8, size=labels.size), 1)
    sizes = np.bincount(labels).astype(float)
    candidates = sorted({0.0, *(abs(a - b) for a, b in combinations(x, 2))})

    def weighted(epsilon: float) -> float:
        accs = [accuracy_by_hand(x[labels == g], y[labels == g], epsilon) for g in range(5)]
        return float(np.dot(accs, sizes) / sizes.sum())

    expected = max(weighted(e) for e in candidates)
    statistic = get_statistic("acc-eq").with_averaging(Averaging(weighting="items"))
    assert statistic.rows(x, y, Groups.of(labels))[0] == pytest.approx(expected)
    result = correlate(
        x,
        y,
        statistic="acc-eq",
        groups=labels,
        resampling=Resampling(resamples=0, conventions=Conventions(statistic.averaging)),
    )
    assert result.value == pytest.approx(expected)
    assert "acc-eq-grouped~items-weighted" in result.signature


def test_a_reversed_metric_on_five_systems_gets_kendalls_two_sided_p() -> None:
    # 120 orderings: only the observed one (accuracy 0) and its reverse (accuracy 1) are as
    # extreme; twice the lower tail 1/120 is 1/60, Kendall tau-b's exact two-sided p
    human = np.array([1.0, 2, 3, 4, 5])
    reversed_ = human[::-1].copy()
    tau = sps.kendalltau(reversed_, human, method="exact").pvalue
    for name in ("acc-eq", "acc23", "tau-eq"):
        point = get_statistic(name).point(reversed_, human)
        assert point.p_value == pytest.approx(2 / 120) == pytest.approx(tau)
        assert point.p_method == "exact-permutation"
    assert get_statistic("acc-eq").point(human, human).p_value == pytest.approx(2 / 120)


def _scipy_exact_two_sided(x: np.ndarray, statistic) -> float:
    """scipy enumerates the n! pairings and doubles the smaller tail."""
    return sps.permutation_test(
        (x,),
        statistic,
        permutation_type="pairings",
        n_resamples=np.inf,
        alternative="two-sided",
        vectorized=False,
    ).pvalue


@pytest.mark.parametrize("n", [4, 6, 7])
def test_exact_p_values_of_pairwise_accuracy_equal_scipys_two_sided_test(n: int) -> None:
    rng = np.random.default_rng(n)
    y = rng.integers(1, 4, n).astype(float)  # ties among the humans
    x = np.round(y + rng.normal(scale=1.0, size=n), 0)  # and among the metric's scores
    cases = {
        "acc23": lambda a: accuracy_by_hand(a, y, 0.0),
        "acc-eq": lambda a: best_by_hand(a, y)[0],
        "tau-eq": lambda a: 2 * best_by_hand(a, y)[0] - 1,
    }
    for name, by_hand in cases.items():
        expected = _scipy_exact_two_sided(x, by_hand)
        assert get_statistic(name).point(x, y).p_value == pytest.approx(expected, abs=1e-12)
    # tau-eq is 2 acc-eq - 1: the same orderings are as extreme
    acc, tau = (get_statistic(s).point(x, y).p_value for s in ("acc-eq", "tau-eq"))
    assert acc == pytest.approx(tau)


@pytest.mark.parametrize("calibrate", [False, True])
def test_pairs_tied_by_the_metric_and_the_humans_count_right_in_resamples(
    calibrate: bool,
) -> None:
    """Items 1 and 2 are tied by both; a resample drawing item 3 twice pairs it with itself,
    tied by both as well: every one of the 15 pairs of each resample is right."""
    y = np.array([1.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    W = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 2, 1, 1, 0], [0, 2, 2, 1, 1, 0]])
    accuracy = resampled_accuracy(y[None, :], y, W, calibrate)
    np.testing.assert_array_equal(accuracy, [[1.0, 1.0, 1.0]])
