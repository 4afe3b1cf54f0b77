"""Scoring: count-weighted bootstrap statistics equal the statistics of explicit resamples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.leaderboard import scoring
from comperbench.leaderboard.items import cached_benchmark
from comperbench.leaderboard.scoring import (
    paired_p,
    resample_counts,
    score_coverage,
    score_coverages,
    standings,
)
from comperbench.leaderboard.submission import Coverage
from comperbench.stats import correlation_table, paired_bootstrap
from comperbench.stats.settings import Resampling


def test_counts_are_the_bootstrap_draws() -> None:
    counts = resample_counts(7, 5, 3)
    idx = np.random.default_rng(3).integers(0, 7, size=(5, 7))
    for row, draws in zip(counts, idx, strict=True):
        np.testing.assert_array_equal(row, np.bincount(draws, minlength=7))
    assert (counts.sum(axis=1) == 7).all()


def test_standings_by_hand() -> None:
    """40 resamples, enough to tell quantile rules apart: the 2.5% rank (method "lower") is the
    lowest of the 40 and the 97.5% one ("higher") the highest, where the 5% and 95% ones would
    be the second lowest and second highest."""
    values = np.array([0.5, 0.7, 0.6])
    usual = np.array([[0.5], [0.7], [0.6]])
    # one resample where metric 2 leads, one where metric 0 leads and metric 2 is last
    replicates = np.hstack(
        [np.repeat(usual, 38, axis=1), [[0.5], [0.6], [0.65]], [[0.8], [0.7], [0.45]]]
    )
    low_p = standings(values, replicates)
    assert [s.rank for s in low_p] == [3, 1, 2]
    assert np.isnan(low_p[1].p_vs_leader)
    # leader - metric 0 = 0.2; no resampled delta reaches 0.4: p = (0 + 1) / 41
    assert low_p[0].p_vs_leader == pytest.approx(1 / 41)
    # leader - metric 2 = 0.1; one resampled delta (0.25) reaches 0.2: p = (1 + 1) / 41
    assert low_p[2].p_vs_leader == pytest.approx(2 / 41)
    # ranks: metric 0 is 3 in 39 and 1 in one; metric 1 is 1 in 38 and 2 in two; metric 2 is
    # 2 in 38, 1 in one and 3 in one
    assert [(s.rank_low, s.rank_high) for s in low_p] == [(1, 3), (1, 2), (1, 3)]


def test_tied_values_share_rank_and_range() -> None:
    rng = np.random.default_rng(0)
    shared = rng.normal(0.5, 0.05, size=200)
    # three identical submissions (same scores under three names) and two distinct ones
    values = np.array([0.6, 0.5, 0.5, 0.5, 0.3])
    replicates = np.vstack([shared + 0.1, shared, shared, shared, shared - 0.2])
    placed = standings(values, replicates)
    assert [s.rank for s in placed] == [1, 2, 2, 2, 5]
    assert len({(s.rank_low, s.rank_high) for s in placed[1:4]}) == 1
    assert (placed[1].rank_low, placed[1].rank_high) == (2, 2)
    assert [s.leader for s in placed] == [True, False, False, False, False]


def test_a_tie_for_first_place_gives_two_leaders() -> None:
    replicates = np.array([[0.7, 0.6, 0.8], [0.7, 0.6, 0.8], [0.1, 0.2, 0.3]])
    placed = standings(np.array([0.7, 0.7, 0.2]), replicates)
    assert [s.rank for s in placed] == [1, 1, 3]
    assert [s.leader for s in placed] == [True, True, False]
    assert np.isnan(placed[0].p_vs_leader) and np.isnan(placed[1].p_vs_leader)
    assert [(s.rank_low, s.rank_high) for s in placed] == [(1, 1), (1, 1), (3, 3)]
    # tested against the first leader: 0.7 - 0.2 = 0.5; no shifted delta reaches it
    assert placed[2].p_vs_leader == pytest.approx(1 / 4)


def test_an_undefined_correlation_is_never_ranked_nor_leader() -> None:
    nan = np.full(4, np.nan)
    values = np.array([np.nan, 0.4, 0.6])
    replicates = np.vstack([nan, [0.4, 0.3, 0.5, 0.55], [0.6, 0.65, 0.55, 0.5]])
    undefined, second, first = standings(values, replicates)
    assert undefined is None
    assert (first.rank, first.leader, second.rank, second.leader) == (1, True, 2, False)
    # ranks among the defined rows only: the last resample puts the second first
    assert (second.rank_low, second.rank_high) == (1, 2)
    assert (first.rank_low, first.rank_high) == (1, 2)
    # deltas 0.2, 0.35, 0.05, -0.05 around 0.2: none shifted reaches 0.2, p = 1 / 5
    assert second.p_vs_leader == pytest.approx(1 / 5)
    assert standings(np.array([np.nan]), nan[None, :]) == [None]
    assert standings(np.array([]), np.empty((0, 4))) == []


@pytest.fixture(scope="module")
def topical(data_root: Path):
    return cached_benchmark("usr-topical", "turn")


def _lengths(topical) -> np.ndarray:
    return np.array([len(r) for r in topical.table.column("response").to_pylist()], float)


@pytest.fixture(scope="module")
def kept(topical):
    """The items the leaderboard correlates on: USR's protocol leaves the ground truth out."""
    return topical.without_systems(["Original Ground Truth"])


def _kept(topical, values: np.ndarray) -> np.ndarray:
    systems = np.asarray(topical.table.column("system").to_pylist())
    return values[systems != "Original Ground Truth"]


def test_the_protocol_leaves_the_ground_truth_out_for_every_submission(topical, kept) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, _lengths(topical))
    results = score_coverage(coverage, n_resamples=50, seed=1)
    assert {r.settings.protocol for r in results} == {"ref-without:original-ground-truth"}
    turn = next(
        r for r in results if (r.level, r.aspect, r.statistic) == ("turn", "overall", "pearson")
    )
    assert turn.n == len(kept) == 300
    assert "protocol:ref-without:original-ground-truth" in turn.signature
    expected = sps.pearsonr(_kept(topical, _lengths(topical)), kept.human_scores("overall"))
    assert turn.value == pytest.approx(expected.statistic)


def test_real_benchmark_scores_match_scipy(topical, kept) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, _lengths(topical))
    results = score_coverage(coverage, n_resamples=200, seed=5)
    found = {(r.level, r.aspect, r.statistic): r for r in results}
    lengths = _kept(topical, _lengths(topical))
    human = kept.human_scores("overall")
    turn = found[("turn", "overall", "spearman")]
    reference = sps.spearmanr(lengths, human)
    assert turn.value == pytest.approx(reference.statistic)
    assert turn.p_value == pytest.approx(reference.pvalue)
    assert turn.ci_low < turn.value < turn.ci_high
    assert turn.n == 300 and len(turn.replicates) == 200
    # each replicate is scipy's Spearman on the explicit resample drawn with the same seed
    for b, draws in enumerate(np.random.default_rng(5).integers(0, 300, size=(3, 300))):
        explicit = sps.spearmanr(lengths[draws], human[draws]).statistic
        assert turn.replicates[b] == pytest.approx(explicit, abs=1e-6)
    assert "stat:spearman|level:turn|resample:bootstrap-percentile|n:200|seed:5" in turn.signature
    assert f"bench:usr-topical@{topical.fingerprint}" in turn.signature
    systems = kept.systems()
    means = kept.to_pandas().assign(x=lengths).groupby("system")["x"].mean()
    system = found[("system", "overall", "kendall-b")]
    assert system.n == 5
    assert system.value == pytest.approx(
        sps.kendalltau(means.loc[systems.index], systems["overall"]).statistic
    )
    assert ("turn", "overall", "kendall-b") not in found  # not resampled at item level
    assert {r.aspect for r in results} == set(topical.metadata.aspect_names)


@pytest.mark.parametrize(
    ("level", "statistic"),
    [("turn", "pearson"), ("turn", "spearman"), ("system", "pearson"), ("system", "kendall-b")],
)
def test_same_numbers_as_the_stats_package(topical, kept, level: str, statistic: str) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, _lengths(topical))
    ours = {
        (r.level, r.aspect, r.statistic): r
        for r in score_coverage(coverage, n_resamples=300, seed=2)
    }[(level, "engaging", statistic)]
    [theirs] = correlation_table(
        {"len": _kept(topical, _lengths(topical))},
        kept.human_scores("engaging"),
        level=level,
        statistic=statistic,
        systems=kept.table.column("system").to_pylist(),
        resampling=Resampling(resamples=300, seed=2),
    )
    assert ours.value == pytest.approx(theirs.value)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((theirs.ci.low, theirs.ci.high), abs=1e-6)


def test_soft_pairwise_accuracy_resamples_contexts_as_the_stats_package(topical, kept) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, _lengths(topical))
    ours = {
        (r.level, r.aspect, r.statistic): r
        for r in score_coverage(coverage, n_resamples=200, seed=2)
    }[("system", "engaging", "spa")]
    [theirs] = correlation_table(
        {"len": _kept(topical, _lengths(topical))},
        kept.human_scores("engaging"),
        level="system",
        statistic="spa",
        systems=kept.table.column("system").to_pylist(),
        groups=kept.table.column("dialogue_id").to_pylist(),
        resampling=Resampling(resamples=200, seed=2),
    )
    assert ours.value == pytest.approx(theirs.value)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((theirs.ci.low, theirs.ci.high), abs=1e-6)
    assert ours.n == theirs.contexts == 60  # the resampled units are the contexts
    assert ours.settings.interval_note(ours.n, ours.replicates) is None
    assert "only 5 contexts" in (ours.settings.interval_note(5, ours.replicates) or "")


def test_a_constant_metric_has_no_soft_pairwise_accuracy(topical) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, np.ones(len(topical)))
    [spa] = [r for r in score_coverage(coverage, n_resamples=20) if r.statistic == "spa"][:1]
    assert np.isnan(spa.value) and spa.reason == "metric scores are constant"


def test_no_context_answered_by_every_system_leaves_spa_undefined(data_root: Path) -> None:
    bench = cached_benchmark("dailydialog-zhao", "turn")
    coverage = Coverage(bench.name, "turn", bench.fingerprint, np.arange(len(bench), dtype=float))
    [spa, *_] = [r for r in score_coverage(coverage, n_resamples=20) if r.statistic == "spa"]
    assert np.isnan(spa.value) and spa.n == 0
    assert spa.reason == "no context has a human and a metric score of every system"


def test_partial_coverage_is_not_scored(topical) -> None:
    scores = np.full(len(topical), np.nan)
    scores[:10] = 1.0
    with pytest.raises(ValueError, match="only full-coverage"):
        score_coverage(Coverage("usr-topical", "turn", topical.fingerprint, scores))


def test_paired_p_is_the_stats_paired_bootstrap(topical, kept) -> None:
    lengths = _lengths(topical)
    noise = np.random.default_rng(4).normal(size=len(lengths))
    human = kept.human_scores("overall")
    found = []
    for scores in (lengths, lengths + 40 * noise):
        coverage = Coverage("usr-topical", "turn", topical.fingerprint, scores)
        [r] = [
            r
            for r in score_coverage(coverage, n_resamples=300, seed=8)
            if (r.level, r.aspect, r.statistic) == ("turn", "overall", "pearson")
        ]
        found.append(r)
    values = np.array([r.value for r in found])
    replicates = np.vstack([r.replicates for r in found])
    a, b = _kept(topical, lengths), _kept(topical, lengths + 40 * noise)
    _, expected, _ = paired_bootstrap(
        a,
        b,
        human,
        statistic="pearson",
        resampling=Resampling(resamples=300, seed=8),
    )
    assert paired_p(values, replicates, 0, 1) == pytest.approx(expected)


def test_scoring_in_small_chunks_equals_scoring_at_once(
    topical, monkeypatch: pytest.MonkeyPatch
) -> None:
    lengths = _lengths(topical)
    noisy = lengths + np.random.default_rng(3).normal(size=len(lengths))
    coverages = [Coverage("usr-topical", "turn", topical.fingerprint, x) for x in (lengths, noisy)]
    at_once = score_coverages(coverages, n_resamples=120, seed=4)
    monkeypatch.setattr(scoring, "CHUNK_BYTES", 8 * 1000)  # three resamples of 300 items
    chunked = score_coverages(coverages, n_resamples=120, seed=4)
    for ours, theirs in zip(at_once, chunked, strict=True):
        assert [r.settings for r in ours] == [r.settings for r in theirs]
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(a.replicates, b.replicates)
            assert (a.ci_low, a.ci_high) == pytest.approx((b.ci_low, b.ci_high), nan_ok=True)


def test_metrics_scored_together_equal_metrics_scored_alone(topical) -> None:
    lengths = _lengths(topical)
    noisy = lengths + np.random.default_rng(5).normal(size=len(lengths))
    coverages = [Coverage("usr-topical", "turn", topical.fingerprint, x) for x in (lengths, noisy)]
    together = score_coverages(coverages, n_resamples=80, seed=6)
    for coverage, rows in zip(coverages, together, strict=True):
        alone = score_coverage(coverage, n_resamples=80, seed=6)
        assert [r.settings for r in alone] == [r.settings for r in rows]
        for a, b in zip(alone, rows, strict=True):
            assert a.value == pytest.approx(b.value, nan_ok=True)
            np.testing.assert_array_equal(a.replicates, b.replicates)


def test_the_humans_side_over_contexts_is_kept_on_disk(topical, kept) -> None:
    coverage = Coverage("usr-topical", "turn", topical.fingerprint, _lengths(topical))
    spa = scoring.get_statistic("spa")
    first = score_coverage(coverage, [spa], n_resamples=30, seed=7)
    items = scoring.scored_items("usr-topical", "turn")
    path = scoring._context_side_path(items, "engaging", spa, 30, 7)
    assert path.is_file()
    scoring._human_contexts.cache_clear()
    again = score_coverage(coverage, [spa], n_resamples=30, seed=7)
    assert [r.value for r in first] == [r.value for r in again]
    assert scoring._context_side_path(items, "engaging", spa, 30, 8) != path
    side = np.load(path, allow_pickle=False)
    with path.open("wb") as out:  # an altered side is not served: computed again
        np.save(out, -side, allow_pickle=False)
    scoring._human_contexts.cache_clear()
    tampered = score_coverage(coverage, [spa], n_resamples=30, seed=7)
    assert [r.value for r in tampered] == [r.value for r in first]
    np.testing.assert_array_equal(np.load(path, allow_pickle=False), side)


def test_a_stored_interval_on_part_of_the_resamples_says_on_how_many() -> None:
    from comperbench.leaderboard.records import Correlation, Settings

    settings = Settings("pearson", "turn", "overall", "bootstrap-percentile", 4, 0, "b@f")
    replicates = np.array([0.1, np.nan, 0.3, 0.2], dtype=np.float32)
    row = Correlation("b", 0.2, 0.01, 0.1, 0.3, 40, replicates, settings)
    assert row.ci_resamples == 3
    assert (
        row.ci_note == "interval over 3 of 4 resamples (the statistic is undefined on the others)"
    )
    whole = Correlation("b", 0.2, 0.01, 0.1, 0.3, 40, replicates[[0, 2, 3]], settings)
    assert whole.ci_resamples == 3 and whole.ci_note is None
    few = Correlation("b", 0.2, 0.01, 0.1, 0.3, 5, replicates, settings)
    assert few.ci_note is not None and few.ci_note.startswith("only 5 items resampled")
    assert few.ci_note.endswith(
        "interval over 3 of 4 resamples (the statistic is undefined on the others)"
    )


def test_the_stats_code_digest_covers_every_module_of_stats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key of the humans' sides kept on disk covers the statistics' code in every subfolder
    of stats/, so a changed statistic is never served a side an older one computed."""
    digested: list[Path] = []
    monkeypatch.setattr(scoring, "code_digest", lambda files: digested.extend(files) or "")
    scoring.stats_code.__wrapped__()
    stats = Path(scoring.__file__).parents[1] / "stats"
    assert sorted(digested) == sorted(stats.rglob("*.py"))
    assert any(path.parent != stats for path in digested)


@pytest.mark.parametrize("shape", [(1,), (6,), (0,), (7, 40), (3, 1000), (4, 0)])
def test_best_places_are_scipys_minimum_ranks(shape: tuple[int, ...]) -> None:
    """Ties share the best place, -inf (an undefined replicate) ranks last, and NaN is refused
    rather than given a place."""
    values = np.random.default_rng(len(shape) + sum(shape)).integers(0, 4, shape).astype(float)
    values[values == 3] = -np.inf
    expected = sps.rankdata(-values, method="min", axis=0).astype(int)
    places = scoring.best_places(values)
    assert places.shape == expected.shape and places.dtype == expected.dtype
    assert (places == expected).all()
    if values.size:
        values.flat[0] = np.nan
        with pytest.raises(ValueError, match="a value is NaN"):
            scoring.best_places(values)


def test_item_counts_are_kept_on_disk_and_drawn_again_when_altered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The item-level counts of a submission are those drawn for it, read back from the cache
    folder by a process that has not drawn them; a kept file altered since is not used."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path))
    scoring._kept_counts.cache_clear()
    drawn = np.vstack(list(scoring.bootstrap_count_chunks(500, 40, 3, scoring.CHUNK_BYTES)))
    first = np.vstack(list(scoring._item_count_chunks(500, 40, 3)))
    np.testing.assert_array_equal(first, drawn)
    (kept,) = (tmp_path / "leaderboard" / "resample-counts").glob("*.npy")
    scoring._kept_counts.cache_clear()
    monkeypatch.setattr(scoring, "compact_counts", lambda *_: pytest.fail("drawn again"))
    np.testing.assert_array_equal(np.vstack(list(scoring._item_count_chunks(500, 40, 3))), drawn)
    altered = bytearray(kept.read_bytes())
    altered[-1] ^= 0x40  # the last count, 64 more or fewer
    kept.write_bytes(bytes(altered))
    scoring._kept_counts.cache_clear()
    monkeypatch.undo()
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path))
    redrawn = np.vstack(list(scoring._item_count_chunks(500, 40, 3)))
    np.testing.assert_array_equal(redrawn, drawn)
    scoring._kept_counts.cache_clear()
