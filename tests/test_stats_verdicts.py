"""One verdict per comparison: permutations matched to the correction, and every verdict read
from the one adjusted matrix."""

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from comperbench.stats.metric_tests.significance import _spearman_null
from comperbench.stats.metric_tests.verdicts import (
    metric_verdicts,
    permutations_needed,
    smallest_adjusted,
    smallest_p,
)
from comperbench.stats.resampling import swap_row_source, transposed_swaps, zscore


def test_permutations_needed_reach_half_alpha():
    # 19 metrics: 342 one-sided tests; Holm's floor 342 / (k + 1) <= 0.025 needs k >= 13,679
    assert permutations_needed(342, 0.05, "holm", 10**9) == 14_000
    assert 342 / (14_000 + 1) <= 0.025
    assert permutations_needed(342, 0.05, "holm", 5_000) == 5_000
    assert permutations_needed(2, 0.05, "none", 10**9) == 1_000
    assert permutations_needed(2, 0.05, "holm", 10**9) == 1_000  # 79 needed, one block


def test_smallest_p_exact_and_drawn():
    assert smallest_p(1000, 5) == 1 / 32  # all 2^5 patterns enumerated
    assert smallest_p(1000, 300) == 1 / 1001
    assert smallest_p(1000, 300, "fraction") == 1 / 1000
    assert smallest_adjusted(1 / 32, 2, "holm") == pytest.approx(0.0625)
    assert smallest_adjusted(1 / 1001, 2000, "holm") == 1.0


def _board(n: int = 200, seed: int = 3) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    good = human + rng.normal(scale=0.5, size=n)
    return {
        "good": good,
        "twin": good + rng.normal(scale=0.01, size=n),
        "noise": rng.normal(size=n),
    }, human


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_every_verdict_reads_the_adjusted_matrix(method):
    scores, human = _board()
    v = metric_verdicts(scores, human, statistic=method)
    assert v.resolution.permutations == 1000  # 6 tests: one block reaches alpha / 2
    assert v.resolution.can_differ and v.resolution.note is None
    off = ~np.eye(3, dtype=bool)
    holm = multipletests(v.matrix.p_values[off], method="holm")[1]
    np.testing.assert_allclose(v.adjusted[off], holm)
    noise = v.index("noise")
    assert v.metrics[-1] == "noise"
    assert all(v.better[i, noise] for i in range(2))
    assert not v.differs("good", "twin")
    assert v.tied_with_leader == [True, True, False]
    assert v.rank_ranges == [(1, 2), (1, 2), (3, 3)]
    assert v.clusters() == [v.metrics[:2], ["noise"]]
    assert {(a, b) for a, b, _ in v.differing_pairs()} == {
        (v.metrics[0], "noise"),
        (v.metrics[1], "noise"),
    }
    for a, b, p in v.differing_pairs():
        assert p == v.adjusted[v.index(a), v.index(b)] <= 0.05
        assert v.p_vs_leader(v.index(b)) <= 0.05 or v.ranks[v.index(a)] != 1


def test_pairs_far_above_alpha_stop_after_one_block():
    scores, human = _board()
    v = metric_verdicts(scores, human, statistic="pearson", permutations=5000)
    used = v.matrix.resamples_used
    i, j = v.index("good"), v.index("twin")
    assert v.matrix.p_values[j, i] > 0.1 and used[j, i] == 1000
    assert used[i, v.index("noise")] == 5000  # significant pairs run to the end


def test_few_systems_say_no_difference_can_be_shown():
    rng = np.random.default_rng(0)
    human = np.arange(5, dtype=float)
    scores = {"a": human + 0.1 * rng.normal(size=5), "b": rng.normal(size=5)}
    v = metric_verdicts(scores, human, level="system", systems=np.arange(5))
    assert v.resolution.exact and v.resolution.permutations == 32
    assert v.resolution.smallest_adjusted == pytest.approx(2 / 32)
    assert not v.resolution.can_differ
    assert "no difference between these metrics can be shown" in v.resolution.note
    assert not v.better.any() and v.tied_with_leader == [True, True]


def test_budget_cap_is_stated():
    scores = {f"m{k}": v for k, v in enumerate(np.random.default_rng(1).normal(size=(12, 80)))}
    human = np.random.default_rng(2).normal(size=80)
    v = metric_verdicts(scores, human, budget=2000)
    assert v.resolution.capped and v.resolution.permutations == 2000
    assert v.resolution.smallest_adjusted == pytest.approx(132 / 2001)
    assert "(the budget)" in v.resolution.note


def test_compiled_spearman_null_matches_scipy():
    rng = np.random.default_rng(4)
    n = 150
    human = rng.integers(1, 6, n).astype(float)
    a = np.round(rng.normal(size=n) + 0.3 * human, 1)
    b = np.round(rng.normal(size=n), 1)
    a[:20] = 0.0  # ties within and across the two metrics
    za, zb = zscore(a), zscore(b)
    swaps = swap_row_source(n, 40, 0)
    null = _spearman_null(za, zb, sps.rankdata(human), transposed_swaps(swaps))(0, 40)
    rows = np.concatenate(list(swaps(0, 40)))
    expected = [
        sps.spearmanr(np.where(s, zb, za), human)[0] - sps.spearmanr(np.where(s, za, zb), human)[0]
        for s in rows
    ]
    np.testing.assert_allclose(null, expected, atol=1e-12)


def test_ordered_by_the_values_shown_keeps_every_test():
    """Values shown on more units than the tests ran on may order the metrics otherwise: the
    leader, ranks and clusters follow them, every pair's p-value stays the one tested."""
    scores, human = _board()
    tested = metric_verdicts(scores, human, statistic="pearson")
    shown = tested.ordered_by({"noise": 0.9, "good": 0.5, "twin": 0.4})
    assert shown.metrics == ["noise", "good", "twin"]
    np.testing.assert_array_equal(shown.values, [0.9, 0.5, 0.4])
    for a in scores:
        for b in scores:
            i, j = tested.index(a), tested.index(b)
            k, m = shown.index(a), shown.index(b)
            np.testing.assert_array_equal(shown.adjusted[k, m], tested.adjusted[i, j])
            np.testing.assert_array_equal(shown.matrix.deltas[k, m], tested.matrix.deltas[i, j])
    assert shown.ranks == [1, 2, 3]
    assert np.isnan(shown.p_vs_leader(0)) and shown.p_vs_leader(1) > 0.05
    # no metric is significantly better than the leader shown, which is worse than both others
    assert shown.tied_with_leader == [True, True, True]
    assert (
        shown.rank_ranges
        == [(3, 3), (1, 2), (1, 2)]
        == [tested.rank_ranges[tested.index(n)] for n in shown.metrics]
    )
    # MTME's clusters in the order shown: a cluster ends at a metric significantly worse than
    # one in it, and neither good nor twin is worse than noise
    assert shown.clusters() == [["noise", "good", "twin"]]
    assert tested.clusters() == [tested.metrics[:2], ["noise"]]
