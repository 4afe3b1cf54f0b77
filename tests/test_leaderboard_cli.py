"""`comperbench template | submit | leaderboard seed|show`: a submission round-trips from file to ranking."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from comperbench.cli import main
from comperbench.leaderboard.items import cached_benchmark
from comperbench.leaderboard.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"


def test_template_then_submit_then_show(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = tmp_path / "template.csv"
    assert main(["template", "usr-persona", "--out", str(template)]) == 0
    lines = template.read_text().splitlines()
    assert lines[0] == "item_id,score" and len(lines) == 301
    assert lines[1] == "usr-persona/0000/original-ground-truth,"

    bench = cached_benchmark("usr-persona", "turn")
    lengths = [len(r.split()) for r in bench.table.column("response").to_pylist()]
    filled = tmp_path / "words.csv"
    filled.write_text(
        "item_id,score\n"
        + "".join(f"{line[:-1]},{n}\n" for line, n in zip(lines[1:], lengths, strict=True))
    )
    db = str(tmp_path / "lb.sqlite")
    args = ["submit", str(filled), "--name", "word-count", "--reference-free", "--db", db]
    assert main([*args, "--trained-on", "usr-topical", "--family", "ngram", "--create"]) == 0
    out = capsys.readouterr().out
    assert "stored as submission #1 (family: ngram)" in out and "300/300 items, ranked" in out
    assert main([*args, "--trained-on", "usr-topical"]) == 0
    assert "identical file already submitted as #1" in capsys.readouterr().out

    assert main(["leaderboard", "show", "usr-persona", "--db", db, "--statistic", "pearson"]) == 0
    out = capsys.readouterr().out
    assert "usr-persona / turn / overall / pearson" in out
    [row] = [line for line in out.splitlines() if "word-count" in line]
    # the protocol leaves the ground truth out for reference-based submissions only
    expected = np.corrcoef(np.array(lengths, float), bench.human_scores("overall"))[0, 1]
    assert "protocol: every reference-based submission is correlated without Original" in out
    assert row.split()[:4] == ["1", "1-1", "word-count", f"{expected:.3f}"]
    assert row.split()[-1] == "ngram"
    assert main(["leaderboard", "show", "usr-persona", "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["protocol_excluded"] == ["Original Ground Truth"]
    assert shown["ranked"][0]["metric"] == "word-count" and shown["ranked"][0]["n"] == 300
    assert shown["ranked"][0]["family"] == "ngram"
    stored = Store(db).submissions()[0]
    assert stored["reference_free"] == 1 and stored["trained_on"] == '["usr-topical"]'
    assert stored["family"] == "ngram"


def test_submit_refuses_a_family_the_registry_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lb.sqlite"
    with pytest.raises(SystemExit) as exited:
        main(["submit", "x.csv", "--name", "x", "--family", "neural", "--db", str(db)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--family: invalid choice: 'neural'" in err
    assert "'ngram', 'embedding', 'learned', 'llm'" in err
    assert not db.exists()


def test_rejected_submission_exits_2_with_located_errors(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "lb.sqlite"
    code = main(["submit", str(FIXTURES / "bad.jsonl"), "--name", "x", "--db", str(db), "--create"])
    assert code == 2
    err = capsys.readouterr().err
    assert "submission bad.jsonl was rejected (2 problems)" in err
    assert "line 3, item_id 'usr-topical/0000/nucleus-decoding-p-0.3'" in err
    assert Store(db).count() == 0


def test_seed_stores_baselines_once(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "lb.sqlite")
    seed = ["leaderboard", "seed", "--metrics", "length", "--benchmarks", "usr-topical", "--db", db]
    assert main([*seed, "--create"]) == 0
    out, err = capsys.readouterr()
    assert "1 baseline submissions added (0 already there)" in out
    assert "seeding 0/1 benchmark levels, 0 of 1 baselines, 0:0" in err
    assert "seeding 1/1 benchmark levels, 1 of 1 baselines, " in err
    assert main(seed) == 0
    assert "0 baseline submissions added (1 already there)" in capsys.readouterr().out
    [stored] = Store(db).submissions()
    assert stored["baseline"] == 1 and stored["name"] == "length"
    assert stored["reference_free"] == 1


def test_submit_of_a_missing_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.csv"
    db = tmp_path / "lb.sqlite"
    assert main(["submit", str(missing), "--name", "x", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"comperbench: error: {missing} does not exist" in err
    assert "Traceback" not in err
    assert main(["submit", str(tmp_path), "--name", "x", "--db", str(db)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err


def test_the_seed_line_counts_levels_and_baselines() -> None:
    from comperbench.leaderboard.seeding.baselines import SeedCount

    count = SeedCount(levels=14, expected=120, levels_done=7, stored=31)
    assert count.line(102.4) == "seeding 7/14 benchmark levels, 31 of 120 baselines, 1:42 elapsed"
    assert SeedCount(2, 3).line(3725) == (
        "seeding 0/2 benchmark levels, 0 of 3 baselines, 1:02:05 elapsed"
    )


def test_a_seed_skips_what_does_not_apply_from_the_expected_count(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.leaderboard.seeding.baselines import seed

    store = Store(tmp_path / "lb.sqlite")
    notes: list[str] = []
    metrics = ["length", "bleu-1", "bleu-2"]
    outcomes = seed(store, metrics, ["fed-dialogue", "usr-persona"], notes.append)
    assert [o.submission.meta.name for o in outcomes] == metrics
    skipped = [n for n in notes if n.startswith("skipped on fed-dialogue (dialogue): ")]
    assert len(skipped) == 1 and "bleu-1, bleu-2: " in skipped[0]  # one line per reason
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("seeding 2/2 benchmark levels, 3 of 3 baselines, ")


def _printed_rows(out: str, metric: str) -> dict[tuple[str, str], list[str]]:
    """The submit table's cells after (level, aspect), for one metric's rows."""
    rows = [line.split() for line in out.splitlines()]
    return {(r[2], r[3]): r[4:] for r in rows if len(r) > 4 and r[0] == metric and r[1] != "on"}


def test_submit_prints_each_correlation_and_its_rank(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.benchmark import get_metadata
    from comperbench.leaderboard.seeding.baselines import seed
    from comperbench.leaderboard.service import ranking

    store = Store(tmp_path / "lb.sqlite")
    seed(store, ["length"], ["usr-persona"], progress=lambda _: None)
    ids = cached_benchmark("usr-persona", "turn").item_ids
    filled = tmp_path / "mod.csv"
    filled.write_text("item_id,score\n" + "".join(f"{i},{k % 7}\n" for k, i in enumerate(ids)))
    args = ["submit", str(filled), "--name", "mod-seven", "--db", str(store.path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "spearman with the human scores; rank among the ranked stored metrics:" in out
    printed = _printed_rows(out, "mod-seven")
    aspects = get_metadata("usr-persona").aspect_names
    assert set(printed) == {(level, a) for level in ("turn", "system") for a in aspects}
    assert main([*args, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["results"]
    assert len(shown) == len(printed)
    for (level, aspect), cells in printed.items():
        ranked = ranking(store, "usr-persona", level, aspect, "spearman")
        [r] = [r for r in ranked if r.row.metric == "mod-seven"]
        expected = [f"{r.row.value:.3f}", f"[{r.row.ci_low:.3f},", f"{r.row.ci_high:.3f}]"]
        expected += [str(r.row.n), f"{r.rank}/{len(ranked)}", f"{r.rank_low}-{r.rank_high}"]
        assert cells == expected, (level, aspect)
        [entry] = [e for e in shown if (e["level"], e["aspect"]) == (level, aspect)]
        assert entry["value"] == pytest.approx(r.row.value) and entry["n"] == r.row.n
        assert entry["rank_range"] == [r.rank_low, r.rank_high] and entry["of"] == 2
    assert "note: " in out  # 4 systems: the system-level intervals are flagged


def test_submit_says_why_a_constant_submission_is_not_ranked(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = cached_benchmark("usr-persona", "turn").item_ids
    flat = tmp_path / "flat.csv"
    flat.write_text("item_id,score\n" + "".join(f"{i},1\n" for i in ids))
    db = str(tmp_path / "lb.sqlite")
    assert main(["submit", str(flat), "--name", "flat", "--db", db, "--create"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.split()[:2] == ["flat", "usr-persona"]]
    assert {row.split()[2] for row in rows} == {"turn", "system"}
    for row in rows:
        assert row.split()[4:6] == ["-", "[-,"] and row.split()[8] == "-"
        assert row.endswith("not ranked [1]")
    assert "  [1] correlation undefined (metric scores are constant)" in out.splitlines()


def test_rescore_scores_again_what_an_older_version_scored(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import sqlite3

    from comperbench.leaderboard import mirror

    monkeypatch.delenv(mirror.DIR_ENV, raising=False)
    monkeypatch.delenv(mirror.REPO_ENV, raising=False)
    db = str(tmp_path / "lb.sqlite")
    seed = ["leaderboard", "seed", "--metrics", "length", "--benchmarks", "usr-topical", "--db", db]
    assert main([*seed, "--create"]) == 0
    assert main(["leaderboard", "rescore", "--db", db]) == 0
    assert (
        "0 coverage(s) of 0 submission(s) rescored, 0 submission(s) not" in capsys.readouterr().out
    )
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE results SET benchmark_tag = 'usr-topical@0ld'")
    assert main(["leaderboard", "rescore", "--db", db]) == 0
    assert "1 coverage(s) of 1 submission(s) rescored" in capsys.readouterr().out
    assert main(["leaderboard", "show", "usr-topical", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "length" in out and "other settings" not in out


def test_show_says_dstc7_is_correlated_on_its_items_with_references(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "lb.sqlite")
    assert main(["leaderboard", "show", "dstc7", "--db", db, "--create"]) == 0
    out = capsys.readouterr().out
    assert "items: every row is correlated on the 9,540 of 10,000 items with references" in out


def test_a_template_file_is_never_replaced(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = tmp_path / "template.csv"
    template.write_text("item_id,score\nmine,1\n", encoding="utf-8")
    assert main(["template", "usr-persona", "--out", str(template)]) == 2
    assert f"{template} exists; choose another name" in capsys.readouterr().err
    assert template.read_text(encoding="utf-8") == "item_id,score\nmine,1\n"
