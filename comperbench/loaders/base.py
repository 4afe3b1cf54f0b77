"""What a loader is: metadata plus a parser from raw files to unified records."""

from __future__ import annotations

import ast
import csv
import functools
import hashlib
import io
import itertools
import json
import os
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, overload

from comperbench import data
from comperbench.common.errors import DataFormatError
from comperbench.common.registry import Registry
from comperbench.common.version import sources_digest
from comperbench.metadata import Aspect, BenchmarkMetadata
from comperbench.schema import DialogueRecord, TurnRecord, Utterance


@dataclass
class Parsed:
    """Records of one level, and counts of what the published format obliged the loader to skip."""

    turns: list[TurnRecord] = field(default_factory=list)
    dialogues: list[DialogueRecord] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


class SourceFiles:
    """The resolved raw files of one benchmark, with readers whose errors name file and line."""

    def __init__(self, paths: Mapping[str, Path]) -> None:
        self.paths = dict(paths)

    def path(self, key: str) -> Path:
        return self.paths[key]

    def text(self, key: str, encoding: str = "utf-8") -> str:
        path = self.paths[key]
        try:
            return path.read_text(encoding=encoding)
        except UnicodeDecodeError as exc:
            raise DataFormatError(
                f"not valid {encoding} at byte {exc.start}", file=str(path)
            ) from exc

    def json(self, key: str) -> Any:
        path = self.paths[key]
        try:
            return json.loads(self.text(key))
        except json.JSONDecodeError as exc:
            raise DataFormatError(
                f"invalid JSON ({exc.msg}, column {exc.colno}); the file may be truncated",
                file=str(path),
                line=exc.lineno,
            ) from exc

    def json_lines(self, key: str) -> Iterator[tuple[int, Any]]:
        path = self.paths[key]
        for number, line in enumerate(self.text(key).splitlines(), start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataFormatError(
                    f"invalid JSON ({exc.msg}, column {exc.colno})", file=str(path), line=number
                ) from exc

    def csv_rows(
        self, key: str, *, delimiter: str = ",", header: bool = True, encoding: str = "utf-8"
    ) -> Iterator[tuple[int, dict[str, str] | list[str]]]:
        """Rows with the line number where each starts (a dict per row when there is a header)."""
        path = self.paths[key]
        handle = io.StringIO(self.text(key, encoding=encoding), newline="")
        reader: Any = (
            csv.DictReader(handle, delimiter=delimiter)
            if header
            else csv.reader(handle, delimiter=delimiter)
        )
        line = reader.line_num + 1
        try:
            for row in reader:
                yield line, row
                line = reader.line_num + 1
        except csv.Error as exc:
            raise DataFormatError(f"malformed CSV: {exc}", file=str(path), line=line) from exc


_TEXT_NUMBER = {True: re.compile(r"-?[0-9]+"), False: re.compile(r"-?[0-9]+(?:\.[0-9]+)?")}
"""Numbers written as text: whole ones (True) or decimals (False); no spaces, signs '+' or
exponents."""


def _number(value: Any, text: bool, integer: bool) -> float | None:
    """`value` as a float when it is a number of the accepted kind, else None."""
    if isinstance(value, str):
        return float(value) if text and _TEXT_NUMBER[integer].fullmatch(value) else None
    return float(value) if type(value) is int or (type(value) is float and not integer) else None


class Record:
    """Field access into one raw record that fails with file, line, record and field named."""

    def __init__(
        self, data: Any, file: Path | str, where: str | int | None, line: int | None = None
    ):
        self.file, self.where, self.line = str(file), where, line
        if not isinstance(data, Mapping):
            raise self.error(f"expected an object, found {type(data).__name__}")
        self.data: Mapping[str, Any] = data

    def error(self, message: str, field: str | None = None) -> DataFormatError:
        return DataFormatError(
            message, file=self.file, record=self.where, field=field, line=self.line
        )

    def get(self, name: str, kind: type | tuple[type, ...] | None = None) -> Any:
        if name not in self.data:
            present = ", ".join(sorted(map(str, self.data)))
            raise self.error(f"missing (fields present: {present})", field=name)
        value = self.data[name]
        if kind is not None and not isinstance(value, kind):
            expected = (
                kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            )
            raise self.error(f"expected {expected}, found {type(value).__name__}", field=name)
        return value

    def optional(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def text(self, name: str) -> str:
        return self.get(name, str)

    @overload
    def rating(
        self,
        aspect: Aspect,
        value: Any,
        field: str | None = None,
        *,
        text: bool = False,
        integer: bool = False,
        unusable: None = None,
    ) -> float: ...

    @overload
    def rating(
        self,
        aspect: Aspect,
        value: Any,
        field: str | None = None,
        *,
        text: bool = False,
        integer: bool = False,
        unusable: Callable[[Any], bool],
    ) -> float | None: ...

    def rating(
        self,
        aspect: Aspect,
        value: Any,
        field: str | None = None,
        *,
        text: bool = False,
        integer: bool = False,
        unusable: Callable[[Any], bool] | None = None,
    ) -> float | None:
        """`value` as a rating on the scale of `aspect`; None when `unusable` says the format
        marks it so (e.g. FED's "N/A (...)" strings).

        A rating is a JSON number (never a bool), or with `text` a number written as text;
        `integer` accepts whole numbers only. Anything else, or a number outside the scale, is
        an error naming file, line, record and `field` (the aspect's label unless given).
        """
        if unusable is not None and unusable(value):
            return None
        field = field or aspect.label
        number = _number(value, text, integer)
        if number is None:
            kind = "an integer" if integer else "a number"
            raise self.error(
                f"rating {value!r} is not {kind} from {aspect.min:g} to {aspect.max:g}", field
            )
        if not aspect.min <= number <= aspect.max:  # also false for NaN
            raise self.error(
                f"rating {value!r} is outside the scale {aspect.min:g}-{aspect.max:g}", field
            )
        return number


def skip_key(aspect: Aspect) -> str:
    """The `Parsed.skipped` key counting the unusable ("N/A") ratings dropped for an aspect."""
    return f"N/A rating: {aspect.name}"


def item_id(benchmark: str, *parts: str | int) -> str:
    """`benchmark/part/part`: stable, human-readable and unique across the release."""
    return "/".join([benchmark, *(p if isinstance(p, str) else f"{p:04d}" for p in parts)])


def alternating(texts: Sequence[str], last: str = "A", other: str = "B") -> list[Utterance]:
    """Utterances of two speakers taking turns, the last one spoken by `last`."""
    n = len(texts)
    return [Utterance(last if (n - 1 - i) % 2 == 0 else other, t) for i, t in enumerate(texts)]


def prefixed(lines: Sequence[str], speakers: Sequence[str] = ("User", "System")) -> list[Utterance]:
    """Utterances from lines written as 'Speaker: text'; lines without a known prefix continue the last."""
    utterances: list[Utterance] = []
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        head, sep, rest = line.partition(":")
        if sep and head.strip() in speakers:
            utterances.append(Utterance(head.strip(), rest.strip()))
        elif utterances:
            last = utterances[-1]
            utterances[-1] = Utterance(last.speaker, f"{last.text}\n{line}")
        else:
            utterances.append(Utterance("", line))
    return utterances


def speaker_turns(rec: Record, name: str) -> list[Utterance]:
    """'User:'/'System:' lines of a text field (FED and DSTC9); a line without a prefix continues
    the one before."""
    utterances = prefixed(rec.text(name).split("\n"))
    if not utterances or utterances[0].speaker not in ("User", "System"):
        raise rec.error("expected lines that start with 'User:' or 'System:'", name)
    return [Utterance(u.speaker, u.text.strip()) for u in utterances]


BENCHMARK_MODULES = (
    "comperbench.loaders.dailydialog_gupta",
    "comperbench.loaders.dstc7",
    "comperbench.loaders.dstc9",
    "comperbench.loaders.fed",
    "comperbench.loaders.grade",
    "comperbench.loaders.holistic",
    "comperbench.loaders.predictive_engagement",
    "comperbench.loaders.usr",
    "comperbench.loaders.zhao",
    "comperbench.loaders.hub.comperdial",
    "comperbench.loaders.hub.soda_eval",
)
"""The modules of the built-in loaders; a plugin package adds its own under the entry-point
group `comperbench.benchmarks` (a module defining a `BenchmarkLoader` subclass)."""

BENCHMARKS: Registry[type[BenchmarkLoader]] = Registry(
    "benchmark", BENCHMARK_MODULES, group="comperbench.benchmarks", listed_by="comperbench list"
)


def code_digest(files: Sequence[Path]) -> str:
    """sha256 (12 hex digits) of source files, by name and content."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _imported_names(tree: ast.AST, home: str) -> Iterator[tuple[str, ...]]:
    """What a module of package `home` imports, anywhere in it (function bodies too), as dotted
    names: for `from a import b`, `a.b` if that is a module, else `a`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name,) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parent = home.rsplit(".", node.level - 1)[0] if node.level else ""
            base = ".".join(part for part in (parent, node.module or "") if part)
            yield from ((f"{base}.{alias.name}", base) for alias in node.names)


def _module_file(name: str, package: Path) -> Path | None:
    """The source file of module `name` when it belongs to `package`."""
    if name.split(".")[0] != package.name:
        return None
    target = package.parent.joinpath(*name.split("."))
    return next(
        (c for c in (target.with_suffix(".py"), target / "__init__.py") if c.is_file()), None
    )


def _package_imports(roots: Sequence[Path], package: Path) -> list[Path]:
    """The source files of `roots` and of every module of `package` they import, transitively
    (a package's `__init__` only when it is itself imported, not as the parent of a module)."""
    found: set[Path] = set()
    pending = [path.resolve() for path in roots]
    while pending:
        path = pending.pop()
        if path in found:
            continue
        found.add(path)
        home = ".".join(path.parent.relative_to(package.parent).parts)
        for choices in _imported_names(ast.parse(path.read_bytes()), home):
            files = (_module_file(name, package) for name in choices)
            pending.extend(itertools.islice(filter(None, files), 1))
    return sorted(found)


PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def parsing_code_digest(package: Path = PACKAGE) -> str:
    """The `code_digest` of what turns raw files into tables: every loader module, the schema,
    and every package module they import (transitively), so that a change in, say, the slug of
    an item id is a changed parser too. Part of the table-cache key, so a changed parser is never
    served the rows an older one cached, whether or not the benchmark's version was raised.

    Following the imports parses every module it reaches, so the digest is kept in the cache
    folder under the digest of every module of the package, which any change renews."""
    kept = data.cache_dir() / "code" / f"{sources_digest(package)}.txt"
    if kept.is_file():
        return kept.read_text()
    roots = [*sorted((package / "loaders").rglob("*.py")), package / "schema.py"]
    digest = code_digest(_package_imports(roots, package))
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(f".{os.getpid()}.part")
    partial.write_text(digest)
    partial.replace(kept)  # whole or absent, whatever runs at the same time
    return digest


class BenchmarkLoader(ABC):
    """A benchmark: its metadata in code and a parser from its raw files.

    A subclass that declares `metadata` registers itself under the metadata's name.
    """

    metadata: ClassVar[BenchmarkMetadata]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "metadata" in cls.__dict__:
            BENCHMARKS.add(cls.metadata.name, cls)

    @abstractmethod
    def parse(self, files: SourceFiles, level: str) -> Parsed:
        """Read the raw files into records of `level` ("turn" or "dialogue")."""

    def content_digests(self, files: SourceFiles, root: Path) -> dict[str, str]:
        """sha256 of every file `parse` reads whose sha256 is not declared, by path under `root`.

        These identify the data of a source without a declared sha256 (a Hub file at a branch,
        or at a pinned revision but never checked): the table cache and the fingerprint reported
        with results include them. A loader that reads files beyond its declared sources (e.g.
        shards named by a card) adds them.
        """
        from comperbench.data import memoised_sha256

        undeclared = {s.path for s in self.metadata.sources if s.sha256 is None}
        return {
            key: memoised_sha256(path) for key, path in files.paths.items() if key in undeclared
        }
