"""`comperbench card | cite`: the factual parts of dataset cards, the metric cards, and BibTeX to
cite benchmarks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from comperbench.benchmark import get_metadata, list_benchmarks
from comperbench.report import cards


def run_card(args: argparse.Namespace) -> int:
    cards_dir = Path(args.cards_dir) if args.cards_dir else None
    if args.metrics:
        return _metric_cards(args.write, args.check, cards_dir)
    names = list_benchmarks() if args.all else args.names
    if not names:
        print("comperbench: error: name a benchmark or pass --all", file=sys.stderr)
        return 2
    failed = 0
    for name in names:
        meta = get_metadata(name)
        counts = cards.load_counts(meta, data_dir=args.data_dir)
        if args.write:
            print(f"wrote {cards.write_card(meta, counts, cards_dir)}")
        elif args.check:
            problems = cards.check(cards.read_card(name, cards_dir), meta, counts)
            for problem in problems:
                print(f"{cards.card_path(name, cards_dir)}: {problem}")
            failed += bool(problems)
        else:
            print(cards.render_header(meta, counts))
            for block, body in cards.render_blocks(meta, counts).items():
                print(f"\n<!-- facts:start {block} -->\n{body}\n<!-- facts:end {block} -->")
    if args.all:
        failed += _readmes(args.write, args.check, cards_dir)
    if args.check and not failed:
        print(f"{len(names)} card(s) agree with the code")
    return 1 if failed else 0


def _readmes(write: bool, check: bool, cards_dir: Path | None) -> int:
    """Rewrite or check what the READMEs generate from the registry: the collection card's
    header and benchmark list (README.md of the cards folder), and the benchmark list of the
    README beside that folder. The number of files that disagree or are missing."""
    folder = cards_dir or cards.CARDS_DIR
    metas = [get_metadata(name) for name in list_benchmarks()]
    files: dict[Path, tuple[Callable[[str], str], Callable[[str], list[str]]]] = {
        folder / "README.md": (
            lambda text: cards.regenerate_collection(text, metas),
            lambda text: cards.check_collection(text, metas),
        ),
        folder.parent / "README.md": (
            lambda text: cards.with_benchmark_list(text, metas, cards.README_LINKS),
            lambda text: cards.check_benchmark_list(text, metas, cards.README_LINKS),
        ),
    }
    failed = 0
    for path, (generate, check_text) in files.items():
        if (write or check) and not path.is_file():
            print(f"{path}: missing", file=sys.stderr)
            failed += 1
        elif write:
            path.write_text(generate(path.read_text(encoding="utf-8")), encoding="utf-8")
            print(f"wrote {path}")
        elif check:
            problems = check_text(path.read_text(encoding="utf-8"))
            for problem in problems:
                print(f"{path}: {problem}")
            failed += bool(problems)
    return failed


def _metric_cards(write: bool, check: bool, cards_dir: Path | None) -> int:
    """Write, check or print the metric cards (`metric_cards/`) from the registered metrics."""
    from comperbench.metrics import available, info
    from comperbench.metrics.about import cards as metric_cards

    infos = [info(name) for name in available()]
    if write:
        for path in metric_cards.write_cards(infos, cards_dir):
            print(f"wrote {path}")
        return 0
    if check:
        problems = metric_cards.check_cards(infos, cards_dir)
        print(
            "\n".join(problems) if problems else f"{len(infos)} metric card(s) agree with the code"
        )
        return 1 if problems else 0
    print(metric_cards.metric_table_markdown(infos), end="")
    return 0


def run_cite(args: argparse.Namespace) -> int:
    print(cards.citations([get_metadata(name) for name in args.names]), end="")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    card = commands.add_parser("card")
    card.add_argument("names", nargs="*", metavar="NAME")
    card.add_argument("--all", action="store_true", help="every registered benchmark")
    card.add_argument(
        "--metrics",
        action="store_true",
        help="the metric cards (metric_cards/) instead: the metric table, or --write/--check",
    )
    mode = card.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the generated parts in place")
    mode.add_argument("--check", action="store_true", help="exit 1 when a card disagrees")
    card.add_argument(
        "--cards-dir",
        help=f"folder of the cards (default: {cards.CARDS_DIR}); with --all, the README.md "
        "beside it is written or checked too",
    )
    card.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    card.set_defaults(run=run_card)

    cite = commands.add_parser("cite")
    cite.add_argument("names", nargs="*", metavar="NAME")
    cite.set_defaults(run=run_cite)
