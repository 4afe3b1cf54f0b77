"""`comperbench human template KIND`: an example file of a human-evaluation format to fill in."""

from __future__ import annotations

import argparse
from pathlib import Path

from comperbench.cli.common import located
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import write_new_file
from comperbench.human_io.templates import TEMPLATES, render

SUFFIXES = (".csv", ".jsonl")


def run_template(args: argparse.Namespace) -> int:
    """`comperbench human template KIND`: print or write an example file.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    if args.out is None:
        print(render(args.kind), end="")
        return 0
    out = Path(args.out)
    if out.suffix.lower() not in SUFFIXES:
        raise ComperbenchError(f"{out}: write the template as .csv or .jsonl")
    write_new_file(out, render(args.kind, out.suffix.lower()))
    command = TEMPLATES[args.kind].command
    print(f"wrote {out}; fill it in, then run\n  comperbench human {command} --file {out}")
    return 0


def register(actions: argparse._SubParsersAction) -> None:
    """Add `template` to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    template = actions.add_parser("template")
    template.add_argument("kind", choices=list(TEMPLATES))
    template.add_argument(
        "--out", metavar="FILE", help="write it to this new .csv or .jsonl file (default: print)"
    )
    template.set_defaults(run=located(run_template))
