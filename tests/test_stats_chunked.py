"""Resamples drawn and scored in chunks of rows are the resamples of the whole matrix: the same
seed gives the same draws, values, intervals and p-values whatever the chunk size."""

from __future__ import annotations

from dataclasses import astuple

import numpy as np
import pytest

from comperbench.stats import resampling
from comperbench.stats.metric_correlation.correlation import correlation_table
from comperbench.stats.metric_tests.significance import (
    paired_bootstrap,
    perm_both,
    significance_matrix,
)
from comperbench.stats.resampling import (
    bootstrap_count_chunks,
    bootstrap_indices,
    counts_from_indices,
    jackknife_chunks,
    swap_mask_chunks,
    swap_masks,
    swap_row_source,
)
from comperbench.stats.settings import Resampling

TINY = 8 * 150 * 3
"""A chunk budget of three rows over 150 units."""


def test_count_chunks_are_the_rows_of_the_whole_matrix() -> None:
    whole = counts_from_indices(bootstrap_indices(150, 40, 7), 150)
    chunks = list(bootstrap_count_chunks(150, 40, 7, chunk_bytes=TINY))
    assert [c.shape[0] for c in chunks] == [3] * 13 + [1]
    assert np.array_equal(np.vstack(chunks), whole)


@pytest.mark.parametrize("n_units", [1, 7, 9_000, 2**16, 70_000])
def test_counts_are_each_rows_occurrences_across_count_blocks(n_units: int) -> None:
    indices = bootstrap_indices(n_units, 23, 5)
    expected = np.vstack([np.bincount(row, minlength=n_units) for row in indices])
    counts = counts_from_indices(indices, n_units)
    assert counts.dtype == np.float64
    assert np.array_equal(counts, expected)
    assert counts_from_indices(indices[:0], n_units).shape == (0, n_units)


@pytest.mark.parametrize("start", [0, 1, 17, 39])
def test_swap_chunks_from_any_row_are_the_rows_of_the_whole_matrix(start: int) -> None:
    whole = swap_masks(150, 40, 3)
    chunks = list(swap_mask_chunks(150, 3, start, 40, chunk_bytes=TINY))
    assert np.array_equal(np.vstack(chunks), whole[start:])
    for budget in (TINY, 150 * 40):  # drawn again, or cut from the kept matrix
        source = swap_row_source(150, 40, 3, chunk_bytes=budget)
        assert np.array_equal(np.vstack(list(source(start, 40))), whole[start:])


@pytest.mark.parametrize("n_units", [7, 1500])
def test_jackknife_chunks_leave_out_one_unit_or_block(n_units: int) -> None:
    rows = np.vstack(list(jackknife_chunks(n_units, 2, chunk_bytes=8 * n_units * 4)))
    if n_units <= resampling.JACKKNIFE_BLOCKS:
        assert np.array_equal(rows, 1.0 - np.eye(n_units))
    else:
        block = np.random.default_rng(2).permutation(n_units) % resampling.JACKKNIFE_BLOCKS
        assert np.array_equal(rows, (block != np.arange(1000)[:, None]).astype(float))


def _scores(n: int = 150) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(4)
    human = rng.integers(1, 6, n) + rng.integers(0, 3, n) / 3
    scores = {
        "close": human + rng.normal(size=n),
        "ties": np.round(human + rng.normal(size=n)),
        "missing": human + rng.normal(scale=2.0, size=n),
    }
    scores["missing"][[3, 50, 99]] = np.nan
    return scores, human


def _chunked(monkeypatch: pytest.MonkeyPatch, run):
    whole = run()
    monkeypatch.setattr(resampling, "CHUNK_BYTES", TINY)
    return whole, run()


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b", "kendall-c"])
@pytest.mark.parametrize("ci", ["percentile", "bca"])
def test_intervals_do_not_depend_on_the_chunk_size(
    method: str, ci: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    scores, human = _scores()
    whole, chunked = _chunked(
        monkeypatch,
        lambda: correlation_table(
            scores,
            human,
            statistic=method,
            resampling=Resampling(seed=3, ci=ci),
        ),
    )
    for a, b in zip(whole, chunked, strict=True):
        assert a.ci is not None and b.ci is not None
        if method == "pearson":  # the matrix product's rounding depends on its shape
            np.testing.assert_allclose(astuple(b.ci)[:2], astuple(a.ci)[:2], rtol=1e-14)
            assert b.ci.n_valid == a.ci.n_valid
        else:
            assert b == a


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b"])
def test_permutation_tests_do_not_depend_on_the_chunk_size(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    scores, human = _scores()
    del scores["missing"]
    scores["weak"] = human + np.random.default_rng(8).normal(scale=1.2, size=human.size)

    def run() -> tuple:
        matrix = significance_matrix(
            scores,
            human,
            statistic=method,
            resampling=Resampling(resamples=300, seed=2),
        )
        pair = perm_both(
            scores["close"], scores["weak"], human, statistic=method, resampling=Resampling(seed=5)
        )
        boot = paired_bootstrap(
            scores["close"], scores["ties"], human, statistic=method, resampling=Resampling(seed=6)
        )
        return matrix.p_values, pair, boot

    whole, chunked = _chunked(monkeypatch, run)
    np.testing.assert_array_equal(chunked[0], whole[0])
    assert chunked[1] == whole[1]
    np.testing.assert_allclose(np.hstack(chunked[2]), np.hstack(whole[2]), rtol=1e-14)
