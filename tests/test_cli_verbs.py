"""An unknown command, action or setting gets one line that says what to type instead (exit 2)."""

from __future__ import annotations

import pytest

from comperbench.cli import main
from comperbench.cli.verbs import RENAMED


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.endswith("\n") and captured.err.count("\n") == 1
    return captured.err.removeprefix("comperbench: error: ").rstrip("\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["pairwise"], "unknown command 'pairwise': it is now `comperbench human votes`"),
        (
            ["pairwise", "--benchmark", "usr-topical"],
            "unknown command 'pairwise': it is now `comperbench human votes`",
        ),
        (["power", "ab"], "unknown command 'power': it is now `comperbench human plan`"),
        (["rates"], "unknown command 'rates': it is now `comperbench human labels`"),
        (["human", "pairwise"], "unknown action 'pairwise': it is now `comperbench human votes`"),
    ],
)
def test_a_renamed_command_names_its_successor(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert _refused(capsys, *argv) == message


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_every_successor_is_a_command(capsys: pytest.CaptureFixture[str], old: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*RENAMED[old].split(), "--help"])
    assert exited.value.code == 0
    assert f"usage: comperbench {RENAMED[old]}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compre"], "unknown command 'compre': did you mean `comperbench compare`?"),
        (["lst"], "unknown command 'lst': did you mean `comperbench list`?"),
        (["votes"], "unknown command 'votes': did you mean `comperbench human votes`?"),
        (["human", "vote"], "unknown action 'vote': did you mean `comperbench human votes`?"),
        (
            ["leaderboard", "shwo", "usr-topical"],
            "unknown action 'shwo': did you mean `comperbench leaderboard show`?",
        ),
        (
            ["human", "plan", "labelz", "--difference", "0.1"],
            "unknown setting 'labelz': did you mean `comperbench human plan labels`?",
        ),
    ],
)
def test_a_typo_gets_the_closest_commands(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert _refused(capsys, *argv) == message


def test_several_close_commands_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    message = _refused(capsys, "seed")
    assert message == (
        "unknown command 'seed': did you mean `comperbench leaderboard seed` or "
        "`comperbench leaderboard serve`?"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["xyzzy"], "unknown command 'xyzzy': `comperbench --help` lists them"),
        (
            ["leaderboard", "pairwise"],
            "unknown action 'pairwise': `comperbench leaderboard --help` lists them",
        ),
    ],
)
def test_nothing_close_points_at_help(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert _refused(capsys, *argv) == message
