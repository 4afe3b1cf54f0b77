"""Which benchmark level an item id belongs to, and where in it.

The leaderboard reads little of a benchmark level: its item ids, each item's system and context,
whether it has references, and the human scores of every aspect (`LevelItems`). That part is kept on disk beside the
benchmark tables, keyed by the benchmark's fingerprint and the parsing code, so that validating
or scoring a submission reads a few arrays instead of a whole table; whole benchmarks (texts and
all) are loaded once per process for the pages that show them.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import IO

import numpy as np

from comperbench import data
from comperbench.benchmark import (
    Benchmark,
    content_fingerprint,
    get_metadata,
    list_benchmarks,
    load_benchmark,
)
from comperbench.common.errors import DataMissingError
from comperbench.loaders.base import parsing_code_digest
from comperbench.stats.signature import benchmark_tag


@lru_cache(maxsize=64)
def cached_benchmark(name: str, level: str) -> Benchmark:
    """A benchmark level loaded once per process (the app shows its texts many times)."""
    return load_benchmark(name, level)


@dataclass(frozen=True)
class LevelItems:
    """What the leaderboard reads of one benchmark level, in the benchmark's item order."""

    benchmark: str
    level: str
    fingerprint: str
    item_ids: list[str]
    systems: np.ndarray
    contexts: np.ndarray
    """Each item's dialogue (the context every system answered)."""
    human: dict[str, np.ndarray]
    """Aspect -> item scores (NaN where an item has no valid rating)."""
    referenced: np.ndarray
    """Whether each item has a non-blank reference (False everywhere at dialogue level)."""
    excluded_systems: tuple[str, ...] = ()
    """Systems left out by the evaluation protocol (see `scored_items`)."""
    references_only: bool = False
    """Items without references left out (see `scored_items`)."""
    selection: np.ndarray | None = None
    """Positions of these items in the whole level (None: the whole level)."""

    def __len__(self) -> int:
        return len(self.item_ids)

    @property
    def tag(self) -> str:
        """`name@fingerprint`, as in result signatures."""
        return benchmark_tag(self.benchmark, self.fingerprint) or ""

    def human_scores(self, aspect: str) -> np.ndarray:
        return self.human[aspect]

    @property
    def positions(self) -> np.ndarray:
        """Positions of these items in the whole level."""
        return np.arange(len(self)) if self.selection is None else self.selection

    @property
    def partly_referenced(self) -> bool:
        """Some items have references and some do not (DSTC7): a reference-based metric can
        score only the former."""
        return bool(self.referenced.any() and not self.referenced.all())

    def subset(self, keep: np.ndarray) -> LevelItems:
        """These items where `keep` is True (e.g. those a metric scored)."""
        return replace(
            self,
            item_ids=[item for item, kept in zip(self.item_ids, keep, strict=True) if kept],
            systems=self.systems[keep],
            contexts=self.contexts[keep],
            human={aspect: scores[keep] for aspect, scores in self.human.items()},
            referenced=self.referenced[keep],
            selection=self.positions[keep],
        )

    def select(self, systems: Sequence[str], references_only: bool) -> LevelItems:
        """The items not answered by `systems`, and with references if `references_only`."""
        keep = ~np.isin(self.systems, list(systems))
        if references_only:
            keep &= self.referenced
        return LevelItems(
            self.benchmark,
            self.level,
            self.fingerprint,
            [item for item, kept in zip(self.item_ids, keep, strict=True) if kept],
            self.systems[keep],
            self.contexts[keep],
            {aspect: scores[keep] for aspect, scores in self.human.items()},
            self.referenced[keep],
            tuple(systems),
            references_only,
            self.positions[keep],
        )

    @classmethod
    def of(cls, bench: Benchmark) -> LevelItems:
        def strings(column: str) -> np.ndarray:
            return np.asarray(bench.table.column(column).to_pylist(), dtype=str)

        return cls(
            bench.name,
            bench.level,
            bench.fingerprint,
            list(bench.item_ids),
            strings("system"),
            strings("dialogue_id"),
            {aspect: bench.human_scores(aspect) for aspect in bench.metadata.aspect_names},
            _referenced(bench),
        )

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        aspects = list(self.human)
        np.savez(
            out,
            item_ids=np.asarray(self.item_ids, dtype=str),
            systems=self.systems,
            contexts=self.contexts,
            aspects=np.asarray(aspects, dtype=str),
            human=np.array([self.human[a] for a in aspects], dtype=float).reshape(
                len(aspects), len(self)
            ),
            referenced=self.referenced,
        )
        return out.getvalue()

    @classmethod
    def from_file(
        cls, path: Path, benchmark: str, level: str, fingerprint: str
    ) -> LevelItems | None:
        """The items kept at `path`; None when the file is absent, is not the one written (its
        sha256 differs from the one beside it) or cannot be read."""
        payload = data.read_verified(path)
        if payload is None:
            return None
        try:
            return cls._from_npz(io.BytesIO(payload), benchmark, level, fingerprint)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None

    @classmethod
    def _from_npz(cls, file: IO[bytes], benchmark: str, level: str, fingerprint: str) -> LevelItems:
        with np.load(file, allow_pickle=False) as stored:
            human = dict(zip(stored["aspects"].tolist(), stored["human"], strict=True))
            return cls(
                benchmark,
                level,
                fingerprint,
                stored["item_ids"].tolist(),
                stored["systems"],
                stored["contexts"],
                human,
                stored["referenced"],
            )


def _referenced(bench: Benchmark) -> np.ndarray:
    """Whether each item has a non-blank reference (the rule of `nonblank_references`)."""
    if "references" not in bench.table.column_names:
        return np.zeros(len(bench), dtype=bool)
    rows = bench.table.column("references").to_pylist()
    return np.array([any(r.strip() for r in refs or ()) for refs in rows], dtype=bool)


LAYOUT = 2
"""Version of the kept `LevelItems` file (2: with the items' references)."""


def items_path(name: str, level: str, fingerprint: str) -> Path:
    """Where a level's `LevelItems` are kept: by data (fingerprint), parsing code and layout."""
    folder = data.cache_dir() / "leaderboard" / name / fingerprint / parsing_code_digest()
    return folder / f"{level}.v{LAYOUT}.npz"


def current_fingerprint(name: str) -> str | None:
    """The fingerprint of the raw files of benchmark `name` (verified), None when they are absent."""
    try:
        return content_fingerprint(get_metadata(name), data.data_root())
    except DataMissingError:
        return None


@lru_cache(maxsize=64)
def level_items(name: str, level: str) -> LevelItems:
    """A benchmark level's `LevelItems`, read from the cache when its fingerprint has them, else
    taken from the loaded benchmark and cached (raw files absent: see `load_benchmark`); a kept
    file whose sha256 differs from the one beside it is re-built."""
    fingerprint = current_fingerprint(name)
    if fingerprint is not None:
        kept = LevelItems.from_file(items_path(name, level, fingerprint), name, level, fingerprint)
        if kept is not None:
            return kept
    return keep_level_items(load_benchmark(name, level))


def keep_level_items(bench: Benchmark) -> LevelItems:
    """The `LevelItems` of a loaded benchmark level, kept on disk (for `level_items`)."""
    found = LevelItems.of(bench)
    path = items_path(bench.name, bench.level, bench.fingerprint)
    if data.read_verified(path) is None:  # absent, or not the file written: (re)written
        data.write_verified(path, found.to_bytes())
    return found


@lru_cache(maxsize=128)
def scored_items(name: str, level: str, reference_free: bool = False) -> LevelItems:
    """The items the leaderboard correlates a metric on, under the benchmark's evaluation
    protocol as `comperbench evaluate` applies it: a reference-based metric without the systems
    the protocol leaves out for metrics needing references and, on a level where only some
    items have references (DSTC7), without the items that have none (those it cannot score;
    see `submission.Coverage.full`); a reference-free metric on every item."""
    found = level_items(name, level)
    if reference_free:
        return found
    present = set(found.systems.tolist())
    excluded = get_metadata(name).protocol.excluded_systems(frozenset({"references"}))
    dropped = tuple(sorted(s for s in excluded if s in present))
    return found.select(dropped, found.partly_referenced)


REFERENCES_ONLY = "with-references"
"""The protocol tag's part for a level correlated on its items with references only."""


def protocol_tag(name: str, level: str = "system", reference_free: bool = False) -> str:
    """The protocol part of a leaderboard row's settings at `level` (system level: the first
    stored level's): the systems left out, and whether items without references are; empty for
    neither (always for a reference-free metric)."""
    if reference_free:
        return ""
    meta = get_metadata(name)
    parts = [meta.protocol.tag()] if meta.protocol.reference_excluded_systems else []
    if scored_items(name, source_level(name, level)).references_only:
        parts.append(REFERENCES_ONLY)
    return "+".join(parts)


def source_level(name: str, level: str) -> str:
    """The stored level a view is computed from (system level: the first stored level)."""
    return stored_levels(name)[0] if level == "system" else level


def references_note(name: str, level: str) -> str | None:
    """What a ranking of a partly referenced level is correlated on, or None for other levels,
    e.g. 'every row is correlated on the 9,540 of 10,000 items with references: a
    reference-based submission covers the level when it covers every item with references'."""
    items = scored_items(name, source_level(name, level))
    if not items.references_only:
        return None
    total = len(level_items(name, source_level(name, level)))
    return (
        f"every row is correlated on the {len(items):,} of {total:,} items with references "
        f"(all rows share their items): a reference-based submission covers the level when it "
        f"covers every item with references"
    )


def stored_levels(name: str) -> list[str]:
    return list(get_metadata(name).stored_levels)


class ItemIndex:
    """Maps release item ids (`benchmark/...`) to (benchmark, level, position)."""

    def __init__(self, benchmarks: Sequence[str] | None = None) -> None:
        self._names = list(benchmarks) if benchmarks is not None else list_benchmarks()
        self._positions: dict[str, dict[str, tuple[str, int]]] = {}

    def benchmark_names(self) -> list[str]:
        return list(self._names)

    def _of(self, benchmark: str) -> dict[str, tuple[str, int]]:
        if benchmark not in self._positions:
            table: dict[str, tuple[str, int]] = {}
            for level in stored_levels(benchmark):
                for position, item in enumerate(level_items(benchmark, level).item_ids):
                    table[item] = (level, position)
            self._positions[benchmark] = table
        return self._positions[benchmark]

    def locate(self, item_id: str) -> tuple[str, str, int] | None:
        benchmark = item_id.split("/", 1)[0]
        if benchmark not in self._names:
            return None
        found = self._of(benchmark).get(item_id)
        return None if found is None else (benchmark, found[0], found[1])

    def unknown_reason(self, item_id: str) -> str | None:
        """None for a known id, else why it is unknown."""
        benchmark = item_id.split("/", 1)[0]
        if benchmark not in self._names:
            return (
                f"unknown id: ids start with a benchmark name and '/', and {benchmark!r} is not "
                f"one (known: {', '.join(self._names)})"
            )
        if item_id not in self._of(benchmark):
            return f"unknown id: not an item of benchmark {benchmark!r}"
        return None

    def size(self, benchmark: str, level: str) -> int:
        return len(level_items(benchmark, level))

    def referenced(self, benchmark: str, level: str) -> np.ndarray | None:
        """Which items of a partly referenced level have references; None for other levels."""
        found = level_items(benchmark, level)
        return found.referenced if found.partly_referenced else None

    def fingerprint(self, benchmark: str) -> str:
        """The fingerprint of the data loaded (for ComperDial and Soda-Eval it covers the files read)."""
        return level_items(benchmark, stored_levels(benchmark)[0]).fingerprint

    def group(self, ids: Sequence[str]) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
        """Known ids grouped by (benchmark, level): their positions in `ids` and in the level."""
        rows: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
        for position, item in enumerate(ids):
            found = self.locate(item)
            if found is not None:
                sources, slots = rows.setdefault((found[0], found[1]), ([], []))
                sources.append(position)
                slots.append(found[2])
        return {k: (np.array(a, dtype=int), np.array(b, dtype=int)) for k, (a, b) in rows.items()}


TEXT_COLUMNS = ("system", "context", "response", "references", "grounding", "turns")
"""What a metric reads of an item, as the template's text columns (`submission_template`); a
submission's reader ignores these columns."""


def submission_template(name: str, levels: Sequence[str], with_texts: bool = False) -> str:
    """A submission file to fill: an `item_id,score` header and each item id of the levels with
    an empty score; `with_texts` adds each item's `TEXT_COLUMNS` that the levels have (a
    dialogue as `speaker: text` lines, a list as a line per entry)."""
    tables = [cached_benchmark(name, level).table for level in levels]
    texts = [c for c in TEXT_COLUMNS if with_texts and any(c in t.column_names for t in tables)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["item_id", "score", *texts])
    for table in tables:
        cells = [
            table.column(c).to_pylist() if c in table.column_names else [None] * len(table)
            for c in texts
        ]
        for i, item in enumerate(table.column("item_id").to_pylist()):
            writer.writerow([item, "", *(_text_cell(column[i]) for column in cells)])
    return out.getvalue()


def _text_cell(value: object) -> str:
    """A text column's cell: utterances as `speaker: text` lines, other lists a line per entry,
    nothing as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "\n".join(
            f"{v['speaker']}: {v['text']}" if isinstance(v, dict) else str(v) for v in value
        )
    return str(value)
