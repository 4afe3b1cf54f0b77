"""The overall view on tiny stores: coverage groups, means, intervals and rank ranges computed by
hand, ranks that follow the value shown, and what is listed instead of ranked."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from comperbench.leaderboard.items import level_items, protocol_tag
from comperbench.leaderboard.overall import (
    CSV_COLUMNS,
    NOT_RANKED,
    OVERALL_COLUMNS,
    Overall,
    headline_cell,
    overall,
)
from comperbench.leaderboard.records import Correlation, Settings
from comperbench.leaderboard.scoring import RESAMPLING, SEED
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.submission import Submission, SubmissionMeta
from comperbench.stats.resampling import bootstrap_note

A, B, C = "usr-persona", "usr-topical", "fed-turn"
VIEW = f"{C}, {A}, {B}"
"""The three benchmarks as the view orders them (the store's order)."""
REPLICATES = {
    A: {
        "m1": [0.5, 0.25, 0.75, 0.25],
        "m2": [0.25, 0.5, 0.25, 0.0],
        "m3": [0.0, 0.0, 0.5, 0.25],
        "partial": [0.75] * 4,
    },
    B: {"m1": [0.75, 0.5, 0.75, 0.5], "m2": [0.5, 0.75, 0.5, 0.5], "m3": [0.25, 0.25, 0.0, 0.5]},
    C: {"m1": [0.25, 0.0, 0.5, 0.25], "m2": [0.5, 0.25, 0.5, 0.5], "m3": [-0.25, 0.0, -0.5, -0.25]},
}
"""Replicates per benchmark and metric; the first replicate is also the value."""


def _row(benchmark: str, value: float, replicates: list[float], n: int) -> Correlation:
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
    reason = "constant scores" if np.isnan(value) else None
    return Correlation(benchmark, value, nan, nan, nan, n, reps, settings, reason=reason)


def add(
    store: Store,
    name: str,
    scores: dict[str, list[float]],
    authors: str = "lab",
    n: int = 50,
) -> None:
    """Store one submission of metric `name` with its replicates per benchmark (the first is the
    value), each over `n` resampled units."""
    sha = hashlib.sha256(f"{name}|{authors}|{scores}".encode()).hexdigest()
    submission = Submission(SubmissionMeta(name, authors), f"{name}.csv", sha, "csv", 1, {name: []})
    rows = [_row(b, reps[0], reps, n) for b, reps in scores.items()]
    store.add(submission, {name: rows})


@pytest.fixture
def store(data_root: Path, tmp_path: Path) -> Store:
    store = Store(tmp_path / "lb.sqlite")
    for name in ("m1", "m2", "m3", "partial"):
        add(store, name, {b: by[name] for b, by in REPLICATES.items() if name in by})
    return store


def _by_metric(frame: pd.DataFrame) -> dict[str, dict[str, object]]:
    return {row["metric"]: row for row in frame.to_dict("records")}


def _interval(replicates: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(replicates[np.isfinite(replicates)], [2.5, 97.5])
    return round(float(low), 4), round(float(high), 4)


def _rank_range(replicate_means: np.ndarray) -> list[str]:
    """Each metric's 2.5th-97.5th percentile place over the replicates (scipy's ranks, ties at
    the best place, an undefined mean last), as the table writes it."""
    filled = np.nan_to_num(replicate_means, nan=-np.inf)
    places = np.column_stack(
        [rankdata(-filled[:, r], method="min") for r in range(filled.shape[1])]
    )
    low = np.percentile(places, 2.5, axis=1, method="lower")
    high = np.percentile(places, 97.5, axis=1, method="higher")
    return [f"{lo:.0f}-{hi:.0f}" for lo, hi in zip(low, high, strict=True)]


def _assert_rank_follows_value(frame: pd.DataFrame) -> None:
    """Rank 1 holds the largest mean shown, equal means share a place, a lower mean never ranks
    above a higher one."""
    means = frame["mean correlation"].to_numpy(dtype=float)
    expected = rankdata(-means, method="min")
    assert frame["rank"].tolist() == expected.tolist()


def test_headline_cell_is_the_first_level_and_the_default_aspect() -> None:
    assert headline_cell("usr-topical") == ("turn", "overall")
    assert headline_cell("grade-convai2") == ("turn", "relevance")
    assert headline_cell("dstc9") == ("dialogue", "overall")
    assert headline_cell("usr-topical", "kendall-b") == ("system", "overall")


def test_the_largest_group_is_shown_first_ranked_by_its_mean_by_hand(store: Store) -> None:
    view = overall(store)
    assert view.choices() == [("3 metrics on 3 of 3 benchmarks: " + VIEW, VIEW), *_not_ranked(1)]
    assert view.default() == VIEW
    frame = view.table(None)
    assert list(frame.columns) == OVERALL_COLUMNS
    assert frame["metric"].tolist() == ["m1", "m2", "m3"]
    assert frame["rank"].tolist() == [1, 2, 3]
    assert frame["mean correlation"].tolist() == [0.5, round(1.25 / 3, 4), 0.0]
    means = np.array([np.mean([REPLICATES[b][m] for b in (A, B, C)], axis=0) for m in frame.metric])
    # replicate means: m1 1/2, 1/4, 2/3, 1/3; m2 5/12, 1/2, 5/12, 1/3; m3 0, 1/12, 0, 1/6
    assert means[:, 3].tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 6])  # m1 and m2 tie there
    for (_, row), replicates in zip(frame.iterrows(), means, strict=True):
        assert (row["CI low"], row["CI high"]) == _interval(replicates)
        assert row["coverage"] == "3 of 3" and row["coverage group"] == VIEW
        assert row["CI note"] == ""
    # places per replicate: m1 1, 2, 1, 1; m2 2, 1, 2, 1 (the tie shares the best place); m3 3
    assert frame["rank range"].tolist() == ["1-2", "1-2", "3-3"] == _rank_range(means)


def _not_ranked(count: int) -> list[tuple[str, str]]:
    return [(f"{NOT_RANKED} ({count} metric{'s' * (count > 1)})", NOT_RANKED)]


def test_a_metric_alone_in_its_group_is_listed_never_ranked(store: Store) -> None:
    view = overall(store)
    assert "partial" not in set(view.table(VIEW)["metric"])
    [row] = view.table(NOT_RANKED).to_dict("records")
    assert row["rank"] == "not ranked: alone in its coverage group"
    assert (row["metric"], row["coverage"], row["coverage group"]) == ("partial", "1 of 3", A)
    assert row["rank range"] == "" and pd.isna(row["mean correlation"]) and pd.isna(row["CI low"])
    assert "Not ranked: partial (alone in its coverage group)." in view.notes(VIEW)
    assert "never compared" in view.notes(VIEW)


def test_the_csv_names_each_rows_group_and_whether_it_is_ranked(store: Store) -> None:
    add(store, "m4", {A: [0.5] * 4, B: [0.0] * 4})
    add(store, "m5", {A: [0.25] * 4, B: [0.25] * 4})
    csv = overall(store).csv_frame()
    assert list(csv.columns) == CSV_COLUMNS
    assert csv["metric"].tolist() == ["m1", "m2", "m3", "m4", "m5", "partial"]
    assert csv["coverage group"].tolist() == [VIEW] * 3 + [f"{A}, {B}"] * 2 + [A]
    assert csv["ranked"].tolist() == ["yes"] * 5 + ["not ranked: alone in its coverage group"]
    assert csv["rank"].tolist()[:5] == [1, 2, 3, 1, 1] and pd.isna(csv["rank"].iloc[5])
    assert csv["mean correlation"].tolist()[3:5] == [0.25, 0.25]  # a tie shares the best place


def test_the_rank_follows_the_mean_shown_not_the_mean_rank(data_root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "spiky", {A: [0.9] * 4, B: [0.0] * 4})  # places 1 and 3: mean place 2
    add(store, "steady", {A: [0.5] * 4, B: [0.3] * 4})  # places 2 and 1: mean place 1.5
    add(store, "low", {A: [0.1] * 4, B: [0.2] * 4})
    frame = overall(store).table(None)
    assert frame["metric"].tolist() == ["spiky", "steady", "low"]
    assert frame["mean correlation"].tolist() == [0.45, 0.4, 0.15]
    _assert_rank_follows_value(frame)


def test_means_equal_at_the_precision_shown_share_the_best_place(
    data_root: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "b", {A: [0.3] * 4, B: [0.3] * 4})
    add(store, "a", {A: [0.30002] * 4, B: [0.3] * 4})  # mean 0.30001: shown as 0.3
    add(store, "c", {A: [0.1] * 4, B: [0.1] * 4})
    frame = overall(store).table(None)
    assert frame["metric"].tolist() == ["a", "b", "c"]  # tied: by name
    assert (
        frame["rank"].tolist() == [1, 1, 3] and frame["mean correlation"].tolist()[:2] == [0.3] * 2
    )
    _assert_rank_follows_value(frame)


def test_nothing_ranked_says_why_in_the_place_of_the_rank(data_root: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "here", {A: [0.5] * 4})
    add(store, "there", {B: [0.25] * 4})
    add(store, "flat", {A: [float("nan")] * 4, B: [float("nan")] * 4})
    view = overall(store)
    assert view.choices() == _not_ranked(3) and view.default() == NOT_RANKED
    frame = view.table(None)
    assert frame["rank"].tolist() == [
        "not ranked: alone in its coverage group",
        "not ranked: alone in its coverage group",
        "not ranked: correlation undefined on the chosen benchmarks (constant scores)",
    ]
    assert frame["metric"].tolist() == ["here", "there", "flat"]
    assert frame["coverage group"].tolist() == [A, B, ""]
    assert frame["mean correlation"].isna().all()
    assert view.heading(None).startswith(
        "**Nothing is ranked: no coverage group holds two or more metrics. Not ranked**"
    )


def test_a_view_of_fewer_benchmarks_ranks_on_them_only(store: Store) -> None:
    add(store, "elsewhere", {C: [0.5, 0.5, 0.5, 0.5]})
    view = overall(store, benchmarks=[A, B])
    rows = _by_metric(view.table(None))
    assert [rows[m]["rank"] for m in ("m1", "m2", "m3")] == [1, 2, 3]
    assert rows["m1"]["mean correlation"] == 0.625 and rows["m1"]["coverage"] == "2 of 2"
    listed = _by_metric(view.table(NOT_RANKED))
    assert listed["partial"]["coverage"] == "1 of 2"
    assert listed["elsewhere"]["rank"] == "not ranked: ranked on none of the chosen benchmarks"
    assert listed["elsewhere"]["coverage"] == "0 of 2"
    notes = view.notes(None)
    assert "Not ranked: elsewhere (ranked on none of the chosen benchmarks)." in notes
    assert "usr-persona (turn, overall); usr-topical (turn, overall)" in notes


def test_an_undefined_replicate_ranks_last_and_leaves_the_interval(
    data_root: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "steady", {A: [0.25] * 4, B: [0.25] * 4})
    add(store, "shaky", {A: [0.5, float("nan"), 0.5, 0.75], B: [0.5, 0.5, 0.0, 0.5]})
    rows = _by_metric(overall(store).table(None))
    shaky = np.array([0.5, np.nan, 0.25, 0.625])
    assert (rows["shaky"]["CI low"], rows["shaky"]["CI high"]) == _interval(shaky)
    # places per replicate: shaky 1, 2 (undefined: last), 1 (tied), 1; steady 2, 1, 1, 2
    assert (rows["shaky"]["rank range"], rows["steady"]["rank range"]) == ("1-2", "1-2")
    assert [rows["shaky"]["rank range"], rows["steady"]["rank range"]] == _rank_range(
        np.array([shaky, [0.25] * 4])
    )


def test_an_interval_over_too_few_units_is_kept_and_marked_not_informative(
    data_root: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "lb.sqlite")
    add(store, "wide", {A: [0.5, -1.0, 1.0, 0.5]}, n=5)
    add(store, "wide", {B: [0.5, 0.0, 0.5, 0.5]}, authors="lab", n=50)
    add(store, "other", {A: [0.25, 0.25, 0.25, 0.25], B: [0.5] * 4}, n=5)
    view = overall(store)
    frame = view.table(None)
    assert frame["metric"].tolist() == ["wide", "other"]
    assert frame["CI note"].tolist() == [f"not informative ({A})", f"not informative ({A}, {B})"]
    other = _by_metric(frame)["other"]
    assert (other["CI low"], other["CI high"]) == (0.375, 0.375)
    note = bootstrap_note(5, "items")
    assert (
        note == "only 5 items resampled: a bootstrap interval over fewer than 10 is not informative"
    )
    assert f"Note: {A}: {note}." in view.notes(None)


def test_matched_by_name_and_authors_newest_kept(store: Store) -> None:
    add(store, "m1", {b: [0.0] * 4 for b in (A, B, C)}, authors="other")
    add(store, "m3", {b: [1.0] * 4 for b in (A, B, C)})
    rows = _by_metric(overall(store).table(None))
    assert rows["m3"]["rank"] == 1 and rows["m3"]["mean correlation"] == 1.0
    assert {"m1 (lab)", "m1 (other)"} <= set(rows)


def test_an_empty_store_has_an_empty_view(tmp_path: Path) -> None:
    view = overall(Store(tmp_path / "lb.sqlite"))
    assert view.choices() == [] and view.default() is None
    assert view.table(None).empty and list(view.table(None).columns) == OVERALL_COLUMNS
    assert view.heading(None) == view.notes(None) == "No benchmark has a ranked metric yet."


def test_the_heatmap_matrix_is_the_groups_metrics_on_its_benchmarks(store: Store) -> None:
    view: Overall = overall(store, benchmarks=[A, C])
    metrics, names, rows = view.matrix(None)
    assert (metrics, names) == (["m1", "m2", "m3"], [A, C])  # in table order (m1 = m2: by name)
    assert [[r.value for r in by] for by in rows] == [[0.5, 0.25], [0.25, 0.5], [0.0, -0.25]]
    metrics, names, rows = view.matrix(NOT_RANKED)
    assert (metrics, names) == (["partial"], [A, C])  # every chosen benchmark, grey where absent
    assert rows[0][0] is not None and rows[0][1] is None
