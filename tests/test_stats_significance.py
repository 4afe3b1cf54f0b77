"""Metric-vs-metric tests: PERM-BOTH, Williams, paired bootstrap, clusters."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps
from scipy_oracle import scipy_correlation

from comperbench.stats.averaging import MT_METRICS_EVAL
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.metric_tests.significance import (
    EarlyStopping,
    assign_ranks,
    paired_bootstrap,
    perm_both,
    permutation_test,
    significance_matrix,
    williams_test,
)
from comperbench.stats.resampling import bootstrap_indices, swap_masks
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups


def _data(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    good = human + rng.normal(size=n)
    weak = 0.3 * human + rng.normal(scale=2.0, size=n) + 10
    return human, good, weak


def _z(v: np.ndarray) -> np.ndarray:
    return (v - v.mean()) / v.std()


def _close(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Human scores and two metrics of similar quality, so permutations reach the observed delta."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    return human, human + rng.normal(scale=1.6, size=n), human + rng.normal(scale=1.8, size=n)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b", "kendall-c"])
@pytest.mark.parametrize("order", ["ab", "ba"])
def test_perm_both_equals_a_loop_with_the_same_swaps(method: str, order: str) -> None:
    human, a, b = _close()
    if order == "ba":
        a, b = b, a
    delta, p, _ = perm_both(
        a,
        b,
        human,
        statistic=method,
        resampling=Resampling(resamples=200, seed=3),
    )
    f = scipy_correlation(method)
    za, zb = _z(a), _z(b)
    expected_delta = f(a, human) - f(b, human)
    count = 0
    for swap in swap_masks(human.size, 200, 3):
        ra, rb = f(np.where(swap, zb, za), human), f(np.where(swap, za, zb), human)
        count += ra - rb >= expected_delta - 1e-12
    # the data must not decide the p-value alone: some but not all permutations reach delta
    assert 20 < count < 180
    assert delta == pytest.approx(expected_delta)
    assert p == pytest.approx((count + 1) / 201)


@pytest.mark.parametrize("method", ["pearson", "kendall-b"])
def test_grouped_perm_both_equals_a_loop(method: str) -> None:
    human, a, b = _close(48, seed=0)
    groups = np.repeat(np.arange(12), 4)
    delta, p, _ = perm_both(
        a,
        b,
        human,
        statistic=method,
        groups=groups,
        resampling=Resampling(resamples=100, seed=1),
    )
    f = scipy_correlation(method)

    def grouped(m: np.ndarray) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.nanmean([f(m[groups == g], human[groups == g]) for g in range(12)])

    za, zb = _z(a), _z(b)
    expected_delta = grouped(a) - grouped(b)
    count = sum(
        grouped(np.where(s, zb, za)) - grouped(np.where(s, za, zb)) >= expected_delta - 1e-12
        for s in swap_masks(human.size, 100, 1)
    )
    assert 10 < count < 90
    assert delta == pytest.approx(expected_delta)
    assert p == pytest.approx((count + 1) / 101)


def test_perm_both_separates_a_good_metric_from_a_weak_one() -> None:
    human, good, weak = _data(300)
    assert perm_both(good, weak, human, resampling=Resampling(resamples=500))[1] < 0.01
    assert perm_both(weak, good, human, resampling=Resampling(resamples=500))[1] > 0.99


def test_williams_hand_computed() -> None:
    # det = 1 - .25 - .09 - .16 + 2(.5)(.3)(.4) = .62; t = .2 sqrt(29 * 1.4) / sqrt(2(.62)(29/27) + .4^2 (.6)^3)
    t = 0.2 * np.sqrt(29 * 1.4) / np.sqrt(2 * 0.62 * 29 / 27 + 0.16 * 0.216)
    assert t == pytest.approx(1.09019, abs=1e-5)
    assert williams_test(0.5, 0.3, 0.4, 30) == pytest.approx(sps.t.sf(t, 27))
    assert williams_test(0.5, 0.3, 0.4, 30) + williams_test(0.3, 0.5, 0.4, 30) == pytest.approx(1)
    assert williams_test(0.5, 0.3, 0.4, 30, one_sided=False) == pytest.approx(2 * sps.t.sf(t, 27))


def test_paired_bootstrap_equals_a_loop() -> None:
    human, a, b = _data(50, seed=5)
    delta, p, (low, high) = paired_bootstrap(
        a,
        b,
        human,
        statistic="spearman",
        resampling=Resampling(resamples=300, seed=9),
    )
    f = scipy_correlation("spearman")
    observed = f(a, human) - f(b, human)
    deltas = np.array(
        [f(a[i], human[i]) - f(b[i], human[i]) for i in bootstrap_indices(50, 300, 9)]
    )
    assert delta == pytest.approx(observed)
    assert p == pytest.approx((np.sum(deltas - observed >= observed - 1e-12) + 1) / 301)
    assert (low, high) == pytest.approx(tuple(np.quantile(deltas, [0.025, 0.975])))


def test_assign_ranks_like_mtme() -> None:
    # a ~ b, a > c, b ~ c, c > d: clusters {a, b}, {c}, {d}
    p = np.array(
        [
            [np.nan, 0.30, 0.01, 0.001],
            [0.70, np.nan, 0.20, 0.01],
            [0.99, 0.80, np.nan, 0.02],
            [0.999, 0.99, 0.98, np.nan],
        ]
    )
    assert assign_ranks(p, 0.05) == [1, 1, 2, 3]
    # p <= alpha is significant, as in MTME's AssignRanks
    assert assign_ranks(p, 0.001) == [1, 1, 1, 2]
    assert assign_ranks(p, 0.0009) == [1, 1, 1, 1]


@pytest.mark.parametrize("test", ["perm-both", "paired-bootstrap", "williams"])
def test_matrix_sorts_tests_and_clusters(test: str) -> None:
    human, good, weak = _data(200, seed=4)
    rng = np.random.default_rng(8)
    scores = {"weak": weak, "good": good, "good2": human + rng.normal(size=200)}
    scores["weak"][0] = np.nan
    result = significance_matrix(
        scores,
        human,
        test=test,
        resampling=Resampling(resamples=300, seed=2),
    )  # type: ignore[arg-type]
    assert set(result.metrics[:2]) == {"good", "good2"} and result.metrics[2] == "weak"
    assert result.clusters()[-1] == ["weak"] and len(result.clusters()) == 2
    assert result.n == 199 and result.n_dropped == 1
    assert np.isnan(np.diag(result.p_values)).all()
    assert result.signature.startswith(f"stat:{test}:pearson|level:turn")


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_matrix_pairs_equal_single_tests(method: str) -> None:
    """The all-pairs Pearson product and the per-pair kernels give the same p-values."""
    human, good, weak = _data(80, seed=6)
    rng = np.random.default_rng(1)
    scores = {"g": good, "w": weak, "n": human + 2 * rng.normal(size=80)}
    result = significance_matrix(
        scores,
        human,
        statistic=method,
        resampling=Resampling(resamples=200, seed=4),
    )  # type: ignore[arg-type]
    for i, a in enumerate(result.metrics):
        for j, b in enumerate(result.metrics):
            if i != j:
                single = perm_both(
                    scores[a],
                    scores[b],
                    human,
                    statistic=method,
                    resampling=Resampling(resamples=200, seed=4),
                )  # type: ignore[arg-type]
                assert result.p_values[i, j] == pytest.approx(single[1])


def test_system_level_matrix_uses_system_means() -> None:
    rng = np.random.default_rng(0)
    systems = np.repeat(list("abcdefgh"), 10)
    human = np.repeat(np.arange(8.0), 10) + rng.normal(size=80)
    result = significance_matrix(
        {"m1": human + rng.normal(size=80), "m2": rng.normal(size=80)},
        human,
        level="system",
        systems=systems,
        resampling=Resampling(resamples=200),
    )
    assert result.n == 8 and result.metrics[0] == "m1"


def test_williams_rejects_other_methods() -> None:
    human, good, weak = _data()
    with pytest.raises(ValueError, match="Pearson correlations only"):
        significance_matrix({"a": good, "b": weak}, human, test="williams", statistic="spearman")


def test_undefined_metrics_are_left_out_of_the_clusters() -> None:
    human, good, weak = _data(80, seed=3)
    scores = {"constant": np.full(80, 2.0), "good": good, "weak": weak}
    result = significance_matrix(
        scores,
        human,
        resampling=Resampling(resamples=200, seed=1),
    )
    assert result.metrics == ["good", "weak"]
    assert result.undefined == {"constant": "metric scores are constant"}
    assert result.p_values.shape == (2, 2)
    assert all("constant" not in cluster for cluster in result.clusters())
    assert result.clusters()[0] == ["good"]
    grouped = significance_matrix(
        scores,
        human,
        groups=np.repeat(np.arange(16), 5),
        resampling=Resampling(resamples=100, seed=1),
    )
    assert grouped.undefined == {"constant": "the correlation is undefined in every group"}
    assert grouped.metrics == ["good", "weak"]


def test_matrix_is_scale_invariant() -> None:
    human, good, weak = _data(80, seed=3)
    big = significance_matrix(
        {"good": good, "weak": weak},
        human,
        resampling=Resampling(resamples=200, seed=1),
    )
    tiny = significance_matrix(
        {"good": good * 1e-8, "weak": weak * 1e-8},
        human,
        resampling=Resampling(resamples=200, seed=1),
    )
    assert tiny.metrics == big.metrics
    assert np.isfinite(tiny.p_values[~np.eye(2, dtype=bool)]).all()
    np.testing.assert_allclose(tiny.p_values, big.p_values, equal_nan=True)
    np.testing.assert_allclose(tiny.values, big.values, atol=1e-12)


@pytest.mark.parametrize("method", ["acc-eq", "tau-eq", "kendall-like"])
def test_pairwise_permutation_equals_swapping_verdicts_by_hand(method: str) -> None:
    human, a, b = _close(40, seed=6)
    groups = np.repeat(np.arange(8), 5)
    result = permutation_test(
        a,
        b,
        human,
        statistic=method,
        groups=groups,
        resampling=Resampling(resamples=50, seed=2),
    )
    statistic, layout = get_statistic(method), Groups.of(groups)
    va, share = statistic.pair_verdicts(a, human, layout)
    vb, _ = statistic.pair_verdicts(b, human, layout)
    assert result.delta == pytest.approx(
        statistic.rows(a, human, layout)[0] - statistic.rows(b, human, layout)[0]
    )
    swapped = np.random.default_rng(2).random((50, va.size)) < 0.5
    null = [share @ np.where(s, vb, va) - share @ np.where(s, va, vb) for s in swapped]
    expected = (np.sum(np.array(null) >= result.delta - 1e-12) + 1) / 51
    assert result.p_value == pytest.approx(expected)


def test_pairwise_permutation_is_refused_for_correlations() -> None:
    human, a, b = _close()
    with pytest.raises(ValueError, match="swaps pair verdicts; pearson has none"):
        significance_matrix({"a": a, "b": b}, human, test="pairwise-permutation")


def test_early_stopping_is_the_full_run_cut_at_the_first_clear_block() -> None:
    human, a, b = _close(60, seed=1)
    full = perm_both(
        a,
        b,
        human,
        resampling=Resampling(resamples=1000, seed=5),
    )
    early = EarlyStopping(block_size=100, below=0.02, above=0.3)
    stopped = perm_both(
        a, b, human, resampling=Resampling(resamples=1000, seed=5), early_stopping=early
    )
    swaps = swap_masks(60, 1000, 5)
    za, zb = _z(a), _z(b)
    null = np.array(
        [
            sps.pearsonr(np.where(s, zb, za), human)[0]
            - sps.pearsonr(np.where(s, za, zb), human)[0]
            for s in swaps
        ]
    )
    for used in range(100, 1001, 100):
        p = (np.sum(null[:used] >= full.delta - 1e-12) + 1) / (used + 1)
        if not 0.02 <= p <= 0.3:
            break
    assert stopped.n_resamples == used and stopped.p_value == pytest.approx(p)
    assert full.n_resamples == 1000


def test_matrix_reports_the_permutations_each_pair_used() -> None:
    human, good, weak = _data(80)
    early = EarlyStopping(block_size=50)
    result = significance_matrix(
        {"good": good, "weak": weak},
        human,
        resampling=Resampling(resamples=1000),
        early_stopping=early,
    )
    assert result.resamples_used[0, 1] == 50  # p far below 0.02 after the first block
    assert "early-stop:50:0.02-0.5" in result.signature
    with pytest.raises(ValueError, match="early stopping applies to permutation tests"):
        significance_matrix({"g": good, "w": weak}, human, test="williams", early_stopping=early)


def test_p_values_as_a_plain_fraction_under_mt_metrics_eval_conventions() -> None:
    human, good, weak = _data(60)
    ours = perm_both(
        good,
        weak,
        human,
        resampling=Resampling(resamples=200, seed=1),
    )
    theirs = perm_both(
        good,
        weak,
        human,
        resampling=Resampling(resamples=200, seed=1, conventions=MT_METRICS_EVAL),
    )
    b = round(ours.p_value * 201) - 1
    assert theirs.p_value == pytest.approx(b / 200)
    assert ours.p_value > 0 and theirs.p_value == 0.0


def test_perm_both_on_five_items_enumerates_the_32_swap_patterns() -> None:
    human = np.array([1.0, 3, 2, 5, 4])
    a, b = np.array([1.0, 2, 3, 4, 5]), np.array([2.0, 1, 3, 5, 4])
    za, zb = ((v - v.mean()) / v.std() for v in (a, b))
    delta = sps.pearsonr(za, human).statistic - sps.pearsonr(zb, human).statistic
    null = []
    for code in range(32):
        swap = np.array([code >> bit & 1 for bit in range(5)], dtype=bool)
        first, second = np.where(swap, zb, za), np.where(swap, za, zb)
        null.append(sps.pearsonr(first, human).statistic - sps.pearsonr(second, human).statistic)
    expected = np.mean(np.array(null) >= delta - 1e-12)  # b / k: the observed pattern counts
    result = perm_both(a, b, human, resampling=Resampling(resamples=1000))
    assert result.n_resamples == 32 and result.p_value == pytest.approx(expected)
    matrix = significance_matrix({"a": a, "b": b}, human, resampling=Resampling(resamples=1000))
    i, j = matrix.metrics.index("a"), matrix.metrics.index("b")
    assert matrix.p_values[i, j] == pytest.approx(expected)
    assert matrix.resamples_used[i, j] == matrix.resamples_used[j, i] == 32
    # fewer permutations asked than patterns: drawn, (b + 1) / (k + 1)
    assert perm_both(a, b, human, resampling=Resampling(resamples=31)).n_resamples == 31


def test_the_pairwise_permutation_test_enumerates_the_patterns_of_four_items() -> None:
    # 6 item pairs: 64 patterns of swapped verdicts
    human = np.array([1.0, 2, 2, 4])
    a, b = np.array([1.0, 2, 3, 4]), np.array([4.0, 2, 3, 1])
    statistic = get_statistic("acc23")
    va, share = statistic.pair_verdicts(a, human, Groups.single(4))
    vb, _ = statistic.pair_verdicts(b, human, Groups.single(4))
    d = (va - vb) * share
    null = [d @ np.where([code >> bit & 1 for bit in range(6)], -1.0, 1.0) for code in range(64)]
    expected = np.mean(np.array(null) >= d.sum() - 1e-12)
    result = permutation_test(a, b, human, statistic="acc23", resampling=Resampling(resamples=1000))
    assert result.n_resamples == 64 and result.p_value == pytest.approx(expected)
