"""A statistic is one registered object: tables, tests, leaderboard and CLI take it from there."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.cli import build_parser
from comperbench.common.errors import UnknownNameError
from comperbench.leaderboard.scoring import leaderboard_statistics, scored_at
from comperbench.stats.metric_correlation import statistics as registry
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_correlation.statistics import (
    CORRELATIONS,
    PEARSON,
    Grouped,
    OnScores,
    Statistic,
    get_statistic,
    statistic_names,
)
from comperbench.stats.metric_tests.significance import significance_matrix
from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.settings import Resampling
from comperbench.stats.vectorised import Groups


def _rank_pearson(x: np.ndarray, y: np.ndarray) -> tuple[float, float, str]:
    """Pearson of the ranks, written independently of the package's Spearman."""
    res = sps.pearsonr(sps.rankdata(x), sps.rankdata(y))
    return float(res.statistic), float(res.pvalue), "normal-theory"


def _rank_rows(M: np.ndarray, y: np.ndarray, layout: Groups) -> np.ndarray:
    return np.array([[_rank_pearson(row[layout.order], y[layout.order])[0]] for row in M])


def _rank_weighted(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    out = np.empty((X.shape[0], W.shape[0]))
    for r, counts in enumerate(W.astype(int)):
        yr = np.repeat(y, counts)
        for m, x in enumerate(X):
            out[m, r] = _rank_pearson(np.repeat(x, counts), yr)[0]
    return out


TOY = Statistic(
    "rank-pearson",
    "Pearson of ranks",
    (OnScores(_rank_pearson, _rank_weighted), Grouped(_rank_rows)),
    levels=("turn", "system"),
)


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[Statistic]:
    """TOY registered for one test only."""
    monkeypatch.setitem(CORRELATIONS._items, TOY.name, TOY)
    monkeypatch.setattr(registry, "_ORDER", [*registry._ORDER, TOY.name])
    yield TOY


def test_the_built_in_statistics_in_registration_order() -> None:
    assert statistic_names()[:4] == ["pearson", "spearman", "kendall-b", "kendall-c"]
    reported = statistic_names(reported_only=True)
    assert reported[:3] == ["pearson", "spearman", "kendall-b"] and "kendall-c" not in reported
    assert reported == [n for n in statistic_names() if get_statistic(n).reported]
    assert get_statistic("kendall-c").display_name == "Kendall tau-c"
    assert get_statistic(PEARSON) is PEARSON
    with pytest.raises(UnknownNameError, match="did you mean kendall-b"):
        get_statistic("kendall_b")


def test_leaderboard_scores_kendall_at_system_level_only() -> None:
    names = [s.name for s in leaderboard_statistics()]
    assert names == [n for n in statistic_names() if get_statistic(n).ranked]
    assert names[:3] == ["pearson", "spearman", "kendall-b"] and "acc-eq" in names
    kendall = get_statistic("kendall-b")
    assert scored_at(kendall, "system") and not scored_at(kendall, "turn")
    assert scored_at(PEARSON, "turn") and scored_at(PEARSON, "dialogue")


def test_a_statistic_object_needs_no_registration() -> None:
    rng = np.random.default_rng(2)
    human = rng.normal(size=40)
    scores = {"a": human + rng.normal(size=40), "b": rng.normal(size=40)}
    [a, b] = correlation_table(
        scores,
        human,
        statistic=TOY,
        resampling=Resampling(resamples=30, seed=1),
    )
    assert a.value == pytest.approx(sps.spearmanr(scores["a"], human).statistic)
    assert a.method == "rank-pearson" and a.signature.startswith("stat:rank-pearson|level:turn")
    # the interval is the toy's own weighted kernel on the shared index matrix
    counts = counts_from_indices(bootstrap_indices(40, 30, 1), 40)
    boot = _rank_weighted(scores["a"][None, :], human, counts)[0]
    assert a.ci is not None and a.ci.low == pytest.approx(np.quantile(boot, 0.025))
    sig = significance_matrix(scores, human, statistic=TOY, resampling=Resampling(resamples=50))
    assert sig.metrics == ["a", "b"] and sig.signature.startswith("stat:perm-both:rank-pearson")
    assert b.value == pytest.approx(sig.values[1])


def test_levels_a_statistic_does_not_apply_to_are_refused() -> None:
    with pytest.raises(ValueError, match="rank-pearson does not apply at dialogue level"):
        correlation_table({"a": [1.0, 2, 3]}, [1.0, 3, 2], level="dialogue", statistic=TOY)


def test_a_registered_statistic_reaches_the_command_line(toy_registered: Statistic) -> None:
    assert statistic_names()[-1] == "rank-pearson"
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    compare = commands.choices["compare"]
    assert all("rank-pearson" in a.choices for a in compare._actions if a.dest == "statistic")
    board = commands.choices["leaderboard"]
    actions = next(a for a in board._actions if isinstance(a, argparse._SubParsersAction))
    [statistic] = [a for a in actions.choices["show"]._actions if a.dest == "statistic"]
    assert "rank-pearson" in statistic.choices  # reported by default
    hidden = replace(toy_registered, ranked=False)
    CORRELATIONS._items[hidden.name] = hidden
    assert "rank-pearson" not in [s.name for s in leaderboard_statistics()]


def test_side_and_paired_equal_the_resampled_value() -> None:
    rng = np.random.default_rng(5)
    y = rng.integers(1, 5, 30).astype(float)
    x = y + rng.normal(size=30)
    W = counts_from_indices(bootstrap_indices(30, 25, 3), 30)
    for statistic in (PEARSON, get_statistic("spearman"), get_statistic("kendall-b")):
        paired = statistic.paired(statistic.side(x, W), statistic.side(y, W), W)
        np.testing.assert_allclose(paired, statistic.resampled(x, y, W)[0], rtol=1e-12)


def test_rows_average_the_defined_groups() -> None:
    y = np.array([1.0, 2, 3, 1, 1, 1, 3, 2, 1])
    x = np.array([1.0, 2, 3, 5, 6, 7, 1, 2, 3])
    layout = Groups.of(np.repeat([0, 1, 2], 3))
    per_group = PEARSON.grouped(x, y, layout)[0]
    assert np.isnan(per_group[1])  # constant human scores
    np.testing.assert_allclose(per_group[[0, 2]], [1.0, -1.0])
    assert PEARSON.rows(x[None, :], y, layout)[0] == pytest.approx(0.0)
    constant = np.ones(9)
    assert np.isnan(PEARSON.rows(constant[None, :], y, layout)[0])  # undefined in every group
