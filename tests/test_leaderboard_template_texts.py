"""`template --with-texts` holds what a metric reads of each item; `submit` ignores those columns
and still refuses any other column that is not a score."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from comperbench.cli import main
from comperbench.leaderboard.items import TEXT_COLUMNS, cached_benchmark
from comperbench.leaderboard.web.views import template_file


def _template(tmp_path: Path, *argv: str) -> list[dict[str, str]]:
    path = tmp_path / "template.csv"
    assert main(["template", *argv, "--with-texts", "--out", str(path)]) == 0
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_turn_level_texts_are_those_of_the_benchmark(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _template(tmp_path, "usr-persona")
    assert "wrote" in capsys.readouterr().out
    texts = ["system", "context", "response", "references", "grounding"]
    assert list(rows[0]) == ["item_id", "score", *texts]
    table = cached_benchmark("usr-persona", "turn").table.to_pylist()
    assert [r["item_id"] for r in rows] == [item["item_id"] for item in table]
    first, item = rows[0], table[0]
    assert first["score"] == "" and first["system"] == item["system"]
    assert first["response"] == item["response"]
    assert first["context"].split("\n") == [f"{u['speaker']}: {u['text']}" for u in item["context"]]
    assert first["references"].split("\n") == item["references"]
    assert first["grounding"].split("\n") == item["grounding"]


def test_dialogue_level_texts_are_the_turns(data_root: Path, tmp_path: Path) -> None:
    rows = _template(tmp_path, "fed-dialogue")
    assert list(rows[0]) == ["item_id", "score", "system", "turns"]
    item = cached_benchmark("fed-dialogue", "dialogue").table.to_pylist()[0]
    assert rows[0]["turns"].split("\n") == [f"{u['speaker']}: {u['text']}" for u in item["turns"]]


def test_a_filled_template_with_texts_is_submitted_and_ranked(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _template(tmp_path, "usr-persona")
    for row in rows:
        row["score"] = str(len(row["response"].split()))
    filled = tmp_path / "words.csv"
    _write(filled, rows)
    db = str(tmp_path / "lb.sqlite")
    capsys.readouterr()
    argv = ["submit", str(filled), "--name", "word-count", "--reference-free", "--db", db]
    assert main([*argv, "--create"]) == 0
    out = capsys.readouterr().out
    assert "word-count on usr-persona (turn): 300/300 items, ranked" in out
    assert main(["leaderboard", "show", "usr-persona", "--db", db, "--json"]) == 0
    [ranked] = json.loads(capsys.readouterr().out)["ranked"]
    assert ranked["metric"] == "word-count" and ranked["n"] == 300


def test_a_column_that_is_neither_text_nor_score_is_still_refused(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _template(tmp_path, "usr-persona")
    for row in rows:
        row["score"] = "1.5"
        row["notes"] = "looks fine"
    filled = tmp_path / "notes.csv"
    _write(filled, rows)
    argv = ["submit", str(filled), "--name", "x", "--db", str(tmp_path / "lb.sqlite")]
    assert main([*argv, "--create"]) == 2
    err = capsys.readouterr().err
    assert "column 'notes'" in err and "not a number" in err


def test_the_upload_tab_template_stays_item_id_and_score(data_root: Path) -> None:
    path = template_file("usr-persona", "turn")
    assert path is not None
    header = next(csv.reader(io.StringIO(Path(path).read_text(encoding="utf-8"))))
    assert header == ["item_id", "score"]
    assert not set(header) & set(TEXT_COLUMNS)
