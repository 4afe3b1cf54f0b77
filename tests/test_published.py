"""Published numbers held as regression tests: each must reproduce from the raw data within
`TOLERANCE`, or be a known difference with its established cause.

The values, each with its paper, table and cell, are in `comperbench/reproduction/published.py`;
`comperbench reproduce` prints the same comparison side by side.
"""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest

from comperbench import load_benchmark
from comperbench.benchmark import Benchmark
from comperbench.cli import main
from comperbench.reproduction.known_differences import KNOWN_DIFFERENCES
from comperbench.reproduction.published import CORRELATIONS, FACTS
from comperbench.reproduction.run import (
    REPRODUCED_BY,
    TOLERANCE,
    Reproduced,
    reproduce_correlations,
    reproduce_facts,
)

pytestmark = pytest.mark.slow

LOCAL = sorted({e.benchmark for e in (*CORRELATIONS, *FACTS)} - {"comperdial", "soda-eval"})
WITH_CORRELATIONS = sorted({e.benchmark for e in CORRELATIONS} & set(LOCAL))
FIXTURES = Path(__file__).parent / "fixtures"


def _loader(root: Path):
    @cache
    def load(name: str, level: str | None, split: str | None = None) -> Benchmark:
        return load_benchmark(name, level, split, data_dir=root)

    return load


@pytest.fixture(scope="module")
def reproduced(data_root: Path) -> list[Reproduced]:
    load = _loader(data_root)
    return reproduce_correlations(LOCAL, load) + reproduce_facts(LOCAL, load)


def _failures(rows: list[Reproduced]) -> list[str]:
    return [
        f"{r.benchmark} {r.what}: published {r.published}, ours {r.ours} ({r.source})"
        for r in rows
        if r.status not in ("ok", "known")
    ]


@pytest.mark.parametrize("name", WITH_CORRELATIONS)
def test_published_correlations_reproduce(reproduced: list[Reproduced], name: str) -> None:
    rows = [r for r in reproduced if r.benchmark == name and r.what.split()[0] in REPRODUCED_BY]
    assert rows, f"no published correlation of {name}"
    assert _failures(rows) == []
    agreeing = [r for r in rows if r.status == "ok"]
    assert all(abs(r.difference or 0) <= TOLERANCE for r in agreeing)


def test_published_turn_level_usr_cells_to_the_printed_precision(
    reproduced: list[Reproduced],
) -> None:
    """USR's Tables 5 and 6 print four decimals: ours agree to their rounding."""
    cells = [r for r in reproduced if r.benchmark.startswith("usr") and " turn " in r.what]
    usr_paper = [r for r in cells if r.source.startswith("Mehri") and r.status == "ok"]
    assert len(usr_paper) >= 30
    assert max(abs(r.difference or 0) for r in usr_paper) <= 1.5e-4


@pytest.mark.parametrize("name", ["usr-topical", "usr-persona"])
def test_published_facts_reproduce(reproduced: list[Reproduced], name: str) -> None:
    facts = [
        r for r in reproduced if r.benchmark == name and r.what.split()[0] not in REPRODUCED_BY
    ]
    assert len(facts) >= 15
    assert _failures(facts) == []


def test_table_1_of_the_interactive_paper(reproduced: list[Reproduced]) -> None:
    """196 and 126 reproduce exactly; the other three cells need parameters the paper does not
    print, each named in its known difference."""
    rows = {r.what.rsplit(" ", 1)[1]: r for r in reproduced if r.benchmark == "liu-interactive"}
    assert {cell: r.status for cell, r in rows.items()} == {
        "PM-SOBA": "ok",
        "PM-SATA": "known",
        "MM-SOBA": "known",
        "MM-SATA": "known",
        "SM-SATA": "ok",
    }
    assert (rows["PM-SOBA"].ours, rows["SM-SATA"].ours) == (196, 126)


def test_every_known_difference_is_still_a_difference(reproduced: list[Reproduced]) -> None:
    used = {(r.benchmark, r.what) for r in reproduced if r.status == "known"}
    assert set(KNOWN_DIFFERENCES) == used


def test_the_protocol_is_what_makes_usr_reproduce(data_root: Path) -> None:
    """Without the protocol (ground truth kept) the published BLEU-4 cell is far off."""
    from comperbench.evaluation import evaluate_run
    from comperbench.metrics.runner import resolve_metrics, run_metrics

    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("coco-bleu-4", "turn"))
    kept = evaluate_run(result, "overall", n_resamples=0, apply_protocol=False).rows[0]
    applied = evaluate_run(result, "overall", n_resamples=0).rows[0]
    assert applied["pearson"] == pytest.approx(0.2160, abs=1e-4)
    assert abs(kept["pearson"] - 0.2160) > 0.1


def test_hub_only_benchmarks_are_skipped_with_the_reason(tmp_path: Path) -> None:
    rows = reproduce_facts(["comperdial", "soda-eval"], _loader(tmp_path))
    assert rows and all(r.ours is None and r.status == "skipped" for r in rows)
    missing = [r for r in rows if "documented only" not in (r.skipped or "")]
    assert all("needs the raw file" in (r.skipped or "") for r in missing)


def test_hub_only_entries_run_when_the_files_are_present(tmp_path: Path) -> None:
    """On files in the published layout (the fixtures) the counts are computed, not skipped."""
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "comperdial", root / "comperdial")
    rows = {r.what: r for r in reproduce_facts(["comperdial"], _loader(root))}
    assert rows["turn-level items"].ours == len(load_benchmark("comperdial", data_dir=root))
    assert rows["systems"].ours is not None and rows["systems"].status == "differs"
    assert rows["dialogue models"].status == "skipped"


def test_reproduce_command_prints_published_ours_and_difference(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reproduce", "--benchmark", "grade-convai2", "--sources"]) == 0
    out = capsys.readouterr().out
    assert "published cell" in out and "difference" in out
    assert "BLEU-4 relevance turn pearson" in out and "0 unexplained" in out
    assert "Yeh, Eskenazi & Mehri (2021)" in out
