"""The `comperbench` console script; each `*_commands` module in this package adds subcommands."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from comperbench import __version__
from comperbench.cli.verbs import Parser
from comperbench.errors import ComperbenchError


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="comperbench",
        description="Human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue.",
    )
    parser.add_argument("--version", action="version", version=f"comperbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name.endswith("_commands"):
            importlib.import_module(f"{__name__}.{module.name}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # model loading bars of transformers and huggingface_hub would bury the tables (set it to 0
    # to see them)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except ComperbenchError as exc:
        print(f"comperbench: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader stopped early (`| head`): the rest of the output goes nowhere, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
