"""Properties that must hold on any input (hypothesis): exact p-values are two-sided, resampled
Pearson is scipy's at any scale, Bradley-Terry exists exactly where the wins are strongly
connected, and tests on too few units stay undefined."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from scipy.sparse.csgraph import connected_components

from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.comparisons import Comparisons
from comperbench.stats.human.votes.vote_tests import unit_bootstrap_p
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices, swap_masks
from comperbench.stats.settings import Resampling

FAST = settings(max_examples=40, deadline=None)
distinct = st.integers(3, 5).flatmap(
    lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))
)


@FAST
@given(distinct)
def test_a_reversed_metric_gets_the_same_exact_p_value(orders) -> None:
    # without ties, reversing the metric's order maps every ordering's accuracy a to 1 - a:
    # a two-sided p-value cannot tell the two apart (a one-sided one would)
    x, y = (np.asarray(o, dtype=float) for o in orders)
    for name in ("acc23", "acc-eq", "tau-eq", "pearson", "kendall-b"):
        statistic = get_statistic(name)
        assert statistic.point(-x, y).p_value == pytest.approx(statistic.point(x, y).p_value)


@FAST
@given(
    st.lists(st.integers(0, 3), min_size=3, max_size=5),
    st.lists(st.integers(0, 3), min_size=3, max_size=5),
)
def test_acc_eq_and_tau_eq_share_their_exact_p_value(a: list[int], b: list[int]) -> None:
    n = min(len(a), len(b))
    x, y = np.asarray(a[:n], dtype=float), np.asarray(b[:n], dtype=float)
    acc, tau = (get_statistic(s).point(x, y) for s in ("acc-eq", "tau-eq"))
    assert acc.p_value == pytest.approx(tau.p_value, nan_ok=True)
    assert np.isnan(acc.p_value) or 0 < acc.p_value <= 1


@FAST
@given(
    st.integers(0, 2**32 - 1),
    st.integers(-300, 300),
    st.integers(-300, 300),
    st.integers(2, 5),
)
def test_resampled_pearson_is_scipys_at_any_scale(seed: int, ex: int, ey: int, levels: int) -> None:
    rng = np.random.default_rng(seed)
    n = 12
    x = rng.integers(0, levels, n) * 10.0**ex
    y = rng.integers(0, levels, n) * 10.0**ey
    if np.all(x == x[0]) or np.all(y == y[0]):
        return
    indices = bootstrap_indices(n, 30, seed)
    ours = get_statistic("pearson").resampled(x[None, :], y, counts_from_indices(indices, n))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = np.array([sps.pearsonr(x[i], y[i]).statistic for i in indices])
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    assert ours == pytest.approx(theirs, abs=1e-9, nan_ok=True)


games = st.lists(
    st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde"), st.sampled_from([0.0, 0.5, 1.0])),
    min_size=1,
    max_size=12,
).filter(lambda rows: all(a != b for a, b, _ in rows))


@FAST
@given(games)
def test_bradley_terry_exists_exactly_where_the_wins_are_strongly_connected(rows) -> None:
    c = Comparisons.of(*zip(*rows, strict=True))
    ia, ib = c.indices()
    S = c.systems.size
    wins, met = np.zeros((S, S)), np.zeros((S, S))
    for i, j, o in zip(ia, ib, c.outcome, strict=True):
        wins[i, j] += o > 0
        wins[j, i] += o < 1
        met[i, j] = met[j, i] = 1
    groups = connected_components(met, directed=False)[0]
    strong = connected_components(wins, directed=True, connection="strong")[0]
    if strong == groups:
        table = bradley_terry(c, resampling=Resampling(20)).table
        assert np.isfinite(table["rating"]).all()
        for _, members in table.groupby("group"):
            assert members["rating"].sum() == pytest.approx(0, abs=1e-6)
            assert sorted(members["rank"]) == list(range(1, len(members) + 1))
    else:
        with pytest.raises(ValueError, match="the MLE does not exist"):
            bradley_terry(c, resampling=Resampling(20))


@FAST
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=40), st.integers(1, 12))
def test_a_bootstrap_test_over_fewer_than_ten_items_is_undefined(outcome, items: int) -> None:
    units = (np.arange(len(outcome)) % items).astype(str)
    p = unit_bootstrap_p(units, np.asarray(outcome), Resampling(50, 0))
    assert np.isnan(p) == (min(items, len(outcome)) < 10)


@FAST
@given(st.integers(1, 12), st.integers(1, 5000))
def test_swap_patterns_are_enumerated_when_no_more_than_asked(n: int, asked: int) -> None:
    masks = swap_masks(n, asked, 0)
    if 2**n <= asked:
        assert masks.shape == (2**n, n) and len({row.tobytes() for row in masks}) == 2**n
        assert not masks[0].any()
    else:
        assert masks.shape == (asked, n)
