"""The keywords before `Resampling` (n_resamples, seed, ci, conventions, averaging) and
`method=` keep working for one release: a DeprecationWarning, and the very same numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from comperbench.common.errors import ComperbenchError
from comperbench.stats import (
    MT_METRICS_EVAL,
    AnnotatorScores,
    Averaging,
    Conventions,
    Resampling,
    agreement,
    annotator_ceiling,
    correlate,
    correlation_table,
    paired_bootstrap,
    perm_both,
    permutation_test,
    point_correlation,
    significance_matrix,
    soft_pairwise_accuracy,
)
from comperbench.stats.metric_correlation.correlation import correlation_tables
from comperbench.stats.metric_tests.verdicts import metric_verdicts
from comperbench.stats.settings import folded

RNG = np.random.default_rng(11)
HUMAN = RNG.normal(size=30)
A = HUMAN + RNG.normal(size=30)
B = HUMAN + 2 * RNG.normal(size=30)
GROUPS = np.arange(30) // 3


def _old(function, *args, **kwargs):
    with pytest.warns(DeprecationWarning, match=rf"{function.__name__}\(.*\) is deprecated"):
        return function(*args, **kwargs)


def test_old_keywords_fold_into_one_resampling() -> None:
    base = Resampling()
    assert folded(base, {"n_resamples": 7, "seed": 3, "ci": "bca"}) == Resampling(7, 3, "bca")
    assert folded(base, {"n_resamples": 7, "ci": None}).resamples == 0
    assert folded(base, {"conventions": "mt-metrics-eval"}).conventions == MT_METRICS_EVAL
    two = Averaging(groups_of_two=True)
    assert folded(base, {"averaging": two}).conventions == Conventions(two)
    assert folded(base, {"averaging": None}) == base


def test_correlations_with_old_keywords_are_the_same_numbers() -> None:
    new = correlate(
        A, HUMAN, statistic="spearman", resampling=Resampling(60, 4, "bca"), groups=GROUPS
    )
    old = _old(
        correlate, A, HUMAN, method="spearman", n_resamples=60, seed=4, ci="bca", groups=GROUPS
    )
    assert old == new
    none = _old(correlation_table, {"a": A}, HUMAN, ci=None)[0]
    assert (
        none.ci is None and none == correlation_table({"a": A}, HUMAN, resampling=Resampling(0))[0]
    )
    two = Averaging(groups_of_two=True)
    grouped = _old(correlate, A, HUMAN, groups=GROUPS % 13, averaging=two, n_resamples=20)
    expected = correlate(
        A, HUMAN, groups=GROUPS % 13, resampling=Resampling(20, conventions=Conventions(two))
    )
    assert grouped == expected and "groups-of-2" in grouped.signature
    tables = _old(correlation_tables, {"a": A}, HUMAN, methods=["pearson"], n_resamples=20)
    assert tables == [correlation_table({"a": A}, HUMAN, resampling=Resampling(20))]
    point = _old(point_correlation, A, HUMAN, method="kendall-b")
    assert point == point_correlation(A, HUMAN, "kendall-b")


def test_tests_between_metrics_with_old_keywords_are_the_same_numbers() -> None:
    mt = Resampling(200, 5, conventions=MT_METRICS_EVAL)
    old = _old(perm_both, A, B, HUMAN, method="spearman", n_resamples=200, seed=5,
               conventions=MT_METRICS_EVAL)  # fmt: skip
    assert old == perm_both(A, B, HUMAN, statistic="spearman", resampling=mt)
    old = _old(permutation_test, A, B, HUMAN, method="acc23", n_resamples=200, seed=5)
    assert old == permutation_test(A, B, HUMAN, statistic="acc23", resampling=Resampling(200, 5))
    old = _old(paired_bootstrap, A, B, HUMAN, n_resamples=200, seed=5)
    assert old == paired_bootstrap(A, B, HUMAN, resampling=Resampling(200, 5))
    scores = {"a": A, "b": B}
    old_matrix = _old(
        significance_matrix, scores, HUMAN, n_resamples=100, conventions="mt-metrics-eval"
    )
    new_matrix = significance_matrix(
        scores, HUMAN, resampling=Resampling(100, conventions="mt-metrics-eval")
    )
    np.testing.assert_array_equal(old_matrix.p_values, new_matrix.p_values)
    assert old_matrix.signature == new_matrix.signature
    verdicts = _old(metric_verdicts, scores, HUMAN, method="spearman", seed=2, permutations=50)
    expected = metric_verdicts(
        scores, HUMAN, statistic="spearman", resampling=Resampling(seed=2), permutations=50
    )
    np.testing.assert_array_equal(verdicts.adjusted, expected.adjusted)


def test_agreement_ceiling_and_soft_pairwise_accuracy_with_old_keywords() -> None:
    matrix = np.round(HUMAN[:12, None] + RNG.normal(size=(12, 3)))
    ratings = pd.DataFrame(
        [
            {"item_id": f"i{i}", "aspect": "q", "annotator": f"r{r}", "value": v}
            for i, row in enumerate(matrix)
            for r, v in enumerate(row)
        ]
    )
    old = _old(agreement, ratings, "q", ("fleiss",), n_resamples=40, seed=1, ci="bca")
    assert old == agreement(ratings, "q", ("fleiss",), resampling=Resampling(40, 1, "bca"))
    scores = AnnotatorScores.of(ratings, "q", [f"i{i}" for i in range(12)])
    old_ceiling = _old(annotator_ceiling, scores, n_resamples=30, seed=2)
    assert old_ceiling == annotator_ceiling(scores, resampling=Resampling(30, 2))
    metric, human = RNG.normal(size=(4, 6)), RNG.normal(size=(4, 6))
    old_spa = _old(soft_pairwise_accuracy, metric, human, n_resamples=20, seed=3)
    new_spa = soft_pairwise_accuracy(metric, human, resampling=Resampling(20, 3))
    assert (old_spa.value, old_spa.ci, old_spa.signature) == (
        new_spa.value,
        new_spa.ci,
        new_spa.signature,
    )


def test_an_unknown_keyword_is_refused_in_one_line() -> None:
    with pytest.raises(ComperbenchError, match=r"correlate\(\) takes no keyword resample="):
        correlate(A, HUMAN, resample=3)
    with pytest.raises(ComperbenchError, match="got both method= and statistic="):
        correlate(A, HUMAN, method="pearson", statistic="pearson")
