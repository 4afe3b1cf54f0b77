"""Declarative metadata of a benchmark: names, provenance, license, levels, aspects, splits,
published sizes and evaluation protocol."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from comperbench.common.errors import UnknownNameError
from comperbench.common.textutil import slug
from comperbench.schema import SCHEMA_VERSION, STORED_LEVELS


@dataclass(frozen=True)
class Aspect:
    """One rated quality and its scale as published."""

    name: str
    """Key used in `scores` and `ratings` (snake_case)."""
    label: str
    """The name as it appears in the source files."""
    min: float
    max: float
    description: str = ""


@dataclass(frozen=True)
class HubFile:
    """A file published on the Hugging Face Hub at a pinned revision."""

    repo_id: str
    filename: str
    revision: str
    repo_type: str = "dataset"
    pinned: bool = True
    """False when `revision` is a branch (no commit hash is known): the files it names can change,
    so `comperbench export` refuses them unless told to release unpinned data."""


@dataclass(frozen=True)
class SourceFile:
    """A raw file, addressed relative to the data root, with its checksum and origin."""

    path: str
    sha256: str | None
    """None only for Hub files whose bytes were never seen; the pinned revision identifies them."""
    url: str | None = None
    hub: HubFile | None = None

    @property
    def identity(self) -> str:
        if self.sha256:
            return self.sha256
        if self.hub:
            return f"hub:{self.hub.repo_id}@{self.hub.revision}/{self.hub.filename}"
        raise ValueError(f"source {self.path} has neither a sha256 nor a pinned Hub revision")


def github_source(path: str, sha256: str, repo: str, commit: str, repo_path: str) -> SourceFile:
    """A file copied byte for byte from a public GitHub repository at a fixed commit."""
    url = f"https://raw.githubusercontent.com/{repo}/{commit}/{repo_path}"
    return SourceFile(path=path, sha256=sha256, url=url)


@dataclass(frozen=True)
class EvaluationProtocol:
    """How the literature evaluates a benchmark; every command applies it unless told not to."""

    source: str = "no published protocol: every system is scored"
    """Where the protocol comes from (paper, table, released code)."""
    reference_excluded_systems: tuple[str, ...] = ()
    """Systems that metrics needing references leave out (e.g. a system whose response is the
    reference, so that its reference-based scores are trivially perfect)."""
    reason: str = ""
    """Why those systems are left out."""
    default_aspects: tuple[tuple[str, str], ...] = ()
    """(level, aspect) where a level's default aspect differs from the benchmark's."""

    def excluded_systems(self, needs: frozenset[str] | set[str]) -> tuple[str, ...]:
        """The systems a metric with these needs leaves out."""
        return self.reference_excluded_systems if "references" in needs else ()

    def tag(self) -> str:
        """A short label for signatures: `ref-without:<systems>` or `all-systems`."""
        if not self.reference_excluded_systems:
            return "all-systems"
        return "ref-without:" + ",".join(slug(s) for s in self.reference_excluded_systems)


@dataclass(frozen=True)
class SplitCounts:
    """Sizes of one level and split; None where the publisher does not state the number."""

    level: str
    split: str
    items: int | None
    dialogues: int | None
    systems: int | None
    ratings: int | None


@dataclass(frozen=True)
class PublishedCounts:
    """Sizes as the publisher states them, for a benchmark whose raw files are not measured here."""

    source: str
    """Who states them (e.g. the publisher's dataset card)."""
    splits: tuple[SplitCounts, ...]
    """One entry per stored level and split."""


LICENSE_ID = re.compile(r"[a-z0-9]+(?:[.-][a-z0-9]+)*")


@dataclass(frozen=True)
class BenchmarkMetadata:
    """Everything a user needs to know and cite about a benchmark, declared in code."""

    name: str
    pretty_name: str
    """Display name, as in card titles and the benchmark lists of the READMEs."""
    version: str
    description: str
    homepage: str
    license: str
    """The license as the source states it, in words (with any caveat)."""
    license_id: str
    """Lower-case SPDX-style id of that license ("mit", "cc-by-4.0", ...); "unknown" when the
    source states none."""
    citation: str
    sources: tuple[SourceFile, ...]
    levels: tuple[str, ...]
    aspects: tuple[Aspect, ...]
    default_aspect: str
    splits: tuple[str, ...] = ("test",)
    has_references: bool = False
    has_grounding: bool = False
    individual_ratings: bool = True
    annotator_ids: bool = False
    language: str = "en"
    notes: tuple[str, ...] = field(default_factory=tuple)
    protocol: EvaluationProtocol = EvaluationProtocol()
    published_counts: PublishedCounts | None = None
    """The publisher's sizes, stated by the card instead of measured ones (Hub-only benchmarks)."""

    def __post_init__(self) -> None:
        self._check_names()
        self._check_aspects()
        if self.published_counts is not None:
            self._check_published_counts(self.published_counts)

    def _check_names(self) -> None:
        if not self.pretty_name.strip() or "\n" in self.pretty_name:
            raise ValueError(f"{self.name}: pretty_name must be one non-empty line")
        if not self.license.strip():
            raise ValueError(f"{self.name}: license must state the license in words")
        if not LICENSE_ID.fullmatch(self.license_id) or self.license_id == "other":
            raise ValueError(
                f"{self.name}: license_id {self.license_id!r} is not a lower-case SPDX-style id "
                "(e.g. 'mit', 'cc-by-4.0'; 'unknown' when the source states none)"
            )

    def _check_aspects(self) -> None:
        names = [a.name for a in self.aspects]
        if self.default_aspect not in names:
            raise ValueError(f"{self.name}: default aspect {self.default_aspect!r} not in {names}")
        for level, aspect in self.protocol.default_aspects:
            if aspect not in names or level not in self.levels:
                raise ValueError(f"{self.name}: protocol default aspect {aspect!r} at {level!r}")
        if self.protocol.reference_excluded_systems and not self.has_references:
            raise ValueError(
                f"{self.name}: a protocol exclusion for metrics needing references "
                "on a benchmark without references"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate aspect names {names}")

    def _check_published_counts(self, counts: PublishedCounts) -> None:
        if not counts.source.strip():
            raise ValueError(f"{self.name}: published counts must say who published them")
        found = [(c.level, c.split) for c in counts.splits]
        declared = [(level, split) for level in self.stored_levels for split in self.splits]
        if sorted(found) != sorted(declared):
            raise ValueError(
                f"{self.name}: published counts are for (level, split) {found}; the metadata "
                f"declares {declared}"
            )
        for c in counts.splits:
            numbers = (c.items, c.dialogues, c.systems, c.ratings)
            if any(n is not None and (type(n) is not int or n < 0) for n in numbers):
                raise ValueError(
                    f"{self.name}: published counts of {c.level}/{c.split} must be "
                    f"non-negative integers or None, found {numbers}"
                )

    @property
    def stored_levels(self) -> tuple[str, ...]:
        """The levels held as tables ("turn", "dialogue"); the system level is derived."""
        return tuple(level for level in self.levels if level in STORED_LEVELS)

    @property
    def aspect_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.aspects)

    def default_aspect_at(self, level: str | None) -> str:
        """The protocol's default aspect at `level` (the benchmark's default unless it says)."""
        return dict(self.protocol.default_aspects).get(level or "", self.default_aspect)

    def aspect(self, name: str | None, level: str | None = None) -> Aspect:
        """The aspect called `name` (its key or its source label); the default one at `level`
        for None."""
        key = self.default_aspect_at(level) if name is None else name
        for aspect in self.aspects:
            if key in (aspect.name, aspect.label):
                return aspect
        known = ", ".join(self.aspect_names)
        raise UnknownNameError(f"benchmark {self.name!r} has no aspect {key!r}. Known: {known}")

    @property
    def fingerprint(self) -> str:
        """Hash of the version, the schema version and the identity of every raw file."""
        payload = json.dumps(
            {
                "name": self.name,
                "version": self.version,
                "schema": SCHEMA_VERSION,
                "sources": sorted(s.identity for s in self.sources),
            },
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]
