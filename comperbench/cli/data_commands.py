"""`comperbench list [benchmarks|metrics|statistics] | show | export`: what is registered, the
benchmarks and their release files."""

from __future__ import annotations

import argparse
import sys
import warnings

from comperbench.benchmark import (
    VERIFIED,
    count_items,
    describe,
    get_metadata,
    list_benchmarks,
    load_benchmark,
)
from comperbench.cli.common import format_table, print_json
from comperbench.common.errors import ComperbenchError, DataMissingError
from comperbench.common.textutil import wrap

RAW_MISSING = "raw files missing"


LISTED = ("benchmarks", "metrics", "statistics")
"""What `comperbench list` lists (benchmarks unless told)."""


def run_list(args: argparse.Namespace) -> int:
    from comperbench.common.registry import PluginWarning

    listed = {"benchmarks": _list_benchmarks, "metrics": _list_metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginWarning)  # each is a line of its own below
        status = listed.get(args.kind, _list_statistics)(args)
    _report_failed_plugins()
    return status


def _report_failed_plugins() -> None:
    """One warning line on stderr per plugin whose entry point failed to load."""
    from comperbench.loaders import BENCHMARKS
    from comperbench.metrics import METRICS

    for registry in (BENCHMARKS, METRICS):
        for name, why in registry.failures.items():
            print(
                f"comperbench: warning: plugin {name!r} ({registry.group}) was not loaded: {why}",
                file=sys.stderr,
            )


def _list_metrics(args: argparse.Namespace) -> int:
    from comperbench.metrics import available, info

    infos = [info(name) for name in available()]
    if args.json:
        print_json([_described(i) for i in infos])
        return 0
    rows = [
        [i.name, i.family, ",".join(sorted(i.needs)), "yes" if i.higher_is_better else "no"]
        for i in infos
    ]
    print(format_table(["metric", "family", "needs", "higher is better"], rows))
    print("\n`comperbench list metrics --json` adds descriptions, citations and links")
    return 0


def _described(info: object) -> dict[str, object]:
    """A MetricInfo as JSON: its fields, `needs` sorted."""
    import dataclasses

    fields = dataclasses.asdict(info)  # type: ignore[call-overload]
    return {**fields, "needs": sorted(fields["needs"])}


def _list_statistics(args: argparse.Namespace) -> int:
    from comperbench.stats.metric_correlation.statistics import registered_statistics

    statistics = registered_statistics()
    if args.json:
        print_json([{"name": s.name, "display_name": s.display_name} for s in statistics])
        return 0
    print(format_table(["statistic", "name"], [[s.name, s.display_name] for s in statistics]))
    return 0


def _list_benchmarks(args: argparse.Namespace) -> int:
    if args.json:
        print_json([describe(get_metadata(name)) for name in list_benchmarks()])
        return 0
    rows = []
    for name in list_benchmarks():
        meta = get_metadata(name)
        sizes = []
        if args.sizes:
            try:
                for level in meta.stored_levels:
                    sizes.append(f"{level} {count_items(name, level, data_dir=args.data_dir)}")
            except DataMissingError:
                sizes = [RAW_MISSING]
        rows.append(
            [
                name,
                ",".join(meta.levels),
                "; ".join(sizes) if args.sizes else "",
                ", ".join(f"{a.name}({a.min:g}-{a.max:g})" for a in meta.aspects),
            ]
        )
    headers = ["benchmark", "levels", "items", "aspects (scale)"]
    if not args.sizes:
        rows = [[r[0], r[1], r[3]] for r in rows]
        headers = [headers[0], headers[1], headers[3]]
    print(format_table(headers, rows))
    if args.sizes and any(RAW_MISSING in row for row in rows):
        print(f"\n{RAW_MISSING}: `comperbench show NAME` says where to put them")
    return 0


def run_show(args: argparse.Namespace) -> int:
    meta = get_metadata(args.name)
    if args.json:
        print_json({**describe(meta), "metadata": meta})
        return 0
    print(f"{meta.name} {meta.version}  (fingerprint {meta.fingerprint})")
    print(wrap(meta.description))
    print(wrap(meta.homepage, first="homepage: ", indent=" " * 10))
    print(wrap(meta.license, first="license:  ", indent=" " * 10))
    print(
        f"splits:   {', '.join(meta.splits)}   references: {'yes' if meta.has_references else 'no'}"
    )
    protocol = meta.protocol
    if protocol.reference_excluded_systems:
        excluded = ", ".join(protocol.reference_excluded_systems)
        left_out = f"metrics needing references leave out {excluded} ({protocol.reason})"
        print(wrap(left_out, first="protocol: ", indent=" " * 10))
        print(wrap(protocol.source, first="          source: ", indent=" " * 18))
    else:
        print("protocol: every system is scored by every metric")
    print("\naspects:")
    for a in meta.aspects:
        default = "  (default)" if a.name == meta.default_aspect else ""
        line = f"  {a.name:<24} {a.min:g}-{a.max:g}  [{a.label}] {a.description}{default}"
        print(wrap(line, indent=" " * 33))
    for level in meta.stored_levels:
        bench = load_benchmark(meta.name, level, data_dir=args.data_dir)
        systems = bench.systems()
        ratings = sum(len(r) for r in bench.table.column("ratings").to_pylist())
        print(
            f"\n{level} level: {len(bench)} items, {len(bench.table.column('dialogue_id').unique())}"
            f" dialogues, {len(systems)} systems, {ratings} individual ratings"
        )
        if bench.provenance != VERIFIED:
            print(wrap(bench.provenance, first="  data: ", indent="    "))
        if bench.skipped:
            dropped = ", ".join(
                f"{reason} {count}" for reason, count in sorted(bench.skipped.items())
            )
            print(wrap(dropped, first="  dropped as the format requires: ", indent="    "))
        rows = [
            [system, int(row["items"]), f"{row[meta.default_aspect]:.3f}"]
            for system, row in systems.iterrows()
        ]
        print(format_table(["system", "items", f"mean {meta.default_aspect}"], rows, indent=2))
    for note in meta.notes:
        print("\n" + wrap(note, first="note: ", indent="  "))
    print(f"\ncitation (BibTeX, printed as is):\n{meta.citation}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from comperbench.report.release import export_release, push_release  # cards, the Hub

    if args.all == bool(args.names):
        raise ComperbenchError("name the benchmarks to export, or pass --all (not both)")
    names = list_benchmarks() if args.all else args.names
    if args.allow_redistribution and not args.push:
        raise ComperbenchError("--allow-redistribution applies to --push only")
    result = export_release(
        names,
        args.out,
        fmt=args.format,
        data_dir=args.data_dir,
        with_cards=args.cards,
        skip_missing=args.all,
        progress=print,
        allow_unpinned=args.allow_unpinned,
    )
    for name, reason in result.missing.items():
        print(f"comperbench: warning: {name} is not in the release: {reason}", file=sys.stderr)
    if args.push:
        url = push_release(result.out, args.push, allow_redistribution=args.allow_redistribution)
        print(f"pushed {result.out} to {url}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    listing = commands.add_parser("list")
    listing.add_argument(
        "kind", nargs="?", choices=LISTED, default="benchmarks", help="what to list (benchmarks)"
    )
    listing.add_argument("--no-sizes", dest="sizes", action="store_false", help="skip loading")
    listing.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    listing.add_argument(
        "--json", action="store_true", help="the declared metadata (or MetricInfo) as JSON"
    )
    listing.set_defaults(run=run_list)

    show = commands.add_parser("show")
    show.add_argument("name")
    show.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    show.add_argument("--json", action="store_true", help="the declared metadata as JSON")
    show.set_defaults(run=run_show)

    export = commands.add_parser("export")
    export.add_argument("names", nargs="*", metavar="NAME")
    export.add_argument(
        "--all",
        action="store_true",
        help="every registered benchmark (those without raw files are named and left out)",
    )
    export.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    export.add_argument("--out", default="release", help="output folder (default: ./release)")
    export.add_argument("--data-dir", help="raw-data root (default: $COMPERBENCH_DATA)")
    export.add_argument(
        "--no-cards", dest="cards", action="store_false", help="leave the dataset cards out"
    )
    export.add_argument(
        "--allow-unpinned",
        action="store_true",
        help="release data whose fingerprint is not the card's pin (or read at a branch); the "
        "manifest marks them unpinned",
    )
    export.add_argument(
        "--push", metavar="REPO_ID", help="upload the release as a Hugging Face dataset repo"
    )
    export.add_argument(
        "--allow-redistribution",
        action="append",
        default=[],
        metavar="NAME",
        help="with --push: confirm you may redistribute NAME although its licence is "
        "non-commercial or unknown (repeatable; without it such benchmarks are refused)",
    )
    export.set_defaults(run=run_export)
