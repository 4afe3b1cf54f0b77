"""What a registered metric says of itself: the facts its card and the metric table are made of."""

from __future__ import annotations

from dataclasses import dataclass

from comperbench.metrics.base import Family, Need


@dataclass(frozen=True)
class MetricInfo:
    """A metric's description, family, needs, citation, link, direction and version.

    Args:
        name: the registry name (`bleu-4`; a bracketed variant shares its base's info).
        description: one or two sentences: what it measures and how.
        family: "ngram", "embedding", "learned" or "llm".
        needs: what of an item it reads (response, references, context, grounding, dialogue).
        citation: the BibTeX entry of the paper that defines it ("" for none).
        link: the paper's or the library's address.
        higher_is_better: whether a higher score means a better response.
        implementation: the version of comperbench's code that computes it.
        library: the library that computes it and the version pinned, when one does ("" if none).
    """

    name: str
    description: str
    family: Family
    needs: frozenset[Need]
    citation: str
    link: str
    higher_is_better: bool = True
    implementation: int = 1
    library: str = ""
