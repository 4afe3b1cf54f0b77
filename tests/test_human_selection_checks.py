"""The interactive per-turn paper's single-model single-response table and its cascading and
anchoring checks: each count against a hand computation on seeded synthetic dialogues, each test
against an independent implementation (statsmodels, or the distribution written out), and every
selection file that cannot support a check getting it undefined with its reason."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import Table2x2, cochrans_q, mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import binom_test, proportion_confint
from test_human_selections import CLI_FAST, FAST, write_csv

from comperbench.cli import main
from comperbench.human_io.selections import read_selections
from comperbench.reproduction.published import TABLE6
from comperbench.stats.human.judgments.selection_analysis import analyse_selections
from comperbench.stats.human.judgments.selection_effects import (
    TIE_LOSS,
    TIE_WIN,
    anchoring,
    cascading,
)
from comperbench.stats.human.judgments.single_response import analyse_single_response

SYSTEMS = ("bot-a", "bot-b", "bot-c", "bot-d")


# --- synthetic interactive dialogues --------------------------------------------------------


def dialogue_rows(
    seed: int,
    dialogues: int,
    turns: int,
    chances: dict[str, float],
    *,
    setting: str = "sata",
    carry: float = 0.0,
    first_bonus: float = 0.0,
) -> list[dict]:
    """Dialogues of `turns` turns, all systems shown in a random order. SATA: each system is
    selected with its chance, plus `carry` when it was selected at the turn before, plus
    `first_bonus` when shown first; SOBA: one system in proportion to the same weights."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(dialogues):
        before: list[str] = []
        for t in range(1, turns + 1):
            shown = [str(s) for s in rng.permutation(list(chances))]
            weight = {
                s: chances[s] + carry * (s in before) + first_bonus * (s == shown[0]) for s in shown
            }
            if setting == "sata":
                selected = [s for s in shown if rng.random() < weight[s]]
            else:
                w = np.array([weight[s] for s in shown])
                selected = [str(rng.choice(shown, p=w / w.sum()))]
            rows.append(
                {
                    "dialogue": f"d{d}",
                    "turn": t,
                    "annotator": f"w{d % 3}",
                    "shown": shown,
                    "selected": selected,
                    "setting": setting,
                }
            )
            before = selected
    return rows


def single_rows(seed: int, rates: dict[str, float], dialogues: int, turns: int) -> list[dict]:
    """Single-response SATA dialogues: each system in `dialogues` dialogues of its own."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, rate in rates.items():
        for d in range(dialogues):
            for t in range(1, turns + 1):
                picked = [system] if rng.random() < rate else []
                rows.append(
                    {
                        "dialogue": f"{system}-{d}",
                        "turn": t,
                        "annotator": f"w{d}",
                        "shown": [system],
                        "selected": picked,
                        "setting": "sata",
                    }
                )
    return rows


def read(tmp_path: Path, rows: list[dict], name: str = "s.csv") -> pd.DataFrame:
    return read_selections(write_csv(tmp_path / name, rows))


def hand_pairs(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(turn t, turn t + 1) of one dialogue and annotator, found by walking each dialogue."""
    by_key: dict[tuple, dict[int, dict]] = {}
    for r in rows:
        by_key.setdefault((r["dialogue"], r["annotator"]), {})[int(r["turn"])] = r
    return [
        (turns[t], turns[t + 1])
        for turns in by_key.values()
        for t in sorted(turns)
        if t + 1 in turns
    ]


def fisher_p(table: np.ndarray) -> float:
    """Two-sided Fisher's exact p written out: the hypergeometric probabilities, given the
    margins, of every table no more likely than the observed one."""
    (a, b), (c, d) = table
    row1, col1, n = a + b, a + c, a + b + c + d

    def prob(x: int) -> float:
        return math.comb(col1, x) * math.comb(n - col1, row1 - x) / math.comb(n, row1)

    observed = prob(a)
    support = range(max(0, row1 + col1 - n), min(row1, col1) + 1)
    return min(1.0, sum(prob(x) for x in support if prob(x) <= observed * (1 + 1e-7)))


# --- single-model single-response (Table 6) -------------------------------------------------


def test_single_response_table_against_hand_counts_and_statsmodels(tmp_path: Path) -> None:
    rows = single_rows(3, {"bot-a": 0.9, "bot-b": 0.8, "bot-c": 0.65}, dialogues=4, turns=12)
    found = analyse_single_response(read(tmp_path, rows))
    assert found.turns == len(rows) and found.null == 0.8
    p_values = []
    for system in ("bot-a", "bot-b", "bot-c"):
        mine = [r for r in rows if r["shown"] == [system]]
        k, n = sum(bool(r["selected"]) for r in mine), len(mine)
        row = found.table.loc[system]
        assert (row["dialogues"], row["turns"], row["selected"]) == (4, n, k)
        assert row["rate"] == k / n
        half = sps.norm.ppf(0.975) * math.sqrt(k / n * (1 - k / n) / n)
        assert row["wald_low"] == pytest.approx(max(0.0, k / n - half), abs=1e-12)
        assert row["wald_high"] == pytest.approx(min(1.0, k / n + half), abs=1e-12)
        wilson = proportion_confint(k, n, method="wilson")
        assert (row["wilson_low"], row["wilson_high"]) == pytest.approx(wilson, abs=1e-12)
        p_values.append(binom_test(k, n, 0.8))
        assert row["p_value"] == pytest.approx(p_values[-1], rel=1e-9)
    holm = multipletests(p_values, method="holm")[1]
    assert found.table["p_adjusted"].tolist() == pytest.approx(list(holm), rel=1e-9)
    assert found.anchoring.groups == () and "one response" in (found.anchoring.reason or "")


def test_table_6_from_the_counts_its_rates_imply(tmp_path: Path) -> None:
    """A file with as many turns as each model of the interactive paper's Table 6 and the count
    whose rate and interval round to the printed ones (111, 106, 104 and 120 selected) gives the
    printed rates and 95% intervals to their two decimals."""
    counts = {"GPT2XL-BST": 111, "GPT2XL-TCS": 106, "GPT2XL-WoW": 104, "GPT2M-BST": 120}
    rows = []
    for model, selected in counts.items():
        turns = TABLE6[model][0]
        rows += [
            {"dialogue": model, "turn": t, "annotator": "w", "shown": [model]}
            | {"selected": [model] if t <= selected else [], "setting": "sata"}
            for t in range(1, turns + 1)
        ]
    table = analyse_single_response(read(tmp_path, rows)).table
    for model, (turns, rate, low, high) in TABLE6.items():
        row = table.loc[model]
        assert row["turns"] == turns and round(row["rate"], 2) == rate
        assert (round(row["wald_low"], 2), round(row["wald_high"], 2)) == (low, high)


def test_single_response_turns_are_apart_from_the_sata_comparisons(tmp_path: Path) -> None:
    several = dialogue_rows(4, 6, 5, {"bot-a": 0.6, "bot-b": 0.4})
    single = single_rows(5, {"bot-a": 0.85}, dialogues=3, turns=5)
    table = read(tmp_path, several + single)
    sata = analyse_selections(table, "sata", **FAST)
    assert sata.turns == len(several)
    assert analyse_single_response(table).turns == len(single)
    with pytest.raises(ValueError, match="no single-response turns"):
        analyse_single_response(read(tmp_path, several, "only-several.csv"))
    with pytest.raises(ValueError, match="no SATA selections of two or more responses"):
        analyse_selections(read(tmp_path, single, "only-single.csv"), "sata", **FAST)


def test_single_response_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = single_rows(6, {"bot-a": 0.9, "bot-b": 0.7}, dialogues=3, turns=10)
    path = write_csv(tmp_path / "sm.csv", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "== single response (SATA, one response shown): 60 judged turns" in out
    assert "exact binomial test against 0.8 (two-sided)" in out
    assert "SOBA (select one best)" not in out and "SATA (select all that apply)" not in out
    assert "anchoring (selection rate by position shown): undefined" in out
    args = ["human", "selections", "--file", str(path), "--json", "--expected", "0.7"]
    assert main([*args, *CLI_FAST]) == 0
    single = json.loads(capsys.readouterr().out)["settings"]["single"]
    assert single["null"] == 0.7
    [a, _] = single["win_rates"]
    k = sum(bool(r["selected"]) for r in rows if r["shown"] == ["bot-a"])
    assert (a["system"], a["selected"], a["turns"]) == ("bot-a", k, 30)
    assert a["p_value"] == pytest.approx(binom_test(k, 30, 0.7), rel=1e-9)


def test_a_soba_turn_needs_two_responses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.csv"
    path.write_text(
        "dialogue,turn,shown,selected,annotator,setting\nd1,1,A,A,u,soba\n", encoding="utf-8"
    )
    assert main(["human", "selections", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "line 2, field 'shown': 1 system(s) shown; a SOBA turn needs at least 2" in err


# --- cascading ------------------------------------------------------------------------------


def test_cascading_counts_and_fisher_tests_against_a_hand_walk(tmp_path: Path) -> None:
    chances = {"bot-a": 0.35, "bot-b": 0.3, "bot-c": 0.25}
    rows = dialogue_rows(7, 12, 10, chances, carry=0.4)
    found = analyse_selections(read(tmp_path, rows), "sata", **FAST).cascading
    assert found.reason is None and found.table is not None
    pairs = hand_pairs(rows)
    assert len(pairs) == 12 * 9
    events = {
        **{s: (lambda r, s=s: s in r["selected"]) for s in chances},
        TIE_WIN: lambda r: len(r["selected"]) == len(r["shown"]),
        TIE_LOSS: lambda r: not r["selected"],
    }
    p_values = []
    for event, occurs in events.items():
        table = np.zeros((2, 2), int)
        for t, nxt in pairs:
            table[1 - occurs(t), 1 - occurs(nxt)] += 1
        row = found.table.loc[event]
        assert (row["pairs"], row["before"], row["again"]) == (
            len(pairs),
            table[0].sum(),
            table[0, 0],
        )
        assert row["reselection_rate"] == table[0, 0] / table[0].sum()
        assert row["rate_after_other"] == table[1, 0] / table[1].sum()
        assert row["selection_rate"] == pytest.approx(np.mean([occurs(r) for r in rows]))
        assert row["odds_ratio"] == pytest.approx(Table2x2(table).oddsratio, rel=1e-12)
        p_values.append(fisher_p(table))
        assert row["p_value"] == pytest.approx(p_values[-1], rel=1e-9)
    holm = multipletests(p_values, method="holm")[1]
    assert found.table["p_adjusted"].tolist() == pytest.approx(list(holm), rel=1e-9)
    # the carried-over chance is found for every system
    assert (found.table.loc[list(chances), "p_value"] < 0.01).all()


def test_cascading_pairs_only_consecutive_turns_of_one_dialogue_and_annotator(
    tmp_path: Path,
) -> None:
    base = {"shown": ["A", "B"], "setting": "soba"}
    rows = [
        {**base, "dialogue": "d1", "turn": 1, "annotator": "u", "selected": ["A"]},
        {**base, "dialogue": "d1", "turn": 3, "annotator": "u", "selected": ["A"]},  # gap
        {**base, "dialogue": "d1", "turn": 4, "annotator": "v", "selected": ["A"]},  # other
        {**base, "dialogue": "d2", "turn": 2, "annotator": "u", "selected": ["B"]},  # other
        {**base, "dialogue": "d1", "turn": 2, "annotator": "u", "selected": ["B"]},
    ]
    found = cascading(read(tmp_path, rows), "soba")
    assert found.table is not None
    assert found.table.loc["A", ["pairs", "before", "again"]].tolist() == [2, 1, 0]
    assert found.table.loc["B", ["pairs", "before", "again"]].tolist() == [2, 1, 0]


@pytest.mark.parametrize(
    ("turns", "reason"),
    [
        ([1, 3, 5], "no two consecutive turns"),
        ([1, "2b", 3], "turn '2b' (dialogue 'd1') is not a whole number"),
    ],
)
def test_cascading_without_consecutive_turns_is_undefined(
    tmp_path: Path, turns: list, reason: str
) -> None:
    rows = [
        {"dialogue": "d1", "turn": t, "annotator": "u", "shown": ["A", "B"]}
        | {"selected": ["A"], "setting": "soba"}
        for t in turns
    ]
    found = cascading(read(tmp_path, rows), "soba")
    assert found.table is None and reason in (found.reason or "")


def test_all_ties_leave_every_cascading_and_anchoring_test_undefined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = dialogue_rows(8, 3, 4, {"A": 1.0, "B": 1.0})  # every turn selects both
    table = read(tmp_path, rows)
    found = analyse_selections(table, "sata", **FAST)
    assert found.cascading.table is not None
    assert found.cascading.table["p_value"].isna().all()
    assert found.cascading.table["reason"].str.startswith("undefined: it").all()
    [group] = found.anchoring.groups
    assert math.isnan(group.p_value) and "both responses or neither" in (group.reason or "")
    path = write_csv(tmp_path / "ties.csv", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "tie loss: undefined: it never occurs at turn t of the pairs" in out


def test_one_dialogue_is_analysed_within_it(tmp_path: Path) -> None:
    rows = dialogue_rows(9, 1, 30, {"A": 0.5, "B": 0.5}, setting="soba")
    found = analyse_selections(read(tmp_path, rows), "soba", **FAST)
    assert found.cascading.table is not None
    assert found.cascading.table.loc["A", "pairs"] == 29
    assert found.cascading.table["p_value"].notna().all()


# --- anchoring ------------------------------------------------------------------------------


def _positions(rows: list[dict]) -> np.ndarray:
    return np.array([[s in r["selected"] for s in r["shown"]] for r in rows], int)


def test_anchoring_two_responses_sata_is_mcnemar_and_soba_the_binomial(tmp_path: Path) -> None:
    sata = dialogue_rows(10, 30, 10, {"A": 0.5, "B": 0.45}, first_bonus=0.15)
    [group] = anchoring(read(tmp_path, sata), "sata").groups
    matrix = _positions(sata)
    assert (group.shown, group.turns) == (2, 300)
    assert group.rates["selected"].tolist() == matrix.sum(axis=0).tolist()
    both = pd.crosstab(-matrix[:, 0], -matrix[:, 1]).to_numpy()  # selected first
    assert group.p_value == pytest.approx(mcnemar(both, exact=True).pvalue, rel=1e-9)
    assert group.p_value < 0.05  # the first position's bonus is found

    soba = dialogue_rows(11, 20, 10, {"A": 1.0, "B": 1.0}, setting="soba", first_bonus=0.5)
    [group] = anchoring(read(tmp_path, soba, "soba.csv"), "soba").groups
    first = int(_positions(soba)[:, 0].sum())
    assert group.statistic == first and group.rates["rate"].sum() == pytest.approx(1.0)
    assert group.p_value == pytest.approx(binom_test(first, 200, 0.5), rel=1e-9)


def test_anchoring_four_responses_sata_is_cochrans_q_and_soba_the_goodness_of_fit(
    tmp_path: Path,
) -> None:
    chances = dict.fromkeys(SYSTEMS, 0.3)
    sata = dialogue_rows(12, 20, 10, chances, first_bonus=0.1)
    [group] = anchoring(read(tmp_path, sata), "sata").groups
    matrix = _positions(sata)
    expected = cochrans_q(matrix)
    assert (group.statistic, group.dof) == (pytest.approx(expected.statistic), 3)
    assert group.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert group.rates["rate"].tolist() == pytest.approx((matrix.sum(axis=0) / 200).tolist())

    soba = dialogue_rows(13, 20, 10, dict.fromkeys(SYSTEMS, 1.0), setting="soba")
    [group] = anchoring(read(tmp_path, soba, "soba.csv"), "soba").groups
    counts = _positions(soba).sum(axis=0)
    statistic = float(np.sum((counts - 50) ** 2 / 50))
    assert group.statistic == pytest.approx(statistic)
    assert group.p_value == pytest.approx(sps.chi2.sf(statistic, 3), rel=1e-9)


def test_anchoring_groups_turns_by_the_number_shown(tmp_path: Path) -> None:
    two = dialogue_rows(14, 5, 4, {"A": 0.5, "B": 0.5})
    four = dialogue_rows(15, 5, 4, dict.fromkeys(SYSTEMS, 0.4))
    four = [r | {"dialogue": "x" + r["dialogue"]} for r in four]
    found = anchoring(read(tmp_path, two + four), "sata")
    assert [(g.shown, g.turns) for g in found.groups] == [(2, 20), (4, 20)]


def test_anchoring_with_a_fixed_order_is_undefined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = dialogue_rows(16, 4, 5, {"A": 0.7, "B": 0.3})
    for r in rows:
        r["shown"] = ["A", "B"]
    [group] = anchoring(read(tmp_path, rows), "sata").groups
    assert math.isnan(group.p_value) and "same position" in (group.reason or "")
    path = write_csv(tmp_path / "fixed.csv", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST, "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)["settings"]["sata"]
    [payload] = checks["anchoring"]["groups"]
    assert payload["p_value"] is None and "same position" in payload["reason"]
    assert checks["cascading"]["test"].startswith("Fisher's exact test")
    assert {r["event"] for r in checks["cascading"]["table"]} == {"A", "B", TIE_WIN, TIE_LOSS}


def test_checks_in_the_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = dialogue_rows(17, 10, 6, dict.fromkeys(SYSTEMS, 0.4))
    path = write_csv(tmp_path / "mm.csv", rows)
    assert main(["human", "selections", "--file", str(path), *CLI_FAST]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "cascading: of the consecutive turns" in out
    assert "adjusted p: Holm (family-wise error rate) over 6 Fisher tests" in out
    assert "anchoring: selection rate of the response shown in each position" in out
    assert "4 shown, 60 turns: 1: " in out and "Cochran's Q over the positions: " in out
