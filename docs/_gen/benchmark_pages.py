"""The Benchmarks pages, generated at build time from the dataset cards (dataset_cards/): the
collection card as benchmarks/index.md, each benchmark's card as benchmarks/NAME.md, without the
Hugging Face YAML header and with links between cards pointing at the pages."""

from __future__ import annotations

import re
from pathlib import Path

import mkdocs_gen_files

CARDS = Path(__file__).resolve().parents[2] / "dataset_cards"
_HEADER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_CARD_LINK = re.compile(r"\]\(([a-z0-9-]+)/README\.md(#[^)]*)?\)")
_COLLECTION_LINK = re.compile(r"\]\(\.\./README\.md(#[^)]*)?\)")


def page(card: Path) -> str:
    """A card's Markdown as a page of the site."""
    text = _HEADER.sub("", card.read_text(encoding="utf-8"), count=1)
    text = _CARD_LINK.sub(lambda m: f"]({m[1]}.md{m[2] or ''})", text)
    return _COLLECTION_LINK.sub(lambda m: f"](index.md{m[1] or ''})", text)


with mkdocs_gen_files.open("benchmarks/index.md", "w") as out:
    out.write(page(CARDS / "README.md"))
for card in sorted(CARDS.glob("*/README.md")):
    name = f"benchmarks/{card.parent.name}.md"
    with mkdocs_gen_files.open(name, "w") as out:
        out.write(page(card))
