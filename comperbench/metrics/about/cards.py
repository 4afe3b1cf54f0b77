"""Metric cards and the metric table, rendered from each registered metric's `MetricInfo`.

A card is `metric_cards/NAME.md`, generated whole (no prose of its own): what the metric
measures, what it reads, its direction, library, implementation version, link and BibTeX. The
folder's README.md is the metric table. `comperbench card --metrics --write` writes them and
`--check` (or the tests) finds a card that disagrees with the code.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from comperbench.metrics.about.info import MetricInfo

CARDS_DIR = Path(__file__).resolve().parents[3] / "metric_cards"
FAMILY_NAMES = {
    "ngram": "n-gram",
    "embedding": "embedding",
    "learned": "learned",
    "llm": "LLM judge",
}
"""How a family is written for people."""
GENERATED = (
    "Generated from the metric's `MetricInfo` by `comperbench card --metrics --write`; edit the "
    "registration in code, not this file."
)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _cell(text: str) -> str:
    """Text that cannot break a Markdown table row."""
    return " ".join(text.split()).replace("|", "\\|")


def _example_benchmark(info: MetricInfo) -> str:
    """A benchmark the metric can score: a dialogue-level one for dialogue metrics."""
    return "fed-dialogue" if "dialogue" in info.needs else "usr-topical"


def render_card(info: MetricInfo) -> str:
    """A metric's card as Markdown.

    Args:
        info: the metric's `MetricInfo`.

    Returns:
        The card's text, ending in a newline.
    """
    facts = [
        ("family", FAMILY_NAMES[info.family]),
        ("reads", ", ".join(sorted(info.needs))),
        ("higher is better", _yes(info.higher_is_better)),
        ("library", f"`{info.library}`" if info.library else "comperbench's own code"),
        ("implementation version", str(info.implementation)),
        ("link", f"<{info.link}>"),
    ]
    citation = (
        f"```bibtex\n{info.citation}\n```" if info.citation else "No paper defines this metric."
    )
    return "\n".join(
        [
            f"# {info.name}",
            "",
            info.description,
            "",
            "| fact | value |",
            "|---|---|",
            *(f"| {key} | {_cell(value)} |" for key, value in facts),
            "",
            "## Using it",
            "",
            "```bash",
            f'comperbench evaluate --benchmark {_example_benchmark(info)} --metrics "{info.name}"',
            "```",
            "",
            "```python",
            "from comperbench.metrics import get, info",
            "",
            f'metric = get("{info.name}")',
            f'info("{info.name}").citation',
            "```",
            "",
            "## Citation",
            "",
            citation,
            "",
            f"<!-- {GENERATED} -->",
            "",
        ]
    )


def metric_table_markdown(
    infos: Sequence[MetricInfo] | None = None, links: str | None = None
) -> str:
    """The metric table as Markdown: one row per registered metric, by family then name.

    Args:
        infos: the metrics to list (default: every registered metric).
        links: the path of the cards folder as seen from the page that shows the table
            (`"metric_cards/"`, "" from inside it); each name then links to its card. None
            (the default) for no links.

    Returns:
        The table, ending in a newline.
    """
    if infos is None:
        from comperbench.metrics.registry import available, info

        infos = [info(name) for name in available()]
    rows = []
    for item in _ordered(infos):
        name = f"`{item.name}`" if links is None else f"[`{item.name}`]({links}{item.name}.md)"
        paper = f"[link]({item.link})"
        rows.append(
            f"| {name} | {FAMILY_NAMES[item.family]} | {', '.join(sorted(item.needs))} | "
            f"{_yes(item.higher_is_better)} | {_cell(item.description)} | {paper} |"
        )
    header = "| metric | family | reads | higher is better | what it measures | paper or library |"
    return "\n".join([header, "|---|---|---|---|---|---|", *rows, ""])


def render_index(infos: Sequence[MetricInfo]) -> str:
    """The cards folder's README.md: a heading, the metric table linking each card.

    Args:
        infos: every registered metric's info.

    Returns:
        The README's text.
    """
    intro = (
        "Every registered metric: what it measures, what it reads and the paper that defines "
        "it. `comperbench list metrics` lists the same from the installed package."
    )
    table = metric_table_markdown(infos, links="")
    return "\n".join(["# Metric cards", "", intro, "", table, f"<!-- {GENERATED} -->", ""])


def _ordered(infos: Sequence[MetricInfo]) -> list[MetricInfo]:
    order = list(FAMILY_NAMES)
    return sorted(infos, key=lambda i: (order.index(i.family), i.name))


def expected_files(infos: Sequence[MetricInfo]) -> dict[str, str]:
    """Each file of the cards folder by name, and its text.

    Args:
        infos: every registered metric's info.

    Returns:
        `NAME.md` -> its card, and `README.md` -> the metric table.
    """
    files = {f"{i.name}.md": render_card(i) for i in infos}
    return {**files, "README.md": render_index(infos)}


def check_cards(infos: Sequence[MetricInfo], cards_dir: Path | None = None) -> list[str]:
    """What in the cards folder disagrees with the code: missing, stale or extra files.

    Args:
        infos: every registered metric's info.
        cards_dir: the folder (default: `CARDS_DIR`).

    Returns:
        One line per problem; [] when every card agrees.
    """
    folder = cards_dir or CARDS_DIR
    expected = expected_files(infos)
    problems = []
    for name, text in expected.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{path}: differs from the code")
    present = {p.name for p in folder.glob("*.md")} if folder.is_dir() else set()
    problems += [
        f"{folder / name}: no registered metric" for name in sorted(present - set(expected))
    ]
    return problems


def write_cards(infos: Sequence[MetricInfo], cards_dir: Path | None = None) -> list[Path]:
    """Write every card and the README, and remove cards of metrics no longer registered.

    Args:
        infos: every registered metric's info.
        cards_dir: the folder (default: `CARDS_DIR`).

    Returns:
        The files written.
    """
    folder = cards_dir or CARDS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    expected = expected_files(infos)
    for stale in folder.glob("*.md"):
        if stale.name not in expected:
            stale.unlink()
    written = []
    for name, text in expected.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
