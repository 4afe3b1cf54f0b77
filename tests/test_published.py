"""Published numbers held as regression tests: each must reproduce from the raw data within
`TOLERANCE`, or be a known difference with its established cause.

The values, each with its paper, table and cell, are in `comperbench/reproduction/published.py`;
`comperbench reproduce` prints the same comparison side by side.
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from comperbench import load_benchmark
from comperbench.benchmark import Benchmark
from comperbench.cli import main
from comperbench.reproduction.chateval_table import NCME_VOTES, RANKED, ncme_pair_wins
from comperbench.reproduction.known_differences import KNOWN_DIFFERENCES
from comperbench.reproduction.published import CORRELATIONS, TABLE6
from comperbench.reproduction.run import (
    ALL_CORRELATIONS,
    ALL_FACTS,
    REPRODUCED_BY,
    TOLERANCE,
    Reproduced,
    reproduce_correlations,
    reproduce_facts,
)

pytestmark = pytest.mark.slow

LOCAL = sorted({e.benchmark for e in (*ALL_CORRELATIONS, *ALL_FACTS)} - {"comperdial", "soda-eval"})
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
    rows = {
        r.what.rsplit(" ", 1)[1]: r
        for r in reproduced
        if r.benchmark == "liu-interactive" and r.what.startswith("Table 1 ")
    }
    assert {cell: r.status for cell, r in rows.items()} == {
        "PM-SOBA": "ok",
        "PM-SATA": "known",
        "MM-SOBA": "known",
        "MM-SATA": "known",
        "SM-SATA": "ok",
    }
    assert (rows["PM-SOBA"].ours, rows["SM-SATA"].ours) == (196, 126)


def test_table_6_of_the_interactive_paper() -> None:
    """The single-model intervals follow from the printed turns and win rates with the Wald
    interval `human selections` prints, except one bound of a rounded rate (a known
    difference); Wilson's interval would not give the printed bounds."""
    rows = {r.what: r for r in reproduce_facts(["liu-interactive"]) if "Table 6" in r.what}
    assert len(rows) == 8
    assert {w for w, r in rows.items() if r.status != "ok"} == {"Table 6 95% CI low, GPT2M-BST"}
    assert rows["Table 6 95% CI low, GPT2M-BST"].status == "known"
    wilson_off = 0
    for turns, rate, low, high in TABLE6.values():
        wilson = proportion_confint(rate * turns, turns, method="wilson")
        wilson_off += sum(abs(w - p) > TOLERANCE for w, p in zip(wilson, (low, high), strict=True))
    assert wilson_off >= 3


def test_every_known_difference_is_still_a_difference(reproduced: list[Reproduced]) -> None:
    used = {(r.benchmark, r.what) for r in reproduced if r.status == "known"}
    assert set(KNOWN_DIFFERENCES) == used


def test_the_protocol_is_what_makes_usr_reproduce(data_root: Path) -> None:
    """Without the protocol (ground truth kept) the published BLEU-4 cell is far off."""
    from comperbench.evaluation.run import evaluate_run
    from comperbench.metrics.runner import resolve_metrics, run_metrics
    from comperbench.stats.settings import Resampling

    none = Resampling(resamples=0)
    bench = load_benchmark("usr-topical", data_dir=data_root)
    result = run_metrics(bench, resolve_metrics("coco-bleu-4", "turn"))
    kept = evaluate_run(result, "overall", resampling=none, protocol=False).rows[0]
    applied = evaluate_run(result, "overall", resampling=none).rows[0]
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


def _published(benchmark: str, what: str) -> float:
    rows = reproduce_correlations([benchmark], _loader(Path("/nonexistent")))
    rows += reproduce_facts([benchmark], _loader(Path("/nonexistent")))
    return next(r.published for r in rows if r.what == what)


@pytest.mark.parametrize(
    ("benchmark", "what", "value"),
    [
        ("comperdial", "Table 4: CPDS-D w/o ref (GPT-4) overall system spearman", 0.928),
        ("comperdial", "Table 4: CPDS-D w/o ref (GPT-4) overall system kendall-b", 0.799),
        ("comperdial", "Table 4: FEDEn overall turn pearson", -0.009),
        ("comperdial", "Table 5: Human overall dialogue pearson", 0.855),
        ("comperdial", "Table 5: BLEU overall system spearman", 0.191),
        ("comperdial", "krippendorff-alpha turn", 0.56),
        ("comperdial", "krippendorff-alpha dialogue", 0.62),
        ("soda-eval", "Table 6: LLama-3-8B (SODA-EVAL finetuned) overall turn pearson", 0.5628),
        (
            "soda-eval",
            "Table 8 FED-Turn: GPT-4-Turbo (Instruction-tuned) overall turn pearson",
            0.6408,
        ),
        ("soda-eval", "Table 8 DSTC10-TC: UNIEVAL overall turn spearman", 0.3302),
        ("soda-eval", "validation inter-annotator spearman, revised", 0.8601),
        ("soda-eval", "explanation BLEU-4, Phi-3-mini-4k (SODA-EVAL finetuned)", 36.14),
    ],
)
def test_seed_cells_as_printed(benchmark: str, what: str, value: float) -> None:
    """Spot checks of the transcription against the papers' text."""
    assert _published(benchmark, what) == value


def test_seed_tables_are_complete_and_unique() -> None:
    seed = [e for e in ALL_CORRELATIONS if e.table]
    cells = [(e.benchmark, e.table, e.metric, e.level, e.statistic) for e in seed]
    assert len(cells) == len(set(cells))
    tables = {(e.benchmark, e.table) for e in ALL_CORRELATIONS if e.table}
    count = {t: sum(1 for e in ALL_CORRELATIONS if (e.benchmark, e.table) == t) for t in tables}
    assert count == {
        ("comperdial", "Table 4"): 17 * 6,
        ("comperdial", "Table 5"): 22 * 6,
        ("soda-eval", "Table 6"): 14 * 2,
        ("soda-eval", "Table 8 FED-Turn"): 9 * 2,
        ("soda-eval", "Table 8 DSTC10-TC"): 9 * 2,
    }
    assert len({f.quantity for f in ALL_FACTS if f.benchmark == "soda-eval"}) >= 4 + 13


def test_seed_tables_without_data_are_skipped_naming_the_file(tmp_path: Path) -> None:
    load = _loader(tmp_path)
    rows = reproduce_correlations(["comperdial", "soda-eval"], load)
    rows += reproduce_facts(["comperdial", "soda-eval"], load)
    seed = [r for r in rows if r.what.startswith("Table") or "alpha" in r.what]
    assert len(seed) == 102 + 132 + 28 + 36 + 2
    for r in rows:
        assert r.status == "skipped" and r.ours is None
        expected = "comperdial/ComperDial_data.json" if r.benchmark == "comperdial" else "README"
        assert "needs the raw file" in (r.skipped or "") and expected in (r.skipped or "")


def _interval_alpha(units: list[list[float]]) -> float:
    """Krippendorff's interval alpha written out from its definition."""
    pairable = [u for u in units if len(u) >= 2]
    values = [v for u in pairable for v in u]
    n = len(values)
    observed = sum(
        sum((a - b) ** 2 for a, b in permutations(u, 2)) / (len(u) - 1) for u in pairable
    )
    expected = sum((a - b) ** 2 for a, b in permutations(values, 2)) / (n - 1)
    return 1 - observed / expected


def test_seed_cells_on_files_in_the_published_layout(tmp_path: Path) -> None:
    """On the fixtures the agreement is computed (as defined) and the judge cells say why they
    are not."""
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "comperdial", root / "comperdial")
    load = _loader(root)
    facts = {r.what: r for r in reproduce_facts(["comperdial"], load)}
    turns = json.loads((root / "comperdial" / "ComperDial_turn_level_evaluation.json").read_text())
    expected = _interval_alpha([[float(v) for v in t["scores"] if v is not None] for t in turns])
    assert facts["krippendorff-alpha turn"].ours == pytest.approx(expected, abs=1e-12)
    assert np.isfinite(facts["krippendorff-alpha dialogue"].ours or np.nan)
    cells = reproduce_correlations(["comperdial"], load)
    assert cells and all(r.status == "skipped" for r in cells)
    assert all("has no metric that computes" in (r.skipped or "") for r in cells)


def test_chateval_findings_from_its_vote_table() -> None:
    """The NCME order by pairwise wins follows from Table 4; the two places where the paper
    breaks a tie in win count are known differences; kappa needs unpublished votes."""
    rows = {r.what: r for r in reproduce_facts(["chateval-ncme"])}
    assert {w for w, r in rows.items() if r.status == "known"} == {
        "rank by pairwise wins, NCME human 2",
        "rank by pairwise wins, OpenNMT(Twitter)",
    }
    assert {w for w, r in rows.items() if r.status == "skipped"} == {
        "Fleiss' kappa, lowest",
        "Fleiss' kappa, highest",
    }
    assert all(r.status == "ok" for w, r in rows.items() if w.startswith(("pairwise", "vote")))


def test_chateval_pair_wins_count_every_decided_pair_once() -> None:
    table = ncme_pair_wins()
    ranked = set(RANKED)
    decided = [r for r in NCME_VOTES if {r[0], r[1]} <= ranked and r[2] != r[3]]
    assert len(table) == 10 and table["wins"].sum() == table["losses"].sum() == len(decided)
    assert table.loc["Blender(2.7B)"].tolist() == [8, 1]
