"""Votes one per row: the file format, its strict reading, the agreement of multi-vote items, and
the same analysis as the benchmark the votes were written from."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from comperbench.cli import main
from comperbench.common.errors import DataFormatError
from comperbench.human_io.vote_rows import read_vote_rows
from comperbench.stats.human.votes.vote_agreement import agreement_breakdown

HEADER = "item,system_a,system_b,outcome,annotator\n"


def _write(tmp_path: Path, body: str, name: str = "votes.csv") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


def test_a_pair_in_either_order_is_one_vote(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "1,A,B,a,x\n1,B,A,a,y\n2,B,A,TIE,x\n")
    votes = read_vote_rows(path)
    assert votes[["system_a", "system_b"]].drop_duplicates().values.tolist() == [["A", "B"]]
    assert votes["outcome"].tolist() == [1.0, 0.0, 0.5]


def test_jsonl_reads_like_csv(tmp_path: Path) -> None:
    rows = [
        {"item": 1, "system_a": "A", "system_b": "B", "outcome": "b", "annotator": "x"},
        {"item": 1, "system_a": "A", "system_b": "B", "outcome": "a", "annotator": "y", "n": 3},
    ]
    path = _write(tmp_path, "\n".join(json.dumps(r) for r in rows) + "\n", "votes.jsonl")
    csv_path = _write(tmp_path, HEADER + "1,A,B,b,x\n1,A,B,a,y\n")
    pd.testing.assert_frame_equal(read_vote_rows(path), read_vote_rows(csv_path))


@pytest.mark.parametrize(
    ("body", "name", "message"),
    [
        (HEADER + "1,A,B,a,x\n1,A,B,maybe,y\n", "votes.csv", "line 3.*'outcome'.*unknown outcome"),
        (HEADER + "1,A,A,a,x\n", "votes.csv", "line 2.*paired with itself"),
        (HEADER + "1,A,B,a,x\n1,B,A,b,x\n", "votes.csv", r"line 3.*votes again.*first at line 2"),
        (HEADER + "1,A,B,a,\n", "votes.csv", "line 2.*'annotator'.*missing annotator"),
        ("item,system_a,system_b,annotator\n", "votes.csv", "line 1.*missing column.*outcome"),
        (HEADER, "votes.csv", "no vote rows"),
        (
            '{"item": 1, "system_a": "x", "system_b": "y", "outcome": "a", "annotator": "w"}\n[1, 2]\n',
            "votes.jsonl",
            "line 2.*not a JSON object",
        ),
        ('{"item": 1}\n', "votes.jsonl", "line 1, field 'system_a': missing key"),
        ("[" * 100_000 + "\n", "votes.jsonl", "line 1.*not a JSON object"),
        (
            '{"item": 1, "system_a": "x", "system_b": "y", "outcome": "a", "outcome": "b", '
            '"annotator": "w"}\n',
            "votes.jsonl",
            "line 1.*key 'outcome' appears twice",
        ),
        (
            '{"item": {"a": 1}, "system_a": "x", "system_b": "y", "outcome": "a", "annotator": "w"}\n',
            "votes.jsonl",
            "line 1.*'item'.*nested",
        ),
        ("x", "votes.txt", "unknown file type"),
    ],
)
def test_bad_files_are_located_errors(tmp_path: Path, body: str, name: str, message: str) -> None:
    with pytest.raises(DataFormatError, match=message):
        read_vote_rows(_write(tmp_path, body, name))


def test_agreement_by_hand(tmp_path: Path) -> None:
    lines = [
        *(f"1,A,B,a,{w}" for w in "xyz"),  # all agree
        *(f"2,A,B,{o},{w}" for o, w in zip(["a", "a", "tie"], "xyz", strict=True)),  # one disagrees
        *(f"3,B,A,{o},{w}" for o, w in zip(["a", "b", "tie"], "xyz", strict=True)),  # all disagree
        *(f"4,A,B,{o},{w}" for o, w in zip(["a", "b"], "xy", strict=True)),  # two votes, split
        *(f"5,A,B,{o},{w}" for o, w in zip("aabb", "wxyz", strict=True)),  # four votes, 2-2
    ]
    table = agreement_breakdown(read_vote_rows(_write(tmp_path, HEADER + "\n".join(lines))))
    assert table.loc[3].tolist() == [1, 1, 1, 0]
    assert table.loc[2].tolist() == [0, 0, 1, 0]
    assert table.loc[4].tolist() == [0, 0, 0, 1]


def test_votes_written_from_a_benchmark_give_its_analysis(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    options = ["--resamples", "50", "--permutations", "20", "--json"]
    base = ["human", "votes", "--benchmark", "usr-topical", "--data-dir", str(data_root)]
    assert main([*base, "--write-votes", str(path), *options]) == 0
    from_benchmark = json.loads(capsys.readouterr().out)
    assert main(["human", "votes", "--file", str(path), *options]) == 0
    from_votes = json.loads(capsys.readouterr().out)
    for key in ("win_tie_loss", "chi_square"):
        assert from_votes[key] == from_benchmark[key]
    # the benchmark's McNemar tests use each context's selections, which votes do not give
    sign_tests = [
        {k: v for k, v in r.items() if "mcnemar" not in k} for r in from_benchmark["pairs"]
    ]
    assert from_votes["pairs"] == sign_tests
    assert from_votes["ratings"]["Bradley-Terry"]["table"] == pytest.approx(
        from_benchmark["ratings"]["Bradley-Terry"]["table"]
    )
    # USR: three annotators rate every response, so every item's pair has three votes
    [three] = from_votes["agreement"]
    assert three["votes"] == 3 and sum(three.values()) - 3 == 15 * 60
    assert main(["human", "votes", "--file", str(path), "--resamples", "20"]) == 0
    assert "agreement of the votes on each item's pair" in capsys.readouterr().out


def test_written_votes_never_replace_a_file(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("mine\n", encoding="utf-8")
    base = ["human", "votes", "--benchmark", "usr-topical", "--data-dir", str(data_root)]
    assert main([*base, "--write-votes", str(path), "--resamples", "50"]) == 2
    assert f"{path} exists; choose another name" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "mine\n"


def _every_p(payload: dict) -> list[float]:
    """Every p-value of `human votes --json`: the pairs' tests and the chi-square."""
    found = [
        value
        for row in payload["pairs"]
        for key, value in row.items()
        if key.endswith(("_p", "_p_adjusted")) and value is not None
    ]
    if payload["chi_square"]:
        found.append(payload["chi_square"]["p_value"])
    return found


@pytest.mark.parametrize(("votes", "sign_p"), [(1, 1.0), (2, 0.5)])
def test_one_or_two_votes_give_no_small_p_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], votes: int, sign_p: float
) -> None:
    # the sign test is exact: 1 of 1 gives 1.0, 2 of 2 gives 0.5; a bootstrap over one or two
    # items would give its floor 2 / (B + 1), a chi-square over expected counts of 0.5 p 0.16
    body = HEADER + "".join(f"{i},A,B,a,x\n" for i in range(votes))
    path = _write(tmp_path, body)
    assert main(["human", "votes", "--file", str(path), "--resamples", "200", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    [pair] = payload["pairs"]
    assert pair["sign_p"] == pytest.approx(sign_p)
    assert pair["bootstrap_p"] is None and pair["bootstrap_units"] == votes
    assert min(_every_p(payload)) >= 0.5
    assert "expected counts are below 5" in payload["undefined"]["chi-square"]
    assert main(["human", "votes", "--file", str(path), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "note: no bootstrap p for 1 pair(s) compared on fewer than 10 items" in out
    assert "note: chi-square is undefined here: " in out
