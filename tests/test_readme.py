"""The README is a front door of at most 250 lines that renders as written (no code block swallows
a section), whose every `comperbench` command is one the CLI accepts, whose Python example runs and
prints the table it shows, and whose two front-door commands are what `make demo` and `make test`
run."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import markdown_check

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 250


def _block(*lines: str, info: str = "bash") -> str:
    return "\n".join([f"```{info}", *lines, "```"]) + "\n"


def test_readme_code_blocks_are_closed_and_hold_no_section() -> None:
    problems = markdown_check.fence_problems(README.read_text(), "README.md")
    assert not problems, "\n".join(problems)


def test_readme_is_a_front_door_of_at_most_250_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the rest belongs in docs/"


def test_readme_python_example_runs_and_prints_its_table(data_root: Path, tmp_path: Path) -> None:
    blocks = markdown_check.python_blocks(README.read_text())
    assert [block.output is not None for block in blocks] == [True]
    problems = markdown_check.example_problems(README, "README.md", tmp_path)
    assert not problems, "\n".join(problems)


def _make_dry_run(target: str) -> str:
    done = subprocess.run(
        ["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_readme_front_door_commands_are_what_make_demo_and_make_test_run() -> None:
    """The Quick start's two lines set up, then run what the Makefile's `demo` and `test` run."""
    first, second = markdown_check.fences(README.read_text())[0].content.splitlines()
    pairs = [line.split("#")[0].strip().split(" && ") for line in (first, second)]
    setups, jobs = zip(*pairs, strict=True)
    assert setups == ("make setup", "make setup-test")
    assert jobs[0].startswith(".venv/bin/comperbench evaluate ")
    assert jobs[0] in _make_dry_run("demo").splitlines()
    assert jobs[1] in _make_dry_run("test").splitlines()


def test_readme_citation_is_the_package_bibtex() -> None:
    from comperbench.report.cards import comperbench_bibtex

    bibtex = [b for b in markdown_check.fences(README.read_text()) if b.info == "bibtex"]
    assert [b.content for b in bibtex] == [comperbench_bibtex() + "\n"]


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
        "make setup && .venv/bin/comperbench show usr-topical  # set up, then a path to the CLI",
    ) + _block("comperbench not-a-command", info="python")
    found = markdown_check.commands(text)
    assert [(c.line, c.args) for c in found] == [
        (2, ["list", "--json"]),
        (3, ["evaluate", "--benchmark", "usr-topical", "--metrics", "bleu-4,rouge-l"]),
        (6, ["cite", "usr-topical"]),
        (7, ["show", "usr-topical"]),
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
