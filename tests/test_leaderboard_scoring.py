"""Scoring: count-weighted bootstrap statistics equal the statistics of explicit resamples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.leaderboard.items import cached_benchmark
from comperbench.leaderboard.scoring import (
    _item_replicates,
    _system_means,
    _system_replicates,
    resample_counts,
    score_coverage,
    standings,
)
from comperbench.leaderboard.submission import Coverage


def _explicit_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def test_counts_are_the_bootstrap_draws() -> None:
    counts = resample_counts(7, 5, 3)
    idx = _explicit_indices(7, 5, 3)
    for row, draws in zip(counts, idx, strict=True):
        np.testing.assert_array_equal(row, np.bincount(draws, minlength=7))
    assert (counts.sum(axis=1) == 7).all()


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_item_replicates_match_scipy_on_explicit_resamples(statistic: str) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = np.round(x + rng.normal(size=200))  # many ties in y
    reps = _item_replicates(statistic, resample_counts(200, 50, 9), x, y)
    reference = getattr(sps, f"{statistic}r")
    for b, draws in enumerate(_explicit_indices(200, 50, 9)):
        assert reps[b] == pytest.approx(reference(x[draws], y[draws]).statistic, abs=1e-10)


def test_constant_resample_is_nan_not_a_number() -> None:
    x = np.array([1.0, 1.0, 1.0, 2.0])
    y = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.array([[4.0, 0, 0, 0], [1, 1, 1, 1]])
    reps = _item_replicates("pearson", w, x, y)
    assert np.isnan(reps[0])
    assert reps[1] == pytest.approx(sps.pearsonr(x, y).statistic)


def test_system_means_and_kendall_by_hand() -> None:
    x = np.array([1.0, 3.0, 2.0, 4.0, 6.0, 5.0])
    codes = np.array([0, 0, 1, 1, 2, 2])
    onehot = np.eye(3)[codes]
    w = np.array([[1.0, 1, 1, 1, 1, 1], [2.0, 0, 0, 1, 0, 3]])
    means = _system_means(w, x, onehot)
    np.testing.assert_allclose(means, [[2.0, 3.0, 5.5], [1.0, 4.0, 5.0]])
    # x means (2, 3, 5.5) vs (3, 1, 2): pairs (0,1) discordant, (0,2) discordant, (1,2) concordant
    tau = _system_replicates("kendall", means[:1], np.array([[3.0, 1.0, 2.0]]))
    assert tau[0] == pytest.approx(-1 / 3)
    assert tau[0] == pytest.approx(sps.kendalltau([2, 3, 5.5], [3, 1, 2]).statistic)


def test_standings_by_hand() -> None:
    values = np.array([0.5, 0.7, 0.6])
    # four paired resamples: metric 1 leads in three of them, metric 2 in one
    replicates = np.array(
        [[0.50, 0.40, 0.50, 0.45], [0.70, 0.75, 0.60, 0.72], [0.60, 0.65, 0.65, 0.50]]
    )
    low_p = standings(values, replicates)
    assert [s.rank for s in low_p] == [3, 1, 2]
    assert np.isnan(low_p[1].p_vs_leader)
    # leader - metric 0 > 0 in all 4 resamples: p = (0 + 1) / 5
    assert low_p[0].p_vs_leader == pytest.approx(1 / 5)
    # leader - metric 2 <= 0 once (0.60 < 0.65): p = (1 + 1) / 5
    assert low_p[2].p_vs_leader == pytest.approx(2 / 5)
    assert (low_p[1].rank_low, low_p[1].rank_high) == (1, 2)
    # metric 0 is last in every resample; metric 2 is first in the third one
    assert (low_p[0].rank_low, low_p[0].rank_high) == (3, 3)
    assert (low_p[2].rank_low, low_p[2].rank_high) == (1, 2)


@pytest.fixture(scope="module")
def topical(data_root: Path):
    return cached_benchmark("usr-topical", "turn")


def test_real_benchmark_scores_match_scipy(topical) -> None:
    lengths = np.array([len(r) for r in topical.table.column("response").to_pylist()], float)
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, lengths)
    results = score_coverage(coverage, n_resamples=200)
    found = {(r.level, r.aspect, r.statistic): r for r in results}
    human = topical.human_scores("overall")
    turn = found[("turn", "overall", "spearman")]
    reference = sps.spearmanr(lengths, human)
    assert turn.value == pytest.approx(reference.statistic)
    assert turn.p_value == pytest.approx(reference.pvalue)
    assert turn.ci_low < turn.value < turn.ci_high
    assert turn.n == 360 and len(turn.replicates) == 200
    assert turn.signature.startswith("stat:spearman|level:turn|aspect:overall|resample:bootstrap")
    assert f"bench:usr-topical@{topical.fingerprint}" in turn.signature
    systems = topical.systems()
    means = topical.to_pandas().assign(x=lengths).groupby("system")["x"].mean()
    system = found[("system", "overall", "kendall")]
    assert system.n == 6
    assert system.value == pytest.approx(
        sps.kendalltau(means.loc[systems.index], systems["overall"]).statistic
    )
    assert ("turn", "overall", "kendall") not in found  # not resampled at item level
    assert {r.aspect for r in results} == set(topical.metadata.aspect_names)


def test_partial_coverage_is_not_scored(topical) -> None:
    scores = np.full(len(topical), np.nan)
    scores[:10] = 1.0
    with pytest.raises(ValueError, match="only full-coverage"):
        score_coverage(Coverage("usr-topical", "turn", topical.fingerprint, scores))
