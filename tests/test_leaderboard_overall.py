"""The overall view on a tiny store: means, intervals and rank ranges computed by hand."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from comperbench.leaderboard.items import level_items, protocol_tag
from comperbench.leaderboard.overall import (
    OVERALL_COLUMNS,
    headline_cell,
    overall_matrix,
    overall_view,
)
from comperbench.leaderboard.records import Correlation, Settings
from comperbench.leaderboard.scoring import RESAMPLING, SEED
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import Submission, SubmissionMeta

A, B, C = "usr-persona", "usr-topical", "fed-turn"
REPLICATES = {
    A: {
        "m1": [0.5, 0.25, 0.75, 0.5],
        "m2": [0.25, 0.5, 0.25, 0.0],
        "m3": [0.0, 0.0, 0.5, 0.25],
        "partial": [0.75] * 4,
    },
    B: {"m1": [0.75, 0.5, 0.75, 0.25], "m2": [0.5, 0.75, 0.25, 0.5], "m3": [0.25, 0.25, 0.0, 0.5]},
    C: {"m1": [0.25, 0.0, 0.5, 0.25], "m2": [0.5, 0.25, 0.75, 0.5], "m3": [-0.25, 0.0, -0.5, 0.75]},
}
"""Replicates per benchmark and metric; the first replicate is also the value."""


def _row(benchmark: str, value: float, replicates: list[float]) -> Correlation:
    level, aspect = headline_cell(benchmark)
    settings = Settings(
        "spearman",
        level,
        aspect,
        RESAMPLING,
        len(replicates),
        SEED,
        level_items(benchmark, level).tag,
        protocol_tag(benchmark),
    )
    reps = np.array(replicates, dtype=np.float32)
    nan = float("nan")
    return Correlation(benchmark, value, nan, nan, nan, 50, reps, settings)


def add(store: Store, name: str, scores: dict[str, list[float]], authors: str = "lab") -> None:
    """Store one submission of metric `name` with its replicates per benchmark."""
    sha = hashlib.sha256(f"{name}|{authors}|{scores}".encode()).hexdigest()
    submission = Submission(SubmissionMeta(name, authors), f"{name}.csv", sha, "csv", 1, {name: []})
    store.add(submission, {name: [_row(b, reps[0], reps) for b, reps in scores.items()]})


@pytest.fixture
def store(data_root: Path, tmp_path: Path) -> Store:
    store = Store(tmp_path / "lb.sqlite")
    for name in ("m1", "m2", "m3", "partial"):
        add(store, name, {b: by[name] for b, by in REPLICATES.items() if name in by})
    return store


def _by_metric(frame: pd.DataFrame) -> dict[str, dict[str, object]]:
    return {row["metric"]: row for row in frame.to_dict("records")}


def _interval(replicates: np.ndarray, digits: int) -> str:
    low, high = np.percentile(replicates, [2.5, 97.5])
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def test_headline_cell_is_the_first_level_and_the_default_aspect() -> None:
    assert headline_cell("usr-topical") == ("turn", "overall")
    assert headline_cell("grade-convai2") == ("turn", "relevance")
    assert headline_cell("dstc9") == ("dialogue", "overall")
    assert headline_cell("usr-topical", "kendall-b") == ("system", "overall")


def test_means_ranks_and_intervals_by_hand(store: Store) -> None:
    frame, _ = overall_view(store)
    assert list(frame.columns) == OVERALL_COLUMNS
    assert list(frame["metric"]) == ["m1", "m2", "m3", "partial"]
    rows = _by_metric(frame)
    # ranks per benchmark: usr-persona 1,2,3; usr-topical 1,2,3; fed-turn 2,1,3
    for name, rank, mean, mean_rank in [
        ("m1", 1, 0.5, 4 / 3),
        ("m2", 2, 1.25 / 3, 5 / 3),
        ("m3", 3, 0.0, 3.0),
    ]:
        row = rows[name]
        assert row["rank"] == rank and row["coverage"] == "3 of 3"
        assert row["benchmarks covered"] == f"{C}, {A}, {B}"  # in the view's order
        assert row["mean correlation"] == pytest.approx(round(mean, 4))
        assert row["mean rank"] == pytest.approx(round(mean_rank, 2))
        averaged = np.mean([REPLICATES[b][name] for b in (A, B, C)], axis=0)
        assert row["95% CI"] == _interval(averaged, 4)
    # mean ranks per replicate, ties sharing the best place (fed-turn r1: m1 = m3 = 0.0)
    mean_ranks = {
        "m1": [4 / 3, 2, 4 / 3, 7 / 3],
        "m2": [5 / 3, 1, 2, 2],
        "m3": [3, 8 / 3, 8 / 3, 4 / 3],
    }
    for name, replicates in mean_ranks.items():
        assert rows[name]["mean rank 95% CI"] == _interval(np.array(replicates), 2)
    # overall positions per replicate: m1 1,2,1,3; m2 2,1,2,2; m3 3,3,3,1
    assert [rows[m]["rank range"] for m in ("m1", "m2", "m3")] == ["1-3", "1-2", "1-3"]


def test_partial_coverage_is_ranked_in_its_own_coverage_group(store: Store) -> None:
    frame, notes = overall_view(store)
    assert list(frame["coverage"]) == ["3 of 3"] * 3 + ["1 of 3"]
    partial = _by_metric(frame)["partial"]
    assert partial["benchmarks covered"] == A and partial["rank"] == 1
    assert partial["mean correlation"] == 0.75 and partial["rank range"] == "1-1"
    assert "means over different sets of benchmarks are never compared" in notes
    assert "Not ranked" not in notes


def test_a_view_of_fewer_benchmarks_ranks_on_them_only(store: Store) -> None:
    add(store, "elsewhere", {C: [0.5, 0.5, 0.5, 0.5]})
    frame, notes = overall_view(store, benchmarks=[A, B])
    rows = _by_metric(frame)
    assert [rows[m]["rank"] for m in ("m1", "m2", "m3")] == [1, 2, 3]
    assert rows["m1"]["mean correlation"] == 0.625 and rows["m1"]["coverage"] == "2 of 2"
    assert rows["partial"]["coverage"] == "1 of 2" and rows["partial"]["rank"] == 1
    assert rows["elsewhere"]["coverage"] == "0 of 2" and pd.isna(rows["elsewhere"]["rank"])
    assert "Not ranked: elsewhere (ranked on none of the 2 benchmarks of the view)." in notes
    assert "usr-persona (turn, overall); usr-topical (turn, overall)" in notes


def test_an_undefined_replicate_ranks_last_and_leaves_the_interval(
    data_root: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "steady", {A: [0.25] * 4, B: [0.25] * 4})
    add(store, "shaky", {A: [0.5, float("nan"), 0.5, 0.75], B: [0.5, 0.5, 0.0, 0.5]})
    rows = _by_metric(overall_view(store)[0])
    assert rows["shaky"]["95% CI"] == _interval(np.array([0.5, 0.25, 0.625]), 4)
    # shaky's ranks per replicate: 1 and 1, 2 and 1, 1 and 2, 1 and 1
    assert rows["shaky"]["mean rank 95% CI"] == _interval(np.array([1, 1.5, 1.5, 1]), 2)
    assert rows["steady"]["mean rank 95% CI"] == _interval(np.array([2, 1.5, 1.5, 2]), 2)
    assert (rows["shaky"]["rank range"], rows["steady"]["rank range"]) == ("1-1", "1-2")


def test_matched_by_name_and_authors_newest_kept(store: Store) -> None:
    add(store, "m1", {b: [0.0] * 4 for b in (A, B, C)}, authors="other")
    add(store, "m3", {b: [1.0] * 4 for b in (A, B, C)})
    frame, _ = overall_view(store)
    rows = _by_metric(frame)
    assert rows["m3"]["rank"] == 1 and rows["m3"]["mean correlation"] == 1.0
    assert {"m1 (lab)", "m1 (other)"} <= set(rows)


def test_an_empty_store_has_an_empty_view(tmp_path: Path) -> None:
    frame, notes = overall_view(Store(tmp_path / "lb.sqlite"))
    assert frame.empty and list(frame.columns) == OVERALL_COLUMNS
    assert notes == "No benchmark has a ranked metric yet."


def test_the_heatmap_matrix_holds_each_ranked_cell_with_its_interval(store: Store) -> None:
    names, values, text = overall_matrix(store, "spearman", [A, C], ["m1", "partial"])
    assert names == [A, C]
    assert values[0].tolist() == [0.5, 0.25] and values[1, 0] == 0.75
    assert np.isnan(values[1, 1]) and text[1][1] == ""
    assert text[0][0] == "0.50\n[nan, nan]"  # the tiny store keeps no interval
