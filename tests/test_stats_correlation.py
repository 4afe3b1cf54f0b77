"""Correlations: hand-computed values, scipy, and the vectorised bootstrap against a plain loop."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from scipy_oracle import scipy_correlation

from comperbench.common.errors import UnknownNameError
from comperbench.stats.metric_correlation.correlation import (
    correlate,
    correlation_table,
    correlation_tables,
    point_correlation,
)
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.resampling import (
    bca_interval,
    bootstrap_indices,
    counts_from_indices,
    percentile_interval,
    swap_masks,
)
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups

X = np.array([1.0, 2, 3, 4, 5])
Y = np.array([2.0, 4, 5, 4, 5])


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("pearson", 6 / np.sqrt(60)),  # centred cross-product 6, sums of squares 10 and 6
        ("spearman", 7 / np.sqrt(90)),  # y ranks 1, 2.5, 4.5, 2.5, 4.5
        ("kendall-b", 6 / np.sqrt(80)),  # 7 concordant, 1 discordant, 2 pairs tied in y
        ("kendall-c", 12 / (25 * 2 / 3)),  # 2(C-D) / (n^2 (m-1)/m), m = 3 distinct y values
    ],
)
def test_hand_computed_values(method: str, expected: float) -> None:
    point = point_correlation(X, Y, method)
    assert point.value == pytest.approx(expected, abs=1e-12)
    assert point.reason is None and 0 < point.p_value < 1


def test_p_values_are_scipy_values_above_eight_pairs() -> None:
    x, y = np.r_[X, X + 5], np.r_[Y, Y]
    assert point_correlation(x, y, "pearson").p_value == pytest.approx(sps.pearsonr(x, y).pvalue)
    assert point_correlation(x, y, "kendall-c").p_value == pytest.approx(
        sps.kendalltau(x, y, variant="c").pvalue
    )


@pytest.mark.parametrize(
    ("x", "y", "reason"),
    [
        ([1.0, 1, 1, 1], [1.0, 2, 3, 4], "metric scores are constant"),
        ([1.0, 2, 3, 4], [3.0, 3, 3, 3], "human scores are constant"),
        ([1.0, 2], [1.0, 2], "only 2 items; a correlation needs at least 3"),
    ],
)
def test_undefined_correlations_are_nan_with_reason(x: list, y: list, reason: str) -> None:
    result = correlate(x, y, resampling=Resampling(resamples=20))
    assert np.isnan(result.value) and np.isnan(result.p_value)
    assert reason in (result.reason or "")
    assert result.ci is None


def test_missing_scores_are_dropped_pairwise_and_counted() -> None:
    metric = np.array([1.0, 2, 3, np.nan, 5, 6])
    human = np.array([2.0, np.nan, 5, 4, 5, 7])
    result = correlate(metric, human, resampling=Resampling(resamples=50))
    keep = [0, 2, 4, 5]
    assert result.n == 4 and result.n_dropped == 2
    assert result.value == pytest.approx(sps.pearsonr(metric[keep], human[keep]).statistic)


def test_system_level_correlates_system_means() -> None:
    systems = np.array(["a", "a", "b", "b", "c", "c", "d"])
    metric = np.array([1.0, 3, 2, 2, 5, 7, 0])
    human = np.array([1.0, 2, 4, np.nan, 3, 5, 1])
    result = correlate(
        metric, human, level="system", systems=systems, resampling=Resampling(resamples=50)
    )
    # means over items with both scores: a (2, 1.5), b (2, 4), c (6, 4), d (0, 1)
    expected = sps.pearsonr([2, 2, 6, 0], [1.5, 4, 4, 1]).statistic
    assert result.value == pytest.approx(expected) and result.n == 4


def test_grouped_is_the_mean_of_defined_within_group_correlations() -> None:
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(6), 5)
    human = rng.integers(1, 4, groups.size).astype(float)
    human[groups == 2] = 2.0  # constant group: undefined, left out of the mean
    metric = human + rng.normal(size=groups.size)
    for method in ("pearson", "spearman", "kendall-b", "kendall-c"):
        result = correlate(
            metric, human, groups=groups, statistic=method, resampling=Resampling(resamples=50)
        )
        f = scipy_correlation(method)
        per_group = [f(metric[groups == g], human[groups == g]) for g in range(6) if g != 2]
        assert result.value == pytest.approx(np.mean(per_group))
        assert result.n == 5 and result.grouped


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b", "kendall-c"])
def test_groups_of_fewer_than_three_items_are_left_out(method: str) -> None:
    """A 2-item group correlates at +-1 whatever its scores; it is undefined, not averaged in."""
    sizes = [5, 2, 6, 2, 4, 2, 1]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(7)
    human = rng.normal(size=groups.size)
    metric = human + rng.normal(scale=1.5, size=groups.size)
    small = np.isin(groups, [g for g, size in enumerate(sizes) if size < 3])
    metric[small] = human[small]  # the small groups would all add +1
    big = [g for g, size in enumerate(sizes) if size >= 3]
    f = scipy_correlation(method)
    expected = np.mean([f(metric[groups == g], human[groups == g]) for g in big])
    result = correlate(
        metric, human, groups=groups, statistic=method, resampling=Resampling(resamples=50)
    )
    assert result.value == pytest.approx(expected) and result.n == len(big)
    statistic, layout = get_statistic(method), Groups.of(groups)
    per_group = statistic.grouped(metric, human, layout)[0]
    assert np.isnan(per_group[[g for g in range(len(sizes)) if g not in big]]).all()
    rows = np.where(swap_masks(groups.size, 20, seed=2), metric, -human)
    loop = [np.mean([f(r[groups == g], human[groups == g]) for g in big]) for r in rows]
    np.testing.assert_allclose(statistic.rows(rows, human, layout), loop, atol=1e-12)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b", "kendall-c"])
@pytest.mark.parametrize("n", [30, 150])
def test_bootstrap_equals_a_loop_over_scipy(method: str, n: int) -> None:
    """Same seed => same index matrix => the vectorised values equal scipy on each resample."""
    rng = np.random.default_rng(n)
    human = rng.integers(1, 6, n).astype(float)
    metrics = np.vstack([human + rng.normal(size=n), rng.integers(0, 4, n).astype(float)])
    idx = bootstrap_indices(n, 40, seed=7)
    fast = get_statistic(method).resampled(metrics, human, counts_from_indices(idx, n))
    f = scipy_correlation(method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = np.array([[f(m[i], human[i]) for i in idx] for m in metrics])
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b", "kendall-c"])
@pytest.mark.parametrize("grouped", [False, True])
def test_permuted_rows_equal_a_loop_over_scipy(method: str, grouped: bool) -> None:
    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(10), 4)
    human = rng.integers(1, 4, groups.size).astype(float)
    a, b = human + rng.normal(size=groups.size), rng.integers(0, 3, groups.size).astype(float)
    rows = np.where(swap_masks(groups.size, 25, seed=5), a, b)
    fast = get_statistic(method).rows(rows, human, Groups.of(groups) if grouped else None)
    f = scipy_correlation(method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if grouped:
            slow = [
                np.nanmean([f(r[groups == g], human[groups == g]) for g in range(10)]) for r in rows
            ]
        else:
            slow = [f(r, human) for r in rows]
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


def test_same_seed_same_interval_and_signature() -> None:
    rng = np.random.default_rng(0)
    human = rng.normal(size=80)
    metric = human + rng.normal(size=80)
    one = correlate(
        metric, human, resampling=Resampling(resamples=200, seed=5), benchmark="toy@abc"
    )
    two = correlate(
        metric, human, resampling=Resampling(resamples=200, seed=5), benchmark="toy@abc"
    )
    other = correlate(
        metric,
        human,
        resampling=Resampling(resamples=200, seed=6),
    )
    assert one.ci == two.ci and one.ci != other.ci
    assert one.signature.startswith("stat:pearson|level:turn|resample:bootstrap-percentile|n:200")
    assert "seed:5" in one.signature and "bench:toy@abc" in one.signature


def test_percentile_interval_is_the_quantiles() -> None:
    boot = np.r_[np.arange(1.0, 101.0), np.nan]
    interval = percentile_interval(boot, 0.9)
    assert interval.low == pytest.approx(5.95) and interval.high == pytest.approx(95.05)
    assert interval.n_valid == 100


def test_bca_without_bias_or_skew_is_the_percentile_interval() -> None:
    boot = np.linspace(-1, 1, 2001)
    jack = np.linspace(-1, 1, 50)  # symmetric: acceleration 0
    bca = bca_interval(0.0, boot, jack, 0.95)
    pct = percentile_interval(boot, 0.95)
    assert bca.low == pytest.approx(pct.low, abs=1e-3) and bca.high == pytest.approx(
        pct.high, abs=1e-3
    )


def test_bca_agrees_with_scipy_bootstrap() -> None:
    rng = np.random.default_rng(1)
    human = rng.normal(size=200)
    metric = 0.5 * human + rng.normal(size=200) ** 2
    ours = correlate(
        metric,
        human,
        resampling=Resampling(resamples=4000, seed=2, ci="bca"),
    ).ci
    ref = sps.bootstrap(
        (metric, human),
        lambda a, b: sps.pearsonr(a, b).statistic,
        paired=True,
        vectorized=False,
        method="BCa",
        n_resamples=4000,
        rng=np.random.default_rng(3),
    ).confidence_interval
    assert ours is not None
    assert ours.low == pytest.approx(ref.low, abs=0.03)
    assert ours.high == pytest.approx(ref.high, abs=0.03)


def test_table_shares_inputs_and_keeps_metric_order() -> None:
    rng = np.random.default_rng(4)
    human = rng.normal(size=50)
    scores = {"b": human + rng.normal(size=50), "a": rng.normal(size=50)}
    scores["a"][3] = np.nan
    table = correlation_table(
        scores, human, statistic="spearman", resampling=Resampling(resamples=100)
    )
    assert [r.metric for r in table] == ["b", "a"]
    assert table[1].n == 49 and table[0].n == 50
    single = correlate(
        scores["b"], human, statistic="spearman", resampling=Resampling(resamples=100), metric="b"
    )
    assert table[0] == single


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(UnknownNameError, match="unknown correlation statistic 'cosine'"):
        correlate(X, Y, statistic="cosine")
    with pytest.raises(ValueError, match="needs the system"):
        correlate(X, Y, level="system")
    with pytest.raises(ValueError, match="4 human scores for 5"):
        correlate(X, Y[:4])


def test_missing_scores_share_the_index_matrix_and_drop_within_each_resample() -> None:
    rng = np.random.default_rng(9)
    human = rng.normal(size=60)
    metric = human + rng.normal(size=60)
    metric[[3, 17, 40]] = np.nan
    human[5] = np.nan
    result = correlate(
        metric,
        human,
        resampling=Resampling(resamples=200, seed=4),
    )
    boot = []
    for idx in bootstrap_indices(60, 200, 4):
        x, y = metric[idx], human[idx]
        keep = np.isfinite(x) & np.isfinite(y)
        boot.append(sps.pearsonr(x[keep], y[keep]).statistic)
    assert result.ci is not None
    assert (result.ci.low, result.ci.high) == pytest.approx(
        tuple(np.quantile(boot, [0.025, 0.975]))
    )


@pytest.mark.parametrize("grouped", [False, True])
def test_pearson_does_not_depend_on_the_scale_of_the_scores(grouped: bool) -> None:
    rng = np.random.default_rng(1)
    human = rng.normal(size=60)
    metric = human + rng.normal(size=60)
    kw = {"groups": np.repeat(np.arange(10), 6)} if grouped else {}
    big = correlate(metric, human, resampling=Resampling(resamples=200), **kw)
    tiny = correlate(metric * 1e-8, human, resampling=Resampling(resamples=200), **kw)
    assert np.isfinite(big.value)
    assert tiny.value == pytest.approx(big.value, abs=1e-12)
    assert tiny.ci is not None and big.ci is not None and tiny.ci.n_valid == big.ci.n_valid == 200
    assert (tiny.ci.low, tiny.ci.high) == pytest.approx((big.ci.low, big.ci.high), abs=1e-12)
    if not grouped:
        assert big.value == pytest.approx(sps.pearsonr(metric, human).statistic, abs=1e-12)


def test_constant_scores_stay_undefined_at_any_scale() -> None:
    y = np.arange(8.0)
    for scale in (1e-8, 1.0, 1e8):
        W = np.ones((1, 8))
        pearson = get_statistic("pearson")
        assert np.isnan(pearson.resampled(np.full((1, 8), 3.0 * scale), y, W)[0, 0])
    # constant within each group, not overall
    x = np.repeat([1.0, 2.0], 4) * 1e-8
    assert np.isnan(get_statistic("pearson").rows(x[None, :], y, Groups.of(np.repeat([0, 1], 4))))


@pytest.mark.parametrize("method", ["kendall-b", "kendall-c"])
def test_grouped_kendall_over_more_pairs_than_the_loop_threshold(method: str) -> None:
    from comperbench.stats.vectorised import MAX_PAIRS

    groups = np.repeat(np.arange(900), 4)  # 5,400 within-group pairs
    assert MAX_PAIRS < 900 * 6
    rng = np.random.default_rng(8)
    human = rng.integers(1, 4, groups.size).astype(float)
    metric = human + rng.normal(size=groups.size)
    result = correlate(
        metric, human, groups=groups, statistic=method, resampling=Resampling(resamples=20)
    )
    f = scipy_correlation(method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_group = [f(metric[groups == g], human[groups == g]) for g in range(900)]
    assert result.value == pytest.approx(np.nanmean(per_group))


def _near_zero_with_one_large_item(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Unsmoothed BLEU-4 of short responses: half the scores 0, the others about 1e-232, one
    1e-78 (grade-empathetic's nltk-bleu-4)."""
    rng = np.random.default_rng(5)
    human = rng.integers(1, 6, n).astype(float)
    metric = rng.uniform(0, 1e-232, n) * (human.max() - human + 1) * (rng.random(n) < 0.5)
    metric[7] = 3e-78
    return metric, human


def test_resampled_pearson_is_scipys_on_every_resample_with_near_zero_scores() -> None:
    """Resamples without the large item vary by 1e-232 around a mean the full sample puts near
    1e-80: one-pass sums centred at the full sample's mean keep none of those digits."""
    metric, human = _near_zero_with_one_large_item()
    indices = bootstrap_indices(metric.size, 300, 0)
    ours = get_statistic("pearson").resampled(
        metric[None, :], human, counts_from_indices(indices, 300)
    )
    theirs = [sps.pearsonr(metric[i], human[i]).statistic for i in indices]
    assert np.isfinite(ours).all()
    assert ours[0] == pytest.approx(theirs, abs=1e-9)
    assert (indices == 7).any(axis=1).mean() < 0.9  # many resamples lack the large item


def test_an_interval_over_near_zero_scores_uses_every_resample() -> None:
    metric, human = _near_zero_with_one_large_item()
    result = correlate(metric, human, resampling=Resampling(resamples=400))
    assert result.ci is not None and (result.ci.n_valid, result.ci.n_resamples) == (400, 400)
    assert result.ci_note is None


def test_a_resample_is_constant_only_when_its_drawn_values_are_equal() -> None:
    # x takes one value on items 0-3: a resample drawing only from them is constant, at any
    # scale; scipy's pearsonr is NaN exactly there
    x = np.array([2.0, 2, 2, 2, 5, 7])
    y = np.array([1.0, 3, 2, 5, 4, 6])
    indices = np.array([[0, 1, 2, 3, 3, 0], [0, 1, 2, 3, 4, 0], [5, 5, 5, 5, 5, 5]])
    W = counts_from_indices(indices, 6)
    for scale in (1e-30, 1.0, 1e30):
        ours = get_statistic("pearson").resampled(x[None, :] * scale, y, W)[0]
        assert np.isnan(ours[0]) and np.isnan(ours[2])
        assert ours[1] == pytest.approx(sps.pearsonr(x[indices[1]], y[indices[1]]).statistic)


def test_grouped_pearson_centres_each_group_at_its_own_mean() -> None:
    # group 1 varies by 1e-9 around 0.1 while the other groups' scores are about 100
    labels = np.repeat([0, 1, 2], 4)
    y = np.array([1.0, 2, 3, 4, 2, 1, 4, 3, 1, 1, 2, 2])
    x = np.array([100.0, 200, 150, 300, 0.1, 0.1 + 1e-9, 0.1 + 3e-9, 0.1 + 2e-9, *[0.1] * 4])
    values = get_statistic("pearson").grouped(x, y, Groups.of(labels))[0]
    assert values[:2] == pytest.approx(
        [sps.pearsonr(x[labels == g], y[labels == g]).statistic for g in (0, 1)], abs=1e-9
    )
    assert np.isnan(values[2])  # constant: 0.1 four times


def test_an_interval_on_part_of_the_resamples_says_on_how_many() -> None:
    # 5 of 6 items share a metric score: resamples drawing only those are undefined
    metric = np.array([1.0, 1, 1, 1, 1, 4])
    human = np.array([1.0, 2, 3, 4, 5, 6])
    result = correlate(metric, human, resampling=Resampling(resamples=500))
    assert result.ci is not None and result.ci.n_resamples == 500
    undefined = np.isnan(
        get_statistic("pearson").resampled(
            metric[None, :], human, counts_from_indices(bootstrap_indices(6, 500, 0), 6)
        )
    ).sum()
    assert 0 < undefined == 500 - result.ci.n_valid
    assert result.ci_note is not None
    assert f"interval over {result.ci.n_valid:,} of 500 resamples" in result.ci_note
    assert result.ci_note.startswith("only 6 items resampled")


def test_grade_empathetic_nltk_bleu_uses_every_resample_as_scipy_does(data_root: Path) -> None:
    """Unsmoothed nltk-bleu-4 is below 1e-6 on every item but one: the interval once came
    from 614 of 1,000 resamples ([-0.097, -0.045]); scipy's bootstrap gives [-0.095, -0.024]."""
    from comperbench import load_benchmark
    from comperbench.evaluation.run import evaluate_run
    from comperbench.metrics.runner import resolve_metrics, run_metrics
    from comperbench.stats.settings import Resampling

    bench = load_benchmark("grade-empathetic", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("nltk-bleu-4", "turn"))
    row = evaluate_run(result, "relevance", resampling=Resampling(1000, 0)).rows[0]
    assert row["pearson_ci_resamples"] == 1000 and "pearson_note" not in row
    metric = np.asarray(result.runs[0].scores, dtype=float)
    human = np.asarray(bench.human_scores("relevance"), dtype=float)
    theirs = sps.bootstrap(
        (metric, human),
        lambda a, b: sps.pearsonr(a, b).statistic,
        paired=True,
        vectorized=False,
        n_resamples=1000,
        method="percentile",
        rng=np.random.default_rng(0),
    ).confidence_interval
    low, high = row["pearson_ci"]
    assert (low, high) == pytest.approx((-0.095, -0.024), abs=0.0005)
    assert (low, high) == pytest.approx((theirs.low, theirs.high), abs=0.02)


@pytest.mark.parametrize("level", ["turn", "system"])
def test_tables_of_several_statistics_equal_one_table_each(level: str) -> None:
    """Statistics computed together (one bootstrap stream for all of them) give each the
    results it gives alone, metrics with missing scores in different places included."""
    rng = np.random.default_rng(3)
    n = 400
    human = rng.normal(size=n).round(1)
    scores = {f"m{i}": human + rng.normal(scale=1 + i, size=n) for i in range(4)}
    scores["m1"][[3, 50]] = np.nan
    scores["m2"][[7]] = np.nan
    human[11] = np.nan
    systems = np.arange(n) % 12
    contexts = np.arange(n) // 12
    methods = ["pearson", "spearman", "kendall-b", "spa"] if level == "system" else ["pearson"]
    if level == "turn":
        methods += ["spearman", "kendall-b", "kendall-c"]
    groups = contexts if level == "system" else None  # turn level: not grouped
    options = dict(level=level, systems=systems, groups=groups, resampling=Resampling(60, 4))
    together = correlation_tables(scores, human, statistics=methods, **options)
    for method, results in zip(methods, together, strict=True):
        assert results == correlation_table(scores, human, statistic=method, **options)
