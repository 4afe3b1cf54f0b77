"""Checks of a Markdown file (the README, a documentation page) as CommonMark renders it: fenced
code blocks that swallowed a section or never close, `comperbench ...` command lines that the CLI
would refuse, and Python examples that do not run or do not print what the page shows.

Every problem is one line that starts with `FILE:LINE:`.

A Python block runs, in order, in one namespace per file. An HTML comment right before it may say
otherwise: `<!-- docs: not run: REASON -->`, or `<!-- docs: needs NAME -->` (a dotted name, or
`NAME(keyword)` for a keyword of a function) to run it only once that name exists. A `text` block
right after `<!-- docs: output -->` is what the Python block before it prints.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import inspect
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from comperbench.cli import build_parser

# A Markdown heading of level 2 to 6 (a page's sections). A single `#` is left out: in a shell or
# Python block it starts a comment.
_HEADING = re.compile(r"^ {0,3}#{2,6}[ \t]+\S")
_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
# Info strings of blocks that show Markdown, where a heading is part of the example.
MARKDOWN_INFOS = frozenset({"markdown", "md"})
# Info strings of blocks whose lines are shell commands.
SHELL_INFOS = frozenset({"", "bash", "sh", "shell", "console"})
# Shell operators end the command they follow (a pipe, a redirect, a second command).
_OPERATOR = re.compile(r"^[();<>|&]+$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# A command that runs `comperbench` (or a path to it, `.venv/bin/comperbench`), after a `$ ` prompt
# and `VAR=value` assignments, if any; a line may chain commands with `&&`, `||` or `;`.
_COMMAND = re.compile(r"^\s*(\$\s+)?([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(\S*/)?comperbench(\s|$)")
_CHAIN = re.compile(r"\s(?:&&|\|\||;)\s")


@dataclass(frozen=True)
class Command:
    """A `comperbench` command line of a code block: its first line in the file and its arguments."""

    line: int
    text: str
    args: list[str]
    error: str | None = None


def fences(text: str) -> list[Token]:
    """The fenced code blocks of `text`, parsed as CommonMark."""
    return [token for token in MarkdownIt("commonmark").parse(text) if token.type == "fence"]


def _opened_at(token: Token) -> int:
    assert token.map is not None
    return token.map[0] + 1


def _content_lines(token: Token) -> Iterator[tuple[int, str]]:
    """(line number in the file, line) of each line inside a fenced block."""
    for offset, line in enumerate(token.content.splitlines()):
        yield _opened_at(token) + 1 + offset, line


def _is_closed(token: Token) -> bool:
    assert token.map is not None
    return token.map[1] - token.map[0] > 1 + len(token.content.splitlines())


def fence_problems(text: str, name: str) -> list[str]:
    """Fenced blocks that run to the end of the file, hold a fence line of their own kind, or
    hold a heading (unless they show Markdown)."""
    problems = []
    for token in fences(text):
        opened = _opened_at(token)
        if not _is_closed(token):
            problems.append(
                f"{name}:{opened}: the code block opened here has no closing fence: it runs to "
                "the end of the file"
            )
        for number, line in _content_lines(token):
            fence = _FENCE.match(line)
            if fence and fence[1][0] == token.markup[0] and len(fence[1]) >= len(token.markup):
                problems.append(
                    f"{name}:{number}: the code block opened at line {opened} holds the fence line "
                    f"{line.strip()!r}: a fence is missing or doubled before it"
                )
            elif _HEADING.match(line) and token.info.strip().lower() not in MARKDOWN_INFOS:
                problems.append(
                    f"{name}:{number}: the code block opened at line {opened} holds the heading "
                    f"{line.strip()!r}: a fence is missing or doubled before it, so the section "
                    "renders as code"
                )
    return problems


def _logical_lines(token: Token) -> Iterator[tuple[int, str]]:
    """The lines of a block with backslash continuations joined, numbered by their first line."""
    start, parts = 0, []
    for number, line in _content_lines(token):
        start = start or number
        if line.rstrip().endswith("\\"):
            parts.append(line.rstrip()[:-1])
            continue
        parts.append(line)
        yield start, " ".join(parts)
        start, parts = 0, []
    if parts:
        yield start, " ".join(parts)


def _chained_commands(token: Token) -> Iterator[tuple[int, str]]:
    """Each command of the logical lines of a block, a line's chained commands apart."""
    for number, line in _logical_lines(token):
        for command in _CHAIN.split(line.split(" #")[0]):
            yield number, command


def _words(line: str) -> list[str]:
    """A command line's words as the shell splits them, up to its first operator or comment."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = []
    for word in lexer:
        if _OPERATOR.match(word):
            break
        words.append(word)
    return words


def commands(text: str) -> list[Command]:
    """Every `comperbench` command line in the shell code blocks of `text`, but those of a block
    whose `<!-- docs: needs comperbench ... -->` names a command the CLI does not take yet."""
    found = []
    tokens = MarkdownIt("commonmark").parse(text)
    for index, token in enumerate(tokens):
        if token.type != "fence" or token.info.strip().lower() not in SHELL_INFOS:
            continue
        marker = _marker(tokens, index)
        if marker and marker[0] == "needs" and not exists(marker[1]):
            continue
        for number, line in _chained_commands(token):
            if not _COMMAND.match(line):
                continue
            shown = line.split(" #")[0].strip()
            try:
                words = _words(line)
            except ValueError as exc:  # unbalanced quotes
                found.append(Command(number, shown, [], f"the shell cannot split it: {exc}"))
                continue
            while words[0] == "$" or _ASSIGNMENT.match(words[0]):
                words.pop(0)
            found.append(Command(number, shown, words[1:]))
    return found


def strict_parser() -> argparse.ArgumentParser:
    """The CLI's own parser, with abbreviated options refused at every level, so that an option
    a page names must exist as written."""
    parser = build_parser()
    pending = [parser]
    while pending:
        current = pending.pop()
        current.allow_abbrev = False
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action.choices.values())
    return parser


def parse_error(parser: argparse.ArgumentParser, args: list[str]) -> str | None:
    """argparse's error message for `args`, or None when they parse (`--help` included)."""
    messages = io.StringIO()
    try:
        with contextlib.redirect_stderr(messages), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(args)
    except SystemExit as stop:
        if stop.code not in (0, None):
            lines = messages.getvalue().strip().splitlines()
            return lines[-1] if lines else f"exit status {stop.code}"
    return None


def command_problems(text: str, name: str) -> list[str]:
    """Every `comperbench` command of a shell code block that the CLI's parser refuses."""
    parser = strict_parser()
    problems = []
    for command in commands(text):
        error = command.error or parse_error(parser, command.args)
        if error is not None:
            problems.append(f"{name}:{command.line}: `{command.text}` does not parse: {error}")
    return problems


# Info strings of Python blocks, and of a block that shows what one printed.
PYTHON_INFOS = frozenset({"python", "py"})
OUTPUT_INFOS = frozenset({"text"})
_MARKER = re.compile(r"^<!--\s*docs:\s*(not run|needs|output)\s*:?\s*(.*?)\s*-->\s*$", re.DOTALL)


@dataclass(frozen=True)
class PythonBlock:
    """A Python example of a page: where it opens, its code, and what its marker says."""

    line: int
    code: str
    not_run: str | None = None
    needs: str | None = None
    output: str | None = None


def _marker(tokens: list[Token], index: int) -> tuple[str, str] | None:
    """(kind, argument) of the `<!-- docs: ... -->` comment right before tokens[index]."""
    if index == 0 or tokens[index - 1].type != "html_block":
        return None
    found = _MARKER.match(tokens[index - 1].content.strip())
    return (found[1], found[2]) if found else None


def python_blocks(text: str) -> list[PythonBlock]:
    """The Python blocks of `text`, each with its marker and the output shown after it."""
    tokens = MarkdownIt("commonmark").parse(text)
    blocks: list[PythonBlock] = []
    for index, token in enumerate(tokens):
        if token.type != "fence":
            continue
        info, marker = token.info.strip().lower(), _marker(tokens, index)
        if info in OUTPUT_INFOS and marker and marker[0] == "output" and blocks:
            blocks[-1] = dataclasses.replace(blocks[-1], output=token.content)
        elif info in PYTHON_INFOS:
            kind, argument = marker or ("", "")
            blocks.append(
                PythonBlock(
                    _opened_at(token),
                    token.content,
                    not_run=argument if kind == "not run" else None,
                    needs=argument if kind == "needs" else None,
                )
            )
    return blocks


def exists(name: str) -> bool:
    """Whether a dotted name (`comperbench.stats.Resampling`) resolves, or, written
    `NAME(keyword)`, whether that function takes the keyword, or, for a command
    (`comperbench compare --statistic pearson`), whether the CLI parses it."""
    if name.startswith("comperbench "):
        return parse_error(strict_parser(), shlex.split(name)[1:]) is None
    path, _, keyword = name.partition("(")
    parts = path.split(".")
    try:
        found: Any = importlib.import_module(parts[0])
        for part in parts[1:]:
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return False
    return not keyword or keyword.rstrip(")") in inspect.signature(found).parameters


def marker_problems(blocks: list[PythonBlock], name: str) -> list[str]:
    """Markers that say nothing: a block left unrun without its reason, or `needs` no name."""
    return [
        f"{name}:{block.line}: a Python block left unrun must say why"
        for block in blocks
        if block.not_run == "" or block.needs == ""
    ]


def run_problems(blocks: list[PythonBlock], name: str) -> list[str]:
    """Run the blocks in order in one namespace: each that raises or prints other than the
    output its page shows is a problem. Blocks left unrun, or needing a name that does not
    exist yet, are only compiled."""
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    problems = []
    for block in blocks:
        if block.not_run is not None or (block.needs and not exists(block.needs)):
            try:
                compile(block.code, f"{name}:{block.line}", "exec")
            except SyntaxError as exc:
                problems.append(f"{name}:{block.line}: the block is not Python: {exc.msg}")
            continue
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(block.code, f"{name}:{block.line}", "exec"), namespace)
        except Exception as exc:
            problems.append(f"{name}:{block.line}: the block raises {type(exc).__name__}: {exc}")
            continue
        if block.output is not None and _lines(printed.getvalue()) != _lines(block.output):
            problems.append(
                f"{name}:{block.line}: the block prints\n{printed.getvalue()}"
                f"instead of what the page shows:\n{block.output}"
            )
    return problems


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


# A file's examples run in a fresh interpreter: a walkthrough registers its toy benchmark, metric or
# statistic, which must not reach the registries of the process that checks the next file.
_RUNNER = """
import sys
import markdown_check
path, name = sys.argv[1:]
blocks = markdown_check.python_blocks(open(path, encoding="utf-8").read())
problems = markdown_check.marker_problems(blocks, name) + markdown_check.run_problems(blocks, name)
sys.stdout.write("\\0".join(problems))
"""


def example_problems(path: Path, name: str, cwd: Path) -> list[str]:
    """`marker_problems` and `run_problems` of the file at `path`, run in a fresh interpreter
    in `cwd` (where the examples write their files), with this checkout first on its path."""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([str(root), str(root / "tests")]),
    }
    run = [sys.executable, "-c", _RUNNER, str(path), name]
    done = subprocess.run(run, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return [f"{name}: the examples stopped the interpreter: {done.stderr.strip()}"]
    return [problem for problem in done.stdout.split("\0") if problem]
