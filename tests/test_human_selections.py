"""Per-turn selections (SOBA, SATA): the file format and its located errors, and every statistic
of `analyse_selections` against an independent implementation (scipy, statsmodels, choix) on
seeded synthetic selections."""

from __future__ import annotations

import csv
import json
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from comperbench.cli import main
from comperbench.common.errors import DataFormatError
from comperbench.human_io.selections import SELECTION_COLUMNS, read_selections
from comperbench.stats.human.judgments.selection_analysis import (
    SelectionAnalysis,
    analyse_selections,
)
from comperbench.stats.settings import Resampling

SYSTEMS = ("bot-a", "bot-b", "bot-c", "bot-d")
FAVOURED = "bot-c"
"""Not the alphabetically first system, so that ordering by name cannot pass for ordering by
rating."""
FAST = {"resampling": Resampling(20), "permutations": 20}
CLI_FAST = ["--resamples", "20", "--permutations", "20"]
HEADER = ",".join(SELECTION_COLUMNS) + "\n"


# --- synthetic selections ---------------------------------------------------------------------


def _where(i: int) -> dict:
    """Dialogue, turn and annotator of the i-th row: two annotators judge every (dialogue, turn),
    so that turns (the resampling units) hold more than one judgment."""
    return {"dialogue": f"d{i // 10}", "turn": i % 5 + 1, "annotator": f"u{(i // 5) % 2}"}


def _shown(rng: np.random.Generator, systems: tuple[str, ...], drop: float) -> list[str]:
    """Every system, or with probability `drop` all but one; in a random order."""
    shown = list(systems)
    if drop and rng.random() < drop:
        shown.pop(int(rng.integers(len(shown))))
    return [str(s) for s in rng.permutation(shown)]


def soba_rows(
    seed: int, n: int, weights: dict[str, float], drop: float = 0.0
) -> list[dict[str, object]]:
    """SOBA turns: the selected system drawn in proportion to `weights` among those shown."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        shown = _shown(rng, tuple(weights), drop)
        w = np.array([weights[s] for s in shown])
        selected = [str(rng.choice(shown, p=w / w.sum()))]
        rows.append({**_where(i), "shown": shown, "selected": selected, "setting": "soba"})
    return rows


def sata_rows(
    seed: int, n: int, chances: dict[str, float], drop: float = 0.0
) -> list[dict[str, object]]:
    """SATA turns: each system shown is selected on its own with its chance (possibly none)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        shown = _shown(rng, tuple(chances), drop)
        selected = [s for s in shown if rng.random() < chances[s]]
        rows.append({**_where(i), "shown": shown, "selected": selected, "setting": "sata"})
    return rows


def write_csv(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(SELECTION_COLUMNS))
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {**row, "shown": "|".join(row["shown"]), "selected": "|".join(row["selected"])}
            )
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    pd.DataFrame(rows, columns=list(SELECTION_COLUMNS)).to_parquet(path, index=False)
    return path


def analysed(path: Path, setting: str, **options: object) -> SelectionAnalysis:
    return analyse_selections(read_selections(path), setting, **FAST, **options)


def pair(found: SelectionAnalysis, a: str, b: str) -> pd.Series:
    """The row of the pair (a, b), a before b alphabetically, in `comparisons.pairs`."""
    pairs = found.votes.pairs
    match = pairs[(pairs["system_a"] == a) & (pairs["system_b"] == b)]
    assert len(match) == 1, (a, b, pairs)
    return match.iloc[0]


def soba_pair_counts(rows: list[dict], a: str, b: str) -> tuple[int, int]:
    """(turns selecting a, turns selecting b) among the turns that showed both."""
    both = [r for r in rows if a in r["shown"] and b in r["shown"]]
    return (
        sum(r["selected"] == [a] for r in both),
        sum(r["selected"] == [b] for r in both),
    )


def sata_table(rows: list[dict], a: str, b: str) -> np.ndarray:
    """The 2x2 table of the turns that showed both: rows a selected / not, columns b."""
    table = np.zeros((2, 2), dtype=int)
    for r in rows:
        if a in r["shown"] and b in r["shown"]:
            table[int(a not in r["selected"]), int(b not in r["selected"])] += 1
    return table


# --- 1, 2: SOBA -------------------------------------------------------------------------------


def test_soba_two_systems_is_the_exact_binomial_test(tmp_path: Path) -> None:
    rows = soba_rows(1, 200, {"bot-a": 1.0, "bot-b": 1.6})
    found = analysed(write_csv(tmp_path / "s.csv", rows), "soba")
    k = sum(r["selected"] == ["bot-a"] for r in rows)
    row = pair(found, "bot-a", "bot-b")
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (k, 200 - k, 0)
    assert row["sign_p"] == pytest.approx(sps.binomtest(k, 200, 0.5).pvalue, rel=1e-12)
    assert row["sign_p"] < 0.05  # bot-b is favoured 1.6 : 1
    assert found.omnibus is None and found.omnibus_note is None
    assert found.turns == 200


def test_soba_every_system_shown_is_pearsons_goodness_of_fit_to_equal_chances(
    tmp_path: Path,
) -> None:
    rows = soba_rows(2, 200, {"bot-a": 1.0, "bot-b": 1.0, FAVOURED: 1.8, "bot-d": 1.0})
    found = analysed(write_csv(tmp_path / "s.csv", rows), "soba")
    counts = [sum(r["selected"] == [s] for r in rows) for s in SYSTEMS]
    expected = sps.chisquare(counts)
    assert found.omnibus is not None
    assert found.omnibus.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert found.omnibus.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert (found.omnibus.dof, found.omnibus.n) == (3, 200)
    assert found.omnibus_note is None
    # each pair: the binomial test on the turns where one of the two was selected, Holm-adjusted
    p = []
    for a, b in combinations(SYSTEMS, 2):
        wins_a, wins_b = soba_pair_counts(rows, a, b)
        row = pair(found, a, b)
        assert (row["wins_a"], row["wins_b"], row["ties"]) == (wins_a, wins_b, 0)
        p.append(sps.binomtest(wins_a, wins_a + wins_b, 0.5).pvalue)
        assert row["sign_p"] == pytest.approx(p[-1], rel=1e-12)
    holm = multipletests(p, method="holm")[1]
    got = [pair(found, a, b)["sign_p_adjusted"] for a, b in combinations(SYSTEMS, 2)]
    np.testing.assert_allclose(got, holm, rtol=1e-12)


def test_soba_varying_shown_sets_expect_one_over_the_number_shown(tmp_path: Path) -> None:
    rows = soba_rows(3, 200, {"bot-a": 1.0, "bot-b": 1.0, FAVOURED: 1.8, "bot-d": 1.0}, 0.4)
    assert 40 < sum(len(r["shown"]) == 3 for r in rows) < 160
    found = analysed(write_jsonl(tmp_path / "s.jsonl", rows), "soba")
    observed = np.array([sum(r["selected"] == [s] for r in rows) for s in SYSTEMS], float)
    expected = np.zeros(len(SYSTEMS))
    for r in rows:
        for s in r["shown"]:
            expected[SYSTEMS.index(s)] += 1 / len(r["shown"])
    assert expected.sum() == pytest.approx(200)
    oracle = sps.chisquare(observed, expected)
    assert found.omnibus is not None
    assert found.omnibus.statistic == pytest.approx(oracle.statistic, rel=1e-12)
    assert found.omnibus.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert (found.omnibus.dof, found.omnibus.n) == (3, 200)
    # the expectation matters: the uniform one would give another statistic
    assert found.omnibus.statistic != pytest.approx(sps.chisquare(observed).statistic, rel=1e-3)
    # a pair's binomial test counts only the turns that showed both
    wins_a, wins_b = soba_pair_counts(rows, "bot-a", FAVOURED)
    row = pair(found, "bot-a", FAVOURED)
    assert (row["wins_a"], row["wins_b"]) == (wins_a, wins_b)
    assert row["sign_p"] == pytest.approx(sps.binomtest(wins_a, wins_a + wins_b).pvalue)


# --- 3, 4: SATA -------------------------------------------------------------------------------


def test_sata_two_systems_is_mcnemars_exact_test(tmp_path: Path) -> None:
    rows = sata_rows(4, 200, {"bot-a": 0.45, "bot-b": 0.6})
    found = analysed(write_csv(tmp_path / "s.csv", rows), "sata")
    table = sata_table(rows, "bot-a", "bot-b")
    assert table.sum() == 200 and table[0, 1] + table[1, 0] > 0
    row = pair(found, "bot-a", "bot-b")
    # a selected and b not: a wins; both or neither: a tie
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (
        table[0, 1],
        table[1, 0],
        table[0, 0] + table[1, 1],
    )
    assert row["sign_p"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    assert found.omnibus is None and found.omnibus_note is None


def test_sata_four_systems_is_cochrans_q_then_holm_adjusted_mcnemar(tmp_path: Path) -> None:
    chances = {"bot-a": 0.5, "bot-b": 0.45, FAVOURED: 0.7, "bot-d": 0.5}
    rows = sata_rows(5, 200, chances, drop=0.2)
    partial = sum(len(r["shown"]) < len(SYSTEMS) for r in rows)
    assert 10 < partial < 100
    found = analysed(write_csv(tmp_path / "s.csv", rows), "sata")
    complete = [r for r in rows if len(r["shown"]) == len(SYSTEMS)]
    matrix = np.array([[s in r["selected"] for s in SYSTEMS] for r in complete], dtype=int)
    oracle = cochrans_q(matrix)
    assert found.omnibus is not None
    assert found.omnibus.statistic == pytest.approx(oracle.statistic, rel=1e-12)
    assert found.omnibus.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert (found.omnibus.dof, found.omnibus.n) == (oracle.df, 200 - partial)
    assert found.omnibus_note == f"{partial} turns that did not show every system are left out"
    # every pair on every turn that showed both, as one Holm family
    pairs = list(combinations(SYSTEMS, 2))
    p = [mcnemar(sata_table(rows, a, b), exact=True).pvalue for a, b in pairs]
    got = [pair(found, a, b)["sign_p"] for a, b in pairs]
    adjusted = [pair(found, a, b)["sign_p_adjusted"] for a, b in pairs]
    np.testing.assert_allclose(got, p, rtol=1e-9)
    np.testing.assert_allclose(adjusted, multipletests(p, method="holm")[1], rtol=1e-9)
    assert min(adjusted) < 0.05  # the favoured system stands out


def test_sata_cochrans_q_needs_two_turns_showing_every_system(tmp_path: Path) -> None:
    rows = sata_rows(6, 40, {s: 0.5 for s in SYSTEMS}, drop=1.0)
    rows[0] = {**rows[0], "shown": list(SYSTEMS), "selected": ["bot-a"]}
    found = analysed(write_csv(tmp_path / "s.csv", rows), "sata")
    assert found.omnibus is None
    assert found.omnibus_note == "fewer than two turns showed every system (1)"


# --- 5: selection rates -----------------------------------------------------------------------


@pytest.mark.parametrize("setting", ["soba", "sata"])
def test_selection_rates_wilson_intervals_and_the_expected_rate_test(
    tmp_path: Path, setting: str
) -> None:
    if setting == "soba":
        rows = soba_rows(7, 200, {"bot-a": 1.0, "bot-b": 0.5, FAVOURED: 2.5, "bot-d": 1.0}, 0.3)
    else:
        rows = sata_rows(7, 200, {"bot-a": 0.8, "bot-b": 0.65, FAVOURED: 0.9, "bot-d": 0.75}, 0.3)
    found = analysed(write_csv(tmp_path / "s.csv", rows), setting, expected=0.8)
    assert list(found.rates.index) == list(SYSTEMS)
    p = []
    for s in SYSTEMS:
        n = sum(s in r["shown"] for r in rows)
        count = sum(s in r["selected"] for r in rows)
        got = found.rates.loc[s]
        assert (got["n"], got["count"]) == (n, count)
        assert got["rate"] == pytest.approx(count / n, rel=1e-12)
        low, high = proportion_confint(count, n, alpha=0.05, method="wilson")
        assert (got["low"], got["high"]) == (pytest.approx(low), pytest.approx(high))
        tested = found.expected.loc[s]
        assert (tested["successes"], tested["n"]) == (count, n)
        p.append(sps.binomtest(count, n, 0.8).pvalue)
        assert tested["p_value"] == pytest.approx(p[-1], rel=1e-9)
        exact_low, exact_high = proportion_confint(count, n, alpha=0.05, method="beta")
        assert tested["exact_low"] == pytest.approx(exact_low, rel=1e-7)
        assert tested["exact_high"] == pytest.approx(exact_high, rel=1e-7)
    np.testing.assert_allclose(
        found.expected["p_adjusted"], multipletests(p, method="holm")[1], rtol=1e-9
    )


def test_expected_rate_through_the_cli_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = sata_rows(8, 200, {"bot-a": 0.8, "bot-b": 0.65, FAVOURED: 0.9, "bot-d": 0.75})
    path = write_csv(tmp_path / "s.csv", rows)
    argv = ["human", "selections", "--file", str(path), *CLI_FAST, "--expected", "0.8", "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload["settings"]) == {"sata"}
    tests = {r["system"]: r for r in payload["settings"]["sata"]["expected"]}
    for s in SYSTEMS:
        count = sum(s in r["selected"] for r in rows)
        assert tests[s]["successes"] == count and tests[s]["n"] == 200
        assert tests[s]["p_value"] == pytest.approx(sps.binomtest(count, 200, 0.8).pvalue)


# --- 6: ratings -------------------------------------------------------------------------------

SOBA_WEIGHTS = {"bot-a": 1.0, "bot-b": 0.6, FAVOURED: 2.5, "bot-d": 1.2}


def test_ratings_from_soba_order_the_favoured_system_first(tmp_path: Path) -> None:
    rows = soba_rows(9, 200, SOBA_WEIGHTS, drop=0.3)
    found = analysed(write_csv(tmp_path / "s.csv", rows), "soba")
    assert set(found.votes.ratings) == {"Bradley-Terry", "Elo", "TrueSkill"}
    for name, rated in found.votes.ratings.items():
        assert rated.table.index[0] == FAVOURED, name
    bt = found.votes.ratings["Bradley-Terry"].table
    assert bt["rating"].mean() == pytest.approx(0, abs=1e-9)
    # the true log-strengths, centred, are within reach of 200 turns
    truth = np.log([SOBA_WEIGHTS[s] for s in SYSTEMS])
    estimate = bt.loc[list(SYSTEMS), "rating"].to_numpy()
    assert np.max(np.abs(estimate - (truth - truth.mean()))) < 0.5


def test_bradley_terry_equals_choix_on_the_same_comparisons(tmp_path: Path) -> None:
    choix = pytest.importorskip("choix")
    rows = soba_rows(10, 200, SOBA_WEIGHTS, drop=0.3)
    found = analysed(write_csv(tmp_path / "s.csv", rows), "soba")
    # SOBA never ties: the selected system beats every other one shown
    data = [
        (SYSTEMS.index(r["selected"][0]), SYSTEMS.index(other))
        for r in rows
        for other in r["shown"]
        if other != r["selected"][0]
    ]
    assert len(data) == found.votes.comparisons.a.size
    assert not (found.votes.comparisons.outcome == 0.5).any()
    params = choix.ilsr_pairwise(len(SYSTEMS), data, alpha=0.0, max_iter=10_000, tol=1e-12)
    bt = found.votes.ratings["Bradley-Terry"].table
    np.testing.assert_allclose(
        bt.loc[list(SYSTEMS), "rating"].to_numpy(), params - params.mean(), atol=1e-6
    )


# --- 7: formats and row order -----------------------------------------------------------------


def _same_analysis(one: SelectionAnalysis, other: SelectionAnalysis) -> None:
    assert (one.setting, one.turns) == (other.setting, other.turns)
    pd.testing.assert_frame_equal(one.rates, other.rates)
    pd.testing.assert_frame_equal(one.votes.pairs, other.votes.pairs)
    pd.testing.assert_frame_equal(one.votes.win_tie_loss, other.votes.win_tie_loss)
    assert one.omnibus_note == other.omnibus_note
    if one.omnibus is None or other.omnibus is None:
        assert one.omnibus is other.omnibus
    else:  # the expected counts of SOBA are sums of 1/len(shown) in row order
        assert (one.omnibus.dof, one.omnibus.n) == (other.omnibus.dof, other.omnibus.n)
        assert one.omnibus.statistic == pytest.approx(other.omnibus.statistic, rel=1e-12)
        assert one.omnibus.p_value == pytest.approx(other.omnibus.p_value, rel=1e-9)
    assert one.votes.ratings.keys() == other.votes.ratings.keys()
    for name, rated in one.votes.ratings.items():
        pd.testing.assert_frame_equal(rated.table, other.votes.ratings[name].table)
        assert rated.signature == other.votes.ratings[name].signature


def _mixed_rows() -> list[dict]:
    soba = soba_rows(11, 120, SOBA_WEIGHTS, drop=0.3)
    sata = sata_rows(12, 120, {"bot-a": 0.5, "bot-b": 0.3, FAVOURED: 0.7, "bot-d": 0.4}, 0.3)
    for row in sata:  # other dialogues than the SOBA ones
        row["dialogue"] = "x" + str(row["dialogue"])
    return soba + sata


def test_csv_jsonl_and_parquet_give_identical_analyses(tmp_path: Path) -> None:
    rows = _mixed_rows()
    assert any(not r["selected"] for r in rows)  # SATA turns selecting none are in every format
    paths = [
        write_csv(tmp_path / "s.csv", rows),
        write_jsonl(tmp_path / "s.jsonl", rows),
        write_parquet(tmp_path / "s.parquet", rows),
    ]
    tables = [read_selections(p) for p in paths]
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])
    assert tables[0]["shown"].map(type).eq(tuple).all()
    for setting in ("soba", "sata"):
        first = analysed(paths[0], setting, expected=0.3)
        for path in paths[1:]:
            other = analysed(path, setting, expected=0.3)
            _same_analysis(first, other)
            pd.testing.assert_frame_equal(first.expected, other.expected)


def test_row_order_does_not_change_the_analysis(tmp_path: Path) -> None:
    rows = _mixed_rows()
    order = np.random.default_rng(13).permutation(len(rows))
    shuffled = [rows[i] for i in order]
    assert shuffled != rows
    given = write_csv(tmp_path / "given.csv", rows)
    moved = write_jsonl(tmp_path / "moved.jsonl", shuffled)
    for setting in ("soba", "sata"):
        _same_analysis(analysed(given, setting), analysed(moved, setting))


# --- 8: located errors through the CLI --------------------------------------------------------

GOOD = "d1,1,A|B|C,B,u1,soba\n"


@pytest.mark.parametrize(
    ("body", "name", "where", "message"),
    [
        (HEADER + GOOD + "d1,2,A|B,A,u1,best\n", "s.csv", "line 3, field 'setting'", "unknown setting 'best'"),
        (HEADER + GOOD + "d1,2,A|B|C,A|C,u1,soba\n", "s.csv", "line 3, field 'selected'", "selects exactly one system; this one selects 2"),
        (HEADER + "d1,2,A|B|C,,u1,soba\n", "s.csv", "line 2, field 'selected'", "selects exactly one system; this one selects 0"),
        (HEADER + GOOD + "d1,2,A|B,C,u1,sata\n", "s.csv", "line 3, field 'selected'", "selected system 'C' was not shown"),
        (HEADER + GOOD + "d2,1,A|B,A,u1,soba\n" + "d1,1,A|B,B,u1,sata\n", "s.csv", "line 4, field 'annotator'", "annotator 'u1' judges dialogue 'd1', turn '1' again (first at line 2)"),
        (HEADER + GOOD + "d1,2,A,A,u1,soba\n", "s.csv", "line 3, field 'shown'", "1 system(s) shown; a SOBA turn needs at least 2"),
        (HEADER + "d1,2,,,u1,sata\n", "s.csv", "line 2, field 'shown'", "0 system(s) shown"),
        (HEADER + GOOD + "d1,2,A|B|A,A,u1,soba\n", "s.csv", "line 3, field 'shown'", "system 'A' is listed twice"),
        (HEADER + GOOD + "d1,2,A|B|C,A|A,u1,sata\n", "s.csv", "line 3, field 'selected'", "system 'A' is listed twice"),
        (HEADER + GOOD + "d1,2,A||C,A,u1,soba\n", "s.csv", "line 3, field 'shown'", "an empty system name"),
        (HEADER + GOOD + "d1,2,A|B,A,,soba\n", "s.csv", "line 3, field 'annotator'", "missing annotator"),
        # blank lines are skipped but counted: lines are the file's own
        (HEADER + GOOD + "\n\n" + "d1,2,A|B,A,u1,best\n", "s.csv", "line 5, field 'setting'", "unknown setting"),
        ("dialogue,turn,shown,selected,annotator\n" + GOOD, "s.csv", "line 1", "missing column(s) setting"),
        ("", "s.csv", "", "empty file: expected a header line"),
        (HEADER, "s.csv", "", "no selection rows"),
        (HEADER + GOOD, "s.txt", "", "unknown file type '.txt'; use .csv, .jsonl or .parquet"),
        ('{"dialogue": "d1", "turn": 1, "shown": ["A", "B"], "selected": ["A", "B"], '
         '"annotator": "u1", "setting": "soba"}\n', "s.jsonl", "line 1, field 'selected'", "this one selects 2"),
        ('\n{"dialogue": "d1", "turn": 1, "shown": {"A": 1}, "selected": [], '
         '"annotator": "u1", "setting": "sata"}\n', "s.jsonl", "line 2, field 'shown'", "expected text, got a nested value"),
    ],
)  # fmt: skip
def test_bad_files_fail_on_the_cli_naming_file_line_and_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    body: str,
    name: str,
    where: str,
    message: str,
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    located = f"file {path}, {where}" if where else f"file {path}"
    assert err.startswith(f"comperbench: error: {located}: "), err
    assert message in err
    with pytest.raises(DataFormatError, match="^" + re.escape(located)):
        read_selections(path)


def test_a_bad_parquet_record_is_named_by_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = sata_rows(14, 5, {"A": 0.5, "B": 0.5})
    rows[3]["selected"] = ["C"]
    path = write_parquet(tmp_path / "s.parquet", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"comperbench: error: file {path}, record 4, field 'selected': ")
    assert "selected system 'C' was not shown" in err
    pd.DataFrame(rows).drop(columns="shown").to_parquet(path)
    assert main(["human", "selections", "--file", str(path)]) == 2
    assert "missing column(s) shown" in capsys.readouterr().err


def test_a_jsonl_record_without_selected_is_an_error(tmp_path: Path) -> None:
    row = {"dialogue": "d1", "turn": 1, "shown": ["A", "B"], "annotator": "u", "setting": "sata"}
    path = write_jsonl(tmp_path / "s.jsonl", [row, {**row, "turn": 2, "selection": ["A"]}])
    with pytest.raises(DataFormatError, match="line 1, field 'selected'"):
        read_selections(path)


# --- 9: the template --------------------------------------------------------------------------


def test_the_template_reads_back_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["human", "template", "selections"]) == 0
    template = capsys.readouterr().out
    path = tmp_path / "template.csv"
    path.write_text(template, encoding="utf-8")
    table = read_selections(path)
    assert sorted(table["setting"].unique()) == ["sata", "soba"]
    assert ((table["setting"] == "soba") <= (table["selected"].map(len) == 1)).all()

    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 0
    out, err = capsys.readouterr()
    assert "SOBA (select one best)" in out and "SATA (select all that apply)" in out
    assert "== single response (SATA, one response shown): 2 judged turns" in out
    assert out.count("cascading: ") == 3 and out.count("anchoring: ") == 2
    assert err == ""

    assert main(["human", "selections", "--file", str(path), *CLI_FAST, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload["settings"]) == {"soba", "sata", "single"}
    single = table["shown"].map(len) == 1
    assert payload["settings"].pop("single")["turns"] == int(single.sum())
    for setting, found in payload["settings"].items():
        mine = table[(table["setting"] == setting) & ~single]
        assert found["turns"] == len(mine)
        assert {r["system"] for r in found["selection_rates"]} == set(mine["shown"].explode())


def test_sata_tie_wins_and_tie_losses_are_kept_apart(tmp_path: Path) -> None:
    rows = sata_rows(seed=11, n=120, chances={"bot-a": 0.7, "bot-b": 0.4, "bot-c": 0.5}, drop=0.3)
    found = analysed(write_csv(tmp_path / "sata.csv", rows), "sata")
    ties = found.ties.set_index(["system_a", "system_b"])
    for a, b in combinations(("bot-a", "bot-b", "bot-c"), 2):
        together = [r for r in rows if a in r["shown"] and b in r["shown"]]
        picked = [(a in r["selected"], b in r["selected"]) for r in together]
        expected = [
            picked.count((True, False)),
            picked.count((False, True)),
            picked.count((True, True)),
            picked.count((False, False)),
            len(together),
        ]
        assert ties.loc[(a, b)].tolist() == expected
        # the pairwise ties are the tie wins and tie losses together
        assert pair(found, a, b)["ties"] == expected[2] + expected[3]
    assert (
        analysed(write_csv(tmp_path / "soba.csv", soba_rows(1, 20, {"x": 1, "y": 1})), "soba").ties
        is None
    )


def test_sata_ties_in_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sata_rows(seed=2, n=40, chances={"bot-a": 0.6, "bot-b": 0.5})
    path = write_csv(tmp_path / "sata.csv", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 0
    out = capsys.readouterr().out
    assert "tie wins  tie losses  turns" in out
    assert main(["human", "selections", "--file", str(path), *CLI_FAST, "--json"]) == 0
    [found] = json.loads(capsys.readouterr().out)["settings"]["sata"]["sata_pair_outcomes"]
    both = sum("bot-a" in r["selected"] and "bot-b" in r["selected"] for r in rows)
    neither = sum(not r["selected"] for r in rows)
    assert (found["tie_wins"], found["tie_losses"], found["turns"]) == (both, neither, 40)


def test_the_old_name_of_the_implied_votes_warns(tmp_path: Path) -> None:
    rows = soba_rows(1, 40, {"bot-a": 1.0, "bot-b": 1.6})
    found = analysed(write_csv(tmp_path / "s.csv", rows), "soba")
    with pytest.warns(DeprecationWarning, match="SelectionAnalysis.votes"):
        assert found.pairwise is found.votes
