"""Dataset cards: the facts of a benchmark rendered from code, and the check that a card agrees.

A card is a Hugging Face dataset card (README.md with a YAML header). Its YAML header and the
blocks between `<!-- facts:start NAME -->` and `<!-- facts:end NAME -->` are generated from the
metadata in code and from the loaded tables; everything else is prose written for people. The
benchmark lists of the cards folder's README (the collection card) and of the project README sit
between `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->` and are generated from the
registered metadata.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from huggingface_hub import DatasetCardData

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import __version__
from comperbench.metadata import BenchmarkMetadata, SplitCounts
from comperbench.schema import SCHEMA_VERSION

CARDS_DIR = Path(__file__).resolve().parents[2] / "dataset_cards"
README_LINKS = f"{CARDS_DIR.name}/"
"""How the project README (beside the cards folder) links to the cards."""
BLOCKS = ("summary", "aspects", "counts", "notes", "usage", "citation")
SECTIONS = (
    "## How it was collected",
    "## Fields of the unified schema",
    "## Aspects and scales",
    "## Counts",
    "## Known issues and loader handling",
    "## Using it",
    "## License and terms",
    "## Citation",
)
GENERATED_SECTIONS = ("## Using it", "## Citation")
"""Sections whose content is a fact block only."""
TASK_CATEGORIES = ("text-generation",)
TASK_IDS = ("dialogue-modeling",)
TAGS = ("dialogue-evaluation", "human-judgments", "meta-evaluation", "comperbench")
COMPERBENCH_YEAR = "2026"

HF_LICENSES = frozenset(
    {
        "apache-2.0",
        "mit",
        "bsd-2-clause",
        "bsd-3-clause",
        "cc0-1.0",
        "cc-by-3.0",
        "cc-by-4.0",
        "cc-by-sa-3.0",
        "cc-by-sa-4.0",
        "cc-by-nc-4.0",
        "cc-by-nc-sa-4.0",
        "cc-by-nc-nd-4.0",
        "gpl-3.0",
        "odc-by",
        "odbl",
        "o-uda-1.0",
        "cdla-permissive-2.0",
    }
)


class CardError(ComperbenchError):
    """A dataset card is missing, malformed, or disagrees with the code."""


@dataclass(frozen=True)
class CardCounts:
    """What a card reports about the size of a benchmark, and where the numbers come from."""

    splits: tuple[SplitCounts, ...]
    per_system: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    """level -> system -> split -> items."""
    skipped: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """level -> reason -> count of what the loader dropped."""
    published_by: str | None = None
    """Set when the numbers are copied from the publisher's card instead of measured here."""

    @property
    def total_items(self) -> int | None:
        values = [s.items for s in self.splits]
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def release_path(name: str, level: str, split: str, fmt: str = "parquet") -> str:
    """Where `comperbench export` writes one level and split, relative to the release root."""
    return f"{name}/{level}-{split}.{fmt}"


def measure(
    meta: BenchmarkMetadata,
    tables: Mapping[str, pa.Table],
    skipped: Mapping[str, Mapping[str, int]],
) -> CardCounts:
    """Counts per level and split, and items per system, from the loaded tables (level -> table)."""
    rows: list[SplitCounts] = []
    per_system: dict[str, dict[str, dict[str, int]]] = {}
    for level in meta.stored_levels:
        table = tables[level]
        systems: dict[str, dict[str, int]] = defaultdict(dict)
        for split in meta.splits:
            part = table.filter(pc.equal(table.column("split"), split))
            names = Counter(part.column("system").to_pylist())
            for system, n in names.items():
                systems[system][split] = n
            rows.append(
                SplitCounts(
                    level=level,
                    split=split,
                    items=part.num_rows,
                    dialogues=len(part.column("dialogue_id").unique()),
                    systems=len(names),
                    ratings=int(pc.sum(pc.list_value_length(part.column("ratings"))).as_py() or 0),
                )
            )
        per_system[level] = dict(sorted(systems.items()))
    return CardCounts(
        splits=tuple(rows),
        per_system=per_system,
        skipped={level: dict(sorted(s.items())) for level, s in skipped.items() if s},
    )


def published(meta: BenchmarkMetadata) -> CardCounts | None:
    """The counts the metadata declares as published (Hub-only benchmarks), else None."""
    if meta.published_counts is None:
        return None
    return CardCounts(
        splits=meta.published_counts.splits, published_by=meta.published_counts.source
    )


def card_counts(
    meta: BenchmarkMetadata,
    tables: Mapping[str, pa.Table],
    skipped: Mapping[str, Mapping[str, int]],
) -> CardCounts:
    """The counts a card states: the published ones of a Hub-only benchmark, else measured ones."""
    return published(meta) or measure(meta, tables, skipped)


def load_counts(meta: BenchmarkMetadata, data_dir: str | Path | None = None) -> CardCounts:
    """The published counts of a Hub-only benchmark, else counts measured on its loaded tables."""
    counts = published(meta)
    if counts is not None:
        return counts
    from comperbench.benchmark import load_benchmark

    tables, skipped = {}, {}
    for level in meta.stored_levels:
        bench = load_benchmark(meta.name, level, data_dir=data_dir)
        tables[level], skipped[level] = bench.table, bench.skipped
    return measure(meta, tables, skipped)


def hf_license(license_id: str) -> tuple[str, str | None]:
    """The Hugging Face license of a declared license id, and its name when it must be `other`."""
    return (license_id, None) if license_id in HF_LICENSES else ("other", license_id)


def size_category(n: int | None) -> str:
    if n is None:
        return "unknown"
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < bound:
            return label
    return "100K<n<1M" if n < 1_000_000 else "1M<n<10M"


def configs(
    meta: BenchmarkMetadata, prefix: str = "", fmt: str = "parquet"
) -> list[dict[str, object]]:
    """One config per stored level, its data files per split at the release paths."""
    out: list[dict[str, object]] = []
    for i, level in enumerate(meta.stored_levels):
        config: dict[str, object] = {
            "config_name": f"{prefix}{level}",
            "data_files": [
                {"split": split, "path": release_path(meta.name, level, split, fmt)}
                for split in meta.splits
            ],
        }
        if i == 0 and not prefix:
            config["default"] = True
        out.append(config)
    return out


def render_header(meta: BenchmarkMetadata, counts: CardCounts) -> str:
    license_id, license_name = hf_license(meta.license_id)
    extra: dict[str, object] = {}
    if license_name is not None:
        extra = {"license_name": license_name, "license_details": meta.license}
    data = DatasetCardData(
        pretty_name=meta.pretty_name,
        language=[meta.language],
        license=license_id,
        task_categories=list(TASK_CATEGORIES),
        task_ids=list(TASK_IDS),
        size_categories=[size_category(counts.total_items)],
        tags=list(TAGS),
        configs=configs(meta),
        **extra,
    )
    return f"---\n{data.to_yaml()}\n---"


def _source_rows(meta: BenchmarkMetadata) -> list[str]:
    lines = []
    for source in meta.sources:
        if source.hub:
            where = f"Hub dataset `{source.hub.repo_id}` file `{source.hub.filename}` @ `{source.hub.revision}`"
        else:
            where = source.url or "original publication"
        digest = f"sha256 `{source.sha256}`" if source.sha256 else "no sha256 (pinned revision)"
        lines.append(f"| raw file | `{source.path}`: {digest}, from {where} |")
    return lines


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _protocol(meta: BenchmarkMetadata) -> str:
    protocol = meta.protocol
    if not protocol.reference_excluded_systems:
        return "every system is scored by every metric"
    systems = ", ".join(f"`{s}`" for s in protocol.reference_excluded_systems)
    return (
        f"metrics needing references leave out {systems} ({protocol.reason}); "
        f"source: {protocol.source}"
    )


def render_summary(meta: BenchmarkMetadata) -> str:
    lines = [
        "| fact | value |",
        "|---|---|",
        f"| benchmark | `{meta.name}` |",
        f"| version | {meta.version} |",
        f"| fingerprint | `{meta.fingerprint}` |",
        f"| schema version | {SCHEMA_VERSION} |",
        f"| levels | {', '.join(meta.levels)} |",
        f"| splits | {', '.join(meta.splits)} |",
        f"| default aspect | `{meta.default_aspect}` |",
        f"| evaluation protocol | {_protocol(meta)} |",
        f"| references | {_yes(meta.has_references)} |",
        f"| grounding | {_yes(meta.has_grounding)} |",
        f"| individual ratings | {_yes(meta.individual_ratings)} |",
        f"| annotator ids | {_yes(meta.annotator_ids)} |",
        f"| license (as declared) | {meta.license} |",
        f"| homepage | {meta.homepage} |",
        *_source_rows(meta),
    ]
    return "\n".join([meta.description, "", *lines])


def render_aspects(meta: BenchmarkMetadata) -> str:
    lines = ["| aspect | label in the source | scale | description |", "|---|---|---|---|"]
    for a in meta.aspects:
        default = " (default)" if a.name == meta.default_aspect else ""
        lines.append(f"| `{a.name}`{default} | {a.label} | {a.min:g}-{a.max:g} | {a.description} |")
    return "\n".join(lines)


def _n(value: int | None) -> str:
    return "not published" if value is None else f"{value:,}"


def render_counts(counts: CardCounts) -> str:
    lines = []
    if counts.published_by:
        lines += [f"As published by {counts.published_by}; not measured here.", ""]
    lines += [
        "| level | split | items | dialogues | systems | individual ratings |",
        "|---|---|---|---|---|---|",
    ]
    for s in counts.splits:
        lines.append(
            f"| {s.level} | {s.split} | {_n(s.items)} | {_n(s.dialogues)} | {_n(s.systems)} "
            f"| {_n(s.ratings)} |"
        )
    lines += ["", "Dialogues count distinct `dialogue_id` values (contexts or conversations)."]
    for level, systems in counts.per_system.items():
        splits = [s.split for s in counts.splits if s.level == level]
        lines += ["", f"Items per system ({level} level):", ""]
        lines.append("| system | " + " | ".join(splits) + " |")
        lines.append("|---|" + "---|" * len(splits))
        for system, per in systems.items():
            cells = " | ".join(f"{per.get(split, 0):,}" for split in splits)
            lines.append(f"| {system} | {cells} |")
    for level, reasons in counts.skipped.items():
        lines += ["", f"Dropped by the loader ({level} level):", ""]
        lines += ["| reason | ratings or records |", "|---|---|"]
        lines += [f"| {reason} | {n:,} |" for reason, n in reasons.items()]
    if not counts.skipped and not counts.published_by:
        lines += ["", "The loader dropped nothing."]
    return "\n".join(lines)


def render_notes(meta: BenchmarkMetadata) -> str:
    if not meta.notes:
        return "The metadata declares no loader notes."
    return "\n".join(f"- {note}" for note in meta.notes)


def render_usage(meta: BenchmarkMetadata) -> str:
    """How to load the benchmark with comperbench and its release files with `datasets`."""
    level = meta.stored_levels[0]
    split = meta.splits[-1]
    files = ", ".join(f'"{s}": "{release_path(meta.name, level, s)}"' for s in meta.splits)
    return "\n".join(
        [
            "```python",
            "from comperbench import load_benchmark",
            "",
            f'bench = load_benchmark("{meta.name}", "{level}", split="{split}")',
            f'scores = bench.human_scores("{meta.default_aspect}")  # item means, NaN where none',
            "ratings = bench.ratings()  # one row per individual rating",
            "systems = bench.systems()  # the derived system level",
            "",
            "# the same rows from a release folder written by `comperbench export`",
            "from datasets import load_dataset",
            "",
            f'ds = load_dataset("parquet", data_files={{{files}}})',
            "```",
        ]
    )


def render_citation(meta: BenchmarkMetadata) -> str:
    return f"```bibtex\n{meta.citation.strip()}\n```"


def render_blocks(meta: BenchmarkMetadata, counts: CardCounts) -> dict[str, str]:
    return {
        "summary": render_summary(meta),
        "aspects": render_aspects(meta),
        "counts": render_counts(counts),
        "notes": render_notes(meta),
        "usage": render_usage(meta),
        "citation": render_citation(meta),
    }


def _block_re(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- facts:start {name} -->\n)(.*?)(\n<!-- facts:end {name} -->)", re.DOTALL
    )


_HEADER = re.compile(r"\A---\n(?:.*?\n)?---(?=\n)", re.DOTALL)


def skeleton(meta: BenchmarkMetadata) -> str:
    """A new card: generated header and blocks, with the sections that prose must fill."""
    parts = [f"---\n---\n\n# {meta.pretty_name}\n", _empty_block("summary")]
    for section in SECTIONS:
        parts.append(f"{section}\n")
        block = {
            "## Aspects and scales": "aspects",
            "## Counts": "counts",
            "## Known issues and loader handling": "notes",
            "## Using it": "usage",
            "## Citation": "citation",
        }.get(section)
        if block:
            parts.append(_empty_block(block))
    return "\n".join(parts)


def _empty_block(name: str) -> str:
    return f"<!-- facts:start {name} -->\n\n<!-- facts:end {name} -->\n"


def regenerate(text: str, meta: BenchmarkMetadata, counts: CardCounts) -> str:
    """The card with its header and fact blocks replaced by what the code says now."""
    if not _HEADER.match(text):
        raise CardError(
            f"card of {meta.name} does not start with a YAML header between '---' lines"
        )
    text = _HEADER.sub(lambda _: render_header(meta, counts), text, count=1)
    for name, body in render_blocks(meta, counts).items():
        pattern = _block_re(name)
        if not pattern.search(text):
            raise CardError(f"card of {meta.name} has no block <!-- facts:start {name} -->")
        text = pattern.sub(lambda m, b=body: m.group(1) + b + m.group(3), text, count=1)
    return text


def check(text: str, meta: BenchmarkMetadata, counts: CardCounts | None) -> list[str]:
    """Every way in which a card disagrees with the code (empty when it agrees).

    Without counts (no raw data at hand) the header and the counts block are not compared.
    """
    problems = []
    header = _HEADER.match(text)
    if not header:
        problems.append("no YAML header at the top")
    elif counts is not None and header.group(0) != render_header(meta, counts):
        problems.append("YAML header differs from the code")
    blocks = render_blocks(meta, counts or CardCounts(splits=()))
    if counts is None:
        del blocks["counts"]
    for name, body in blocks.items():
        found = _block_re(name).search(text)
        if not found:
            problems.append(f"block {name!r} is missing")
        elif found.group(2) != body:
            problems.append(f"block {name!r} differs from the code")
    for section in SECTIONS:
        if section not in text:
            problems.append(f"section {section!r} is missing")
    prose = _prose(text)
    for section, words in prose.items():
        if words < 15 and section not in GENERATED_SECTIONS:
            problems.append(f"section {section!r} has no prose ({words} words outside fact blocks)")
    return problems


def _prose(text: str) -> dict[str, int]:
    """Words written outside the header and fact blocks, per `## ` section."""
    body = _HEADER.sub("", text, count=1)
    for name in BLOCKS:
        body = _block_re(name).sub("", body)
    words: dict[str, int] = {}
    for chunk in re.split(r"\n(?=## )", body)[1:]:
        title, _, rest = chunk.partition("\n")
        words[title.strip()] = len(re.findall(r"[A-Za-z]{2,}", rest))
    return words


def card_path(name: str, cards_dir: Path | None = None) -> Path:
    return (cards_dir or CARDS_DIR) / name / "README.md"


def read_card(name: str, cards_dir: Path | None = None) -> str:
    path = card_path(name, cards_dir)
    if not path.is_file():
        raise CardError(
            f"benchmark {name!r} has no card at {path}; create it with `comperbench card {name} --write`"
        )
    return path.read_text(encoding="utf-8")


def write_card(meta: BenchmarkMetadata, counts: CardCounts, cards_dir: Path | None = None) -> Path:
    """Regenerate the facts of a card in place (a skeleton to fill with prose when it is new)."""
    path = card_path(meta.name, cards_dir)
    text = path.read_text(encoding="utf-8") if path.is_file() else skeleton(meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(regenerate(text, meta, counts), encoding="utf-8")
    return path


def collection_header(metas: Sequence[BenchmarkMetadata], fmt: str = "parquet") -> str:
    """The YAML header of the release's top-level card: one config per benchmark and level."""
    all_configs = [c for meta in metas for c in configs(meta, prefix=f"{meta.name}-", fmt=fmt)]
    data = DatasetCardData(
        pretty_name="comperbench: human judgments of open-domain dialogue",
        language=sorted({meta.language for meta in metas}),
        license="other",
        license_name="per-benchmark",
        license_details="Each benchmark keeps the license of its source; see its card.",
        task_categories=list(TASK_CATEGORIES),
        task_ids=list(TASK_IDS),
        tags=list(TAGS),
        configs=all_configs,
    )
    return f"---\n{data.to_yaml()}\n---"


def check_collection(text: str, metas: Sequence[BenchmarkMetadata]) -> list[str]:
    """How the collection card disagrees with the registered benchmarks (empty when it agrees)."""
    header = _HEADER.match(text)
    problems = []
    if not header:
        problems.append("no YAML header at the top")
    elif header.group(0) != collection_header(metas):
        problems.append("YAML header (configs of the benchmarks) differs from the code")
    return problems + check_benchmark_list(text, metas)


def regenerate_collection(text: str, metas: Sequence[BenchmarkMetadata]) -> str:
    """The collection card with its header and benchmark list generated from `metas`."""
    return with_benchmark_list(with_collection_header(text, metas), metas)


def with_collection_header(
    text: str, metas: Sequence[BenchmarkMetadata], fmt: str = "parquet"
) -> str:
    if not _HEADER.match(text):
        raise CardError("the collection card does not start with a YAML header")
    return _HEADER.sub(lambda _: collection_header(metas, fmt), text, count=1)


def render_benchmark_list(metas: Sequence[BenchmarkMetadata], links: str = "") -> str:
    """A table of the benchmarks; each name links to its card at `<links><name>/README.md`."""
    lines = ["| benchmark | name | levels | aspects | license |", "|---|---|---|---|---|"]
    for meta in metas:
        hub_only = all(source.hub is not None for source in meta.sources)
        where = " (Hugging Face Hub only)" if hub_only else ""
        lines.append(
            f"| [`{meta.name}`]({links}{meta.name}/README.md) | {meta.pretty_name}{where} "
            f"| {', '.join(meta.levels)} | {len(meta.aspects)} (default `{meta.default_aspect}`) "
            f"| {meta.license_id} |"
        )
    return "\n".join(lines)


_LIST = re.compile(r"(<!-- benchmarks:start -->\n)(.*?)(\n<!-- benchmarks:end -->)", re.DOTALL)


def with_benchmark_list(text: str, metas: Sequence[BenchmarkMetadata], links: str = "") -> str:
    """`text` with the block between the benchmarks:start/end markers generated from `metas`."""
    if not _LIST.search(text):
        raise CardError("no block <!-- benchmarks:start --> ... <!-- benchmarks:end -->")
    body = render_benchmark_list(metas, links)
    return _LIST.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def check_benchmark_list(
    text: str, metas: Sequence[BenchmarkMetadata], links: str = ""
) -> list[str]:
    """How the benchmark list of `text` disagrees with `metas` (empty when it agrees)."""
    found = _LIST.search(text)
    if not found:
        return ["no benchmark list between <!-- benchmarks:start --> and <!-- benchmarks:end -->"]
    if found.group(2) != render_benchmark_list(metas, links):
        return ["benchmark list differs from the registered benchmarks"]
    return []


def for_format(text: str, meta: BenchmarkMetadata, fmt: str) -> str:
    """A checked card (which describes the parquet files) for a release written in `fmt`: its
    configs and usage snippet point at the files of that format."""
    if fmt == "parquet":
        return text
    for level in meta.stored_levels:
        for split in meta.splits:
            text = text.replace(
                release_path(meta.name, level, split), release_path(meta.name, level, split, fmt)
            )
    loader = "json" if fmt == "jsonl" else fmt
    return text.replace('load_dataset("parquet", ', f'load_dataset("{loader}", ')


def comperbench_bibtex() -> str:
    return (
        "@software{comperbench,\n"
        "    title = {comperbench: Human-Judgment Benchmarks, Metrics and Meta-Evaluation "
        "for Open-Domain Dialogue},\n"
        "    author = {{comperbench contributors}},\n"
        f"    version = {{{__version__}}},\n"
        f"    year = {{{COMPERBENCH_YEAR}}},\n"
        f"    note = {{Python package, version {__version__}}}\n"
        "}"
    )


def citations(metas: Sequence[BenchmarkMetadata]) -> str:
    """BibTeX of the benchmarks (each entry once) followed by comperbench's own entry."""
    entries: list[str] = []
    for meta in metas:
        for entry in re.split(r"\n(?=@)", meta.citation.strip()):
            if entry.strip() and entry.strip() not in entries:
                entries.append(entry.strip())
    return "\n\n".join([*entries, comperbench_bibtex()]) + "\n"
