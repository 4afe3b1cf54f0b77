"""The paths through the leaderboard, shared by the CLI and the app: submit a file (kept in the
results folder too, when one is configured), read a ranking, restore a store from the folder
and rescore what was scored under an older benchmark version, protocol or scoring version (at
once, or in a background thread while the app serves).

The public app's rules live here too: where sign-in is required (on a Space, or with
COMPERBENCH_REQUIRE_LOGIN=1), a submission needs an account, and an account may store at most
COMPERBENCH_SUBMISSIONS_PER_DAY submissions (default 5) in any 24 hours. The CLI has no account
and no limit."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import numpy as np

from comperbench.common.errors import ComperbenchError
from comperbench.leaderboard.comparison import view_verdicts
from comperbench.leaderboard.items import (
    ItemIndex,
    level_items,
    protocol_tag,
    stored_levels,
)
from comperbench.leaderboard.mirror import Mirror, MirrorError, configured
from comperbench.leaderboard.records import Correlation
from comperbench.leaderboard.scoring import (
    N_RESAMPLES,
    SCORING_VERSION,
    SEED,
    best_places,
    score_coverages,
)
from comperbench.leaderboard.store import (
    Made,
    QuotaReached,
    Row,
    Store,
    Stored,
    StoredCoverage,
)
from comperbench.leaderboard.submission import (
    Coverage,
    Problem,
    Submission,
    SubmissionError,
    SubmissionMeta,
    parse,
)
from comperbench.stats.metric_tests.verdicts import Verdicts

SIGN_IN_ENV = "COMPERBENCH_REQUIRE_LOGIN"
PER_DAY_ENV = "COMPERBENCH_SUBMISSIONS_PER_DAY"
PER_DAY = 5
"""Submissions an account may store in any 24 hours, unless PER_DAY_ENV says otherwise."""
DAY = 24 * 3600.0


class Refused(ComperbenchError):
    """A submission refused before its file is read; the message says why and what to do."""


def sign_in_required() -> bool:
    """COMPERBENCH_REQUIRE_LOGIN when set (1 or 0), else whether the app runs on a Space."""
    explicit = os.environ.get(SIGN_IN_ENV, "").strip()
    if explicit:
        return explicit not in ("0", "false", "no")
    return bool(os.environ.get("SPACE_ID"))


def submissions_per_day() -> int:
    """The daily limit per account: COMPERBENCH_SUBMISSIONS_PER_DAY, else PER_DAY."""
    text = os.environ.get(PER_DAY_ENV, "").strip() or str(PER_DAY)
    if not text.isdigit():
        raise ComperbenchError(f"{PER_DAY_ENV} must be a whole number, not {text!r}")
    return int(text)


def _when(moment: float, now: float) -> str:
    minutes = math.ceil((moment - now) / 60)
    stamp = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{stamp} (in {minutes // 60} h {minutes % 60} min)"


def _over_limit(account: str, made: Made, limit: int, now: float) -> Refused:
    """The refusal of an account that made `limit` submissions in the last 24 hours: how many,
    and when the next one is allowed."""
    when = f"at {_when(made.times[-limit] + DAY, now)}" if limit else "while the limit is 0"
    what = f"has stored {len(made.times)} submission(s) in the last 24 hours"
    if made.refused:
        what = (
            f"has made {len(made.times)} submission(s) in the last 24 hours"
            f" ({made.refused} of them refused for their size)"
        )
    return Refused(f"{account} {what} and the limit is {limit}: the next one is allowed {when}")


def admit(store: Store, account: str | None, sign_in: bool, now: float | None = None) -> None:
    """Refuse a submission without an account where `sign_in` is required, or from an account
    that made its daily limit in the last 24 hours (stored submissions and files refused for
    their size; the message says when the next one is allowed). No account, no limit. This is
    the early check; `accept` with `limited` checks again in the transaction that stores."""
    if account is None:
        if sign_in:
            raise Refused("sign in with Hugging Face to submit")
        return
    now = time.time() if now is None else now
    limit = submissions_per_day()
    made = store.made_by(account, now - DAY)
    if len(made.times) >= limit:
        raise _over_limit(account, made, limit, now)


@dataclass
class Outcome:
    """What a submission did: where it is stored and what it covers."""

    stored: Stored
    submission: Submission

    def summary(self) -> str:
        if self.stored.duplicate:
            return (
                f"identical file already submitted as #{self.stored.submission_id} "
                f"({self.stored.name!r}); nothing stored"
            )
        family = self.submission.meta.family or "not declared"
        lines = [f"stored as submission #{self.stored.submission_id} (family: {family})"]
        for metric, coverages in self.submission.metrics.items():
            for c in coverages:
                state = "ranked" if c.full else "partial: listed, not ranked"
                lines.append(f"  {metric} on {c.benchmark} ({c.level}): {c.describe()}, {state}")
        return "\n".join(lines)


Upload = tuple[str, bytes, SubmissionMeta]
"""(file name, file content, metadata) of one submitted file."""


def accept(
    uploads: Sequence[Upload],
    store: Store,
    index: ItemIndex | None = None,
    n_resamples: int = N_RESAMPLES,
    created_at: float | None = None,
    account: str | None = None,
    limited: bool = False,
    mirror: Mirror | None = None,
) -> list[Outcome]:
    """Validate every file (a rejected one raises before anything is stored), score the
    full-coverage parts of those not stored yet together (the metrics of one benchmark level
    over the same resamples, drawn once) and store each file with its correlations, as made at
    `created_at` (default: now) by `account`, kept in `mirror` (None: not kept) before its row
    commits: a row never commits without its kept file, and one that cannot be kept is not
    stored (`MirrorError`).

    `limited` holds `account` to its daily limit: each file is stored only if the account has
    not made its limit (checked in the transaction that stores it), and a file refused for its
    size or its content (`SubmissionError`) counts against the limit: reading it cost the
    server too. A submission that is not a baseline cannot take the name of a stored one."""
    index = index or ItemIndex()
    now = time.time() if created_at is None else created_at
    try:
        submissions = [parse(name, raw, meta, index) for name, raw, meta in uploads]
        for submission in submissions:
            _check_name(store, submission)
    except SubmissionError:
        if limited and account is not None:
            store.refused(account, now)
        raise
    existing = [store.find(s.file_sha256) for s in submissions]
    parts = [
        (k, metric, coverage)
        for k, (s, found) in enumerate(zip(submissions, existing, strict=True))
        if found is None
        for metric, coverages in s.metrics.items()
        for coverage in coverages
        if coverage.full
    ]
    scored = score_coverages([c for _, _, c in parts], n_resamples=n_resamples)
    results: list[dict[str, list[Correlation]]] = [{} for _ in submissions]
    for (k, metric, _), rows in zip(parts, scored, strict=True):
        results[k].setdefault(metric, []).extend(rows)
    quota = (now - DAY, submissions_per_day()) if limited else None

    def stored(k: int) -> Stored:
        keep = None
        if mirror is not None:
            keep = partial(mirror.write, uploads[k][1], submissions[k], n_resamples=n_resamples)
        return store.add(submissions[k], results[k], created_at, account, quota, keep)

    try:
        return [
            Outcome(found or stored(k), s)
            for k, (s, found) in enumerate(zip(submissions, existing, strict=True))
        ]
    except QuotaReached as exc:
        raise _over_limit(str(account), exc.made, exc.limit, now) from None


def _check_name(store: Store, submission: Submission) -> None:
    """Refuse a submission, not itself a baseline, named as a stored baseline is."""
    meta = submission.meta
    if not meta.baseline and meta.name.strip().casefold() in store.baseline_names():
        why = f"the name {meta.name.strip()!r} is a baseline's; choose another"
        raise SubmissionError(submission.file_name, [Problem(why, field_name="name")])


def submit_many(
    uploads: Sequence[Upload],
    store: Store,
    index: ItemIndex | None = None,
    n_resamples: int = N_RESAMPLES,
    mirror: Mirror | None = None,
    account: str | None = None,
    limited: bool = False,
) -> list[Outcome]:
    """`accept` the files (`limited`: held to the account's daily limit), each newly stored
    one kept, with `account` if any, in `mirror` or else in the results folder the environment
    configures (none: not kept) before its row commits. A file stored already whose kept
    folder is missing (stored before the folder was written first) is kept again, with its
    stored number, time and account."""
    kept = mirror or configured()
    outcomes = accept(
        uploads, store, index, n_resamples, account=account, limited=limited, mirror=kept
    )
    if kept is not None:
        for (_, raw, _), outcome in zip(uploads, outcomes, strict=True):
            if outcome.stored.duplicate and not kept.holds(outcome.submission.file_sha256):
                kept.write(raw, outcome.submission, outcome.stored, n_resamples)
    return outcomes


def submit(
    file_name: str,
    raw: bytes,
    meta: SubmissionMeta,
    store: Store,
    index: ItemIndex | None = None,
    n_resamples: int = N_RESAMPLES,
    mirror: Mirror | None = None,
    account: str | None = None,
    limited: bool = False,
) -> Outcome:
    """Validate, score (full-coverage parts), store and keep one uploaded file (`limited`:
    held to the account's daily limit)."""
    upload = (file_name, raw, meta)
    return submit_many([upload], store, index, n_resamples, mirror, account, limited)[0]


@dataclass
class Restoration:
    """What `restore` did: the submissions stored again, and the folders it could not restore
    with the reason."""

    restored: list[Outcome] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def restore(
    store: Store,
    mirror: Mirror,
    index: ItemIndex | None = None,
    report: Callable[[str], None] = _stderr,
) -> Restoration:
    """Rebuild an empty store from the results folder: every kept submission accepted again as
    on upload (validated, scored with its recorded resample count, stored at its recorded time
    by its recorded account), oldest first, with a line each to `report`. A kept submission that
    cannot be read (`Mirror.read` checks each field of its record), no longer validates or fails
    in any other way is reported with its folder and the reason and left out; the others are
    restored all the same. A store that has submissions is left as it is, and nothing is written to the folder."""
    done = Restoration()
    folders = mirror.folders()
    if store.count() or not folders:
        return done
    report(f"restoring {len(folders)} kept submission(s) from {mirror.folder} into {store.path}")
    entries = []
    for folder in folders:
        try:
            entries.append(mirror.read(folder))
        except MirrorError as exc:
            done.failed.append((folder, str(exc)))
            report(f"not restored: {exc}")
    entries.sort(key=lambda e: (e.submitted_at, e.submission_id))
    index = index or ItemIndex()
    for k, entry in enumerate(entries, 1):
        try:
            [outcome] = accept(
                [(entry.file_name, entry.raw, entry.meta)],
                store,
                index,
                entry.n_resamples,
                entry.submitted_at,
                entry.account,
            )
        except Exception as exc:
            done.failed.append((entry.folder, str(exc)))
            report(f"not restored: {entry.folder}: {type(exc).__name__}: {exc}")
            continue
        done.restored.append(outcome)
        report(
            f"restored {k}/{len(entries)}: {entry.meta.name!r} as #{outcome.stored.submission_id}"
        )
    return done


@dataclass
class Rescoring:
    """What `rescore` did: the (submission id, metric, benchmark, level) scored again, and the
    submissions it could not validate again with the reason (their results are left as they
    are)."""

    rescored: list[tuple[int, str, str, str]] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)


def _current(
    benchmark: str, level: str, index: ItemIndex, reference_free: bool = False
) -> tuple[str, str, str] | None:
    """The benchmark's current (fingerprint, `name@fingerprint`, protocol at `level` for a
    reference-free or reference-based metric), or None when it is no longer a benchmark or its
    data cannot be read."""
    try:
        fingerprint = index.fingerprint(benchmark)
        protocol = protocol_tag(benchmark, level, reference_free)
        return fingerprint, f"{benchmark}@{fingerprint}", protocol
    except (ComperbenchError, KeyError):
        return None


def is_stale(kept: StoredCoverage, index: ItemIndex) -> bool:
    """Whether a stored coverage must be validated and scored again: its scores were validated
    against an older benchmark version, whether it covers the level fully changed, or it is full
    and has no results under the current benchmark version, protocol and scoring version."""
    c = kept.coverage
    current = _current(c.benchmark, c.level, index, c.reference_free)
    if current is None:
        return False
    fingerprint, tag, protocol = current
    if c.fingerprint != fingerprint:
        return True
    again = replace(c, fingerprint=fingerprint, referenced=index.referenced(c.benchmark, c.level))
    if again.full != kept.full:
        return True
    return again.full and not any(k[:3] == (tag, protocol, SCORING_VERSION) for k in kept.scored)


def stale_coverages(store: Store, index: ItemIndex | None = None) -> list[StoredCoverage]:
    """The stored coverages `rescore` validates and scores again (see `is_stale`)."""
    index = index or ItemIndex()
    return [kept for kept in store.coverages() if is_stale(kept, index)]


def _resamples(kept: Sequence[StoredCoverage]) -> int:
    """The resample count a submission's stored results were scored with (default N_RESAMPLES)."""
    counts = Counter(k[3] for c in kept for k in c.scored if k[3] is not None)
    return counts.most_common(1)[0][0] if counts else N_RESAMPLES


def _fresh(
    stale: Sequence[StoredCoverage], index: ItemIndex, mirror: Mirror | None
) -> tuple[list[tuple[int, Coverage]], int]:
    """A submission's stale coverages validated against the current benchmarks, by metric id,
    and the resample count to score them with: from its file in the results folder when kept
    there (every level the file covers now), else from its stored scores (when validated
    against the current benchmark version). `ComperbenchError` when neither can be."""
    ids = {kept.metric: kept.metric_id for kept in stale}
    if mirror is not None and (folder := mirror.folder / stale[0].file_sha256).is_dir():
        entry = mirror.read(folder)
        submission = parse(entry.file_name, entry.raw, entry.meta, index)
        found = [(ids[m], c) for m, cs in submission.metrics.items() if m in ids for c in cs]
        return found, entry.n_resamples
    fresh = []
    for kept in stale:
        c = kept.coverage
        fingerprint = index.fingerprint(c.benchmark)
        if c.fingerprint != fingerprint:
            raise ComperbenchError(
                f"{c.benchmark} changed ({c.fingerprint} -> {fingerprint}) and the submitted "
                "file is not kept in a results folder: submit it again"
            )
        fresh.append(
            (kept.metric_id, replace(c, referenced=index.referenced(c.benchmark, c.level)))
        )
    return fresh, _resamples(stale)


def rescore(
    store: Store,
    mirror: Mirror | None = None,
    index: ItemIndex | None = None,
    report: Callable[[str], None] = _stderr,
) -> Rescoring:
    """Validate and score again, without resubmission, every stored submission with a stale
    coverage (see `is_stale`: after a change of a benchmark's version, of its evaluation
    protocol or of SCORING_VERSION), with a line each to `report`. Its coverages are replaced by
    the validated ones and its new results added under the current version; its older results
    are kept (`Store.view` with their version). Submissions are validated again from their file
    in `mirror` (default: the configured results folder) when kept there, else from their stored
    scores; one that fails is reported and left as it is."""
    index = index or ItemIndex()
    mirror = mirror or configured()
    done = Rescoring()
    by_submission: dict[int, list[StoredCoverage]] = {}
    for kept in stale_coverages(store, index):
        by_submission.setdefault(kept.submission_id, []).append(kept)
    for submission_id, stale in by_submission.items():
        try:
            fresh, n_resamples = _fresh(stale, index, mirror)
            wanted = {(k.metric_id, k.coverage.benchmark, k.coverage.level) for k in stale}
            fresh = [(m, c) for m, c in fresh if (m, c.benchmark, c.level) in wanted]
            full = [(m, c) for m, c in fresh if c.full]
            scored = score_coverages([c for _, c in full], n_resamples=n_resamples)
        except (ComperbenchError, ValueError) as exc:
            done.failed.append((submission_id, str(exc)))
            report(f"not rescored: submission #{submission_id}: {exc}")
            continue
        results = {id(c): rows for (_, c), rows in zip(full, scored, strict=True)}
        names = {k.metric_id: k.metric for k in stale}
        for metric_id, c in fresh:
            store.rescored(metric_id, c, results.get(id(c), []))
            done.rescored.append((submission_id, names[metric_id], c.benchmark, c.level))
        report(f"rescored submission #{submission_id}: {len(fresh)} coverage(s)")
    return done


@dataclass(frozen=True)
class Restoring:
    """A `restore` then `rescore` running in a background thread (None: nothing to do), and how
    many kept submissions it restores, or stored submissions it rescores."""

    count: int = 0
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


def _restore_then_rescore(store: Store, mirror: Mirror | None, index: ItemIndex | None) -> None:
    if mirror is not None:
        restore(store, mirror, index)
    rescore(store, mirror, index)


def restore_in_background(
    store: Store, mirror: Mirror | None, index: ItemIndex | None = None
) -> Restoring:
    """Start in a daemon thread `restore` when the store is empty and `mirror` keeps
    submissions, then `rescore` of the stored submissions scored under an older benchmark
    version, protocol or scoring version; how many it restores or rescores."""
    folders = [] if mirror is None or store.count() else mirror.folders()
    count = len(folders) or len({k.submission_id for k in stale_coverages(store, index)})
    if not count:
        return Restoring()
    thread = threading.Thread(
        target=_restore_then_rescore,
        args=(store, mirror, index),
        name="comperbench-restore",
        daemon=True,
    )
    thread.start()
    return Restoring(count, thread)


@dataclass
class Ranked:
    """One line of a ranking: its place by value, and the verdicts of the view about it."""

    row: Row
    rank: int
    rank_low: int
    rank_high: int
    p_vs_leader: float
    """Adjusted p-value of "the leader correlates better" (NaN for the leaders)."""
    leader: bool
    tied_with_leader: bool
    """No leader is significantly better (the view's test and correction)."""


Pairing = tuple[int | None, int | None, str, str, int]
"""(resamples, seed, benchmark@fingerprint, protocol, replicate count) of a stored row."""


def settings(row: Row) -> Pairing:
    """The resampling settings, benchmark version and protocol a row's replicates were drawn
    under, read from the row's stored columns, and how many replicates it holds."""
    return (*row.settings.pairing, len(row.replicates))


def _current_tag(benchmark: str) -> str | None:
    try:
        return level_items(benchmark, stored_levels(benchmark)[0]).tag
    except ComperbenchError:
        return None


def comparable(benchmark: str, rows: list[Row]) -> tuple[list[Row], list[Row]]:
    """The rows ranked together, and the rows set apart.

    Rows are ranked together when their intervals were drawn with the same resample count and
    seed on the same benchmark version, each under the protocol that applies to it now (a
    reference-based metric's, or a reference-free one's). The reference settings are the
    package's (N_RESAMPLES, SEED) on the current benchmark version when any row has them, else
    the most common settings on the current version (the earliest group on a tie). Rows scored
    otherwise are never compared with them. A metric with a row under the reference settings is
    represented by its newest scoring version only: its other rows (kept from older versions,
    see `rescore`) are neither ranked nor set apart.
    """
    if not rows:
        return [], []
    tag = _current_tag(benchmark)
    level = rows[0].settings.level
    protocols = {free: protocol_tag(benchmark, level, free) for free in (False, True)}
    now = [r.settings.protocol == protocols[r.reference_free] for r in rows]
    fallback = not any(now)  # rows stored before their protocol was: ranked by their settings
    keys = [
        (*_resampling(r), "current" if ok else r.settings.protocol)
        for r, ok in zip(rows, now, strict=True)
    ]
    candidates = [
        k
        for k, ok in zip(keys, now, strict=True)
        if (ok or fallback) and (tag is None or k[2] == tag)
    ]
    default = (N_RESAMPLES, SEED, tag or "", N_RESAMPLES, "current")
    reference: tuple[object, ...] | None
    if default in candidates:
        reference = default
    elif candidates:
        reference = Counter(candidates).most_common(1)[0][0]
    else:
        reference = None
    newest: dict[int, Row] = {}
    for row, key in zip(rows, keys, strict=True):
        if key == reference and row.scoring >= newest.get(row.metric_id, row).scoring:
            newest[row.metric_id] = row
    apart = [r for r in rows if r.metric_id not in newest]
    return list(newest.values()), apart


def _resampling(row: Row) -> tuple[object, ...]:
    """(resamples, seed, benchmark@fingerprint, replicate count) of a stored row."""
    n, seed, tag, _, count = settings(row)
    return n, seed, tag, count


def ranking(store: Store, benchmark: str, level: str, aspect: str, statistic: str) -> list[Ranked]:
    """Full-coverage metrics ordered by correlation (ties share the best place), with rank
    ranges, tests against the leader and every other verdict from the view's one
    `view_verdicts` (the comparison matrix and clusters read the same object).

    Only rows scored under the same resampling settings are ranked together (see `comparable`);
    `set_apart` lists the others, `unranked` those whose correlation is undefined.
    """
    rows = ranked_rows(store, benchmark, level, aspect, statistic)
    if not rows:
        return []
    values = np.array([r.value for r in rows])
    places = best_places(values)
    if len(rows) == 1:
        return [Ranked(rows[0], 1, 1, 1, math.nan, True, True)]
    verdicts = view_verdicts(store, benchmark, level, aspect, statistic, rows)
    placed = [
        _placed(row, int(place), verdicts, len(rows))
        for row, place in zip(rows, places, strict=True)
    ]
    return sorted(placed, key=lambda r: (r.rank, -r.row.value))


def ranked_rows(store: Store, benchmark: str, level: str, aspect: str, statistic: str) -> list[Row]:
    """The rows `ranking` places (comparable, with a defined value), without their verdicts."""
    rows, _ = comparable(benchmark, store.view(benchmark, level, aspect, statistic))
    return [r for r in rows if not math.isnan(r.value)]


def ranking_verdicts(
    store: Store, benchmark: str, level: str, aspect: str, statistic: str
) -> Verdicts | None:
    """The verdicts `ranking` reads for a view (None under two ranked rows), to say what they
    rest on: `Verdicts.describe` and `Resolution.note`."""
    rows = ranked_rows(store, benchmark, level, aspect, statistic)
    if len(rows) < 2:
        return None
    return view_verdicts(store, benchmark, level, aspect, statistic, rows)


def verdict_lines(
    store: Store, benchmark: str, level: str, aspect: str, statistic: str
) -> list[str]:
    """What a view's verdicts rest on, and the note when no difference can be shown."""
    verdicts = ranking_verdicts(store, benchmark, level, aspect, statistic)
    if verdicts is None:
        return []
    lines = [f"verdicts: {verdicts.describe()}"]
    if note := verdicts.resolution.note:
        lines.append(f"note: {note}")
    return lines


def _placed(row: Row, place: int, verdicts: Verdicts, m: int) -> Ranked:
    """A row's line: its place by value, its rank range and test against the leader from the
    verdicts (a row the verdicts leave out, undefined on the items all rows share, may be
    anywhere and is tied)."""
    name = str(row.metric_id)
    if name not in verdicts.metrics:
        return Ranked(row, place, 1, m, math.nan, place == 1, True)
    i = verdicts.index(name)
    low, high = verdicts.rank_ranges[i]
    tied = place == 1 or verdicts.tied_with_leader[i]
    return Ranked(row, place, low, high, verdicts.p_vs_leader(i), place == 1, tied)


def unranked(store: Store, benchmark: str, level: str, aspect: str, statistic: str) -> list[Row]:
    """Comparable full-coverage rows whose correlation is undefined (e.g. constant scores):
    listed with their reason, never ranked."""
    rows, _ = comparable(benchmark, store.view(benchmark, level, aspect, statistic))
    return [r for r in rows if math.isnan(r.value)]


def describe_unranked(row: Row) -> str:
    return f"{row.metric} (correlation undefined: {row.reason or 'reason not recorded'})"


def set_apart(store: Store, benchmark: str, level: str, aspect: str, statistic: str) -> list[Row]:
    """Full-coverage rows not ranked because they were scored under other resampling settings
    or on another version of the benchmark."""
    return comparable(benchmark, store.view(benchmark, level, aspect, statistic))[1]


def describe_apart(row: Row) -> str:
    n, seed, tag, protocol, _ = settings(row)
    unknown = "?"
    text = f"{row.metric} (resamples {unknown if n is None else n}, seed "
    text += f"{unknown if seed is None else seed}, {tag or 'unknown version'}"
    return text + f", protocol {protocol or 'none: every system'})"
