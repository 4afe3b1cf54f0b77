"""Properties of the resampled rank kernels (hypothesis), with scipy as the oracle: on tie-heavy
integer scores, tiny samples and ragged groups, every resample's Spearman and Kendall tau-b /
tau-c equals scipy's on the gathered sample (NaN exactly where scipy's is), by the numpy and
the compiled kernels alike, and an interval counts exactly the resamples that are defined."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy_oracle import scipy_correlation

from comperbench.stats import vectorised
from comperbench.stats.averaging import MT_METRICS_EVAL
from comperbench.stats.metric_correlation.correlation import correlate
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups, ResampledRanks, spearman_of_ranks

FAST = settings(max_examples=40, deadline=None)
RANKED = ("spearman", "kendall-b", "kendall-c")
KERNELS = ("numpy", "compiled")


@contextmanager
def kernels(kind: str) -> Iterator[None]:
    """The numpy kernels as small samples get them, or the compiled (numba) ones forced on the
    resamples of any sample."""
    with pytest.MonkeyPatch.context() as patch:
        if kind == "compiled":
            patch.setattr(vectorised, "_compiled", lambda n_items: True)
        yield


def scipy_value(method: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy's statistic, NaN where scipy gives NaN (constant input), warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy_correlation(method)(x, y))


def same_values(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert np.array_equal(np.isnan(ours), np.isnan(theirs)), (ours, theirs)
    assert ours == pytest.approx(theirs, abs=1e-12, nan_ok=True)


@st.composite
def tied_scores(draw: st.DrawFn, min_size: int = 2, max_size: int = 14) -> tuple:
    """(x, y, seed): integer scores with 1 to 4 distinct values each (constant vectors and
    resamples drawing one value included), and a seed for the resamples."""
    n = draw(st.integers(min_size, max_size))
    levels = st.integers(1, 4)
    kx, ky = draw(levels), draw(levels)
    x = draw(st.lists(st.integers(0, kx - 1), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, ky - 1), min_size=n, max_size=n))
    return np.asarray(x, float), np.asarray(y, float), draw(st.integers(0, 2**32 - 1))


TIED = (np.array([0.0, 0, 1, 2, 2, 1, 0]), np.array([1.0, 0, 0, 2, 1, 1, 0]), 0)
"""Seven items with three values each, ties on both sides and between them."""
THREE = (np.array([0.0, 1, 1]), np.array([1.0, 1, 0]), 3)
"""Three items, two tied on each side: many resamples draw a constant side."""
TWO = (np.array([0.0, 1]), np.array([1.0, 0]), 0)
"""Two items: a resample holds one pair or none."""


@pytest.mark.parametrize("kind", KERNELS)
@pytest.mark.parametrize("method", RANKED)
@FAST
@given(tied_scores())
@example(TIED)
@example(THREE)
@example(TWO)
def test_every_resample_is_scipys_statistic_of_the_gathered_sample(
    method: str, kind: str, data: tuple
) -> None:
    x, y, seed = data
    indices = bootstrap_indices(x.size, 25, seed)
    W = counts_from_indices(indices, x.size)
    with kernels(kind):
        ours = get_statistic(method).resampled(np.vstack([x, y[::-1]]), y, W)
    for row, metric in zip(ours, (x, y[::-1]), strict=True):
        same_values(row, np.array([scipy_value(method, metric[i], y[i]) for i in indices]))


@pytest.mark.parametrize("kind", KERNELS)
@FAST
@given(tied_scores())
@example(TIED)
@example(THREE)
def test_spearman_from_each_sides_ranks_is_scipys(kind: str, data: tuple) -> None:
    x, y, seed = data
    indices = bootstrap_indices(x.size, 25, seed)
    W = counts_from_indices(indices, x.size)
    with kernels(kind):
        ours = spearman_of_ranks(ResampledRanks.of(x, W), ResampledRanks.of(y, W), W)
    same_values(ours, np.array([scipy_value("spearman", x[i], y[i]) for i in indices]))


@pytest.mark.parametrize("kind", KERNELS)
@pytest.mark.parametrize("method", ("pearson", *RANKED))
@FAST
@given(tied_scores(min_size=3))
@example(TIED)
@example(THREE)
def test_an_interval_counts_exactly_the_defined_resamples(
    method: str, kind: str, data: tuple
) -> None:
    x, y, seed = data
    with kernels(kind):
        result = correlate(
            x,
            y,
            statistic=method,
            resampling=Resampling(resamples=40, seed=seed),
        )
    if result.reason is not None:
        assert result.ci is None
        return
    boot = np.array([scipy_value(method, x[i], y[i]) for i in bootstrap_indices(x.size, 40, seed)])
    defined = boot[np.isfinite(boot)]
    assert result.ci is not None
    assert (result.ci.n_valid, result.ci.n_resamples) == (defined.size, 40)
    said = f"interval over {defined.size} of 40 resamples"
    assert (said in (result.ci_note or "")) == (defined.size < 40)
    if defined.size:
        assert [result.ci.low, result.ci.high] == pytest.approx(
            np.quantile(defined, [0.025, 0.975]), abs=1e-12
        )


@st.composite
def ragged_groups(draw: st.DrawFn) -> tuple:
    """(x, y, labels, seed): 1 to 5 groups of 1 to 6 items (sizes drawn one by one), scores
    with few distinct values, some groups all tied on one side or both."""
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    x, y, labels = [], [], []
    for g, size in enumerate(sizes):
        kx, ky = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        x += draw(st.lists(st.integers(0, kx - 1), min_size=size, max_size=size))
        y += draw(st.lists(st.integers(0, ky - 1), min_size=size, max_size=size))
        labels += [f"g{g}"] * size
    order = draw(st.permutations(range(len(x))))  # groups interleaved, as items come in files
    pick = np.asarray(order)
    return (
        np.asarray(x, float)[pick],
        np.asarray(y, float)[pick],
        np.asarray(labels)[pick],
        draw(st.integers(0, 2**32 - 1)),
    )


RAGGED = (
    np.array([0.0, 0, 1, 0, 1, 2, 1, 1, 1, 0, 0, 1, 2]),
    np.array([1.0, 1, 0, 0, 2, 1, 0, 1, 2, 1, 0, 0, 2]),
    np.array(["a", "b", "b", "c", "c", "c", "d", "d", "d", "e", "e", "e", "e"]),
    0,
)
"""Groups of 1, 2, 3, 3 (metric all tied) and 4 items, ties within the last: every size the
statistics treat differently, whatever the generated examples hit."""


def per_group_oracle(
    method: str, x: np.ndarray, y: np.ndarray, labels: np.ndarray, groups_of_two: bool
) -> np.ndarray:
    """scipy's value in each group (sorted labels); groups of fewer than three items NaN (two
    count only under mt-metrics-eval's conventions, with scipy's +-1 or NaN)."""
    values = []
    for label in np.unique(labels):
        inside = labels == label
        big_enough = inside.sum() >= (2 if groups_of_two else 3)
        values.append(scipy_value(method, x[inside], y[inside]) if big_enough else np.nan)
    return np.array(values)


@pytest.mark.parametrize("mt", (False, True), ids=("comperbench", "mt-metrics-eval"))
@pytest.mark.parametrize("method", ("pearson", *RANKED))
@FAST
@given(ragged_groups())
@example(RAGGED)
def test_grouped_values_and_their_resamples_are_scipys_per_group(
    method: str, mt: bool, data: tuple
) -> None:
    x, y, labels, seed = data
    statistic = get_statistic(method)
    if mt:
        statistic = statistic.with_averaging(MT_METRICS_EVAL.averaging)
    layout = Groups.of(labels)
    expected = per_group_oracle(method, x, y, labels, mt)
    same_values(statistic.grouped(np.vstack([x, -x]), y, layout)[0], expected)
    drawn = bootstrap_indices(layout.sizes.size, 30, seed)
    C = counts_from_indices(drawn, layout.sizes.size)
    ours = statistic.grouped_resampled(x, y, layout, C)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample of undefined groups only
        theirs = np.array([np.nanmean(expected[row]) for row in drawn])
    same_values(ours, theirs)


@pytest.mark.parametrize("method", ("pearson", *RANKED))
@FAST
@given(ragged_groups())
@example(RAGGED)
def test_a_grouped_interval_counts_exactly_the_defined_resamples(method: str, data: tuple) -> None:
    x, y, labels, seed = data
    result = correlate(
        x,
        y,
        statistic=method,
        groups=labels,
        resampling=Resampling(resamples=30, seed=seed),
    )
    expected = per_group_oracle(method, x, y, labels, False)
    if not np.isfinite(expected).any():
        assert result.reason == "the correlation is undefined in every group" and result.ci is None
        return
    assert result.value == pytest.approx(np.nanmean(expected), abs=1e-12)
    assert result.n == np.isfinite(expected).sum()
    drawn = bootstrap_indices(expected.size, 30, seed)
    defined = [row for row in drawn if np.isfinite(expected[row]).any()]
    assert result.ci is not None
    assert (result.ci.n_valid, result.ci.n_resamples) == (len(defined), 30)
