"""`leaderboard seed`: its plan (what applies, counted before anything is scored), its estimate
from the measured costs per item, a progress total that never changes, and the cheap default
against `--full`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from comperbench.cli import main
from comperbench.common.progress import duration
from comperbench.leaderboard.seeding.baselines import (
    BASELINE_METRICS,
    SeedCount,
    baseline_metrics,
    plan,
    seed,
)
from comperbench.leaderboard.seeding.seed_cost import (
    CORRELATION_PER_ITEM_ASPECT,
    CORRELATION_PER_LEVEL,
    ENCODER_LOAD,
    ENCODER_METRICS,
    FAMILY_COSTS,
    level_cost,
)
from comperbench.leaderboard.store import Store
from comperbench.metrics.runner import NGRAM_SUITE

PROGRESS = re.compile(r"seeding (\d+)/(\d+) benchmark levels, (\d+) of (\d+) baselines")
BLEU = ("bleu-1", "bleu-2", "bleu-3", "bleu-4")


def test_a_family_s_cost_is_counted_once_per_level() -> None:
    cost = level_cost(["bleu-1", "bleu-4", "length"], items=1000, aspects=2, references=3000)
    (bleu_item, bleu_reference), (length_item, _) = FAMILY_COSTS[BLEU], FAMILY_COSTS[("length",)]
    expected = (bleu_item + length_item) * 1000 + bleu_reference * 3000
    assert cost.serial == pytest.approx(expected)
    assert cost.correlations == pytest.approx(
        3 * (CORRELATION_PER_LEVEL + CORRELATION_PER_ITEM_ASPECT * 1000 * 2)
    )
    assert cost.unknown == ()


def test_metrics_scored_in_workers_share_them_in_the_estimate() -> None:
    cost = level_cost(["bleu-1", "length"], 1000, 1, references=1000, parallel={"bleu-1"})
    assert cost.parallel == pytest.approx(sum(FAMILY_COSTS[BLEU]) * 1000)
    assert cost.serial == pytest.approx(FAMILY_COSTS[("length",)][0] * 1000)
    assert cost.seconds(2) == pytest.approx(cost.serial + cost.parallel / 2 + cost.correlations)
    assert cost.total == pytest.approx(cost.serial + cost.parallel + cost.correlations)


def test_a_metric_without_a_measured_cost_is_named_not_guessed(data_root: Path) -> None:
    planned = plan(["bertscore-f1", "length"], ["usr-persona"])
    [level] = planned.levels
    assert level.cost.unknown == ("bertscore-f1[all-MiniLM-L6-v2:L6]",)
    summary = planned.summary()
    assert summary.endswith(
        "; no measured cost of bertscore-f1[all-MiniLM-L6-v2:L6] (not in the estimate)"
    )


def test_the_plan_keeps_only_what_applies_and_states_its_estimate(data_root: Path) -> None:
    planned = plan(["length", "f1"], ["fed-turn", "usr-persona"])
    fed, usr = planned.levels
    assert [m.name for m in fed.metrics] == ["length"]
    assert fed.skipped == {"f1": "needs references, and fed-turn has none"}
    assert [m.name for m in usr.metrics] == ["length", "f1"]
    assert planned.baselines == 3 and planned.items == 375 + 300
    references = 300  # one per usr-persona item, none on fed-turn
    expected = (
        level_cost(["length"], 375, 9).total
        + level_cost(["length", "f1"], 300, 6, references).total
    )
    assert planned.cpu_seconds == pytest.approx(expected)
    assert planned.summary() == (
        f"seeding 2 benchmark levels (675 items): 3 baselines, estimated "
        f"{duration(planned.seconds)} on {planned.workers} processes "
        f"({duration(planned.cpu_seconds)} of CPU time) from an empty score cache"
    )


def test_a_seed_s_progress_total_never_changes(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes: list[str] = []
    store = Store(tmp_path / "lb.sqlite")
    outcomes = seed(store, ["length", "f1"], ["fed-turn", "usr-persona"], notes.append)
    assert len(outcomes) == 3
    assert notes[0] == "skipped on fed-turn (turn): f1: needs references, and fed-turn has none"
    assert notes[1].startswith("seeding 2 benchmark levels (675 items): 3 baselines, estimated")
    lines = [PROGRESS.match(line) for line in capsys.readouterr().err.splitlines()]
    counts = [tuple(int(g) for g in found.groups()) for found in lines if found]
    assert counts == [(0, 2, 0, 3), (1, 2, 1, 3), (2, 2, 3, 3)]


def test_benchmarks_without_raw_files_are_left_out_before_the_total(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "usr").symlink_to(data_root / "usr")
    monkeypatch.setenv("COMPERBENCH_DATA", str(tmp_path))
    planned = plan(["length"])
    assert [p.bench.name for p in planned.levels] == ["usr-persona", "usr-topical"]
    assert "dstc7" in planned.missing and "needs the raw file" in planned.missing["dstc7"]
    assert planned.baselines == 2


def test_the_default_seed_leaves_the_encoder_metrics_to_full(data_root: Path) -> None:
    assert baseline_metrics("turn") == NGRAM_SUITE
    assert baseline_metrics("turn", full=True) == BASELINE_METRICS
    assert set(ENCODER_METRICS) <= set(BASELINE_METRICS)
    cheap = plan(benchmarks=["usr-persona"])
    full = plan(benchmarks=["usr-persona"], full=True)
    [names] = [[m.name for m in level.metrics] for level in cheap.levels]
    [every] = [[m.name for m in level.metrics] for level in full.levels]
    assert names == list(NGRAM_SUITE)
    assert every[len(names) :] == [f"{m}[all-MiniLM-L6-v2]" for m in ENCODER_METRICS]
    assert full.cpu_seconds > cheap.cpu_seconds + ENCODER_LOAD


def test_full_and_metrics_are_refused_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "lb.sqlite")
    with pytest.raises(SystemExit) as exited:
        main(["leaderboard", "seed", "--full", "--metrics", "length", "--db", db])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.slow
def test_seed_full_stores_the_encoder_baselines(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "lb.sqlite")
    Store(db)  # an existing database
    seed_full = ["leaderboard", "seed", "--full", "--benchmarks", "grade-dailydialog", "--db", db]
    assert main(seed_full) == 0
    out = capsys.readouterr().out
    assert "seeding 1 benchmark levels (300 items): 16 baselines, estimated" in out
    names = {s["name"] for s in Store(db).submissions()}
    assert {f"{m}[all-MiniLM-L6-v2]" for m in ENCODER_METRICS} <= names
    assert set(NGRAM_SUITE) <= names


def test_the_time_left_is_the_estimate_scaled_by_the_levels_done() -> None:
    count = SeedCount(levels=4, expected=10, estimate=100.0)
    assert count.line(0) == "seeding 0/4 benchmark levels, 0 of 10 baselines, 0:00 elapsed, " + (
        "about 1.7 min left"
    )
    count.levels_done, count.stored, count.estimated_done = 1, 3, 25.0
    # the first level took twice its estimate: the other 75 s of estimate take 150 s
    assert count.line(50).endswith("0:50 elapsed, about 2.5 min left")
    count.levels_done, count.stored = 4, 10
    assert count.line(200) == "seeding 4/4 benchmark levels, 10 of 10 baselines, 3:20 elapsed"


def test_the_seed_keeps_the_verdicts_of_the_views_the_app_opens_on(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comperbench.leaderboard import comparison
    from comperbench.leaderboard.seeding.verdicts import opening_views
    from comperbench.leaderboard.service import ranking

    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))  # no verdicts kept yet
    notes: list[str] = []
    store = Store(tmp_path / "lb.sqlite")
    seed(store, ["length", "f1"], ["usr-persona"], notes.append)
    assert notes[-1].startswith("kept the verdicts of 2 views the app opens on")
    views = opening_views("usr-persona")
    assert views == [
        ("usr-persona", "turn", "overall", "spearman"),
        ("usr-persona", "system", "overall", "spearman"),
    ]
    comparison._computed.cache_clear()  # as a server just started

    def computed(*args: object, **kwargs: object) -> None:
        raise AssertionError("a view's verdicts were computed, not read")

    monkeypatch.setattr(comparison, "metric_verdicts", computed)
    for view in views:
        assert [r.row.metric for r in ranking(store, *view)]  # read from disk
    with pytest.raises(AssertionError, match="computed, not read"):
        ranking(store, "usr-persona", "turn", "overall", "pearson")  # not an opening view
