"""The README renders as written (no code block swallows a section) and every `comperbench`
command it shows is one the CLI accepts."""

from __future__ import annotations

import itertools
from pathlib import Path

import markdown_check

README = Path(__file__).resolve().parents[1] / "README.md"


def _block(*lines: str, info: str = "bash") -> str:
    return "\n".join([f"```{info}", *lines, "```"]) + "\n"


def test_readme_code_blocks_are_closed_and_hold_no_section() -> None:
    problems = markdown_check.fence_problems(README.read_text(), "README.md")
    assert not problems, "\n".join(problems)


def test_readme_commands_parse() -> None:
    text = README.read_text()
    verbs = {command.args[0] for command in markdown_check.commands(text)}
    assert {"evaluate", "leaderboard", "human", "export"} <= verbs
    problems = markdown_check.command_problems(text, "README.md")
    assert not problems, "\n".join(problems)


def _block_before_a_heading(lines: list[str]) -> tuple[int, int, int]:
    """(opening line, closing line, first heading after it), 0-based, of the first README code
    block followed by a section heading before the next block."""
    blocks = markdown_check.fences("\n".join(lines))
    for block, following in itertools.pairwise(blocks):
        assert block.map is not None and following.map is not None
        closing = block.map[1] - 1
        for number in range(closing + 1, following.map[0]):
            if lines[number].startswith("## "):
                return block.map[0], closing, number
    raise AssertionError("no README code block is followed by a section heading")


def test_a_missing_opening_fence_in_the_readme_is_named() -> None:
    """The README without the opening fence of a block: its closing fence then opens a block that
    swallows the next heading."""
    lines = README.read_text().splitlines()
    opening, closing, heading = _block_before_a_heading(lines)
    broken = lines[:opening] + lines[opening + 1 :]
    problems = markdown_check.fence_problems("\n".join(broken) + "\n", "README.md")
    # 1-based numbers in the broken copy: one line less before both
    assert problems[0] == (
        f"README.md:{heading}: the code block opened at line {closing} holds the heading "
        f"{lines[heading]!r}: a fence is missing or doubled before it, so the section renders "
        "as code"
    )


def test_a_doubled_command_line_instead_of_a_fence_is_named() -> None:
    text = (
        "## Leaderboard\n\nText.\n\ncomperbench template usr-topical --out a.csv  # new\n"
        "comperbench template usr-topical --out a.csv\ncomperbench leaderboard seed\n```\n\n"
        "## Releases\n\n" + _block("comperbench card --all --check")
    )
    assert markdown_check.fence_problems(text, "R.md") == [
        "R.md:10: the code block opened at line 8 holds the heading '## Releases': a fence is "
        "missing or doubled before it, so the section renders as code",
        "R.md:12: the code block opened at line 8 holds the fence line '```bash': a fence is "
        "missing or doubled before it",
    ]


def test_a_fence_running_to_the_end_of_the_file_is_named() -> None:
    text = "Text.\n\n" + _block("comperbench list") + "\n```bash\ncomperbench list\n"
    assert markdown_check.fence_problems(text, "README.md") == [
        "README.md:7: the code block opened here has no closing fence: it runs to the end of the "
        "file"
    ]


def test_comments_and_nested_longer_fences_are_no_problem() -> None:
    text = (
        _block("# a shell comment", "comperbench list")
        + "\n"
        + "\n".join(["````markdown", "## A heading shown as Markdown", *_block("x").split("\n")])
        + "````\n"
    )
    assert markdown_check.fence_problems(text, "R.md") == []


def test_commands_are_split_as_the_shell_does() -> None:
    text = _block(
        "COMPERBENCH_DATA=/data comperbench list --json | head  # benchmarks",
        "comperbench evaluate --benchmark usr-topical \\",
        '    --metrics "bleu-4,rouge-l"   # two metrics',
        "dask scheduler",
        "$ comperbench cite usr-topical",
    ) + _block("comperbench not-a-command", info="python")
    found = markdown_check.commands(text)
    assert [(c.line, c.args) for c in found] == [
        (2, ["list", "--json"]),
        (3, ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4,rouge-l"]),
        (6, ["cite", "usr-topical"]),
    ]
    assert markdown_check.command_problems(text, "R.md") == []


def test_unknown_verbs_options_and_abbreviations_are_named() -> None:
    text = "Intro.\n\n" + _block(
        "comperbench evaluate --benchmark usr-topical --no-such-option",
        "comperbench frobnicate usr-topical",
        "comperbench list --js",
        "comperbench leaderboard show usr-topical --statistic no-such-statistic",
        'comperbench submit "unbalanced.csv',
    )
    problems = markdown_check.command_problems(text, "README.md")
    assert [problem.split(": `")[0] for problem in problems] == [
        f"README.md:{line}" for line in (4, 5, 6, 7, 8)
    ]
    assert "unrecognized arguments: --no-such-option" in problems[0]
    assert "unknown command 'frobnicate'" in problems[1]
    assert "unrecognized arguments: --js" in problems[2]
    assert "invalid choice: 'no-such-statistic'" in problems[3]
    assert "the shell cannot split it: No closing quotation" in problems[4]
