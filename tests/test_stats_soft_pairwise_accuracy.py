"""Soft pairwise accuracy (1 - pairwise confidence error, WMT 2024).

The worked example is the one in the docstring of google-research/mt-metrics-eval's
`mt_metrics_eval/pce.py` (`compute_pairwise_p_values`): two systems over five segments and ten
given permutations, p = 1/10.
"""

from __future__ import annotations

import numpy as np
import pytest

from comperbench.stats import correlate, correlation_table, significance_matrix
from comperbench.stats.metric_correlation.contexts import system_unit_matrix
from comperbench.stats.pair_ranking.soft_pairwise_accuracy import (
    pairwise_p_values,
    soft_pairwise_accuracy,
)
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices, swap_masks
from comperbench.stats.settings import Resampling

PCE_SIGNS = np.array(
    [
        [1, 1, -1, -1, -1],
        [1, -1, 1, -1, 1],
        [1, -1, 1, 1, -1],
        [-1, 1, -1, -1, 1],
        [1, 1, 1, -1, 1],
        [-1, 1, -1, 1, -1],
        [1, 1, 1, 1, 1],
        [1, -1, 1, -1, 1],
        [1, 1, -1, -1, 1],
        [-1, 1, -1, -1, -1],
    ],
    dtype=float,
)


def p_by_swapping(a: np.ndarray, b: np.ndarray, swap: np.ndarray) -> float:
    """The paired permutation test written out: swap the two systems' scores where asked."""
    observed = a.sum() - b.sum()
    reached = 0
    for mask in swap:
        first, second = np.where(mask, b, a), np.where(mask, a, b)
        reached += first.sum() - second.sum() >= observed - 1e-9
    return reached / len(swap)


def test_the_worked_example_of_mt_metrics_eval() -> None:
    scores = np.array([[0.8, 0.9, 0.7, 1.0, 0.6], [0.2, 0.3, 0.1, 0.4, 0.0]])
    assert pairwise_p_values(scores, PCE_SIGNS)[0] == pytest.approx([0.1])
    assert pairwise_p_values(scores, PCE_SIGNS, p_value="plus-one")[0] == pytest.approx([2 / 11])


def test_p_values_equal_swapping_scores_pair_by_pair() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(4, 30)) + np.arange(4)[:, None] * 0.2
    swap = swap_masks(30, 200, 1)
    fast = pairwise_p_values(scores, np.where(swap, -1.0, 1.0))[0]
    slow = [
        p_by_swapping(scores[i], scores[j], swap)
        for i, j in zip(*np.triu_indices(4, 1), strict=True)
    ]
    assert fast == pytest.approx(slow)


def test_resampled_p_values_equal_those_of_the_gathered_units() -> None:
    rng = np.random.default_rng(2)
    scores = rng.normal(size=(3, 12))
    signs = np.where(swap_masks(12, 50, 3), -1.0, 1.0)
    drawn = bootstrap_indices(12, 5, 4)
    fast = pairwise_p_values(scores, signs, counts_from_indices(drawn, 12))
    for r, idx in enumerate(drawn):
        # a unit drawn twice contributes twice, with the sign of its own swap both times
        gathered = np.zeros((3, 12))
        np.add.at(gathered.T, idx, scores[:, idx].T)
        assert fast[r] == pytest.approx(pairwise_p_values(gathered, signs)[0])


def test_blocks_of_resamples_give_the_p_values_of_one_resample_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Resamples scored side by side in blocks (a block boundary inside the rows) count the
    same permutations as each resample alone, ties of integer scores included."""
    import importlib

    spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 3, size=(4, 30)).astype(float)  # many exact ties
    signs = np.where(swap_masks(30, 200, 6), -1.0, 1.0)
    W = counts_from_indices(bootstrap_indices(30, 7, 8), 30)
    alone = np.vstack([pairwise_p_values(scores, signs, w[None]) for w in W])
    monkeypatch.setattr(spa, "_NULL_CHUNK_FLOATS", 200 * 6 * 3)  # blocks of 3 resamples
    assert np.array_equal(pairwise_p_values(scores, signs, W), alone)


def exact_counts(whole: np.ndarray, signs: np.ndarray, W: np.ndarray) -> np.ndarray:
    """(resamples, pairs) permutations reaching the observed difference, in integers."""
    out = []
    for w in W.astype(np.int64):
        row = []
        for i, j in zip(*np.triu_indices(whole.shape[0], 1), strict=True):
            d = (whole[i] - whole[j]) * w
            row.append(int((signs.astype(np.int64) @ d >= d.sum()).sum()))
        out.append(row)
    return np.array(out)


@pytest.mark.parametrize("units", [1, 2, 7, 40])
def test_exact_ties_count_as_integer_arithmetic_counts_them(units: int) -> None:
    """Ratings in thirds (not exact in binary) with equal totals and duplicated systems: every
    permuted difference that equals the observed one, zero included, reaches it."""
    rng = np.random.default_rng(units)
    whole = rng.integers(0, 4, size=(5, units))
    whole[1] = whole[0][::-1]  # the same total as system 0: an observed difference of 0
    whole[3] = whole[2]  # identical systems: every permuted difference is 0
    signs = np.where(swap_masks(units, 300, 2), -1.0, 1.0)
    W = np.vstack([np.ones((1, units)), counts_from_indices(bootstrap_indices(units, 9, 3), units)])
    expected = exact_counts(whole, signs, W) / signs.shape[0]
    assert np.array_equal(pairwise_p_values(whole / 3, signs, W), expected)


def test_a_constant_matrix_gives_p_one_for_every_pair() -> None:
    signs = np.where(swap_masks(12, 100, 0), -1.0, 1.0)
    assert np.array_equal(pairwise_p_values(np.full((3, 12), 0.7), signs), np.ones((1, 3)))


def test_identical_confidence_gives_one_and_the_value_is_one_minus_the_mean_gap() -> None:
    rng = np.random.default_rng(5)
    human = rng.normal(size=(5, 80)) + np.arange(5)[:, None] * 0.1
    assert soft_pairwise_accuracy(
        human, 2 * human + 1, resampling=Resampling(resamples=0)
    ).value == pytest.approx(1)
    metric = human + rng.normal(size=(5, 80))
    result = soft_pairwise_accuracy(
        metric,
        human,
        resampling=Resampling(resamples=100, seed=2),
    )
    gap = np.nanmean(np.abs(result.human_p - result.metric_p))
    assert result.value == pytest.approx(1 - gap) and 0 <= result.value <= 1
    assert result.ci is not None and result.ci.low <= result.value <= result.ci.high
    assert "p:b/k" in result.signature and "permutations:1000" in result.signature


def test_incomplete_units_are_dropped_and_counted() -> None:
    rng = np.random.default_rng(6)
    human = rng.normal(size=(3, 20))
    metric = human.copy()
    metric[1, 4] = np.nan
    human[2, 7] = np.nan
    result = soft_pairwise_accuracy(metric, human, resampling=Resampling(resamples=0))
    assert (result.n_units, result.n_dropped) == (18, 2)


@pytest.mark.parametrize(
    ("metric", "human", "message"),
    [
        (np.ones((1, 5)), np.ones((1, 5)), "at least 2 systems"),
        (np.ones((2, 5)), np.ones((2, 4)), "of one shape"),
        (np.full((2, 3), np.nan), np.ones((2, 3)), "no unit has"),
    ],
)
def test_bad_input_is_refused(metric: np.ndarray, human: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        soft_pairwise_accuracy(metric, human)


def test_system_unit_matrix_averages_and_leaves_gaps() -> None:
    labels, matrix = system_unit_matrix(
        np.array([1.0, 3.0, 2.0, np.nan, 5.0]),
        np.array(["b", "b", "a", "a", "b"]),
        np.array(["u1", "u1", "u1", "u2", "u2"]),
    )
    assert list(labels) == ["a", "b"]
    assert matrix[0, 0] == 2.0 and np.isnan(matrix[0, 1])
    assert matrix[1] == pytest.approx([2.0, 5.0])


def _items(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A systems x contexts matrix as items: values, systems, contexts (in shuffled order)."""
    S, U = matrix.shape
    order = np.random.default_rng(9).permutation(S * U)
    systems, contexts = np.repeat(np.arange(S), U), np.tile(np.arange(U), S)
    return matrix.ravel()[order], systems[order], contexts[order]


def test_the_registered_statistic_is_one_minus_the_mean_gap_of_swapped_p_values() -> None:
    rng = np.random.default_rng(11)
    human = rng.normal(size=(3, 25)) + np.array([[0.0], [0.4], [0.5]])
    metric = human + rng.normal(size=(3, 25))
    swap = swap_masks(25, 1000, 0)  # the registered statistic's fixed swaps
    gaps = [
        abs(p_by_swapping(metric[i], metric[j], swap) - p_by_swapping(human[i], human[j], swap))
        for i, j in zip(*np.triu_indices(3, 1), strict=True)
    ]
    x, systems, contexts = _items(metric)
    y = _items(human)[0]
    result = correlate(
        x,
        y,
        level="system",
        statistic="spa",
        systems=systems,
        groups=contexts,
        resampling=Resampling(resamples=0),
    )
    assert result.value == pytest.approx(1 - np.mean(gaps))
    assert (result.n, result.contexts, result.n_dropped) == (3, 25, 0)
    assert np.isnan(result.p_value) and "permutations:1000" in result.signature


def test_intervals_resample_contexts_as_the_function_does() -> None:
    rng = np.random.default_rng(12)
    human = rng.normal(size=(4, 30)) + np.arange(4)[:, None] * 0.2
    metric = human + rng.normal(size=(4, 30))
    direct = soft_pairwise_accuracy(
        metric,
        human,
        resampling=Resampling(resamples=200, seed=0),
    )
    x, systems, contexts = _items(metric)
    options = {"level": "system", "statistic": "spa", "systems": systems, "groups": contexts}
    result = correlate(x, _items(human)[0], resampling=Resampling(resamples=200, seed=0), **options)
    assert result.value == pytest.approx(direct.value)
    assert (result.ci.low, result.ci.high) == pytest.approx((direct.ci.low, direct.ci.high))
    bca = correlate(x, _items(human)[0], resampling=Resampling(resamples=200, ci="bca"), **options)
    assert bca.ci is not None and bca.ci.method == "bca"


def test_incomplete_contexts_are_dropped_and_undefined_values_explained() -> None:
    rng = np.random.default_rng(13)
    human = rng.normal(size=(3, 10))
    metric = human + rng.normal(size=(3, 10))
    metric[2, 4] = np.nan
    x, systems, contexts = _items(metric)
    y = _items(human)[0]
    scores = {"m": x, "constant": np.ones_like(x), "none": np.full_like(x, np.nan)}
    found = {
        r.metric: r
        for r in correlation_table(
            scores, y, level="system", statistic="spa", systems=systems, groups=contexts
        )
    }
    assert (found["m"].contexts, found["m"].n_dropped) == (9, 3)  # one context, its 3 items
    assert found["constant"].reason == "metric scores are constant"
    assert "no context has a human and a metric score of every system" in found["none"].reason
    assert np.isnan(found["none"].value) and found["none"].ci is None


def test_it_applies_at_system_level_over_contexts_only() -> None:
    x, systems, _ = _items(np.arange(12.0).reshape(3, 4))
    with pytest.raises(ValueError, match="spa does not apply at turn level"):
        correlate(x, x, level="turn", statistic="spa")
    with pytest.raises(ValueError, match="needs the context of every item"):
        correlate(x, x, level="system", statistic="spa", systems=systems)


def _gathered(matrix: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """The resample as a matrix of the original contexts, each summed as often as drawn."""
    out = np.zeros_like(matrix)
    np.add.at(out.T, drawn, matrix[:, drawn].T)
    return out


def _spa(metric: np.ndarray, human: np.ndarray) -> float:
    return soft_pairwise_accuracy(metric, human, resampling=Resampling(resamples=0)).value


@pytest.fixture(scope="module")
def three_metrics() -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(14)
    human = rng.normal(size=(4, 12)) + np.arange(4)[:, None] * 0.3
    matrices = {
        "close": human + 0.3 * rng.normal(size=(4, 12)),
        "far": human + 2.0 * rng.normal(size=(4, 12)),
        "constant": np.full((4, 12), 2.0),
    }
    return matrices, human


def _compare(matrices: dict, human: np.ndarray, test: str, k: int):
    _, systems, contexts = _items(next(iter(matrices.values())))
    scores = {name: _items(m)[0] for name, m in matrices.items()}
    return significance_matrix(
        scores,
        _items(human)[0],
        level="system",
        statistic="spa",
        test=test,
        systems=systems,
        groups=contexts,
        resampling=Resampling(resamples=k, seed=3),
    )


def test_paired_bootstrap_resamples_contexts(three_metrics) -> None:
    matrices, human = three_metrics
    result = _compare(matrices, human, "paired-bootstrap", 40)
    assert result.metrics == ["close", "far"] and result.unit == "contexts"
    assert result.undefined == {"constant": "metric scores are constant"}
    delta = _spa(matrices["close"], human) - _spa(matrices["far"], human)
    boot = [
        _spa(_gathered(matrices["close"], d), _gathered(human, d))
        - _spa(_gathered(matrices["far"], d), _gathered(human, d))
        for d in bootstrap_indices(12, 40, 3)
    ]
    expected = (1 + np.sum(np.array(boot) - delta >= delta - 1e-12)) / 41
    assert result.p_values[0, 1] == pytest.approx(expected)
    assert "permutations:1000" in result.signature


def test_perm_both_swaps_each_systems_score_on_each_context(three_metrics) -> None:
    matrices, human = three_metrics
    result = _compare(matrices, human, "perm-both", 30)

    def z(m: np.ndarray) -> np.ndarray:
        return (m - m.mean()) / m.std()

    a, b = z(matrices["close"]), z(matrices["far"])
    delta = _spa(a, human) - _spa(b, human)
    null = [
        _spa(np.where(cells.reshape(4, 12), b, a), human)
        - _spa(np.where(cells.reshape(4, 12), a, b), human)
        for cells in swap_masks(48, 30, 3)
    ]
    assert result.p_values[0, 1] == pytest.approx(
        (1 + np.sum(np.array(null) >= delta - 1e-12)) / 31
    )
    assert (result.n, result.n_dropped) == (12, 0)


@pytest.mark.parametrize(
    ("test", "message"),
    [("williams", "Pearson correlations only"), ("pairwise-permutation", "spa has none")],
)
def test_other_tests_are_refused_by_name(three_metrics, test: str, message: str) -> None:
    matrices, human = three_metrics
    with pytest.raises(ValueError, match=message):
        _compare(matrices, human, test, 10)


def test_three_contexts_enumerate_all_eight_swap_patterns() -> None:
    # humans: system 0 beats 1 on all three contexts; of the 8 sign patterns only the observed
    # one reaches the sum 3: p = 1/8. Metric: differences (1, 1, 0); the third context's sign
    # changes nothing, so 2 of 8 reach the observed 2: p = 2/8. SPA = 1 - |2/8 - 1/8| = 0.875
    human = np.array([[1.0, 1, 1], [0, 0, 0]])
    metric = np.array([[1.0, 1, 0], [0, 0, 0]])
    result = soft_pairwise_accuracy(metric, human, resampling=Resampling(resamples=0))
    assert result.human_p[0, 1] == pytest.approx(1 / 8)
    assert result.metric_p[0, 1] == pytest.approx(2 / 8)
    assert result.value == pytest.approx(0.875)
    # plus-one counting has no place in an enumeration that holds the observed pattern
    plus_one = soft_pairwise_accuracy(
        metric, human, resampling=Resampling(resamples=0), p_value="plus-one"
    )
    assert plus_one.value == pytest.approx(0.875)
    # the registered statistic (1,000 permutations asked) enumerates too
    systems, contexts = np.repeat([0, 1], 3), np.tile([0, 1, 2], 2)
    registered = correlate(
        metric.ravel(),
        human.ravel(),
        level="system",
        statistic="spa",
        systems=systems,
        groups=contexts,
        resampling=Resampling(resamples=50),
    )
    assert registered.value == pytest.approx(0.875)
    # above 2^units permutations asked, they are drawn: 10 contexts, 1,000 permutations
    assert swap_masks(10, 1000, 0).shape == (1000, 10)
    assert swap_masks(10, 1024, 0).shape == (1024, 10)
    assert swap_masks(3, 1000, 0).tolist() == [
        [bool(code >> bit & 1) for bit in range(3)] for code in range(8)
    ]


def test_one_blas_thread_or_all_give_the_same_p_values(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
    rng = np.random.default_rng(14)
    scores = rng.normal(size=(6, 200))
    signs = np.where(swap_masks(200, 500, 1), -1.0, 1.0)
    W = counts_from_indices(bootstrap_indices(200, 20, 2), 200)
    monkeypatch.setattr(spa, "SMALL_PRODUCT", 0)  # every product on all threads
    every_thread = pairwise_p_values(scores, signs, W)
    monkeypatch.setattr(spa, "SMALL_PRODUCT", 2**62)  # every product on one thread
    assert np.array_equal(pairwise_p_values(scores, signs, W), every_thread)


def _every_kind_of_score(rng: np.random.Generator, units: int) -> dict[str, np.ndarray]:
    """(5 systems, units) score matrices whose float32 sums cannot tell many differences."""
    thirds = rng.integers(0, 4, size=(5, units)) / 3
    thirds[1] = thirds[0][::-1]  # the same total: an observed difference of exactly 0
    thirds[3] = thirds[2]  # identical systems: every permuted difference is exactly 0
    return {
        "normal": rng.normal(size=(5, units)),
        "thirds": thirds,
        "offset": 1e6 + rng.integers(0, 3, size=(5, units)) / 7,  # large, close together
        "huge": rng.normal(size=(5, units)) * 1e36,  # would overflow float32 unscaled
        "tiny": rng.normal(size=(5, units)) * 1e-42,  # below float32's normal numbers
        "scales": rng.normal(size=(5, units)) * 10.0 ** rng.integers(-30, 30, size=(5, units)),
        "zero": np.zeros((5, units)),
    }


@pytest.mark.parametrize("units", [7, 40, 300])
def test_the_compiled_float32_count_equals_the_float64_count(
    units: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every score matrix, ties and extreme magnitudes included: the compiled kernel's float32
    sums, with their close calls summed again in float64, count what float64 counts."""
    import importlib

    spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
    rng = np.random.default_rng(units)
    signs = np.where(swap_masks(units, 400, 5), -1.0, 1.0)
    W = np.vstack(
        [np.ones((1, units)), counts_from_indices(bootstrap_indices(units, 30, 6), units)]
    )
    for name, scores in _every_kind_of_score(rng, units).items():
        monkeypatch.setattr(spa, "COMPILED_COMPARISONS", 2**62)  # numpy, float64
        float64 = pairwise_p_values(scores, signs, W)
        monkeypatch.setattr(spa, "COMPILED_COMPARISONS", 0)  # compiled, float32
        assert np.array_equal(pairwise_p_values(scores, signs, W), float64), name


def test_the_compiled_count_sums_close_calls_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ratings in thirds tie exactly: float32 alone, without the float64 check, miscounts."""
    import importlib

    spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
    rng = np.random.default_rng(3)
    whole = rng.integers(0, 4, size=(5, 300))
    whole[1] = whole[0][::-1]
    signs = np.where(swap_masks(300, 400, 2), -1.0, 1.0)
    W = np.vstack([np.ones((1, 300)), counts_from_indices(bootstrap_indices(300, 20, 3), 300)])
    expected = exact_counts(whole, signs, W) / signs.shape[0]
    monkeypatch.setattr(spa, "COMPILED_COMPARISONS", 0)
    assert np.array_equal(pairwise_p_values(whole / 3, signs, W), expected)
    monkeypatch.setattr(spa, "_float32_margin", lambda n, centred, scale: 0.0 * scale)
    assert not np.array_equal(pairwise_p_values(whole / 3, signs, W), expected)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_stack_of_matrices_gives_each_matrix_its_own_p_values(
    compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    spa = importlib.import_module("comperbench.stats.pair_ranking.soft_pairwise_accuracy")
    monkeypatch.setattr(spa, "COMPILED_COMPARISONS", 0 if compiled else 2**62)
    rng = np.random.default_rng(15)
    stack = np.stack([rng.normal(size=(4, 50)), rng.integers(0, 3, size=(4, 50)) / 3])
    signs = np.where(swap_masks(50, 300, 4), -1.0, 1.0)
    W = counts_from_indices(bootstrap_indices(50, 12, 5), 50)
    alone = np.stack([pairwise_p_values(matrix, signs, W) for matrix in stack])
    assert np.array_equal(pairwise_p_values(stack, signs, W), alone)
