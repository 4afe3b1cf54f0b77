"""The text output of the commands fits `LINE_WIDTH` on real data, and `--json` keeps every text
whole. `card` and `cite` print file content (a card's Markdown, BibTeX) as it is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.cli import main
from comperbench.common.textutil import LINE_WIDTH, table, wrap, wrap_signature
from comperbench.leaderboard.items import cached_benchmark


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _fits(text: str) -> None:
    widest = max(text.splitlines(), key=len)
    assert len(widest) <= LINE_WIDTH, widest


def _flat(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces, and its signatures whole."""
    return " ".join(text.replace("|\n  ", "|").split())


def test_a_table_narrows_its_widest_column_and_keeps_every_word() -> None:
    rows = [["Nucleus Decoding (p = 0.3)", "0.125", "a long note " * 12]]
    fitted = table(["system", "value", "note"], rows, width=80).splitlines()
    assert all(len(line) <= 80 for line in fitted)
    assert fitted[2].startswith("Nucleus Decoding (p = 0.3)  0.125  a long note")
    start = fitted[0].index("note")
    assert _flat(" ".join(line[start:] for line in fitted[2:])) == _flat(rows[0][2])
    assert all(not line[:start].strip() for line in fitted[3:])  # continuation lines
    # without a width, nothing changes: the callers that pass none print as before
    assert table(["a", "bb"], [[1, "x" * 200]]) == "a  bb\n-  " + "-" * 200 + "\n1  " + "x" * 200


def test_wrapped_text_and_signatures_fit_and_join_back() -> None:
    text = "word " * 100
    wrapped = wrap(text, first="note: ", indent="  ")
    _fits(wrapped)
    assert wrapped.startswith("note: word") and _flat(wrapped) == "note: " + _flat(text)
    signature = "|".join(f"key{i}:value-{i}" for i in range(30))
    broken = wrap_signature(signature)
    _fits(broken)
    assert len(broken.splitlines()) > 1
    assert all(line.endswith("|") for line in broken.splitlines()[:-1])
    assert broken.replace("|\n  ", "|") == signature


def test_list(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "list")
    _fits(out)
    described = json.loads(_run(capsys, "list", "--json"))
    dstc9 = next(d for d in described if d["name"] == "dstc9")
    scales = [f"{name}({low:g}-{high:g})" for name, (low, high) in dstc9["aspects"].items()]
    assert len(", ".join(scales)) > LINE_WIDTH  # wrapped in the text, whole in the JSON
    assert ", ".join(scales) in _flat(out)


@pytest.mark.parametrize("name", ["dstc9", "usr-topical", "predictive-engagement"])
def test_show(data_root: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    out = _run(capsys, "show", name)
    text, citation = out.split("\ncitation (BibTeX, printed as is):\n")
    _fits(text)
    meta = get_metadata(name)
    assert citation.rstrip("\n") == meta.citation.rstrip("\n")
    shown = json.loads(_run(capsys, "show", name, "--json"))["metadata"]
    assert shown["description"] == meta.description and shown["notes"] == list(meta.notes)
    assert _flat(meta.description) in _flat(text)
    for note in meta.notes:
        assert _flat(note) in _flat(text)


def test_reproduce(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["reproduce", "--facts-only", "--benchmark", "usr-topical", "--benchmark", "comperdial"]
    out = _run(capsys, *argv)
    _fits(out)
    rows = json.loads(_run(capsys, *argv, "--json"))
    causes = {r["cause"] for r in rows if r["cause"]}
    skipped = {r["skipped"] for r in rows if r["skipped"]}
    assert max(len(c) for c in causes | skipped) > LINE_WIDTH
    for text in causes | skipped:
        assert _flat(text) in _flat(out)


def test_compare(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", "--benchmark", "usr-topical", "--metrics", "bleu-4,rouge-l"]
    out = _run(capsys, *argv, "--resamples", "20")
    _fits(out)
    document = json.loads(_run(capsys, *argv, "--resamples", "20", "--json"))
    assert max(len(line) for line in document["protocol"]) > LINE_WIDTH
    for line in document["protocol"]:
        assert _flat(line) in _flat(out)
    signature = document["significance"]["signature"]
    assert len(signature) > LINE_WIDTH and signature in _flat(out)


def test_agreement(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["agreement", "--benchmark", "usr-topical", "--aspect", "overall", "--resamples", "20"]
    out = _run(capsys, *argv)
    _fits(out)
    signature = json.loads(_run(capsys, *argv, "--json"))[-1]["signature"]
    assert len(signature) > LINE_WIDTH and signature in _flat(out)


def test_human_votes(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["human", "votes", "--benchmark", "usr-topical", "--resamples", "20"]
    out = _run(capsys, *argv, "--permutations", "10")
    _fits(out)
    document = json.loads(_run(capsys, *argv, "--permutations", "10", "--json"))
    assert _flat(document["about"]) in _flat(out)
    for rated in document["ratings"].values():
        assert len(rated["signature"]) > LINE_WIDTH and rated["signature"] in _flat(out)
    # every pair on one line: the sign tests and the resampled tests are two tables
    assert "  New Human Generated         Original Ground Truth       73" in out


def test_human_labels(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["human", "labels", "--benchmark", "usr-topical", "--aspect", "understandable"]
    out = _run(capsys, *argv, "--resamples", "20")
    _fits(out)
    document = json.loads(_run(capsys, *argv, "--resamples", "20", "--json"))
    [found] = document["behaviours"].values()
    signature = found["agreement"]["signature"]
    assert len(signature) > LINE_WIDTH and signature in _flat(out)


@pytest.mark.parametrize(
    ("kind", "action"),
    [
        ("selections", "selections"),
        ("ratings", "ratings"),
        ("votes", "votes"),
        ("labels", "labels"),
    ],
)
def test_human_actions_on_their_templates(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    action: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # a file name the output repeats, not a long temporary path
    example = Path(f"{kind}.csv")
    _fits(_run(capsys, "human", "template", kind, "--out", str(example)))
    _fits(_run(capsys, "human", "template", kind))
    argv = ["human", action, "--file", str(example), "--resamples", "20"]
    out = _run(capsys, *argv)
    _fits(out)
    assert json.loads(_run(capsys, *argv, "--json"))["about"].startswith(str(example))


@pytest.mark.parametrize("setting", ["ab", "soba-pair", "sata-rate", "labels"])
def test_human_plan(capsys: pytest.CaptureFixture[str], setting: str) -> None:
    options = {"sata-rate": ["--expected", "0.8", "--difference", "-0.1"]}
    argv = ["human", "plan", setting, *options.get(setting, ["--difference", "0.1"])]
    out = _run(capsys, *argv)
    _fits(out)
    plan = json.loads(_run(capsys, *argv, "--json"))
    assert _flat(plan["parameters"]) in _flat(out) and f"{plan['n']} {plan['unit']}" in out


def test_submit_and_leaderboard_show(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = cached_benchmark("usr-topical", "turn").item_ids
    flat = tmp_path / "flat.csv"
    flat.write_text("item_id,score\n" + "".join(f"{i},1\n" for i in ids))
    words = tmp_path / "words.csv"
    responses = cached_benchmark("usr-topical", "turn").table.column("response").to_pylist()
    words.write_text(
        "item_id,score\n"
        + "".join(f"{i},{len(r.split())}\n" for i, r in zip(ids, responses, strict=True))
    )
    db = ["--db", str(tmp_path / "lb.sqlite"), "--create"]
    long_name = "a-metric-with-a-rather-long-name-" * 2
    _fits(_run(capsys, "submit", str(flat), "--name", "flat", *db))
    out = _run(capsys, "submit", str(words), "--name", long_name, *db)
    _fits(out)
    placings = json.loads(_run(capsys, "submit", str(words), "--name", "w", *db, "--json"))
    notes = {p["ci_note"] for p in placings["results"] if p["ci_note"]}
    assert notes and all(_flat(note) in _flat(out) for note in notes)

    out = _run(capsys, "leaderboard", "show", "usr-topical", *db)
    _fits(out)
    shown = json.loads(_run(capsys, "leaderboard", "show", "usr-topical", *db, "--json"))
    assert len(shown["ranked"][0]["signature"]) > LINE_WIDTH
    assert shown["ranked"][0]["signature"] in _flat(out)
    assert shown["not_ranked"] and all(_flat(r) in _flat(out) for r in shown["not_ranked"])
    out = _run(capsys, "leaderboard", "show", "dstc7", *db)
    _fits(out)
    note = json.loads(_run(capsys, "leaderboard", "show", "dstc7", *db, "--json"))["items_note"]
    assert len(note) > LINE_WIDTH and _flat(note) in _flat(out)


def test_card_and_cite_print_their_content_as_written(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card is Markdown (a table row cannot be wrapped) and BibTeX is copied as it is: their
    long lines are content, printed as in the files."""
    from comperbench.report import cards

    card = _run(capsys, "card", "usr-topical")
    written = cards.read_card("usr-topical").splitlines()
    assert all(line in written for line in card.splitlines() if len(line) > LINE_WIDTH)
    cited = _run(capsys, "cite", *list_benchmarks()[:3])
    long_lines = [line for line in cited.splitlines() if len(line) > LINE_WIDTH]
    assert all(line.startswith("    ") and " = " in line for line in long_lines)


def test_output_cut_short_by_its_reader_ends_quietly(data_root: Path) -> None:
    """`comperbench card --all | head -1`: no traceback when the reader stops early."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "comperbench", "card", "--all"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as run:
        assert run.stdout is not None and run.stderr is not None
        assert run.stdout.readline() == b"---\n"
        run.stdout.close()
        err = run.stderr.read().decode()
        assert run.wait(timeout=120) == 1
    assert err == ""


def test_human_votes_one_per_row_from_usr(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Real USR-derived votes: the ChatEval tables, Fleiss' kappa and the annotators fit."""
    monkeypatch.chdir(tmp_path)
    quick = ["--resamples", "20", "--permutations", "5"]
    _run(capsys, "human", "votes", "--benchmark", "usr-topical", "--write-votes", "v.csv", *quick)
    out = _run(capsys, "human", "votes", "--file", "v.csv", *quick)
    _fits(out)
    assert "Fleiss' kappa of the votes (a, b, tie) over 900 item pairs" in out
    assert "each annotator against the others" in out
