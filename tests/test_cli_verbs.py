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


def test_the_commands_and_actions_are_registered_in_their_order() -> None:
    from comperbench.cli import COMMANDS
    from comperbench.cli.human_commands import ACTIONS
    from comperbench.common.errors import UnknownNameError
    from comperbench.common.registry import Registry

    assert isinstance(COMMANDS, Registry) and isinstance(ACTIONS, Registry)
    assert [name for name, _ in COMMANDS.items()][:3] == ["card", "cite", "list"]
    assert COMMANDS.get("human").actions == tuple(name for name, _ in ACTIONS.items())
    with pytest.raises(UnknownNameError, match=r"^unknown command 'lst'; did you mean list\?$"):
        COMMANDS.get("lst")


@pytest.mark.parametrize(
    ("kind", "header", "row"),
    [
        ("metrics", ["metric", "family", "needs", "higher", "is", "better"], "bleu-4"),
        ("statistics", ["statistic", "name"], "pearson"),
    ],
)
def test_list_lists_metrics_and_statistics(
    capsys: pytest.CaptureFixture[str], kind: str, header: list[str], row: str
) -> None:
    assert main(["list", kind]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == header
    assert row in [line.split()[0] for line in lines[2:] if line.strip()]


def test_list_refuses_an_unknown_kind(capsys: pytest.CaptureFixture[str]) -> None:
    message = _refused(capsys, "list", "metric")
    assert message == (
        "comperbench list: error: argument kind: invalid choice: 'metric' (choose from "
        "'benchmarks', 'metrics', 'statistics') (see `comperbench list --help`)"
    )
