"""`comperbench submit | template | leaderboard seed|show|rescore|serve|deploy`: the leaderboard
from the shell."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from comperbench.cli.common import print_json, write_new_file
from comperbench.leaderboard.scoring import leaderboard_statistics
from comperbench.leaderboard.submission import METRIC_FAMILIES
from comperbench.textutil import interval, number, p_value
from comperbench.textutil import table as format_table

if TYPE_CHECKING:
    from comperbench.leaderboard.service import Outcome
    from comperbench.leaderboard.store import Row, Store


def _store(args: argparse.Namespace) -> Store:
    from comperbench.leaderboard.store import Store

    return Store(args.db)


def run_submit(args: argparse.Namespace) -> int:
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
    placings = _placings(store, outcome, args.statistic)
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
    print(outcome.summary())
    if placings:
        print(f"{args.statistic} with the human scores; rank among the ranked stored metrics:")
        print(format_table(PLACING_HEADERS, [_placing_cells(p) for p in placings], indent=2))
    for note in dict.fromkeys(p["ci_note"] for p in placings if p["ci_note"]):
        print(f"note: {note}")
    return 0


PLACING_HEADERS = [
    "metric",
    "benchmark",
    "level",
    "aspect",
    "value",
    "95% CI",
    "n",
    "rank",
    "range",
]


def _scored_views(outcome: Outcome) -> list[tuple[str, str]]:
    """The (benchmark, level) views the submission's full coverages are scored in: each covered
    level, and system level from a benchmark's first stored level."""
    from comperbench.leaderboard.items import stored_levels

    views: dict[tuple[str, str], None] = {}
    for coverages in outcome.submission.metrics.values():
        for c in coverages:
            if c.full:
                views[(c.benchmark, c.level)] = None
                if c.level == stored_levels(c.benchmark)[0]:
                    views[(c.benchmark, "system")] = None
    return list(views)


def _placings(store: Store, outcome: Outcome, statistic: str) -> list[dict[str, Any]]:
    """The submission's stored correlations of `statistic` in every view it is scored in, metric
    by metric, each with its place: rank among the ranked rows and rank range, or why it is not
    ranked (undefined, or scored under other settings)."""
    from comperbench.benchmark import get_metadata
    from comperbench.leaderboard.scoring import scored_at
    from comperbench.leaderboard.service import ranking, set_apart, unranked
    from comperbench.stats.statistics import get_statistic

    own = outcome.stored.submission_id
    found: list[tuple[int, dict[str, Any]]] = []
    for benchmark, level in _scored_views(outcome):
        if not scored_at(get_statistic(statistic), level):
            continue
        for aspect in get_metadata(benchmark).aspect_names:
            view = (store, benchmark, level, aspect, statistic)
            ranked = ranking(*view)
            places = [
                (
                    r.row,
                    {"rank": r.rank, "of": len(ranked), "rank_range": [r.rank_low, r.rank_high]},
                )
                for r in ranked
            ]
            places += [(row, {"not_ranked": _undefined(row)}) for row in unranked(*view)]
            places += [(row, {"not_ranked": "other scoring settings"}) for row in set_apart(*view)]
            found += [
                (row.metric_id, _placing(row, benchmark, aspect, place))
                for row, place in places
                if row.submission_id == own
            ]
    return [placing for _, placing in sorted(found, key=lambda f: f[0])]


def _undefined(row: Row) -> str:
    return f"correlation undefined ({row.reason or 'reason not recorded'})"


def _placing(row: Row, benchmark: str, aspect: str, place: dict[str, Any]) -> dict[str, Any]:
    return {
        "metric": row.metric,
        "benchmark": benchmark,
        "level": row.settings.level,
        "aspect": aspect,
        "value": row.value,
        "ci": [row.ci_low, row.ci_high],
        "ci_note": row.ci_note,
        "n": row.n,
        **place,
    }


def _placing_cells(p: dict[str, Any]) -> list[object]:
    if "rank" in p:
        rank, span = f"{p['rank']}/{p['of']}", "{}-{}".format(*p["rank_range"])
    else:
        rank, span = "-", f"not ranked: {p['not_ranked']}"
    where = [p["metric"], p["benchmark"], p["level"], p["aspect"]]
    return [*where, number(p["value"]), interval(*p["ci"]), p["n"], rank, span]


def run_template(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.items import stored_levels, submission_template

    levels = [args.level] if args.level else stored_levels(args.name)
    text = submission_template(args.name, levels)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        write_new_file(args.out, text)
        print(f"wrote {args.out} ({text.count(chr(10)) - 1} items; fill the score column)")
    return 0


def run_seed(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.baselines import seed
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
    from comperbench.leaderboard.items import references_note, stored_levels
    from comperbench.leaderboard.service import (
        describe_apart,
        describe_unranked,
        ranking,
        set_apart,
        unranked,
    )
    from comperbench.leaderboard.views import family

    meta = get_metadata(args.benchmark)
    level = args.level or stored_levels(args.benchmark)[0]
    aspect = meta.aspect(args.aspect).name
    store = _store(args)
    view = (store, args.benchmark, level, aspect, args.statistic)
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
            r.row.n,
            family(r.row),
        ]
        for r in ranked
    ]
    print(f"{meta.name} / {level} / {aspect} / {args.statistic}")
    if excluded := meta.protocol.reference_excluded_systems:
        print(
            f"protocol: every submission is correlated without {', '.join(excluded)} "
            f"({meta.protocol.reason}), so that all rows share their items"
        )
    if note := references_note(args.benchmark, level):
        print(f"items: {note}")
    headers = ["rank", "range", "metric", "value", "95% CI", "p vs leader", "n", "family"]
    print(format_table(headers, rows))
    for note in dict.fromkeys(r.row.ci_note for r in ranked if r.row.ci_note):
        print(f"note: {note}")
    for row in unranked(*view):
        print(f"not ranked: {describe_unranked(row)}")
    for name, covered, total in store.partial(
        args.benchmark, level if level != "system" else stored_levels(args.benchmark)[0]
    ):
        print(f"partial (not ranked): {name} {covered}/{total}")
    for row in set_apart(*view):
        print(f"scored under other settings (not ranked): {describe_apart(row)}")
    if ranked:
        print(ranked[0].row.signature)
    return 0


def _ranked_entry(r) -> dict:
    from comperbench.leaderboard.views import family

    return {
        "rank": r.rank,
        "rank_range": [r.rank_low, r.rank_high],
        "metric": r.row.metric,
        "value": r.row.value,
        "ci": [r.row.ci_low, r.row.ci_high],
        "ci_note": r.row.ci_note,
        "p_vs_leader": r.p_vs_leader,
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
    from comperbench.leaderboard.app import serve

    serve(db=args.db, host=args.host, port=args.port)
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    from comperbench.leaderboard.deploy import FILES, deploy, space
    from comperbench.leaderboard.mirror import REPO_ENV

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
    parser.add_argument(
        "--db",
        help="leaderboard database (default: $COMPERBENCH_LEADERBOARD_DB or the user data dir)",
    )


def _statistic_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--statistic",
        default="spearman",
        choices=[s.name for s in leaderboard_statistics()],
        help=help,
    )


def register(commands: argparse._SubParsersAction) -> None:
    submit = commands.add_parser("submit", help="validate, score and store a metric submission")
    submit.add_argument("file", help="CSV, JSONL or parquet (optionally .gz or .zip)")
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

    template = commands.add_parser("template", help="a submission file to fill for a benchmark")
    template.add_argument("name", metavar="NAME")
    template.add_argument("--level", choices=["turn", "dialogue"])
    template.add_argument("--out", default="-", help="a new output file (default: standard output)")
    template.set_defaults(run=run_template)

    board = commands.add_parser(
        "leaderboard", help="seed, show, rescore, serve or deploy the leaderboard"
    )
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
    serve.add_argument("--port", type=int, default=7860)
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
