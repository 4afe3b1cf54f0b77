"""The `comperbench` console script; each `*_commands` module in this package adds subcommands."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from comperbench.cli.verbs import Parser
from comperbench.common.errors import ComperbenchError
from comperbench.common.textutil import escaped
from comperbench.common.version import __version__

COMMANDS = {
    "card": "card_commands",
    "cite": "card_commands",
    "list": "data_commands",
    "show": "data_commands",
    "export": "data_commands",
    "evaluate": "evaluate_commands",
    "human": "human_commands",
    "submit": "leaderboard_commands",
    "template": "leaderboard_commands",
    "leaderboard": "leaderboard_commands",
    "reproduce": "reproduce_commands",
    "compare": "stats_commands",
    "agreement": "stats_commands",
}
"""Each command -> the `*_commands` module that registers it: a run imports only its command's
module (and what that module needs), not every command's libraries."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of the commands of `command`'s module only."""
    parser = Parser(
        prog="comperbench",
        description="Human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue.",
    )
    parser.add_argument("--version", action="version", version=f"comperbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in [COMMANDS[command]] if command in COMMANDS else _command_modules():
        importlib.import_module(f"{__name__}.{name}").register(commands)
    return parser


def _command_modules() -> list[str]:
    found = sorted(m.name for m in pkgutil.iter_modules(__path__))
    return [name for name in found if name.endswith("_commands")]


def main(argv: Sequence[str] | None = None) -> int:
    # model loading bars of transformers and huggingface_hub would bury the tables (set it to 0
    # to see them)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        _refuse_undecodable(given)
        args = build_parser(given[0] if given else None).parse_args(given)
        return int(args.run(args) or 0)
    except ComperbenchError as exc:
        print(f"comperbench: error: {escaped(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader stopped early (`| head`): the rest of the output goes nowhere, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        # an unwritable or vanished path (--out, $COMPERBENCH_CACHE, ...), named by the system
        print(f"comperbench: error: {_os_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("comperbench: interrupted", file=sys.stderr)
        return 130


def _refuse_undecodable(argv: Sequence[str]) -> None:
    """Refuse an argument with bytes that are not UTF-8 (a file name in another encoding), which
    no file written or read by name could carry."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(arg).decode("utf-8", "backslashreplace")
            raise ComperbenchError(
                f"argument {shown} holds bytes that are not UTF-8 text; rename the file"
            ) from None


def _os_error(exc: OSError) -> str:
    """An operating-system error as one line: what failed and on which path."""
    where = " -> ".join(repr(str(f)) for f in (exc.filename, exc.filename2) if f is not None)
    why = exc.strerror or str(exc)
    return f"{why}: {where}" if where else why


if __name__ == "__main__":
    sys.exit(main())
