"""Small n said out loud: exact permutation p-values, flagged intervals, reasons, no crash."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from scipy_oracle import scipy_correlation

from comperbench.cli import main
from comperbench.stats.metric_correlation.correlation import correlate, correlation_table
from comperbench.stats.metric_correlation.permutation import EXACT_MAX_N, exact_p_value, orderings
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.resampling import MIN_BOOTSTRAP_UNITS, bootstrap_note
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups

METHODS = ["pearson", "spearman", "kendall-b", "kendall-c"]


@pytest.mark.parametrize("method", METHODS)
def test_three_ordered_points(method: str) -> None:
    # 6 orderings of (1, 2, 3); only the observed one and its reverse reach |r| = 1
    point = get_statistic(method).point(np.array([1.0, 2, 3]), np.array([1.0, 2, 3]))
    assert point.value == pytest.approx(1.0)
    assert point.p_value == pytest.approx(2 / 6)
    assert point.p_method == "exact-permutation"


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        # rho = 1 - sum(d^2)/10 = 0.6; of the 24 orderings 5 have sum(d^2) <= 4, 5 have >= 16
        ("spearman", 10 / 24),
        ("pearson", 10 / 24),  # x and y are ranks: Pearson is Spearman
        # tau = (4 - 2) / 6 = 1/3 (2 inversions); 9 orderings have <= 2 inversions, 9 have >= 4
        ("kendall-b", 18 / 24),
        ("kendall-c", 18 / 24),
    ],
)
def test_four_points_by_hand(method: str, expected: float) -> None:
    point = get_statistic(method).point(np.array([1.0, 2, 3, 4]), np.array([2.0, 1, 4, 3]))
    assert point.p_value == pytest.approx(expected)


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b"])
def test_four_points_with_ties_by_hand(method: str) -> None:
    # y = (1, 1, 2, 2): every statistic depends on which two x values fall in the top half;
    # |r| is largest when they are {3, 4} or {1, 2}: 2 x 2 x 2 = 8 of the 24 orderings
    point = get_statistic(method).point(np.array([1.0, 2, 3, 4]), np.array([1.0, 1, 2, 2]))
    assert point.p_value == pytest.approx(8 / 24)


def _abs_rows_corr(a: np.ndarray, y: np.ndarray, ranks: bool) -> np.ndarray:
    """|Pearson| (of ranks if asked) of each row of `a` with y, in plain numpy."""
    if ranks:
        a, y = sps.rankdata(a, axis=-1), sps.rankdata(y)
    a = a - a.mean(axis=-1, keepdims=True)
    y = y - y.mean()
    return np.abs(a @ y / np.sqrt((a * a).sum(axis=-1) * (y @ y)))


def _data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    x = rng.integers(0, 4, n).astype(float)  # ties on both sides
    y = rng.integers(0, 3, n).astype(float)
    x[:2], y[:2] = (0.0, 1.0), (0.0, 2.0)  # neither side constant
    return x, y


def _reference_p(x: np.ndarray, statistic, vectorized: bool) -> float:
    """scipy enumerates the n! pairings itself; |r| with alternative='greater' is two-sided."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sps.permutation_test(
            (x,),
            statistic,
            permutation_type="pairings",
            n_resamples=np.inf,
            alternative="greater",
            vectorized=vectorized,
        ).pvalue


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [3, 5, 7])
def test_exact_p_equals_scipy_permutation_test(method: str, n: int) -> None:
    x, y = _data(n)
    f = scipy_correlation(method)
    reference = _reference_p(x, lambda a: abs(f(a, y)), vectorized=False)
    point = get_statistic(method).point(x, y)
    assert point.p_value == pytest.approx(reference, abs=1e-12)
    assert point.value == pytest.approx(f(x, y))


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_exact_p_of_eight_units_equals_scipy_permutation_test(method: str) -> None:
    x, y = _data(8)
    ranks = method == "spearman"
    reference = _reference_p(x, lambda a, axis: _abs_rows_corr(a, y, ranks), vectorized=True)
    assert get_statistic(method).point(x, y).p_value == pytest.approx(reference, abs=1e-12)


def test_above_eight_units_the_p_value_is_scipys() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(1, 5, 12).astype(float)
    x = y + rng.normal(size=12)
    for method, name in [("pearson", "normal-theory"), ("spearman", "asymptotic")]:
        point = get_statistic(method).point(x, y)
        assert point.p_method == name
    assert get_statistic("pearson").point(x, y).p_value == pytest.approx(sps.pearsonr(x, y).pvalue)
    tied = get_statistic("kendall-c").point(x, y)
    assert tied.p_method == "asymptotic"
    assert tied.p_value == pytest.approx(sps.kendalltau(x, y, variant="c").pvalue)
    untied = get_statistic("kendall-b").point(x, np.arange(12.0))
    assert untied.p_method == "exact"  # scipy's exact null without ties up to 33 pairs
    assert untied.p_value == pytest.approx(sps.kendalltau(x, np.arange(12.0)).pvalue)


def test_orderings_and_their_limit() -> None:
    assert orderings(3).tolist() == [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ]
    assert orderings(EXACT_MAX_N).shape == (40320, 8)
    with pytest.raises(ValueError, match="9! orderings are too many"):
        exact_p_value(np.arange(9.0), np.arange(9.0), get_statistic("pearson").rows)


def test_the_p_method_is_on_the_result_and_in_the_signature() -> None:
    systems = np.repeat(list("abcdef"), 3)
    rng = np.random.default_rng(3)
    human = rng.normal(size=18)
    result = correlate(human + rng.normal(size=18), human, level="system", systems=systems)
    assert result.n == 6 and result.p_method == "exact-permutation"
    assert "|p:exact-permutation|" in result.signature
    items = correlate(human + rng.normal(size=18), human, resampling=Resampling(resamples=50))
    assert items.p_method == "normal-theory" and "|p:normal-theory|" in items.signature


def test_intervals_over_too_few_units_are_flagged() -> None:
    rng = np.random.default_rng(4)
    human = rng.normal(size=60)
    metric = human + rng.normal(size=60)
    five = correlate(
        metric,
        human,
        level="system",
        systems=np.arange(60) % 5,
        resampling=Resampling(resamples=200),
    )
    assert five.ci is not None and five.ci_note is not None
    assert five.ci_note.startswith("only 5 systems resampled")
    twelve = correlate(
        metric,
        human,
        level="system",
        systems=np.arange(60) % 12,
        resampling=Resampling(resamples=200),
    )
    assert twelve.ci is not None and twelve.ci_note is None
    grouped = correlate(
        metric, human, groups=np.arange(60) % 6, resampling=Resampling(resamples=200)
    )
    assert grouped.ci_note is not None and "6 groups" in grouped.ci_note
    nine = correlate(metric[:9], human[:9], resampling=Resampling(resamples=200))
    assert nine.ci_note is not None and "9 items" in nine.ci_note
    assert (
        correlate(metric[:9], human[:9], resampling=Resampling(resamples=0)).ci_note is None
    )  # no interval, no note


def test_the_threshold_is_ten_units() -> None:
    assert MIN_BOOTSTRAP_UNITS == 10
    assert bootstrap_note(9, "systems") is not None and bootstrap_note(10, "systems") is None


@pytest.mark.parametrize("method", METHODS)
def test_two_and_one_systems_say_why_the_value_is_undefined(method: str) -> None:
    human = np.array([1.0, 2, 3, 4])
    two = correlate(human, human, level="system", systems=[0, 0, 1, 1], statistic=method)
    assert np.isnan(two.value) and two.ci is None and two.p_method is None
    assert two.reason == (
        "only 2 systems; a correlation needs at least 3 (two points always correlate perfectly)"
    )
    one = correlate(human, human, level="system", systems=[0, 0, 0, 0], statistic=method)
    assert one.reason is not None and one.reason.startswith("only 1 system;")


@pytest.mark.parametrize("method", METHODS)
def test_a_single_unit_resampled_is_nan_not_an_index_error(method: str) -> None:
    """Kendall's pair sums once failed on a sample without pairs (add.reduceat on nothing)."""
    statistic = get_statistic(method)
    W = np.ones((5, 1))
    assert np.isnan(statistic.resampled(np.array([[3.0]]), np.array([2.0]), W)).all()
    [result] = correlation_table(
        {"length": [1.0, 2.0]}, [3.0, 4.0], level="system", systems=["x", "x"], statistic=method
    )
    assert np.isnan(result.value) and result.reason.startswith("only 1 system")


@pytest.mark.parametrize("method", ["kendall-b", "kendall-c"])
def test_groups_without_pairs_anywhere_in_the_layout(method: str) -> None:
    # the singleton group sorts last: its pair range starts at the end of the pair array
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 2])
    y = np.array([1.0, 2, 3, 1, 3, 2, 2, 5])
    x = np.array([2.0, 1, 4, 3, 1, 2, 3, 9])
    per_group = get_statistic(method).grouped(x, y, Groups.of(labels))[0]
    f = scipy_correlation(method)
    assert per_group[:2] == pytest.approx([f(x[:4], y[:4]), f(x[4:7], y[4:7])])
    assert np.isnan(per_group[2])
    lone = get_statistic(method).grouped(x[:1], y[:1], Groups.of([0]))
    assert np.isnan(lone).all()


@pytest.mark.parametrize("name", ["holistic-context", "holistic-fluency"])
def test_evaluate_a_one_system_benchmark_at_system_level(
    name: str, data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", name, "--level", "system", "--metrics", "length"]
    args += ["--resamples", "20", "--out", str(tmp_path), "--data-dir", str(data_root)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "only 1 system; a correlation needs at least 3" in out
