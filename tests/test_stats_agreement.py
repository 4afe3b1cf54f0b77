"""Agreement statistics against the krippendorff package, statsmodels and scikit-learn."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from comperbench.stats.annotator_agreement.agreement import (
    BY_ID,
    BY_POSITION,
    RatingTable,
    agreement,
    fleiss_kappa,
)
from comperbench.stats.resampling import bootstrap_indices
from comperbench.stats.settings import Resampling


def _frame(matrix: np.ndarray, ids: bool = True) -> pd.DataFrame:
    """items x raters matrix (NaN = not rated) -> rating rows."""
    rows = [
        {
            "item_id": f"i{i}",
            "aspect": "q",
            "annotator": f"r{r}" if ids else None,
            "value": float(v),
        }
        for i, row in enumerate(matrix)
        for r, v in enumerate(row)
        if np.isfinite(v)
    ]
    return pd.DataFrame(rows)


def _random_matrix(seed: int, items: int = 40, raters: int = 4, missing: float = 0.2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, items)
    m = np.clip(truth[:, None] + rng.integers(-1, 2, (items, raters)), 1, 5).astype(float)
    m[rng.random(m.shape) < missing] = np.nan
    return m


def _value(frame: pd.DataFrame, statistic: str) -> float:
    return agreement(frame, "q", (statistic,), resampling=Resampling(resamples=0))[0].value


def test_alpha_hand_computed_nominal() -> None:
    # Two raters, four items: (1,1), (1,2), (2,2), (2,2). Coincidences: o11 = 2, o12 = o21 = 1,
    # o22 = 4; n = 8, n1 = 3, n2 = 5. alpha = 1 - (n-1) o12*2 / (2 n1 n2) = 1 - 7*2/30.
    frame = _frame(np.array([[1, 1], [1, 2], [2, 2], [2, 2]], dtype=float))
    assert _value(frame, "alpha-nominal") == pytest.approx(1 - 14 / 30)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_equals_krippendorff_package(level: str, seed: int) -> None:
    m = _random_matrix(seed)
    expected = krippendorff.alpha(reliability_data=m.T, level_of_measurement=level)
    assert _value(_frame(m), f"alpha-{level}") == pytest.approx(expected, abs=1e-10)


def test_fleiss_equals_statsmodels_with_equal_rating_counts() -> None:
    m = _random_matrix(3, missing=0.0)
    counts, _ = aggregate_raters(m.astype(int))
    assert _value(_frame(m), "fleiss") == pytest.approx(sm_fleiss(counts, method="fleiss"))


def test_fleiss_hand_computed_with_unequal_counts() -> None:
    # item 1: (1,1,2) -> P = (4+1-3)/6 = 1/3; item 2: (2,2) -> P = 1; mean 2/3.
    # pooled shares: 1 -> 2/5, 2 -> 3/5; chance = 4/25 + 9/25 = 13/25.
    frame = _frame(np.array([[1, 1, 2], [2, 2, np.nan]]))
    assert _value(frame, "fleiss") == pytest.approx((2 / 3 - 13 / 25) / (1 - 13 / 25))


def test_fleiss_of_a_resample_with_unequal_counts_pools_the_drawn_ratings() -> None:
    # The first item drawn twice: (1,1,2), (1,1,2), (2,2) -> mean P = (1/3 + 1/3 + 1)/3 = 5/9;
    # 8 ratings, 4 of each category -> chance 1/2; kappa (5/9 - 1/2)/(1/2) = 1/9.
    table = RatingTable.from_ratings(_frame(np.array([[1, 1, 2], [2, 2, np.nan]])), "q")
    kappa = fleiss_kappa(table, np.array([[1.0, 1.0], [2.0, 1.0]]))
    assert kappa == pytest.approx([(2 / 3 - 13 / 25) / (1 - 13 / 25), 1 / 9])


def test_mean_cohen_equals_sklearn_pairs() -> None:
    m = _random_matrix(4, raters=3, missing=0.1)
    kappas = []
    for a, b in itertools.combinations(range(3), 2):
        ok = np.isfinite(m[:, a]) & np.isfinite(m[:, b])
        kappas.append(cohen_kappa_score(m[ok, a], m[ok, b]))
    assert _value(_frame(m), "cohen") == pytest.approx(np.mean(kappas))


def test_bootstrap_equals_a_loop_over_the_package() -> None:
    m = _random_matrix(5, items=30)
    frame = _frame(m)
    result = agreement(
        frame,
        "q",
        ("alpha-ordinal", "fleiss"),
        resampling=Resampling(resamples=40, seed=2),
    )
    table = RatingTable.from_ratings(frame, "q")
    order = [int(i[1:]) for i in table.item_ids]
    boot = []
    for idx in bootstrap_indices(len(order), 40, 2):
        sample = m[np.array(order)[idx]]
        boot.append(krippendorff.alpha(reliability_data=sample.T, level_of_measurement="ordinal"))
    ci = result[0].ci
    assert ci is not None
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(boot, [0.025, 0.975])))
    assert result[0].signature.startswith("stat:alpha-ordinal|level:item|resample:bootstrap")


def test_without_ids_the_kth_rating_is_rater_k() -> None:
    m = _random_matrix(6, raters=3, missing=0.0)
    with_ids, without = (
        agreement(_frame(m), "q", resampling=Resampling(resamples=0)),
        agreement(_frame(m, ids=False), "q", resampling=Resampling(resamples=0)),
    )
    assert with_ids[0].rater_assignment == BY_ID and without[0].rater_assignment == BY_POSITION
    for a, b in zip(with_ids, without, strict=True):
        assert a.value == pytest.approx(b.value)


def test_single_category_is_undefined_with_reason() -> None:
    result = agreement(
        _frame(np.full((5, 2), 3.0)), "q", ("alpha-interval",), resampling=Resampling(resamples=10)
    )[0]
    assert np.isnan(result.value) and "single category" in (result.reason or "")


def test_a_rater_rating_an_item_twice_leaves_cohen_undefined_with_reason() -> None:
    m = _random_matrix(7, items=10, raters=2, missing=0.0)
    frame = _frame(m)
    frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    alpha, cohen = agreement(
        frame, "q", ("alpha-nominal", "cohen"), resampling=Resampling(resamples=10)
    )
    assert np.isnan(cohen.value) and cohen.ci is None
    assert "annotator 'r0' on item 'i0'" in (cohen.reason or "")
    stacked = np.c_[m, np.r_[m[0, 0], np.full(9, np.nan)]]  # the repeated rating as a third value
    expected = krippendorff.alpha(reliability_data=stacked.T, level_of_measurement="nominal")
    assert alpha.value == pytest.approx(expected)


def _resampled_rows(frame: pd.DataFrame, n_resamples: int, seed: int) -> list[np.ndarray]:
    """Row indices (into the items x raters matrix) of each bootstrap resample of `agreement`."""
    table = RatingTable.from_ratings(frame, "q")
    order = np.array([int(i[1:]) for i in table.item_ids])
    return [order[idx] for idx in bootstrap_indices(order.size, n_resamples, seed)]


def test_fleiss_bootstrap_equals_a_loop_over_statsmodels() -> None:
    m = _random_matrix(8, items=30, missing=0.0)
    frame = _frame(m)
    ci = agreement(
        frame,
        "q",
        ("fleiss",),
        resampling=Resampling(resamples=60, seed=4),
    )[0].ci
    boot = [
        sm_fleiss(aggregate_raters(m[rows].astype(int))[0], method="fleiss")
        for rows in _resampled_rows(frame, 60, 4)
    ]
    assert ci is not None and ci.n_valid == 60
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(boot, [0.025, 0.975])))


def test_cohen_bootstrap_equals_a_loop_over_sklearn() -> None:
    m = _random_matrix(9, items=30, raters=3, missing=0.1)
    frame = _frame(m)
    ci = agreement(
        frame,
        "q",
        ("cohen",),
        resampling=Resampling(resamples=60, seed=5),
    )[0].ci
    boot = []
    for rows in _resampled_rows(frame, 60, 5):
        sample = m[rows]
        kappas = []
        for a, b in itertools.combinations(range(3), 2):
            ok = np.isfinite(sample[:, a]) & np.isfinite(sample[:, b])
            kappas.append(cohen_kappa_score(sample[ok, a], sample[ok, b]))
        boot.append(np.mean(kappas))
    assert ci is not None and ci.n_valid == 60
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(boot, [0.025, 0.975])))
