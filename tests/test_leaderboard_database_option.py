"""`--db` names an existing leaderboard database unless `--create`; anything else at that path is
one line on standard error (exit 2), and nothing is created."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from comperbench.cli import main
from comperbench.leaderboard.store import DB_ENV, ForeignDatabase, Store


@pytest.fixture(autouse=True)
def no_database_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(DB_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user-data"))


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    """Every command that opens the leaderboard database, without its --db."""
    scores = tmp_path / "scores.csv"
    scores.write_text("item_id,score\n")
    return {
        "show": ["leaderboard", "show", "usr-topical"],
        "seed": ["leaderboard", "seed", "--metrics", "length", "--benchmarks", "usr-topical"],
        "rescore": ["leaderboard", "rescore"],
        "serve": ["leaderboard", "serve", "--port", "1"],
        "submit": ["submit", str(scores), "--name", "x"],
    }


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.removeprefix("comperbench: error: ").rstrip("\n")


def _entries(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("command", ["show", "seed", "rescore", "serve", "submit"])
def test_a_missing_database_is_refused_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    argv = _commands(tmp_path)[command]
    before = _entries(tmp_path)
    typo = tmp_path / "leaderbord.sqlite"
    assert main([*argv, "--db", str(typo)]) == 2
    assert _one_line_error(capsys) == (
        f"--db {typo} does not exist; --create starts a new leaderboard database there"
    )
    assert _entries(tmp_path) == before


def test_the_environment_variable_is_held_to_the_same_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typo = tmp_path / "leaderbord.sqlite"
    monkeypatch.setenv(DB_ENV, str(typo))
    assert main(["leaderboard", "rescore"]) == 2
    assert _one_line_error(capsys).startswith(f"{DB_ENV}={typo} does not exist; --create")
    assert not typo.exists()
    assert main(["leaderboard", "rescore", "--create"]) == 0
    assert Store(typo).count() == 0


def test_create_starts_an_empty_database_that_later_commands_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new" / "lb.sqlite"
    assert main(["leaderboard", "rescore", "--db", str(db), "--create"]) == 0
    assert "0 coverage(s) of 0 submission(s) rescored" in capsys.readouterr().out
    assert db.is_file()
    assert main(["leaderboard", "rescore", "--db", str(db)]) == 0


def test_the_default_location_is_created_when_first_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", "rescore"]) == 0
    assert (tmp_path / "user-data" / "comperbench" / "leaderboard.sqlite").is_file()


def _not_a_database(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A path that cannot serve as the database, and what the error says of it."""
    if kind == "folder":
        return tmp_path, "is a folder, not a database file"
    if kind == "text":
        text = tmp_path / "notes.txt"
        text.write_text("item_id,score\n")
        return text, "is not a SQLite database"
    if kind == "foreign":
        other = tmp_path / "other.sqlite"
        with sqlite3.connect(other) as db:
            db.execute("CREATE TABLE bookmarks (url TEXT)")
        db.close()
        return other, "is a SQLite database of another program (it has no submissions table)"
    file = tmp_path / "notes.txt"
    file.write_text("x")
    return file / "lb.sqlite", f"cannot be created: {file} is a file, not a folder"


@pytest.mark.parametrize("kind", ["folder", "text", "foreign", "under-a-file"])
@pytest.mark.parametrize("create", [False, True])
def test_a_path_that_is_no_leaderboard_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, create: bool
) -> None:
    path, problem = _not_a_database(tmp_path, kind)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    argv = ["leaderboard", "show", "usr-topical", "--db", str(path)]
    assert main(argv + ["--create"] * create) == 2
    assert _one_line_error(capsys) == f"--db {path} {problem}"
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def _other_schema(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A SQLite database with a submissions table that is not the leaderboard's, and what the
    error says of it."""
    path = tmp_path / f"{kind}.sqlite"
    with sqlite3.connect(path) as db:
        if kind == "newer":
            db.execute("CREATE TABLE submissions (id INTEGER)")
            db.execute("PRAGMA user_version = 99")
            problem = "is a leaderboard database of schema version 99; this comperbench reads"
        else:
            db.execute("CREATE TABLE submissions (x TEXT, name TEXT)")
            problem = "is not a leaderboard database: its submissions table has columns"
    db.close()
    if kind == "newer":
        return path, f"{problem} versions up to 5: upgrade comperbench"
    return path, problem.replace("has columns", "has no columns id, file_sha256, file_name,")


@pytest.mark.parametrize("kind", ["newer", "other"])
@pytest.mark.parametrize("command", ["show", "rescore", "submit"])
def test_a_database_of_another_schema_is_refused_by_what_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, command: str
) -> None:
    path, problem = _other_schema(tmp_path, kind)
    before = path.read_bytes()
    assert main([*_commands(tmp_path)[command], "--db", str(path)]) == 2
    assert _one_line_error(capsys).startswith(f"--db {path} {problem}")
    assert path.read_bytes() == before
    with pytest.raises(ForeignDatabase, match="is "):
        Store(path)


def test_a_database_that_cannot_be_opened_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert main(["leaderboard", "rescore", "--db", str(broken)]) == 2
    assert _one_line_error(capsys).startswith(f"--db {broken} cannot be")
