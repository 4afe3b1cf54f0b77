"""The Dataset tab's view of one benchmark item as escaped HTML: the dialogue as turns
(speaker: text), the rated response, its references and grounding, and the human ratings;
items can be narrowed to one system."""

from __future__ import annotations

import html
from collections import defaultdict
from functools import lru_cache
from typing import Any

import numpy as np

from comperbench.common.errors import ComperbenchError
from comperbench.leaderboard.items import cached_benchmark

ALL_SYSTEMS = "all systems"


@lru_cache(maxsize=8)
def _systems(benchmark: str, level: str) -> np.ndarray:
    return np.asarray(cached_benchmark(benchmark, level).table.column("system").to_pylist())


def system_choices(benchmark: str, level: str) -> list[str]:
    """`ALL_SYSTEMS`, then the systems of a benchmark level (none if it cannot be loaded)."""
    try:
        return [ALL_SYSTEMS, *sorted(set(_systems(benchmark, level)))]
    except ComperbenchError:
        return [ALL_SYSTEMS]


def _turns(turns: list[dict[str, str]], response: dict[str, str] | None) -> str:
    items = [
        f"<li><strong>{html.escape(t['speaker'])}:</strong> {html.escape(t['text'])}</li>"
        for t in turns
    ]
    if response:
        items.append(
            f'<li class="response"><strong>{html.escape(response["speaker"])} (rated '
            f"response):</strong> {html.escape(response['text'])}</li>"
        )
    return f'<ol class="turns">{"".join(items)}</ol>'


def _texts(title: str, texts: list[str]) -> str:
    if not texts:
        return ""
    lines = "".join(f"<li>{html.escape(t)}</li>" for t in texts)
    return f"<details><summary>{title} ({len(texts)})</summary><ul>{lines}</ul></details>"


def _ratings(scores: dict[str, float | None], ratings: list[dict[str, Any]]) -> str:
    """One row per aspect: the mean human score and each rating (with its annotator if known)."""
    given: dict[str, list[str]] = defaultdict(list)
    for r in ratings:
        who = f"{r['annotator']}: " if r.get("annotator") else ""
        given[r["aspect"]].append(f"{who}{'-' if r['value'] is None else format(r['value'], 'g')}")
    rows = "".join(
        f"<tr><td>{html.escape(aspect)}</td>"
        f"<td>{'' if mean is None else f'{mean:.3g}'}</td>"
        f"<td>{html.escape(', '.join(given.get(aspect, [])))}</td></tr>"
        for aspect, mean in scores.items()
    )
    return (
        '<table class="ratings"><thead><tr><th scope="col">aspect</th><th scope="col">mean'
        f'</th><th scope="col">ratings</th></tr></thead><tbody>{rows}</tbody></table>'
    )


def item_html(row: dict[str, Any]) -> str:
    """One item (a row of a benchmark table) as escaped HTML."""
    if "turns" in row:
        dialogue = _turns(row["turns"], None)
    else:
        dialogue = _turns(row["context"], {"speaker": row["system"], "text": row["response"]})
    return (
        f"<p><strong>{html.escape(row['item_id'])}</strong>, system "
        f"<strong>{html.escape(row['system'])}</strong></p>{dialogue}"
        + _texts("references", row.get("references") or [])
        + _texts("grounding", row.get("grounding") or [])
        + _ratings(row["scores"], row["ratings"])
    )


def item_view(benchmark: str, level: str, system: str, position: float) -> tuple[str, str]:
    """Item `position` (0-based, clamped) of a benchmark level, among those of `system` (all
    items for `ALL_SYSTEMS` or a system the level does not have), and a counter."""
    try:
        bench = cached_benchmark(benchmark, level)
        systems = _systems(benchmark, level)
    except ComperbenchError as exc:
        return "", f"cannot load {benchmark}: {html.escape(str(exc))}"
    chosen = np.flatnonzero(systems == system)
    if not len(chosen):
        chosen, system = np.arange(len(bench)), ALL_SYSTEMS
    k = int(min(max(position or 0, 0), len(chosen) - 1))
    row = bench.table.slice(int(chosen[k]), 1).to_pylist()[0]
    return item_html(row), f"item {k + 1} of {len(chosen)} ({system})"
