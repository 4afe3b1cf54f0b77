"""The pairs of metrics already tested in a process are not tested again: a comparison matrix
with one metric more runs only the new pairs, and gives what a fresh computation gives."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from comperbench.data import keyed_digest
from comperbench.stats.metric_correlation.statistics import OnScores, get_statistic
from comperbench.stats.metric_tests import sequential
from comperbench.stats.metric_tests.pair_memo import PairMemo
from comperbench.stats.metric_tests.significance import significance_matrix
from comperbench.stats.resampling import swap_row_source, transposed_swaps
from comperbench.stats.settings import Resampling


@pytest.fixture
def memo(monkeypatch: pytest.MonkeyPatch) -> PairMemo:
    """An empty memo of this test's own, in memory."""
    own = PairMemo()
    monkeypatch.setattr(sequential, "PAIRS", own)
    return own


@pytest.fixture
def tested_pairs(memo: PairMemo, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the pairs whose permutation test runs (two directions each)."""
    runs: list[int] = []
    run_test = sequential.sequential_p

    def counted(*args: object, **kwargs: object) -> tuple[float, int]:
        runs.append(1)
        return run_test(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sequential, "sequential_p", counted)
    return runs


def _scores(n: int, m: int, seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 6, n).astype(float)
    scores = {f"m{k}": human * (0.2 * k) + rng.normal(size=n) for k in range(m)}
    return scores, human


def _matrix(scores: dict[str, np.ndarray], human: np.ndarray, **kwargs: object):
    return significance_matrix(
        scores, human, resampling=Resampling(resamples=200, seed=3), **kwargs
    )


@pytest.mark.parametrize(
    ("statistic", "test", "n"),
    [
        ("spearman", "perm-both", 400),  # the compiled Spearman kernel
        ("pearson", "perm-both", 100),  # every pair's null in one product
        ("kendall-b", "perm-both", 60),  # the weighted resampler
        ("acc-eq", "pairwise-permutation", 40),
    ],
)
def test_a_matrix_with_one_metric_more_tests_only_the_new_pairs(
    memo: PairMemo, tested_pairs: list[int], statistic: str, test: str, n: int
) -> None:
    scores, human = _scores(n, 4)
    three = {name: scores[name] for name in ("m0", "m1", "m2")}
    _matrix(three, human, statistic=statistic, test=test)
    assert len(tested_pairs) == 2 * 3
    grown = _matrix(scores, human, statistic=statistic, test=test)
    assert len(tested_pairs) == 2 * (3 + 3)  # m3 against each of the three
    memo.forget()
    fresh = _matrix(scores, human, statistic=statistic, test=test)
    assert len(tested_pairs) == 2 * (6 + 6)
    np.testing.assert_array_equal(grown.p_values, fresh.p_values)
    np.testing.assert_array_equal(grown.resamples_used, fresh.resamples_used)


def test_other_human_scores_or_settings_test_every_pair_again(tested_pairs: list[int]) -> None:
    scores, human = _scores(80, 3)
    _matrix(scores, human, statistic="pearson")
    changed = human.copy()
    changed[0] += 1
    _matrix(scores, changed, statistic="pearson")
    _matrix(scores, human, statistic="spearman")
    _matrix(scores, human, statistic="pearson", early_stopping=sequential.EarlyStopping(100))
    assert len(tested_pairs) == 4 * 2 * 3
    _matrix(scores, human, statistic="pearson")
    assert len(tested_pairs) == 4 * 2 * 3  # the first again: every pair kept


def test_a_metric_missing_items_changes_every_pair_tested(memo: PairMemo) -> None:
    """Items without every metric's score are dropped, so the old pairs' units change."""
    scores, human = _scores(80, 3)
    _matrix(scores, human, statistic="pearson")
    kept = len(memo)
    scores["m3"] = np.where(np.arange(80) < 5, np.nan, human)
    _matrix(scores, human, statistic="pearson")
    assert len(memo) == kept + 6  # all six pairs on the 75 items


def test_another_packages_statistic_is_tested_every_time(tested_pairs: list[int]) -> None:
    spearman = get_statistic("spearman")
    scorer = spearman.capability(OnScores)
    theirs = replace(
        spearman,
        capabilities=(replace(scorer, analytic=lambda x, y: scorer.analytic(x, y)),),
    )
    scores, human = _scores(80, 3)
    for _ in range(2):
        _matrix(scores, human, statistic=theirs)
    assert len(tested_pairs) == 2 * 2 * 3


def test_pairs_kept_in_a_file_serve_another_process_and_a_forged_row_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pairs.sqlite"
    first = PairMemo()
    first.keep_in(path, keyed_digest)
    monkeypatch.setattr(sequential, "PAIRS", first)
    scores, human = _scores(100, 3)
    tested = _matrix(scores, human, statistic="spearman")
    later = PairMemo()  # as in a process started later
    later.keep_in(path, keyed_digest)
    monkeypatch.setattr(sequential, "PAIRS", later)
    monkeypatch.setattr(sequential, "sequential_p", _never_run)
    read = _matrix(scores, human, statistic="spearman")
    np.testing.assert_array_equal(read.p_values, tested.p_values)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE pairs SET tested = replace(tested, '[0.', '[0.9')")
    forged = PairMemo()
    forged.keep_in(path, keyed_digest)
    monkeypatch.setattr(sequential, "PAIRS", forged)
    with pytest.raises(AssertionError, match="tested again"):
        _matrix(scores, human, statistic="spearman")


def _never_run(*args: object, **kwargs: object) -> tuple[float, int]:
    raise AssertionError("a kept pair was tested again")


def test_the_memo_forgets_the_least_recently_used_pairs() -> None:
    memo = PairMemo(max_pairs=2)
    memo.put("a", (0.1, 10, 0.9, 10))
    memo.put("b", (0.2, 10, 0.8, 10))
    assert memo.get("a") == (0.1, 10, 0.9, 10)  # now the most recent
    memo.put("c", (0.3, 10, 0.7, 10))
    assert memo.get("b") is None and memo.get("a") is not None and len(memo) == 2


def test_transposed_swaps_are_the_swap_rows_transposed_and_kept_within_budget() -> None:
    swaps = swap_row_source(50, 30, seed=1)
    rows = np.concatenate(list(swaps(0, 30)))
    blocks = transposed_swaps(swaps)
    first = blocks(0, 30)
    assert first[0].dtype == np.uint8 and first[0].flags.c_contiguous
    np.testing.assert_array_equal(np.concatenate(first, axis=1), rows.T.astype(np.uint8))
    assert blocks(0, 30) is first  # kept for the next pair
    tight = transposed_swaps(swaps, kept_bytes=10)
    assert tight(0, 30) is not tight(0, 30)  # over the budget: transposed again
    np.testing.assert_array_equal(tight(10, 20)[0], rows[10:20].T)
