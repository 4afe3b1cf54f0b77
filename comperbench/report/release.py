"""A versioned release: every benchmark's fixed splits as files, with its card and a manifest.

Layout of a release folder (a Hugging Face dataset repository as it is):
  README.md                     the collection card, one config per benchmark and level
  manifest.json                 package version, fingerprints, sha256 and rows of every file
  <benchmark>/README.md         the benchmark's card (checked against the code before it is copied)
  <benchmark>/.huggingface.yaml the card's configs relative to the benchmark's folder, so that
                                `datasets.load_dataset("<release>/<benchmark>")` loads it on its own
  <benchmark>/<level>-<split>.parquet   (or .jsonl; the cards' configs then name the jsonl files)
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from comperbench.benchmark import get_metadata, load_benchmark
from comperbench.common.errors import ComperbenchError, DataMissingError
from comperbench.common.version import __version__
from comperbench.data import data_root, is_offline, sha256_file
from comperbench.metadata import BenchmarkMetadata
from comperbench.report import cards
from comperbench.schema import SCHEMA_VERSION, dialogue_schema, turn_schema

MANIFEST = "manifest.json"
FORMATS = ("parquet", "jsonl")


class ReleaseError(ComperbenchError):
    """A release cannot be written or uploaded; the message says why and what to do."""


@dataclass
class ReleaseResult:
    out: Path
    manifest: dict[str, Any]
    missing: dict[str, str] = field(default_factory=dict)
    """Benchmarks left out because their raw files are not in the data root, with the reason."""


def _file_entry(out: Path, path: Path, **extra: Any) -> dict[str, Any]:
    return {"path": path.relative_to(out).as_posix(), **extra, "sha256": sha256_file(path)}


def _release_table(
    meta: BenchmarkMetadata,
    level: str,
    table: pa.Table,
    skipped: dict[str, int],
    fingerprint: str,
) -> pa.Table:
    """The table in the canonical schema with fixed metadata, so its bytes depend on its content.

    (A table read back from the parquet cache names its list items `element`, a fresh one `item`.)
    """
    schema = (turn_schema if level == "turn" else dialogue_schema)(meta.aspect_names)
    return (
        table.cast(schema)
        .combine_chunks()
        .replace_schema_metadata(
            {
                "comperbench.benchmark": meta.name,
                "comperbench.version": meta.version,
                "comperbench.fingerprint": fingerprint,
                "comperbench.schema": SCHEMA_VERSION,
                "comperbench.skipped": json.dumps(skipped, sort_keys=True),
            }
        )
    )


def _write(table: pa.Table, path: Path, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        pq.write_table(table, path)
    else:
        table.to_pandas().to_json(path, orient="records", lines=True, force_ascii=False)


def _write_folder_configs(meta: BenchmarkMetadata, out: Path, fmt: str) -> Path:
    """The configs of the benchmark's folder as a dataset of its own (paths relative to it),
    written as JSON, which is YAML."""
    text = json.dumps({"configs": cards.configs(meta, fmt=fmt)}, indent=2)
    path = out / meta.name / ".huggingface.yaml"
    path.write_text(text.replace(f'"{meta.name}/', '"') + "\n", encoding="utf-8")
    return path


def export_benchmark(
    meta: BenchmarkMetadata,
    out: Path,
    fmt: str = "parquet",
    data_dir: str | os.PathLike[str] | None = None,
    cards_dir: Path | None = None,
    with_card: bool = True,
    allow_unpinned: bool = False,
) -> dict[str, Any]:
    """Write one benchmark's levels and splits (and its card, after checking it); its manifest entry.

    Data that the card's pin does not identify (see `unpinned_reason`) are refused unless
    `allow_unpinned`; the entry of such a release says `"pinned": false` and why."""
    tables: dict[str, pa.Table] = {}
    skipped: dict[str, dict[str, int]] = {}
    fingerprint = meta.fingerprint
    for level in meta.stored_levels:
        # Parsed from the raw files of this data root, never from a cached table.
        bench = load_benchmark(meta.name, level, data_dir=data_dir, cache=False)
        tables[level], skipped[level], fingerprint = bench.table, bench.skipped, bench.fingerprint
    unpinned = unpinned_reason(meta, fingerprint)
    if unpinned and not allow_unpinned:
        raise ReleaseError(
            f"{meta.name}: {unpinned}. Release them only if you mean to, with --allow-unpinned "
            "(the manifest then marks them unpinned)."
        )
    card_text = None
    if with_card:
        card_text = cards.read_card(meta.name, cards_dir)
        problems = cards.check(card_text, meta, cards.card_counts(meta, tables, skipped))
        if problems:
            raise ReleaseError(
                f"the card {cards.card_path(meta.name, cards_dir)} disagrees with the code: "
                f"{'; '.join(problems)}. Run `comperbench card {meta.name} --write` and review it."
            )
    files = []
    for level, table in tables.items():
        for split in meta.splits:
            rows = table.filter(pc.equal(table.column("split"), split))
            part = _release_table(meta, level, rows, skipped[level], fingerprint)
            path = out / cards.release_path(meta.name, level, split, fmt)
            _write(part, path, fmt)
            files.append(_file_entry(out, path, level=level, split=split, rows=part.num_rows))
    entry: dict[str, Any] = {
        "version": meta.version,
        "fingerprint": fingerprint,
        "license": meta.license,
        "license_id": meta.license_id,
        "files": files,
        "configs": _file_entry(out, _write_folder_configs(meta, out, fmt)),
        "pinned": unpinned is None,
    }
    if unpinned:
        entry["unpinned"] = unpinned
    if card_text is not None:
        card = out / meta.name / "README.md"
        card.write_text(cards.for_format(card_text, meta, fmt), encoding="utf-8")
        entry["card"] = _file_entry(out, card)
    return entry


def unpinned_reason(meta: BenchmarkMetadata, fingerprint: str) -> str | None:
    """Why data of fingerprint `fingerprint` are not the data the card pins (None when they are):
    a source read at a branch rather than a commit, or a fingerprint other than the card's."""
    branches = [s.hub for s in meta.sources if s.hub is not None and not s.hub.pinned]
    if branches:
        named = ", ".join(f"{h.repo_id}@{h.revision}/{h.filename}" for h in branches)
        return f"its files are read at a branch, not a pinned commit ({named})"
    if fingerprint != meta.fingerprint:
        return (
            f"the data read have fingerprint {fingerprint}, not the card's pinned fingerprint "
            f"{meta.fingerprint} (a source without a declared sha256 cannot be checked against "
            "the pin)"
        )
    return None


def _without_local_paths(reason: str, data_dir: str | os.PathLike[str] | None) -> str:
    """A reason for the manifest: the exporting machine's data root becomes `$COMPERBENCH_DATA`."""
    return reason.replace(str(data_root(data_dir)), "$COMPERBENCH_DATA")


def _previous_manifest(root: Path, fmt: str) -> dict[str, Any]:
    """The manifest of the release `root` holds already (empty when none); one written in another
    format or by another version cannot be extended."""
    path = root / MANIFEST
    if not path.is_file():
        return {}
    old = json.loads(path.read_text())
    expected = {"comperbench_version": __version__, "schema_version": SCHEMA_VERSION, "format": fmt}
    differs = [f"{k} {old.get(k)!r}, not {v!r}" for k, v in expected.items() if old.get(k) != v]
    if differs:
        raise ReleaseError(
            f"{root} holds another release ({'; '.join(differs)}) of "
            f"{', '.join(old.get('benchmarks', {})) or 'no benchmark'}; export into another "
            "folder (--out), or remove that one first"
        )
    return old


def _write_collection_card(
    root: Path, names: Sequence[str], fmt: str, cards_dir: Path | None
) -> dict[str, Any]:
    index = cards.CARDS_DIR / "README.md" if cards_dir is None else cards_dir / "README.md"
    if not index.is_file():
        raise ReleaseError(f"the collection card {index} is missing")
    metas = [get_metadata(name) for name in names]
    readme = root / "README.md"
    readme.write_text(
        cards.with_collection_header(index.read_text(encoding="utf-8"), metas, fmt),
        encoding="utf-8",
    )
    return _file_entry(root, readme)


def export_release(
    names: Sequence[str],
    out: str | os.PathLike[str],
    fmt: str = "parquet",
    data_dir: str | os.PathLike[str] | None = None,
    cards_dir: Path | None = None,
    with_cards: bool = True,
    skip_missing: bool = False,
    progress: Callable[[str], None] = lambda _: None,
    allow_unpinned: bool = False,
) -> ReleaseResult:
    """Export benchmarks with their cards, a collection card and a manifest into `out`.

    A release that `out` holds already (same format and version) is extended, never shrunk: its
    other benchmarks stay in the manifest and the collection card. With `skip_missing`, a
    benchmark whose raw files are absent is left out and named in the manifest's `missing`
    section (without local paths); otherwise its absence is an error. Data the card's pin does
    not identify are refused unless `allow_unpinned` (then marked so in the manifest).
    """
    if fmt not in FORMATS:
        raise ReleaseError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    root = Path(out)
    previous = _previous_manifest(root, fmt)
    root.mkdir(parents=True, exist_ok=True)
    benchmarks: dict[str, Any] = dict(previous.get("benchmarks", {}))
    missing: dict[str, str] = {}
    for name in names:
        meta = get_metadata(name)
        try:
            entry = export_benchmark(
                meta, root, fmt, data_dir, cards_dir, with_cards, allow_unpinned
            )
        except DataMissingError as exc:
            if not skip_missing:
                raise
            missing[name] = str(exc)
            progress(f"left out {name}: {exc}")
            continue
        benchmarks[name] = entry
        for f in entry["files"]:
            progress(f"wrote {root / f['path']} ({f['rows']} rows)")
    manifest: dict[str, Any] = {
        "comperbench_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "format": fmt,
        "benchmarks": benchmarks,
    }
    if with_cards and benchmarks:
        manifest["card"] = _write_collection_card(root, list(benchmarks), fmt, cards_dir)
    elif "card" in previous:
        manifest["card"] = previous["card"]
    left_out = {
        **previous.get("missing", {}),
        **{n: _without_local_paths(r, data_dir) for n, r in missing.items()},
    }
    left_out = {n: r for n, r in left_out.items() if n not in benchmarks}
    if left_out:
        manifest["missing"] = left_out
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    progress(f"wrote {root / MANIFEST}")
    return ReleaseResult(root, manifest, missing)


def verify_release(out: str | os.PathLike[str]) -> list[str]:
    """Every file of a release whose sha256 differs from its manifest (empty when intact)."""
    root = Path(out)
    manifest = json.loads((root / MANIFEST).read_text())
    entries = [
        f
        for b in manifest["benchmarks"].values()
        for f in [*b["files"], b.get("card"), b.get("configs")]
    ]
    entries.append(manifest.get("card"))
    problems = []
    for f in entries:
        if f is None:
            continue
        path = root / f["path"]
        if not path.is_file():
            problems.append(f"{f['path']}: missing")
        elif sha256_file(path) != f["sha256"]:
            problems.append(f"{f['path']}: sha256 differs from the manifest")
    return problems


def redistribution_restriction(meta: BenchmarkMetadata) -> str | None:
    """Why the benchmark's licence does not clearly allow a public copy (None when it does)."""
    if meta.license_id == "unknown":
        return f"its licence is unknown ({meta.license.strip()})"
    if "nc" in meta.license_id.split("-"):
        return f"its licence {meta.license_id} is non-commercial ({meta.license.strip()})"
    return None


def check_redistribution(
    names: Sequence[str], allowed: Sequence[str] = (), repo_id: str = "the Hub"
) -> None:
    """Refuse to publish benchmarks whose licence is non-commercial or unknown, unless `allowed`
    names them (the user confirms they may redistribute each one)."""
    for name in allowed:
        get_metadata(name)  # a misspelt name is an error, not a silent no-op
    refused = {
        name: why
        for name in names
        if name not in allowed and (why := redistribution_restriction(get_metadata(name)))
    }
    if refused:
        lines = "\n".join(f"  {name}: {why}" for name, why in refused.items())
        raise ReleaseError(
            f"refusing to push to {repo_id}: the licence of these benchmarks does not clearly "
            f"allow redistribution:\n{lines}\nPush them only if you may redistribute them: name "
            "each one with --allow-redistribution NAME, or export without them."
        )


def push_release(
    out: str | os.PathLike[str],
    repo_id: str,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    allow_redistribution: Sequence[str] = (),
) -> str:
    """Upload a release folder as a Hugging Face dataset repository, tagged `v<version>`.

    Benchmarks whose licence is non-commercial or unknown are refused before anything is sent
    unless `allow_redistribution` names them. Returns the URL of the commit. A tag that exists
    already is an error: releases are immutable.
    """
    import httpx2  # the HTTP client huggingface_hub uses; its errors mean the Hub is unreachable
    import huggingface_hub
    from huggingface_hub import HfApi

    root = Path(out)
    if not (root / MANIFEST).is_file():
        raise ReleaseError(f"{root} is not a release folder (no {MANIFEST}); export it first")
    manifest = json.loads((root / MANIFEST).read_text())
    if is_offline() or huggingface_hub.constants.HF_HUB_OFFLINE:
        raise ReleaseError(
            f"cannot push to {repo_id}: offline mode is set (HF_HUB_OFFLINE, "
            "HF_DATASETS_OFFLINE or COMPERBENCH_OFFLINE). Unset it on a machine with network "
            f"access; the release stays in {root}."
        )
    check_redistribution(list(manifest["benchmarks"]), allow_redistribution, repo_id)
    token = token or huggingface_hub.get_token()
    if not token:
        raise ReleaseError(
            f"cannot push to {repo_id}: no Hugging Face token. Run `hf auth login` or set HF_TOKEN "
            f"to a token with write access; the release stays in {root}."
        )
    version = manifest["comperbench_version"]
    tag = f"v{version}"
    api = HfApi(endpoint=endpoint, token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        if any(t.name == tag for t in api.list_repo_refs(repo_id, repo_type="dataset").tags):
            raise ReleaseError(
                f"{repo_id} already has a release tagged {tag}; a release is never replaced: "
                "publish a new comperbench version instead"
            )
        info = api.upload_folder(
            folder_path=root,
            repo_id=repo_id,
            repo_type="dataset",
            commit_message=f"comperbench {version} release",
        )
        api.create_tag(repo_id, tag=tag, revision=info.oid, repo_type="dataset")
    except huggingface_hub.errors.HfHubHTTPError as exc:
        raise ReleaseError(f"the Hugging Face Hub refused the upload to {repo_id}: {exc}") from exc
    except (httpx2.HTTPError, OSError) as exc:  # connection refused, DNS failure, timeouts
        raise ReleaseError(
            f"cannot reach the Hugging Face Hub ({api.endpoint}) to push {repo_id}: {exc}. "
            f"Check the network; the release stays in {root}."
        ) from exc
    return str(info.commit_url)
