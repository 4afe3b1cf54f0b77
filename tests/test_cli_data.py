"""`comperbench list | show | export | card | cite` through the console entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from comperbench import __version__, get_metadata, list_benchmarks, load_benchmark
from comperbench.benchmark import count_items
from comperbench.cli import main
from comperbench.report import cards


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_without_sizes_names_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--no-sizes")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[2:] if not line.startswith(" ")]
    assert names == list_benchmarks()
    assert "overall(1-5)" in out


def test_list_with_sizes_marks_benchmarks_without_raw_files(
    data_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A data root holding only USR (and an empty table cache, which would otherwise serve the
    tables of earlier loads): its sizes are shown, every other benchmark is still listed."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    shutil.copytree(data_root / "usr", tmp_path / "usr")
    code, out, _ = run(capsys, "list", "--data-dir", str(tmp_path))
    assert code == 0
    table, footnote = out.split("\n\n")
    rows = {line.split()[0]: line for line in table.splitlines()[2:] if not line[0].isspace()}
    assert list(rows) == list_benchmarks()
    assert "turn 360" in rows["usr-topical"]
    assert "turn 300" in rows["usr-persona"]
    assert "raw files missing" in rows["fed-turn"]
    assert "raw files missing" in rows["comperdial"]
    assert footnote == "raw files missing: `comperbench show NAME` says where to put them\n"


@pytest.mark.parametrize(("name", "level"), [("usr-topical", "turn"), ("dstc9", "dialogue")])
def test_the_listed_sizes_are_the_loaded_tables_lengths(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, level: str
) -> None:
    """Counted from the cached table's footer, or by a load when no table is cached yet."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    assert not list(tmp_path.rglob(f"{level}.parquet"))
    uncached = count_items(name, level)  # loads and caches the table
    assert list(tmp_path.rglob(f"{level}.parquet"))
    assert uncached == count_items(name, level) == len(load_benchmark(name, level)) > 0


def test_show_prints_facts_and_citation(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "show", "usr-persona")
    assert code == 0
    assert get_metadata("usr-persona").fingerprint in out
    assert "turn level: 300 items, 60 dialogues, 5 systems, 5400 individual ratings" in out
    assert "@inproceedings{mehri-eskenazi-2020-usr" in out
    assert "protocol: metrics needing references leave out Original Ground Truth" in out


def test_export_names(data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "export", "usr-persona", "--out", str(tmp_path))
    assert code == 0
    assert f"wrote {tmp_path / 'usr-persona' / 'turn-test.parquet'} (300 rows)" in out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert list(manifest["benchmarks"]) == ["usr-persona"]
    assert (tmp_path / "usr-persona" / "README.md").is_file()
    assert (tmp_path / "README.md").is_file()


def test_export_jsonl_writes_cards_that_name_the_jsonl_files(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "export", "usr-topical", "--format", "jsonl", "--out", str(tmp_path)
    )
    assert code == 0, err
    path = tmp_path / "usr-topical" / "turn-test.jsonl"
    assert f"wrote {path} (360 rows)" in out
    assert len(path.read_text().splitlines()) == 360
    card = (tmp_path / "usr-topical" / "README.md").read_text()
    assert "path: usr-topical/turn-test.jsonl" in card and ".parquet" not in card
    assert 'load_dataset("json", data_files={"test": "usr-topical/turn-test.jsonl"})' in card
    header = (tmp_path / "README.md").read_text().split("\n---\n")[0]
    assert "path: usr-topical/turn-test.jsonl" in header and ".parquet" not in header
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["format"] == "jsonl" and "card" in manifest["benchmarks"]["usr-topical"]


def test_export_needs_names_or_all(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "export", "--out", "x")
    assert code == 2 and "name the benchmarks to export, or pass --all" in err
    code, _, err = run(capsys, "export", "usr-topical", "--all", "--out", "x")
    assert code == 2


def test_export_all_then_push_offline(
    data_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a fresh table cache: tables cached from fixture files of the Hub-only benchmarks must not count
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    out_dir = tmp_path / "release"
    code, out, err = run(capsys, "export", "--all", "--out", str(out_dir), "--push", "me/bench")
    assert code == 2
    assert "cannot push to me/bench: offline mode is set" in err
    for name in ("comperdial", "soda-eval"):
        assert f"warning: {name} is not in the release" in err
    manifest = json.loads((out_dir / "manifest.json").read_text())
    exported = set(list_benchmarks()) - {"comperdial", "soda-eval"}
    assert set(manifest["benchmarks"]) == exported
    assert set(manifest["missing"]) == {"comperdial", "soda-eval"}
    assert manifest["comperbench_version"] == __version__
    assert f"wrote {out_dir / 'manifest.json'}" in out


def test_card_prints_the_facts(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "card", "usr-topical")
    assert code == 0
    meta = get_metadata("usr-topical")
    assert out.startswith("---\n") and "license: other" in out
    assert f"| fingerprint | `{meta.fingerprint}` |" in out
    for block in cards.BLOCKS:
        assert f"<!-- facts:start {block} -->" in out
    assert "| turn | test | 360 | 60 | 6 | 6,480 |" in out


def test_card_check_write_and_new_card(
    data_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards_dir = tmp_path / "cards"
    shutil.copytree(cards.CARDS_DIR, cards_dir)
    readme = tmp_path / "README.md"
    code, out, err = run(capsys, "card", "--all", "--check", "--cards-dir", str(cards_dir))
    assert code == 1 and f"{readme}: missing" in err
    shutil.copy(cards.CARDS_DIR.parent / "README.md", readme)
    code, out, _ = run(capsys, "card", "--all", "--check", "--cards-dir", str(cards_dir))
    assert code == 0 and f"{len(list_benchmarks())} card(s) agree with the code" in out

    readme.write_text(readme.read_text().replace("| USR-PersonaChat |", "| USR-Persona |"))
    code, out, _ = run(capsys, "card", "--all", "--check", "--cards-dir", str(cards_dir))
    problem = f"{readme}: benchmark list differs from the registered benchmarks"
    assert code == 1 and problem in " ".join(out.split())
    code, out, _ = run(capsys, "card", "--all", "--write", "--cards-dir", str(cards_dir))
    assert code == 0 and f"wrote {readme}" in out
    assert readme.read_text() == (cards.CARDS_DIR.parent / "README.md").read_text()

    card = cards_dir / "usr-persona" / "README.md"
    original = card.read_text()
    card.write_text(original.replace("| 5,400 |", "| 5,401 |"))
    code, out, _ = run(capsys, "card", "usr-persona", "--check", "--cards-dir", str(cards_dir))
    assert code == 1 and "block 'counts' differs from the code" in out
    code, _, _ = run(capsys, "card", "usr-persona", "--write", "--cards-dir", str(cards_dir))
    assert code == 0 and card.read_text() == original

    shutil.rmtree(cards_dir / "holistic-fluency")
    code, out, _ = run(capsys, "card", "holistic-fluency", "--check", "--cards-dir", str(cards_dir))
    assert code == 2
    code, out, _ = run(capsys, "card", "holistic-fluency", "--write", "--cards-dir", str(cards_dir))
    new = (cards_dir / "holistic-fluency" / "README.md").read_text()
    assert "| turn | test | 200 | 200 | 1 | 2,000 |" in new
    code, out, _ = run(capsys, "card", "holistic-fluency", "--check", "--cards-dir", str(cards_dir))
    assert code == 1 and "has no prose" in out and "differs" not in out


def test_cite(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cite", "usr-topical")
    assert code == 0
    assert out.startswith("@inproceedings{mehri-eskenazi-2020-usr,\n")
    assert 'title = "{USR}: An Unsupervised and Reference Free Evaluation Metric' in out
    assert f"version = {{{__version__}}}" in out and "@software{comperbench," in out
    code, _, err = run(capsys, "cite", "usr-topicl")
    assert code == 2 and "usr-topical" in err


def test_list_and_show_print_the_metadata_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {b["name"] for b in listed} >= {"usr-topical", "comperdial"}
    assert main(["show", "usr-topical", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["metadata"]["protocol"]["reference_excluded_systems"] == ["Original Ground Truth"]
