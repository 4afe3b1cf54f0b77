"""The "Every metric" page, generated at build time from the registry: one row per registered
metric from what it states about itself (`comperbench.metrics.info(name)`, a `MetricInfo`).
A package without `info` gets the names only, and the page says what is missing."""

from __future__ import annotations

import mkdocs_gen_files

import comperbench.metrics

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
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row(name)) + " |" for name in names]
    return "\n".join(lines) + "\n"


def names_only(names: list[str]) -> str:
    return (
        "!!! warning \"No metric facts in this version\"\n"
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
