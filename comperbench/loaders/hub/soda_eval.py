"""Soda-Eval (Mendonça, Trancoso and Lavie 2024): GPT-4 assessments of 120k Soda responses.

Published only on the Hugging Face Hub (`Johndfm/soda_eval`) as parquet shards whose exact names
are not known in advance: the dataset card (`README.md`, YAML header) lists them by pattern
(`configs[].data_files`, e.g. `data/train-*`) and declares the rows of every split
(`dataset_info.splits[].num_examples`). The loader reads the card from the data root, resolves each
split's pattern under `<root>/soda_eval/`, downloads missing shards with `snapshot_download` when
online, checks every shard's columns and types, and checks the row counts against the card.

Each row is one turn item: `dialog_history` is the Soda dialogue so far, one utterance a line
written `Speaker: text`; `score` is GPT-4's overall rating (1-5); `issues` are the problems GPT-4
listed, each with a type from the paper's taxonomy. An issue type becomes a binary aspect
(1 = GPT-4 listed it for this response, 0 = it did not), so that issue detection can be evaluated
like any other aspect. GPT-4's free-text explanations (`overall_comment` and each issue's
`comment`) are not part of the unified schema: `read_comments` reads them, keyed by the same item
ids, for the explanation analysis (`comperbench.evaluation.explanation_agreement`). A response that starts with `Speaker:` for a speaker of its context loses
that prefix (the context lines carry one; whether responses do was not seen).
"""

from __future__ import annotations

import gc
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from comperbench import data
from comperbench.benchmark_hooks import BenchmarkHooks, register_hooks
from comperbench.common.errors import DataFormatError, DataMissingError
from comperbench.loaders.base import BenchmarkLoader, Parsed, SourceFiles, item_id
from comperbench.metadata import (
    Aspect,
    BenchmarkMetadata,
    HubFile,
    PublishedCounts,
    SourceFile,
    SplitCounts,
)
from comperbench.schema import Rating, TurnRecord, Utterance

NAME = "soda-eval"
FOLDER = "soda_eval"
REPO_ID = "Johndfm/soda_eval"
REVISION = "main"
"""No commit hash of Johndfm/soda_eval could be seen (the Hub is not reachable where this loader
was written): the revision is the branch, declared unpinned in the metadata (`HubFile.pinned`)."""
"""No commit hash of the dataset is known; see the notes and `shard_digests`."""
CARD = "README.md"
SPLITS = ("train", "val", "test")
ANNOTATOR = "gpt-4"
SYSTEM = "soda"

COLUMNS: dict[str, pa.DataType] = {
    "dialog_id": pa.int64(),
    "dialog_history": pa.string(),
    "response": pa.string(),
    "overall_comment": pa.string(),
    "score": pa.int64(),
    "issues": pa.list_(pa.struct([("comment", pa.string()), ("type", pa.string())])),
    "split": pa.string(),
}
READ = ("dialog_id", "dialog_history", "response", "score", "issues", "split", "overall_comment")

ISSUE_TYPES: dict[str, str] = {
    "coherence": "The response contradicts or ignores information in the dialogue.",
    "commonsense": "The response lacks common knowledge or logic.",
    "assumption": "The response infers information not available in the dialogue.",
    "repetition": "The response repeats information already given in the dialogue.",
    "engagement": "The response lacks a behaviour or emotion expected in the situation.",
    "antisocial": "The response is unsafe or inappropriate.",
    "fluency": "The response has typos or grammatical errors.",
    "gender_pronoun": "The response uses a pronoun that does not match the person.",
    "non_textual": "The response holds narrative or non-verbal elements unexpected in a turn.",
    "other": "Any other issue.",
}
"""The issue taxonomy of the Soda-Eval paper, keyed by the normalised type (lower case, `_`)."""


def issue_key(text: str) -> str:
    """The taxonomy key of an issue type as written (`Gender Pronoun` -> `gender_pronoun`)."""
    return _NOT_KEY.sub("_", text.lower()).strip("_")


MAX_SPEAKER = 60
"""Longest speaker name accepted before the colon of a `Speaker: text` line."""
_NOT_KEY = re.compile(r"[^a-z0-9]+")

CITATION = """@inproceedings{mendonca-etal-2024-soda,
    title = "Soda-Eval: Open-Domain Dialogue Evaluation in the age of {LLM}s",
    author = "Mendon{\\c{c}}a, John and Trancoso, Isabel and Lavie, Alon",
    booktitle = "Findings of the Association for Computational Linguistics: EMNLP 2024",
    year = "2024",
    address = "Miami, Florida, USA",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2024.findings-emnlp.684",
    doi = "10.18653/v1/2024.findings-emnlp.684",
    pages = "11687--11708"
}"""

OVERALL = Aspect("overall", "score", 1, 5, "GPT-4's overall rating of the response.")
ASPECTS = (
    OVERALL,
    *(Aspect(f"issue_{key}", key, 0, 1, text) for key, text in ISSUE_TYPES.items()),
)


def _folder(files: SourceFiles) -> Path:
    return files.path(f"{FOLDER}/{CARD}").parent


def _card(path: Path) -> dict[str, Any]:
    from huggingface_hub.repocard import metadata_load

    try:
        card = metadata_load(path)
    except Exception as exc:  # malformed YAML of any kind
        raise DataFormatError(f"the YAML header cannot be read: {exc}", file=str(path)) from exc
    if not isinstance(card, dict):
        raise DataFormatError("no YAML header (--- ... ---) with the dataset info", file=str(path))
    return card


def split_patterns(card: Mapping[str, Any], path: Path) -> dict[str, str]:
    """The data-file pattern of each split, from `configs[].data_files` of the card."""
    configs = card.get("configs")
    if not isinstance(configs, list) or not configs or not isinstance(configs[0], dict):
        raise DataFormatError(
            "expected `configs: [{config_name, data_files: [{split, path}]}]`", file=str(path)
        )
    entries = configs[0].get("data_files")
    patterns: dict[str, str] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            patterns[str(entry.get("split"))] = entry["path"]
    if set(patterns) != set(SPLITS):
        raise DataFormatError(
            f"configs[0].data_files names splits {sorted(patterns)}, expected {list(SPLITS)} "
            "each with a `path` pattern",
            file=str(path),
            field="configs",
        )
    return patterns


def declared_rows(card: Mapping[str, Any], path: Path) -> dict[str, int]:
    """Rows per split declared by `dataset_info.splits[].num_examples` (absent: not checked)."""
    info = card.get("dataset_info")
    splits = info.get("splits") if isinstance(info, dict) else None
    rows: dict[str, int] = {}
    for entry in splits if isinstance(splits, list) else []:
        if isinstance(entry, dict) and "name" in entry and "num_examples" in entry:
            count = entry["num_examples"]
            if not isinstance(count, int) or isinstance(count, bool):
                raise DataFormatError(
                    f"num_examples of split {entry['name']!r} is {count!r}, not an integer",
                    file=str(path),
                    field="dataset_info.splits",
                )
            rows[str(entry["name"])] = count
    return rows


def _fetch_shards(folder: Path, pattern: str) -> None:
    from huggingface_hub import snapshot_download

    snapshot_download(
        repo_id=REPO_ID,
        repo_type="dataset",
        revision=REVISION,
        allow_patterns=[pattern],
        local_dir=folder,
    )


def resolve_shards(folder: Path, pattern: str) -> list[Path]:
    """The parquet shards matching `pattern` under `folder`, downloaded first when online."""
    shards = sorted(folder.glob(pattern))
    if not shards:
        if data.is_offline():
            raise DataMissingError(_missing(folder, pattern, "offline mode is set"))
        why = data.why_unreachable(data.hub_url())
        if why is not None:
            raise DataMissingError(_missing(folder, pattern, why))
        try:
            _fetch_shards(folder, pattern)
        except Exception as exc:  # any network or permission failure means the files are missing
            raise DataMissingError(_missing(folder, pattern, f"download failed: {exc}")) from exc
        shards = sorted(folder.glob(pattern))
        if not shards:
            raise DataMissingError(_missing(folder, pattern, "the download matched no file"))
    wrong = [s for s in shards if s.suffix != ".parquet"]
    if wrong:
        raise DataFormatError(f"matches {pattern} but is not a parquet file", file=str(wrong[0]))
    return shards


def _missing(folder: Path, pattern: str, why: str) -> str:
    return (
        f"benchmark {NAME!r} needs the parquet shards {pattern} under {folder}, and none is there "
        f"({why}). Put a copy of them from the Hugging Face dataset {REPO_ID} (files {pattern}, "
        f"revision {REVISION}) there, or point {data.DATA_ENV} at a folder that holds "
        f"{FOLDER}/{pattern}."
    )


def shard_digests(root: Path) -> dict[str, str]:
    """sha256 of the card and of every shard the loader reads under `root`, by relative path.

    The Hub revision is "main", so these digests, not the revision, identify the data: the table
    cache key and the fingerprint reported with results include them (`content_digests`). The
    card must be in place; missing shards are downloaded when online, as for loading.
    """
    folder = root / FOLDER
    card = folder / CARD
    files = [card]
    for pattern in split_patterns(_card(card), card).values():
        files.extend(resolve_shards(folder, pattern))
    return {str(p.relative_to(root)): data.memoised_sha256(p) for p in files}


def _check_schema(path: Path) -> None:
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataFormatError(f"not a readable parquet file: {exc}", file=str(path)) from exc
    expected = ", ".join(f"{n} {t}" for n, t in COLUMNS.items())
    for name, kind in COLUMNS.items():
        if name not in schema.names:
            raise DataFormatError(
                f"column missing. Expected columns: {expected}; found: {', '.join(schema.names)}",
                file=str(path),
                field=name,
            )
        if not schema.field(name).type.equals(kind):
            raise DataFormatError(
                f"column has type {schema.field(name).type}, expected {kind}",
                file=str(path),
                field=name,
            )


def _first(mask: pa.Array | np.ndarray) -> int | None:
    hits = np.flatnonzero(np.asarray(mask))
    return int(hits[0]) if len(hits) else None


class _Shard:
    """One parquet shard, parsed column by column; errors name file, row and field."""

    def __init__(self, path: Path, split: str) -> None:
        _check_schema(path)
        self.path, self.split = path, split
        self.table = pq.read_table(path, columns=list(READ))
        self.rows = self.table.num_rows

    def error(self, row: int, message: str, field: str) -> DataFormatError:
        return DataFormatError(message, file=str(self.path), record=f"row {row}", field=field)

    def column(self, name: str) -> pa.ChunkedArray:
        column = self.table.column(name)
        row = _first(column.is_null().to_numpy(zero_copy_only=False))
        if row is not None and name != "score":
            raise self.error(row, "value is null", name)
        return column

    def check_split(self) -> None:
        wrong = pc.not_equal(self.column("split"), self.split).to_numpy(zero_copy_only=False)
        row = _first(wrong)
        if row is not None:
            value = self.table.column("split")[row].as_py()
            raise self.error(row, f"split {value!r} in a shard of split {self.split!r}", "split")

    def scores(self) -> np.ndarray:
        """GPT-4 scores as floats, NaN where the score is null (missing)."""
        values = self.column("score").to_numpy(zero_copy_only=False).astype(float)
        bad = ~np.isnan(values) & ((values < OVERALL.min) | (values > OVERALL.max))
        row = _first(bad)
        if row is not None:
            scale = f"{OVERALL.min:g}-{OVERALL.max:g}"
            raise self.error(row, f"rating {values[row]:g} is outside the scale {scale}", "score")
        return values

    def contexts(self) -> list[list[Utterance]]:
        """`dialog_history` split into `Speaker: text` lines (blank lines carry nothing)."""
        lines = pc.split_pattern(self.column("dialog_history").combine_chunks(), "\n")
        parents = pc.list_parent_indices(lines).to_numpy()
        flat = pc.utf8_trim_whitespace(pc.list_flatten(lines))
        keep = pc.not_equal(flat, "").to_numpy(zero_copy_only=False)
        parents, flat = parents[keep], flat.filter(pa.array(keep))
        parts = pc.split_pattern(flat, ":", max_splits=1)
        names = pc.utf8_trim_whitespace(pc.list_element(parts, 0))
        length = pc.utf8_length(names).to_numpy()
        has_text = pc.equal(pc.list_value_length(parts), 2).to_numpy(zero_copy_only=False)
        bad = _first(~has_text | (length < 1) | (length > MAX_SPEAKER))
        if bad is not None:
            raise self.error(
                int(parents[bad]),
                f"line {flat[bad].as_py()!r} is not written 'Speaker: text' "
                f"(a speaker name of 1-{MAX_SPEAKER} characters, a colon, the utterance)",
                "dialog_history",
            )
        texts = pc.utf8_trim_whitespace(pc.list_element(parts, 1)).to_pylist()
        speakers = names.to_pylist()
        # Contexts are prefixes of one dialogue: share one immutable Utterance per distinct line.
        known: dict[tuple[str, str], Utterance] = {}
        utterances = [
            known.get(key) or known.setdefault(key, Utterance(*key))
            for key in zip(speakers, texts, strict=True)
        ]
        bounds = np.searchsorted(parents, np.arange(self.rows + 1))
        return [utterances[a:b] for a, b in pairwise(bounds.tolist())]

    def issue_flags(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row, 0/1 per issue type, and whether the row's issue list is present at all."""
        issues = self.table.column("issues").combine_chunks()
        present = issues.is_valid().to_numpy(zero_copy_only=False)
        parents = pc.list_parent_indices(issues).to_numpy()
        types = pc.struct_field(pc.list_flatten(issues), "type")
        row = _first(types.is_null().to_numpy(zero_copy_only=False))
        if row is not None:
            raise self.error(int(parents[row]), "an issue has no type", "issues")
        keys = pc.utf8_trim(
            pc.replace_substring_regex(pc.utf8_lower(types), _NOT_KEY.pattern, "_"), "_"
        )
        codes = pc.index_in(keys, pa.array(list(ISSUE_TYPES))).to_numpy(zero_copy_only=False)
        unknown = _first(np.isnan(codes.astype(float)))
        if unknown is not None:
            raise self.error(
                int(parents[unknown]),
                f"issue type {types[unknown].as_py()!r} is not in the Soda-Eval taxonomy "
                f"({', '.join(ISSUE_TYPES)})",
                "issues",
            )
        flags = np.zeros((self.rows, len(ISSUE_TYPES)))
        flags[parents, codes.astype(int)] = 1.0
        return flags, present


def _response(text: str, context: list[Utterance]) -> str:
    """The response without a leading 'Speaker: ' when that speaker is in the context."""
    head, sep, rest = text.partition(":")
    if sep and any(u.speaker == head.strip() for u in context):
        return rest.strip()
    return text.strip()


def parse_shard(shard: _Shard, skipped: Counter[str]) -> list[TurnRecord]:
    shard.check_split()
    dialog_ids = shard.column("dialog_id").to_numpy()
    scores = shard.scores()
    contexts = shard.contexts()
    responses = shard.column("response").to_pylist()
    flags, present = shard.issue_flags()
    skipped["score missing"] += int(np.isnan(scores).sum())
    skipped["issue list missing"] += int((~present).sum())
    # Ratings are immutable: one shared Rating per (aspect, value), one list per issue pattern.
    overall = {v: [Rating(OVERALL.name, float(v), ANNOTATOR)] for v in range(1, 6)}
    patterns = (flags @ (1 << np.arange(flags.shape[1]))).astype(int).tolist()
    issue_ratings: dict[int, list[Rating]] = {}
    for pattern, row_flags in zip(patterns, flags.tolist(), strict=True):
        if pattern not in issue_ratings:
            issue_ratings[pattern] = [
                Rating(a.name, flag, ANNOTATOR)
                for a, flag in zip(ASPECTS[1:], row_flags, strict=True)
            ]
    records = []
    for dialog, score, context, response, pattern, has_issues in zip(
        dialog_ids.tolist(),
        scores.tolist(),
        contexts,
        responses,
        patterns,
        present.tolist(),
        strict=True,
    ):
        ratings = [] if score != score else overall[int(score)]  # NaN: score missing
        ratings = ratings + issue_ratings[pattern] if has_issues else list(ratings)
        records.append(
            TurnRecord(
                item_id=item_id(NAME, shard.split, str(dialog), len(context)),
                dialogue_id=str(dialog),
                system=SYSTEM,
                context=context,
                response=_response(response, context),
                ratings=ratings,
                split=shard.split,
                turn_index=len(context),
            )
        )
    return records


@dataclass(frozen=True)
class Comments:
    """GPT-4's explanations of one response: its overall comment (None where the row has none)
    and each listed issue as (taxonomy key, comment)."""

    overall_comment: str | None
    issues: tuple[tuple[str, str], ...]


def shard_comments(shard: _Shard) -> dict[str, Comments]:
    """The comments of every row of a shard, by item id."""
    shard.check_split()
    lengths = [len(c) for c in shard.contexts()]
    overall = shard.table.column("overall_comment").to_pylist()
    issues = shard.table.column("issues").to_pylist()
    found = {}
    for dialog, length, comment, listed in zip(
        shard.column("dialog_id").to_pylist(), lengths, overall, issues, strict=True
    ):
        pairs = tuple((issue_key(i["type"]), (i["comment"] or "").strip()) for i in listed or ())
        text = comment.strip() if isinstance(comment, str) and comment.strip() else None
        found[item_id(NAME, shard.split, str(dialog), length)] = Comments(text, pairs)
    return found


def read_comments(root: Path | None = None) -> dict[str, Comments]:
    """GPT-4's overall comment and issue comments of every Soda-Eval response, by the item id
    the loader gives it, from the shards under `root` (default: the data root)."""
    folder = data.data_root(root) / FOLDER
    card_path = folder / CARD
    if not card_path.is_file():
        raise DataMissingError(_missing(folder, CARD, "the dataset card is not there"))
    found: dict[str, Comments] = {}
    for split, pattern in split_patterns(_card(card_path), card_path).items():
        for path in resolve_shards(folder, pattern):
            found.update(shard_comments(_Shard(path, split)))
    return found


def _check_unique(records: list[TurnRecord], paths: list[Path]) -> None:
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        if record.item_id in seen:
            raise DataFormatError(
                f"two rows of dialogue {record.dialogue_id} have {record.turn_index} context "
                f"utterances (rows {seen[record.item_id]} and {index} of the split, in shard "
                f"order), so {record.item_id} would not be unique",
                file=", ".join(str(p) for p in paths),
                field="dialog_history",
            )
        seen[record.item_id] = index


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic GC: building ~2M acyclic objects otherwise triggers passes that double the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_soda_eval(files: SourceFiles) -> Parsed:
    with _no_gc():
        return _parse_soda_eval(files)


def _parse_soda_eval(files: SourceFiles) -> Parsed:
    parsed = Parsed()
    folder = _folder(files)
    card_path = files.path(f"{FOLDER}/{CARD}")
    card = _card(card_path)
    declared = declared_rows(card, card_path)
    for split, pattern in split_patterns(card, card_path).items():
        paths = resolve_shards(folder, pattern)
        records = [r for p in paths for r in parse_shard(_Shard(p, split), parsed.skipped)]
        if split in declared and declared[split] != len(records):
            raise DataFormatError(
                f"split {split!r} has {len(records)} rows in {len(paths)} shard(s), but the "
                f"dataset card declares {declared[split]}: a shard is missing, extra or from "
                "another revision",
                file=str(card_path),
                field="dataset_info.splits",
            )
        _check_unique(records, paths)
        parsed.turns.extend(records)
    parsed.skipped = Counter({k: v for k, v in parsed.skipped.items() if v})
    return parsed


class SodaEval(BenchmarkLoader):
    metadata = BenchmarkMetadata(
        name=NAME,
        pretty_name="SODA-EVAL",
        version="0.1.0",
        description=(
            "Soda-Eval: 122,648 responses from Soda dialogues (train 85,876 / val 24,535 / test "
            "12,237), each assessed by GPT-4 with an overall 1-5 score and a list of issues from "
            "a 10-type taxonomy (coherence, commonsense, assumption, ...). The ratings come from "
            "GPT-4, not from people (annotator 'gpt-4'); each issue type is a 0/1 aspect."
        ),
        homepage="https://huggingface.co/datasets/Johndfm/soda_eval",
        license="CC-BY-4.0",
        license_id="cc-by-4.0",
        citation=CITATION,
        sources=(
            SourceFile(
                path=f"{FOLDER}/{CARD}",
                sha256=None,
                hub=HubFile(repo_id=REPO_ID, filename=CARD, revision=REVISION, pinned=False),
            ),
        ),
        levels=("turn", "system"),
        aspects=ASPECTS,
        default_aspect="overall",
        splits=SPLITS,
        annotator_ids=True,
        published_counts=PublishedCounts(
            source="the Johndfm/soda_eval dataset card",
            splits=(
                SplitCounts("turn", "train", 85876, None, None, None),
                SplitCounts("turn", "val", 24535, None, None, None),
                SplitCounts("turn", "test", 12237, None, None, None),
            ),
        ),
        notes=(
            "No commit hash of Johndfm/soda_eval is known: files are read at revision 'main', "
            "declared unpinned, so `comperbench export` releases them only with --allow-unpinned, "
            "marked unpinned in the manifest. The shard names are taken from the dataset card's data_files patterns, and the row count "
            "of every split is checked against the card; the sha256 of the card and of every shard "
            "read is part of the fingerprint reported with results and of the table-cache key.",
            "The scores are GPT-4 assessments, not human judgments. Every response is a turn of a "
            "Soda dialogue (generated by GPT-3.5), so there is one system, 'soda'.",
            "dialog_history is parsed as one 'Speaker: text' utterance a line, the layout of the "
            "Soda dialogues shown in the paper; a line in another layout is an error.",
            "The issue taxonomy is the paper's; issue types are matched case- and "
            "punctuation-insensitively, and an unknown type is an error.",
            "GPT-4's free-text explanations (overall_comment, issue comments) are not in the "
            "score tables; comperbench.loaders.hub.soda_eval.read_comments reads them by item id for "
            "the explanation analysis that `evaluate` runs for judges that explain.",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_soda_eval(files)

    def content_digests(self, files: SourceFiles, root: Path) -> dict[str, str]:
        return shard_digests(root)


def label_source(annotators: Sequence[str]) -> str | None:
    """The issue labels' source when GPT-4 gave them all (the evaluation's hook)."""
    if list(annotators) != [ANNOTATOR]:
        return None
    return (
        f"GPT-4's issue labels (annotator {ANNOTATOR}), not human judgments: people validated "
        "GPT-4's issue detection on a sample of 200 test responses only (SODA-EVAL, "
        "Appendix D.1, Table 13)"
    )


register_hooks(
    NAME,
    BenchmarkHooks(
        label_source=label_source, explained_by="GPT-4", reference_explanations=read_comments
    ),
)
