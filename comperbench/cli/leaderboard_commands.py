"""`comperbench submit | template | leaderboard seed|show|rescore|serve|deploy`: the leaderboard
from the shell."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from comperbench.cli.common import format_table, print_json
from comperbench.cli.flags import PORT, regular_file
from comperbench.common.errors import ComperbenchError
from comperbench.common.outputs import write_new_file
from comperbench.common.textutil import interval, number, p_value, wrap, wrap_signature
from comperbench.leaderboard.scoring import leaderboard_statistics
from comperbench.leaderboard.submission import METRIC_FAMILIES

if TYPE_CHECKING:
    from comperbench.leaderboard.store import Store


def _store(args: argparse.Namespace) -> Store:
    """The leaderboard database at --db, else at $COMPERBENCH_LEADERBOARD_DB, else at the
    default location. A path given must hold a leaderboard database unless --create; the
    default location's database is created when first needed."""
    from comperbench.leaderboard.store import DB_ENV, Store, database_problem, default_path

    explicit = args.db or os.environ.get(DB_ENV)
    path = Path(explicit) if explicit else default_path()
    named = f"--db {path}" if args.db else f"{DB_ENV}={path}"
    if not explicit:
        named = f"the leaderboard database {path}"
    problem = database_problem(path, create=args.create or not explicit)
    if problem is not None:
        if database_problem(path, create=True) is None:
            problem += "; --create starts a new leaderboard database there"
        raise ComperbenchError(f"{named} {problem}")
    try:
        return Store(path)
    except (sqlite3.Error, OSError) as exc:
        raise ComperbenchError(
            f"{named} cannot be opened as the leaderboard database: {exc}"
        ) from None


def run_submit(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.placings import placings_of, placings_text
    from comperbench.leaderboard.service import submit
    from comperbench.leaderboard.submission import MAX_FILE_BYTES, SubmissionMeta

    path = Path(args.file)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        print(f"comperbench: error: {path} {what}", file=sys.stderr)
        return 2
    if path.stat().st_size > MAX_FILE_BYTES:
        print(f"comperbench: error: {path} is larger than {MAX_FILE_BYTES} bytes", file=sys.stderr)
        return 2
    meta = SubmissionMeta(
        name=args.name,
        authors=args.authors,
        link=args.link,
        description=args.description,
        reference_free=args.reference_free,
        trained_on=tuple(t.strip() for t in args.trained_on.split(",") if t.strip()),
        family=args.family,
    )
    store = _store(args)
    outcome = submit(path.name, path.read_bytes(), meta, store)
    placings = placings_of(store, outcome, args.statistic)
    if args.json:
        print_json(
            {
                "submission_id": outcome.stored.submission_id,
                "family": meta.family,
                "summary": outcome.summary(),
                "statistic": args.statistic,
                "results": placings,
            }
        )
        return 0
    print(wrap(outcome.summary(), indent="    "))
    if placings:
        print(placings_text(placings, args.statistic))
    return 0


def run_template(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.items import cached_benchmark, stored_levels, submission_template

    levels = [args.level] if args.level else stored_levels(args.name)
    text = submission_template(args.name, levels, with_texts=args.with_texts)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        write_new_file(args.out, text)
        items = sum(len(cached_benchmark(args.name, level)) for level in levels)
        print(f"wrote {args.out} ({items} items; fill the score column)")
    return 0


def run_seed(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.seeding.baselines import seed
    from comperbench.metrics.runner import split_metric_list

    metrics = split_metric_list(args.metrics) if args.metrics else None
    benchmarks = args.benchmarks.split(",") if args.benchmarks else None
    store = _store(args)
    outcomes = seed(store, metrics, benchmarks, full=args.full)
    added = sum(not o.stored.duplicate for o in outcomes)
    print(
        f"{added} baseline submissions added ({len(outcomes) - added} already there) in {store.path}"
    )
    return 0


def run_show(args: argparse.Namespace) -> int:
    from comperbench.benchmark import get_metadata
    from comperbench.leaderboard.ceiling import ceiling_line, human_ceiling
    from comperbench.leaderboard.items import references_note, stored_levels
    from comperbench.leaderboard.service import (
        describe_apart,
        describe_unranked,
        ranking,
        set_apart,
        unranked,
        verdict_lines,
    )
    from comperbench.leaderboard.web.views import family

    meta = get_metadata(args.benchmark)
    level = args.level or stored_levels(args.benchmark)[0]
    aspect = meta.aspect(args.aspect).name
    store = _store(args)
    view = (store, args.benchmark, level, aspect, args.statistic)
    ceiling = human_ceiling(args.benchmark, level, aspect, args.statistic)
    ranked = ranking(*view)
    if args.json:
        print_json(
            {
                "benchmark": meta.name,
                "level": level,
                "aspect": aspect,
                "statistic": args.statistic,
                "protocol_excluded": list(meta.protocol.reference_excluded_systems),
                "items_note": references_note(args.benchmark, level),
                "ranked": [_ranked_entry(r) for r in ranked],
                "verdicts": verdict_lines(*view),
                "human_ceiling": None if ceiling is None else asdict(ceiling),
                "not_ranked": [describe_unranked(row) for row in unranked(*view)],
                "set_apart": [describe_apart(row) for row in set_apart(*view)],
            }
        )
        return 0
    rows = [
        [
            r.rank,
            f"{r.rank_low}-{r.rank_high}",
            r.row.metric,
            number(r.row.value),
            interval(r.row.ci_low, r.row.ci_high),
            "leader" if r.leader else p_value(r.p_vs_leader),
            "yes" if r.tied_with_leader else "no",
            r.row.n,
            family(r.row),
        ]
        for r in ranked
    ]
    print(f"{meta.name} / {level} / {aspect} / {args.statistic}")
    if excluded := meta.protocol.reference_excluded_systems:
        protocol = (
            f"every reference-based submission is correlated without {', '.join(excluded)} "
            f"({meta.protocol.reason}); a reference-free one on every system, as `evaluate` does"
        )
        print(wrap(protocol, first="protocol: ", indent="  "))
    if note := references_note(args.benchmark, level):
        print(wrap(note, first="items: ", indent="  "))
    headers = ["rank", "range", "metric", "value", "95% CI", "adj. p vs leader", "tied", "n"]
    print(format_table([*headers, "family"], rows))
    for line in verdict_lines(*view):
        print(wrap(line, indent="  "))
    if ceiling is not None:
        print(wrap(ceiling_line(ceiling), first="reference (not ranked): ", indent="  "))
    for note in dict.fromkeys(r.row.ci_note for r in ranked if r.row.ci_note):
        print(wrap(note, first="note: ", indent="  "))
    for row in unranked(*view):
        print(wrap(describe_unranked(row), first="not ranked: ", indent="  "))
    for name, covered, total in store.partial(
        args.benchmark, level if level != "system" else stored_levels(args.benchmark)[0]
    ):
        print(wrap(f"{name} {covered}/{total}", first="partial (not ranked): ", indent="  "))
    for row in set_apart(*view):
        apart = describe_apart(row)
        print(wrap(apart, first="scored under other settings (not ranked): ", indent="  "))
    if ranked:
        print(wrap_signature(ranked[0].row.signature))
    return 0


def _ranked_entry(r) -> dict:
    from comperbench.leaderboard.web.views import family

    return {
        "rank": r.rank,
        "rank_range": [r.rank_low, r.rank_high],
        "metric": r.row.metric,
        "value": r.row.value,
        "ci": [r.row.ci_low, r.row.ci_high],
        "ci_note": r.row.ci_note,
        "p_vs_leader": r.p_vs_leader,
        "tied_with_leader": r.tied_with_leader,
        "leader": r.leader,
        "n": r.row.n,
        "family": family(r.row),
        "p_value": r.row.p_value,
        "p_method": r.row.p_method,
        "signature": r.row.signature,
    }


def run_rescore(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.service import rescore

    done = rescore(_store(args))
    submissions = len({r[0] for r in done.rescored})
    print(
        f"{len(done.rescored)} coverage(s) of {submissions} submission(s) rescored,"
        f" {len(done.failed)} submission(s) not"
    )
    return 1 if done.failed else 0


def run_serve(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.web.app import serve, sign_in_checked

    sign_in_checked(args.host)  # before the database is opened
    serve(db=_store(args).path, host=args.host, port=args.port)
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.mirror import REPO_ENV
    from comperbench.leaderboard.web.deploy import FILES, deploy, space

    spec = space(args.space, args.results_repo, args.package)
    folder = args.folder or f"{spec.space_id.split('/')[1]}-space"
    done = deploy(spec, folder, push_it=not args.folder_only)
    print(f"wrote {done.folder}: {', '.join(FILES)} (installs {spec.package})")
    if done.url is not None:
        print(f"pushed {done.url}; submissions are kept in the dataset {spec.results_repo}")
        print(f"({REPO_ENV}); give the Space a secret HF_TOKEN that may write to it")
        return 0
    if args.folder_only:
        print(f"not pushed: {done.not_pushed}")
        return 0
    print(f"comperbench: error: could not push {spec.space_id}: {done.not_pushed}", file=sys.stderr)
    return 1


def _db_option(parser: argparse.ArgumentParser) -> None:
    """--db and --create."""
    parser.add_argument(
        "--db",
        help="leaderboard database, an existing one unless --create (default: "
        "$COMPERBENCH_LEADERBOARD_DB, else leaderboard.sqlite in the user data dir, created "
        "when first needed)",
    )
    parser.add_argument(
        "--create",
        action="store_true",
        help="start a new, empty leaderboard database at --db when there is none",
    )


def _statistic_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--statistic",
        default="spearman",
        choices=[s.name for s in leaderboard_statistics()],
        help=help,
    )


def register(commands: argparse._SubParsersAction) -> None:
    submit = commands.add_parser("submit")
    submit.add_argument(
        "file", type=regular_file, help="CSV, JSONL or parquet (optionally .gz or .zip)"
    )
    submit.add_argument("--name", required=True, help="metric name shown on the leaderboard")
    submit.add_argument("--authors", default="")
    submit.add_argument("--link", default="", help="paper or code URL")
    submit.add_argument("--description", default="")
    submit.add_argument("--reference-free", action="store_true")
    submit.add_argument(
        "--trained-on", default="", help="comma-separated benchmarks used to train or tune it"
    )
    submit.add_argument(
        "--family", choices=METRIC_FAMILIES, help="the metric's family (default: not declared)"
    )
    _statistic_option(submit, "the ranking statistic printed (kendall-b: system level only)")
    _db_option(submit)
    submit.add_argument("--json", action="store_true", help="print the outcome as JSON")
    submit.set_defaults(run=run_submit)

    template = commands.add_parser("template")
    template.add_argument("name", metavar="NAME")
    template.add_argument("--level", choices=["turn", "dialogue"])
    template.add_argument("--out", default="-", help="a new output file (default: standard output)")
    template.add_argument(
        "--with-texts",
        action="store_true",
        help="add what a metric reads of each item: system, context, response, references, "
        "grounding (dialogue level: turns); submit ignores these columns",
    )
    template.set_defaults(run=run_template)

    board = commands.add_parser("leaderboard")
    actions = board.add_subparsers(dest="action", metavar="ACTION", required=True)
    seed = actions.add_parser("seed", help="store the package's own metrics as baselines")
    chosen = seed.add_mutually_exclusive_group()
    chosen.add_argument(
        "--metrics",
        help="comma-separated metric names (default: the cheap baselines, the model-free"
        " n-gram metrics, and distinct-n and length at dialogue level)",
    )
    chosen.add_argument(
        "--full",
        action="store_true",
        help="every baseline: the cheap ones and the encoder metrics (embedding-average,"
        " greedy-matching, vector-extrema, context-cosine)",
    )
    seed.add_argument("--benchmarks", help="comma-separated benchmarks (default: all)")
    _db_option(seed)
    seed.set_defaults(run=run_seed)

    show = actions.add_parser("show", help="print a ranking")
    show.add_argument("benchmark")
    show.add_argument("--level", choices=["turn", "dialogue", "system"])
    show.add_argument("--aspect", help="default: the benchmark's default aspect")
    _statistic_option(show, "kendall-b is ranked at system level only")
    _db_option(show)
    show.add_argument("--json", action="store_true", help="print the ranking as JSON")
    show.set_defaults(run=run_show)

    rescore = actions.add_parser(
        "rescore",
        help="score stored submissions again after a benchmark version, protocol or scoring change"
        " (older results are kept)",
    )
    _db_option(rescore)
    rescore.set_defaults(run=run_rescore)

    serve = actions.add_parser("serve", help="run the Gradio app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=PORT, default=7860)
    _db_option(serve)
    serve.set_defaults(run=run_serve)

    deploy = actions.add_parser("deploy", help="write the app as a Hugging Face Space and push it")
    deploy.add_argument("space", metavar="ORG/NAME", help="the Space")
    deploy.add_argument(
        "--results-repo",
        metavar="ORG/NAME",
        help="the dataset that keeps the submissions (default: the Space's id + '-results')",
    )
    deploy.add_argument("--folder", help="where the Space folder is written (default: NAME-space)")
    deploy.add_argument(
        "--package",
        help="comperbench's requirement: a local wheel or sdist, or a pip requirement "
        "(default: this version)",
    )
    deploy.add_argument("--folder-only", action="store_true", help="write the folder, do not push")
    deploy.set_defaults(run=run_deploy)
