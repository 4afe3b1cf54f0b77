"""The "Every metric" page, generated at build time from the registry: one row per registered
metric from what it states about itself (`comperbench.metrics.info(name)`, a `MetricInfo`).
A package without `info` gets the names only, and a metric whose `info` fails is listed apart with
the reason: the page says what is missing."""

from __future__ import annotations

import mkdocs_gen_files

import comperbench.metrics
from comperbench.common.errors import ComperbenchError

INTRO = """# Every metric

Generated from the metric registry when the site is built
(`comperbench.metrics.available()`); `comperbench.metrics.get(NAME)` builds one, and the text in
brackets of a name picks a model or variant (see [Using metrics](../metrics.md)).

"""
COLUMNS = ("metric", "family", "reads", "higher is better", "what it measures", "library", "link")


def cell(text: str) -> str:
    """Text fit for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def row(name: str) -> list[str]:
    """The cells of one metric from its `MetricInfo`."""
    info = comperbench.metrics.info(name)
    link = f"[link]({info.link})" if info.link else ""
    return [
        f"`{name}`",
        info.family,
        ", ".join(sorted(info.needs)),
        "yes" if info.higher_is_better else "no",
        cell(info.description),
        cell(info.library),
        link,
    ]


def table(names: list[str]) -> str:
    """The table of the metrics that state their facts, then those whose `info` fails."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    missing = []
    for name in names:
        try:
            lines.append("| " + " | ".join(row(name)) + " |")
        except (ComperbenchError, LookupError) as error:
            missing.append(f"- `{name}`: {cell(error)}")
    text = "\n".join(lines) + "\n"
    if missing:
        text += "\n## Metrics without their facts\n\n" + "\n".join(missing) + "\n"
    return text


def names_only(names: list[str]) -> str:
    return (
        '!!! warning "No metric facts in this version"\n'
        "    This comperbench has no `comperbench.metrics.info(name)`, so the page lists the "
        "registered names only; a version with `MetricInfo` gives each metric's family, what it "
        "reads, its direction, description, library and link.\n\n"
        + "\n".join(f"- `{name}`" for name in names)
        + "\n"
    )


names = sorted(comperbench.metrics.available())
body = table(names) if hasattr(comperbench.metrics, "info") else names_only(names)
with mkdocs_gen_files.open("metrics/list.md", "w") as out:
    out.write(INTRO + body)
