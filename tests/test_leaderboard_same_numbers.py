"""One metric on one benchmark has one value and one n: `evaluate`, the seeded leaderboard
(`leaderboard show`, the placings `submit` prints) and the app's ranking read the same numbers,
under the protocol `evaluate` applies (a reference-free metric keeps USR's ground truth; a
metric missing a few unreadable items, ROUGE on DSTC7, is ranked on the items it scored)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import comperbench
from comperbench.benchmark import get_metadata, load_benchmark
from comperbench.leaderboard.comparison import view_verdicts
from comperbench.leaderboard.seeding.baselines import seed
from comperbench.leaderboard.service import ranking, unranked
from comperbench.leaderboard.store import Store
from comperbench.leaderboard.web.views import ranking_frame

METRICS = ["bleu-4", "chrf", "rouge-l", "length"]
STATISTICS = ["pearson", "spearman"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def seeded(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("same") / "lb.sqlite")
    seed(store, METRICS, ["usr-topical", "dstc7"], progress=lambda _: None)
    return store


@pytest.mark.parametrize("benchmark", ["usr-topical", "dstc7"])
def test_evaluate_show_and_the_app_agree_on_every_seeded_baseline(
    seeded: Store, benchmark: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    level = get_metadata(benchmark).stored_levels[0]
    aspect = get_metadata(benchmark).default_aspect
    evaluation = comperbench.evaluate(load_benchmark(benchmark, level), METRICS)
    expected = {row["metric"]: row for row in evaluation.table.rows}
    for statistic in STATISTICS:
        view = (seeded, benchmark, level, aspect, statistic)
        ranked = ranking(*view)
        assert unranked(*view) == []
        shown = {r.row.metric: r.row for r in ranked}
        assert sorted(shown) == sorted(METRICS)
        for metric, row in shown.items():
            assert row.n == expected[metric]["n"], (metric, statistic)
            assert row.value == pytest.approx(expected[metric][statistic], abs=1e-12)
        frame = ranking_frame(ranked, benchmark)
        assert frame["n"].tolist() == [r.row.n for r in ranked]
        argv = ["leaderboard", "show", benchmark, "--db", str(seeded.path)]
        assert main([*argv, "--statistic", statistic, "--json"]) == 0
        listed = {e["metric"]: e for e in json.loads(capsys.readouterr().out)["ranked"]}
        for metric, entry in listed.items():
            assert (entry["value"], entry["n"]) == (shown[metric].value, shown[metric].n)


def test_rouge_on_dstc7_is_ranked_on_the_items_it_scored(seeded: Store) -> None:
    ranked = ranking(seeded, "dstc7", "turn", get_metadata("dstc7").default_aspect, "spearman")
    n = {r.row.metric: r.row.n for r in ranked}
    assert n["rouge-l"] == 9_538 and n["bleu-4"] == 9_540 and n["length"] == 10_000


@pytest.mark.parametrize("level", ["turn", "system"])
def test_the_leader_shown_is_the_leader_of_every_verdict(seeded: Store, level: str) -> None:
    """length is correlated on USR's ground truth too, the reference-based metrics without it,
    and their tests on the items all share: the row ranked first has no p vs leader, and the
    verdicts place every row where the ranking does."""
    for statistic in STATISTICS:
        view = (seeded, "usr-topical", level, "overall", statistic)
        ranked = ranking(*view)
        verdicts = view_verdicts(*view, [r.row for r in ranked])
        assert verdicts.metrics == [str(r.row.metric_id) for r in ranked]
        for r in ranked:
            assert verdicts.ranks[verdicts.index(str(r.row.metric_id))] == r.rank
            assert math.isnan(r.p_vs_leader) == (r.rank == 1), (statistic, r.row.metric)
    n = {
        r.row.metric: r.row.n for r in ranking(seeded, "usr-topical", "turn", "overall", "spearman")
    }
    assert n["length"] == 360 and n["bleu-4"] == 300
