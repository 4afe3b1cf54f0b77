"""The `comperbench` console script; each `*_commands` module in this package adds commands."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from comperbench.cli.human_commands import ACTIONS as HUMAN_ACTIONS
from comperbench.cli.verbs import Parser, Verb, Verbs, verb_table
from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.stats.blas import one_thread_by_default

_COMMANDS = {
    "card": Verb(
        "comperbench.cli.card_commands",
        "print, regenerate (--write) or check (--check) the facts of dataset cards",
    ),
    "cite": Verb("comperbench.cli.card_commands", "BibTeX of benchmarks and of comperbench itself"),
    "list": Verb(
        "comperbench.cli.data_commands",
        "benchmarks with levels, sizes and aspects; `list metrics`, `list statistics`",
    ),
    "show": Verb("comperbench.cli.data_commands", "a readable summary of one benchmark"),
    "export": Verb(
        "comperbench.cli.data_commands",
        "write the fixed release files of benchmarks, with cards and a manifest",
    ),
    "evaluate": Verb(
        "comperbench.cli.evaluate.commands",
        "score a benchmark with metrics and correlate them with human scores",
    ),
    "human": Verb(
        "comperbench.cli.human_commands",
        "your own human evaluation (votes, selections, labels, ratings) or a benchmark's: "
        "analyse, plan, templates",
        tuple(name for name, _ in HUMAN_ACTIONS.items()),
    ),
    "submit": Verb(
        "comperbench.cli.leaderboard_commands", "validate, score and store a metric submission"
    ),
    "template": Verb(
        "comperbench.cli.leaderboard_commands", "a submission file to fill for a benchmark"
    ),
    "leaderboard": Verb(
        "comperbench.cli.leaderboard_commands",
        "seed, show, rescore, serve or deploy the leaderboard",
        ("seed", "show", "rescore", "serve", "deploy"),
    ),
    "reproduce": Verb(
        "comperbench.cli.reproduce_commands",
        "recompute published correlations, counts and agreement figures; print them beside the "
        "published values",
    ),
    "compare": Verb(
        "comperbench.cli.stats_commands", "significance matrix and clusters of metrics"
    ),
    "agreement": Verb("comperbench.cli.stats_commands", "inter-annotator agreement per aspect"),
}
"""Each command: the module that builds its parser, its help and its actions. A run imports the
module of its own command only (and what that module needs), when the command line reaches it:
`--version` and `--help` import none."""
COMMANDS = verb_table("command", _COMMANDS)


def build_parser(every: bool = True) -> argparse.ArgumentParser:
    """`comperbench`'s parser with every command's parser built (`every`), or each built when
    a command line reaches it (as a run does)."""
    parser = Parser(
        prog="comperbench",
        description="Human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue.",
    )
    parser.add_argument("--version", action="version", version=f"comperbench {__version__}")
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, action=Verbs, verbs=COMMANDS
    )
    if every:
        commands.build_every()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    one_thread_by_default()
    # model loading bars of transformers and huggingface_hub would bury the tables (set it to 0
    # to see them)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        _refuse_undecodable(given)
        args = build_parser(every=False).parse_args(given)
        return int(args.run(args) or 0)
    except ComperbenchError as exc:
        from comperbench.common.textutil import escaped  # imports numpy: on the error path only

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
