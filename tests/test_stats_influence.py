"""Warnings for degenerate or influence-driven score distributions, and for a p-value and an
interval that disagree about zero: hand data at each threshold's boundary."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from comperbench.cli import main
from comperbench.stats.metric_correlation import influence
from comperbench.stats.metric_correlation.influence import (
    distinct_share,
    distribution_note,
    largest_variance_share,
    leave_one_out_pearson,
    p_interval_note,
)

HUMAN_60 = np.tile([1.0, 2.0, 4.0, 3.0, 5.0], 12)


def test_leave_one_out_pearson_equals_refitting_without_each_unit() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=25), rng.normal(size=25)
    refits = [np.corrcoef(np.delete(x, i), np.delete(y, i))[0, 1] for i in range(25)]
    np.testing.assert_allclose(leave_one_out_pearson(x, y), refits, rtol=1e-10)


def test_leave_one_out_pearson_is_nan_where_the_rest_is_constant() -> None:
    result = leave_one_out_pearson(np.array([0.0, 0.0, 0.0, 1.0]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert np.isnan(result[3]) and np.isfinite(result[:3]).all()


def test_three_distinct_values_in_sixty_are_exactly_the_threshold() -> None:
    at = np.repeat([1.0, 2.0, 3.0], 20)
    below = np.append(at, 2.0)  # 3 of 61
    assert distinct_share(at) == influence.MIN_DISTINCT_SHARE
    assert "distinct" not in (distribution_note(at, HUMAN_60) or "")
    note = distribution_note(below, np.append(HUMAN_60, 3.0))
    assert note is not None and "only 4.9% of the metric's scores are distinct" in note


def test_one_score_holding_half_the_spread_is_not_flagged_and_more_is() -> None:
    half = np.array([-1.0, 1.0, 0.0, 0.0])
    assert largest_variance_share(half) == influence.MAX_VARIANCE_SHARE
    assert "sum of squares" not in (distribution_note(half, np.array([1.0, 2, 3, 4])) or "")
    more = np.array([0.0, 0.0, 0.0, 3.0])  # squares 3 x 0.5625 and 5.0625: 75%
    note = distribution_note(more, np.array([1.0, 2, 3, 4]))
    assert note is not None and "one score holds 75.0% of the metric's sum of squares" in note
    assert "constant" in note


def test_leave_one_out_change_trips_just_above_one_standard_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    y = np.array([2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 2.0])
    r = np.corrcoef(x, y)[0, 1]
    change = np.max(np.abs(leave_one_out_pearson(x, y) - r))
    in_errors = change / ((1 - r * r) / np.sqrt(x.size - 1))
    monkeypatch.setattr(influence, "MAX_INFLUENCE_IN_STANDARD_ERRORS", in_errors * (1 + 1e-9))
    assert "leaving out one unit" not in (distribution_note(x, y) or "")
    monkeypatch.setattr(influence, "MAX_INFLUENCE_IN_STANDARD_ERRORS", in_errors * (1 - 1e-9))
    note = distribution_note(x, y)
    assert note is not None and f"moves Pearson's r by {change:.3f}" in note


def test_evenly_spread_scores_get_no_note() -> None:
    x = np.arange(40, dtype=float)
    y = x + np.tile([1.0, -1.0], 20)
    assert distribution_note(x, y) is None


@pytest.mark.parametrize(
    ("p", "low", "high", "says"),
    [
        (0.05, 0.01, 0.2, "p = 0.05 but the interval excludes 0"),
        (0.03, 0.0, 0.3, "p = 0.03 but the interval includes 0"),
        (0.03, -0.1, 0.3, "p = 0.03 but the interval includes 0"),
        (0.38, -0.095, -0.025, "p = 0.38 but the interval excludes 0: trust the p-value"),
    ],
)
def test_a_p_value_and_an_interval_that_disagree_get_a_note(
    p: float, low: float, high: float, says: str
) -> None:
    note = p_interval_note(p, low, high)
    assert note is not None and note.startswith(says)


@pytest.mark.parametrize(
    ("p", "low", "high"),
    [(0.0499, 0.01, 0.2), (0.05, 0.0, 0.3), (0.2, -0.3, 0.0001), (np.nan, 0.1, 0.2)],
)
def test_a_p_value_and_an_interval_that_agree_get_none(p: float, low: float, high: float) -> None:
    assert p_interval_note(p, low, high) is None


def test_grade_empathetic_coco_bleu_gets_both_notes(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", "--benchmark", "grade-empathetic", "--metrics", "coco-bleu-4"]
    assert main([*args, "--data-dir", str(data_root), "--out", str(tmp_path / "out")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "note: coco-bleu-4: one score holds 99.7% of the metric's sum of squares" in printed
    assert "note: coco-bleu-4 (pearson): p = 0.383 but the interval excludes 0: trust" in printed
    (row,) = json.loads((tmp_path / "out" / "table.json").read_text())["rows"]
    assert row["distribution_note"].startswith("one score holds 99.7%")
    assert row["pearson_p_ci_note"].startswith("p = 0.383") and "spearman_p_ci_note" not in row
