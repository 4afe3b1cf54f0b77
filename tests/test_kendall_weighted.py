"""The compiled Kendall and Spearman kernels against scipy on the gathered resamples."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from comperbench.stats import vectorised
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.vectorised import (
    ResampledRanks,
    spearman_of_ranks,
    weighted_kendall,
    weighted_spearman,
)

N = 120
"""Items: above the 100 up to which the numpy forms are used."""


def _gathered(f, X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    counts = W.astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array([[f(np.repeat(x, c), np.repeat(y, c)) for c in counts] for x in X])


def _kendall(variant: str):
    return lambda a, b: sps.kendalltau(a, b, variant=variant).statistic


def _scores(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Metric rows and human scores with many ties on one side, the other or both, or none."""
    likert = rng.integers(1, 6, n).astype(float)
    noisy = likert + rng.normal(size=n)
    few = rng.integers(0, 3, n).astype(float)
    if kind == "few-human":
        return np.vstack([noisy, np.round(noisy, 1), few]), likert
    if kind == "few-metric":
        return np.vstack([few, np.round(noisy)]), noisy
    if kind == "heavy-both":
        return np.vstack([few, likert, np.where(few > 0, likert, 0.0)]), np.minimum(likert, 3.0)
    return np.vstack([noisy, rng.normal(size=n)]), likert + rng.normal(size=n)


@pytest.mark.parametrize("variant", ["b", "c"])
@pytest.mark.parametrize("kind", ["few-human", "few-metric", "heavy-both", "continuous"])
def test_kendall_equals_scipy_on_gathered_resamples(variant: str, kind: str) -> None:
    rng = np.random.default_rng(len(kind))
    X, y = _scores(kind, N, rng)
    W = counts_from_indices(bootstrap_indices(N, 30, 2), N)
    fast = weighted_kendall(X, y, W, variant)
    np.testing.assert_allclose(fast, _gathered(_kendall(variant), X, y, W), rtol=0, atol=1e-12)


def test_kendall_b_is_scipy_to_the_last_bit() -> None:
    """Exact integer sums and scipy's operations in scipy's order."""
    rng = np.random.default_rng(3)
    X, y = _scores("few-human", 400, rng)
    W = counts_from_indices(bootstrap_indices(400, 20, 1), 400)
    assert np.array_equal(weighted_kendall(X, y, W, "b"), _gathered(_kendall("b"), X, y, W))


@pytest.mark.parametrize("variant", ["b", "c"])
def test_kendall_with_several_tree_blocks(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Resamples processed a few at a time (small trees) give the same values."""
    rng = np.random.default_rng(5)
    X, y = _scores("continuous", N, rng)
    W = counts_from_indices(bootstrap_indices(N, 25, 4), N)
    whole = weighted_kendall(X, y, W, variant)
    monkeypatch.setattr(vectorised, "_FENWICK_BYTES", 24 * (N + 1) * 3)
    assert np.array_equal(weighted_kendall(X, y, W, variant), whole)


@pytest.mark.parametrize("method", ["kendall", "spearman"])
def test_zero_one_and_jackknife_weights(method: str) -> None:
    """Weights of PERM-BOTH (0/1 over doubled items) and of the jackknife (all but one)."""
    rng = np.random.default_rng(9)
    X, y = _scores("heavy-both", N, rng)
    W = np.vstack([(rng.random((10, N)) < 0.5).astype(float), 1.0 - np.eye(N)[:10]])
    if method == "kendall":
        fast, f = weighted_kendall(X, y, W, "b"), _kendall("b")
    else:
        fast, f = weighted_spearman(X, y, W), lambda a, b: sps.spearmanr(a, b).statistic
    np.testing.assert_allclose(fast, _gathered(f, X, y, W), rtol=0, atol=1e-12)


def _padded(x: list[float], y: list[float], weights: list[float]) -> tuple:
    """Small data among N items, the others drawn 0 times (so that the kernels run)."""
    pad = N - len(x)
    X = np.r_[x, np.arange(pad) + 100.0][None, :]
    W = np.r_[weights, np.zeros(pad)][None, :]
    return X, np.r_[y, np.arange(pad) + 100.0], W


def test_hand_computed_kendall() -> None:
    # (x, y) = (1, 1), (2, 3), (3, 2): two concordant pairs, one discordant
    X, y, W = _padded([1, 2, 3], [1, 3, 2], [1, 1, 1])
    assert weighted_kendall(X, y, W, "b")[0, 0] == pytest.approx(1 / 3)
    # drawn twice, once, never: (1, 1) twice and (2, 3); C = 2, D = 0, one pair tied on both,
    # so 3 pairs less 1 tied on x, and less 1 tied on y: tau-b = 2 / sqrt(2 * 2)
    X, y, W = _padded([1, 2, 3], [1, 3, 2], [2, 1, 0])
    assert weighted_kendall(X, y, W, "b")[0, 0] == pytest.approx(1.0)
    # (1, 1), (1, 2), (2, 1), (2, 2): C = 1, D = 1
    X, y, W = _padded([1, 1, 2, 2], [1, 2, 1, 2], [1, 1, 1, 1])
    assert weighted_kendall(X, y, W, "b")[0, 0] == pytest.approx(0.0)
    # (1, 1), (2, 1), (3, 2), (3, 3): C = 4, D = 0, 3 classes: tau-c = 2 * 4 / (4**2 * 2 / 3)
    X, y, W = _padded([1, 2, 3, 3], [1, 1, 2, 3], [1, 1, 1, 1])
    assert weighted_kendall(X, y, W, "c")[0, 0] == pytest.approx(0.75)


def test_undefined_kendall_is_nan() -> None:
    X, y, W = _padded([1, 2, 3], [1, 3, 2], [3, 0, 0])  # one item drawn three times
    assert np.isnan(weighted_kendall(X, y, W, "b")).all()
    X, y, W = _padded([1, 1, 1], [1, 3, 2], [1, 1, 1])  # metric constant in the resample
    assert np.isnan(weighted_kendall(X, y, W, "c")).all()


@pytest.mark.parametrize("kind", ["few-human", "heavy-both", "continuous"])
def test_spearman_equals_scipy_and_its_sides(kind: str) -> None:
    rng = np.random.default_rng(len(kind) + 1)
    X, y = _scores(kind, N, rng)
    W = counts_from_indices(bootstrap_indices(N, 30, 6), N)
    fast = weighted_spearman(X, y, W)
    slow = _gathered(lambda a, b: sps.spearmanr(a, b).statistic, X, y, W)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
    ry = ResampledRanks.of(y, W)
    paired = [spearman_of_ranks(ResampledRanks.of(x, W), ry, W) for x in X]
    np.testing.assert_allclose(paired, fast, rtol=0, atol=1e-14)


@st.composite
def _few_items(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to 100 items (the numpy forms): tied or distinct scores, whole counts with zeros."""
    n = draw(st.integers(2, 100))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    levels = draw(st.sampled_from([2, 3, 5, 0]))  # 0: continuous

    def scores(rows: int) -> np.ndarray:
        if levels:
            return rng.integers(0, levels, (rows, n)).astype(float)
        return rng.normal(size=(rows, n))

    W = rng.integers(0, draw(st.integers(2, 4)), (draw(st.integers(1, 40)), n)).astype(float)
    return scores(draw(st.integers(1, 3))), scores(1)[0], W


@settings(max_examples=200, deadline=None)
@given(_few_items())
def test_kendall_b_of_few_items_by_products_is_the_pair_sums_to_the_bit(
    data: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    X, y, W = data
    by_products = vectorised.kendall_resampler(X, y, "b")(W)  # up to 100 items: not compiled
    by_pairs = vectorised._weighted_kendall_pairs(X, y, W, "b")
    assert np.array_equal(by_products.view(np.uint64), by_pairs.view(np.uint64))


def test_kendall_b_of_few_items_takes_the_pair_sums_unless_exact_in_products() -> None:
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(2, 30)), rng.normal(size=30)
    W = rng.integers(0, 3, (5, 30)).astype(float)
    assert vectorised._whole_counts(W)
    assert not vectorised._whole_counts(W * 0.5)  # not whole counts
    half = vectorised.kendall_resampler(X, y, "b")(W * 0.5)
    assert np.array_equal(half, vectorised._weighted_kendall_pairs(X, y, W * 0.5, "b"))
    X[0, 3] = np.nan  # not finite: the pair path, NaN where it gives NaN
    with_nan = vectorised.kendall_resampler(X, y, "b")(W)
    by_pairs = vectorised._weighted_kendall_pairs(X, y, W, "b")
    assert np.array_equal(with_nan, by_pairs, equal_nan=True)
