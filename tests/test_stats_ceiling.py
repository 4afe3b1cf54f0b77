"""The human ceiling (one annotator vs the mean of the others) against hand-computed values, a
plain loop over scipy, and the USR data."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from scipy_oracle import scipy_correlation

from comperbench.benchmark import load_benchmark
from comperbench.stats import AnnotatorScores, annotator_ceiling, benchmark_ceiling
from comperbench.stats.annotator_agreement.ceiling import BY_ID, BY_POSITION, CeilingUnavailable
from comperbench.stats.resampling import bootstrap_indices
from comperbench.stats.settings import Resampling


def _frame(matrix: np.ndarray, ids: bool = True) -> pd.DataFrame:
    """items x annotators (NaN = not rated) -> rating rows of `Benchmark.ratings()`."""
    rows = [
        {
            "item_id": f"i{i}",
            "system": f"s{i % 4}",
            "aspect": "q",
            "annotator": f"a{a}" if ids else None,
            "value": float(v),
        }
        for i, row in enumerate(matrix)
        for a, v in enumerate(row)
        if np.isfinite(v)
    ]
    return pd.DataFrame(rows)


def _scores(matrix: np.ndarray, ids: bool = True) -> AnnotatorScores:
    return AnnotatorScores.of(_frame(matrix, ids), "q", [f"i{i}" for i in range(len(matrix))])


HAND = np.array([[1, 2, 1], [2, 1, 3], [3, 4, 2], [4, 3, 4]], dtype=float)
"""Annotator A's others' means are (1.5, 2, 3, 3.5): r = 3.5 / sqrt(5 * 2.5) = 0.7 sqrt 2;
B's are (1, 2.5, 2.5, 4): r = 1.5 / sqrt(5 * 4.5) = 1 / sqrt 10; C's are (1.5, 1.5, 3.5, 3.5):
r = 2 / sqrt(5 * 4) = 1 / sqrt 5."""


def test_hand_computed_pearson() -> None:
    result = annotator_ceiling(
        _scores(HAND), statistic="pearson", resampling=Resampling(resamples=0)
    )
    expected = (0.7 * math.sqrt(2) + 1 / math.sqrt(10) + 1 / math.sqrt(5)) / 3
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert (result.n, result.annotators, result.assignment) == (4, 3, BY_ID)
    assert result.ci is None and result.reason is None
    assert "-ceiling" in result.signature and "leave-one-annotator-out" in result.signature


def test_hand_computed_sparse_design() -> None:
    """Item 4 has one rating only: it counts for nobody. A rated items 0-3, B items 0-2 and 4,
    C items 0-2: A vs mean(B, C) on 0-2 and B alone on 3; B vs A (and C) on 0-2; C vs mean(A, B)."""
    m = np.array(
        [[1, 2, 1], [2, 1, 3], [3, 4, 2], [4, 5, np.nan], [np.nan, 9, np.nan]], dtype=float
    )
    result = annotator_ceiling(_scores(m), statistic="pearson", resampling=Resampling(resamples=0))
    a = sps.pearsonr([1, 2, 3, 4], [1.5, 2, 3, 5]).statistic
    b = sps.pearsonr([2, 1, 4, 5], [1, 2.5, 2.5, 4]).statistic
    c = sps.pearsonr([1, 3, 2], [1.5, 1.5, 3.5]).statistic
    assert result.value == pytest.approx((a + b + c) / 3, abs=1e-12)
    assert result.n == 4


def test_repeated_ratings_are_averaged() -> None:
    frame = _frame(HAND)
    again = frame.iloc[[0]].assign(value=3.0)  # a0 rates i0 again: 1 and 3 average to 2
    scores = AnnotatorScores.of(pd.concat([frame, again]), "q", [f"i{i}" for i in range(4)])
    assert scores.values[0, 0] == 2.0 and scores.repeated == 1
    note = annotator_ceiling(scores, resampling=Resampling(resamples=0)).note
    assert note is not None and "1 repeated ratings" in note


def test_positions_stand_for_annotators_without_ids() -> None:
    by_position = _scores(HAND, ids=False)
    assert by_position.assignment == BY_POSITION
    np.testing.assert_array_equal(by_position.values, HAND)
    result = annotator_ceiling(by_position, resampling=Resampling(resamples=0))
    assert result.value == pytest.approx(
        annotator_ceiling(_scores(HAND), resampling=Resampling(resamples=0)).value
    )
    assert result.note is not None and "no annotator ids" in result.note


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (_frame(np.array([[1, 2, np.nan], [2, 1, 3], [3, 4, 2]]), ids=False), "2 to 3 ratings"),
        (
            _frame(HAND).assign(annotator=lambda f: f["annotator"].where(f["item_id"] < "i2")),
            "known for only 6 of 12",
        ),
        (_frame(HAND).assign(aspect="other"), "no individual ratings of q"),
    ],
)
def test_not_available_says_why(frame: pd.DataFrame, message: str) -> None:
    with pytest.raises(CeilingUnavailable, match=message):
        AnnotatorScores.of(frame, "q", [f"i{i}" for i in range(4)])


def test_a_rating_that_is_not_a_number_is_refused() -> None:
    frame = _frame(HAND)
    frame.loc[3, "value"] = np.nan
    with pytest.raises(ValueError, match="item 'i1', aspect 'q' is not a number"):
        AnnotatorScores.of(frame, "q", [f"i{i}" for i in range(4)])


def test_undefined_and_single_annotator_are_said() -> None:
    constant = annotator_ceiling(_scores(np.full((5, 2), 3.0)), resampling=Resampling(resamples=10))
    assert math.isnan(constant.value) and constant.ci is None
    assert constant.reason is not None and "undefined for every annotator" in constant.reason
    one = annotator_ceiling(_scores(HAND[:, :1]), resampling=Resampling(resamples=10))
    assert math.isnan(one.value) and "one annotator" in (one.reason or "")


def _loop_ceiling(
    m: np.ndarray, method: str, rows: np.ndarray | None = None, systems: np.ndarray | None = None
) -> float:
    """The ceiling as a plain loop with scipy: per annotator, their ratings of the items (drawn
    in `rows`, repeats kept) that another annotator rated, against the others' mean (system
    level: both averaged per system first); the mean of the defined correlations."""
    corr = scipy_correlation(method)
    rows = np.arange(len(m)) if rows is None else rows
    values = []
    for a in range(m.shape[1]):
        held, others, labels = [], [], []
        for i in rows:
            rest = [m[i, b] for b in range(m.shape[1]) if b != a and np.isfinite(m[i, b])]
            if np.isfinite(m[i, a]) and rest:
                held.append(m[i, a])
                others.append(float(np.mean(rest)))
                labels.append(None if systems is None else systems[i])
        if systems is not None:
            frame = pd.DataFrame({"s": labels, "x": held, "o": others}).groupby("s").mean()
            held, others = list(frame["x"].round(12)), list(frame["o"].round(12))
        if len(held) < 3 or len(set(held)) < 2 or len(set(others)) < 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values.append(corr(np.array(held), np.array(others)))
    return float(np.mean(values)) if values else math.nan


def _random_design(seed: int, n: int = 40, annotators: int = 5) -> np.ndarray:
    """Integer ratings 1-5 of a shared quality, each item rated by 2-4 random annotators."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=n)
    m = np.full((n, annotators), np.nan)
    for i in range(n):
        who = rng.choice(annotators, size=rng.integers(2, 5), replace=False)
        m[i, who] = np.clip(np.round(3 + quality[i] + rng.normal(scale=0.8, size=who.size)), 1, 5)
    return m


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall-b"])
@pytest.mark.parametrize("seed", [1, 2])
def test_matches_a_loop_over_scipy_at_item_level(method: str, seed: int) -> None:
    m = _random_design(seed)
    result = annotator_ceiling(
        _scores(m),
        statistic=method,
        resampling=Resampling(resamples=60, seed=seed),
    )
    assert result.value == pytest.approx(_loop_ceiling(m, method), abs=1e-10)
    boot = [_loop_ceiling(m, method, rows) for rows in bootstrap_indices(len(m), 60, seed)]
    low, high = np.quantile([b for b in boot if np.isfinite(b)], [0.025, 0.975])
    assert result.ci is not None
    assert (result.ci.low, result.ci.high) == pytest.approx((low, high), abs=1e-10)


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_matches_a_loop_over_scipy_at_system_level(method: str) -> None:
    m = _random_design(3, n=60)
    systems = np.array([f"s{i % 12}" for i in range(len(m))])
    result = annotator_ceiling(
        _scores(m),
        statistic=method,
        level="system",
        systems=systems,
        resampling=Resampling(resamples=40, seed=5),
    )
    assert result.n == 12
    assert result.value == pytest.approx(_loop_ceiling(m, method, systems=systems), abs=1e-10)
    labels = np.unique(systems)
    boot = []
    for drawn in bootstrap_indices(labels.size, 40, 5):
        rows = np.concatenate([np.flatnonzero(systems == labels[k]) for k in drawn])
        # a system drawn twice is two units: relabel each copy so the loop averages it apart
        copies = np.concatenate(
            [np.full((systems == labels[k]).sum(), j) for j, k in enumerate(drawn)]
        )
        boot.append(_loop_copies(m, method, rows, copies))
    low, high = np.quantile([b for b in boot if np.isfinite(b)], [0.025, 0.975])
    assert result.ci is not None
    assert (result.ci.low, result.ci.high) == pytest.approx((low, high), abs=1e-10)


def _loop_copies(m: np.ndarray, method: str, rows: np.ndarray, copies: np.ndarray) -> float:
    """`_loop_ceiling` at system level on the gathered rows, each drawn system copy a unit."""
    gathered = m[rows]
    return _loop_ceiling(gathered, method, systems=copies)


def test_few_systems_flag_the_interval() -> None:
    m = _random_design(4, n=20)
    systems = np.array([f"s{i % 5}" for i in range(20)])
    result = annotator_ceiling(
        _scores(m), level="system", systems=systems, resampling=Resampling(resamples=100)
    )
    assert result.n == 5 and result.ci is not None
    assert result.ci_note is not None and "only 5 systems resampled" in result.ci_note


def test_usr_topical_against_the_published_agreement(data_root: Path) -> None:
    """Regression values of the USR Topical-Chat ceiling (Overall, all 360 responses, every
    system: the ceiling compares with people, not with references).

    USR's Table 1 reports 0.7183 (Spearman) and 0.7096 (Pearson) for Overall Quality, which
    the released ratings reproduce as the mean correlation between annotator pairs
    (`comperbench reproduce`). One annotator against the mean of the two others averages out
    one annotator's noise on the other side, so it is higher, by about 0.06 here."""
    bench = load_benchmark("usr-topical", data_dir=data_root)
    from_arrow = AnnotatorScores.of_benchmark(bench, "overall")
    from_frame = AnnotatorScores.of(bench.ratings(), "overall", bench.item_ids)
    np.testing.assert_array_equal(from_arrow.values, from_frame.values)
    assert from_arrow.annotators == from_frame.annotators == ("er", "fl", "me", "sm", "yf")
    spearman = benchmark_ceiling(
        bench, "overall", statistic="spearman", resampling=Resampling(resamples=200)
    )
    pearson = benchmark_ceiling(
        bench, "overall", statistic="pearson", resampling=Resampling(resamples=200)
    )
    assert (spearman.n, spearman.annotators, spearman.assignment) == (360, 5, BY_ID)
    assert spearman.value == pytest.approx(0.7784, abs=5e-5)
    assert pearson.value == pytest.approx(0.7746, abs=5e-5)
    assert spearman.value - 0.7183 == pytest.approx(0.06, abs=0.01)
    assert spearman.ci is not None and spearman.ci.low < spearman.value < spearman.ci.high
    system = benchmark_ceiling(bench, "overall", statistic="pearson", level="system")
    assert system.n == 6 and system.ci_note is not None and "only 6 systems" in system.ci_note
