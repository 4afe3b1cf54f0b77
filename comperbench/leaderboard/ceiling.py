"""The human ceiling of a ranking: how well one annotator agrees with the others, for the pages
to show beside the ranked metrics (a reference, never a ranked row).

It is computed from the benchmark's individual ratings (`stats.annotator_agreement.ceiling`) on
the items a reference-free row is correlated on (`items.scored_items`: people are compared
with people, not with references), as `comperbench evaluate` computes it, with the shared
statistical setting, and kept in memory and on disk beside the leaderboard's item arrays: keyed
by the benchmark's fingerprint, the view, the statistic, the setting and the statistics' code,
its file written with its sha256, so that a file altered since is computed again, not served.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from comperbench import data
from comperbench.leaderboard.items import (
    LevelItems,
    cached_benchmark,
    items_path,
    scored_items,
    source_level,
)
from comperbench.leaderboard.scoring import CONFIDENCE, N_RESAMPLES, SEED, scored_at, stats_code
from comperbench.stats.annotator_agreement.ceiling import (
    CITATION,
    LABEL,
    METHOD,
    AnnotatorScores,
    CeilingResult,
    CeilingUnavailable,
    NoRatings,
    annotator_ceiling,
)
from comperbench.stats.metric_correlation.statistics import get_statistic
from comperbench.stats.settings import Resampling

CEILING_VERSION = 1
"""Version of how a kept ceiling is computed: raised when a change alters kept values."""

GLOSSARY = (
    f"**{LABEL}** (the human ceiling): each annotator's correlation with the mean of the other "
    "annotators' scores on the same items (at system level: their system means against the "
    "others'), averaged over the annotators, with the ranking's statistic and on its items; "
    f"the inter-annotator agreement of FED and USR, {CITATION}. A metric that reaches it agrees "
    "with the people's mean about as well as one annotator agrees with the others. A reference "
    "line, not a ranked row."
)
"""The ceiling explained, for the pages that show it."""


@dataclass(frozen=True)
class Ceiling:
    """The human ceiling of one benchmark, level, aspect and statistic, as the pages show it."""

    benchmark: str
    level: str
    aspect: str
    statistic: str
    value: float
    ci_low: float
    ci_high: float
    n: int
    """Items (or systems) rated by two annotators or more among those the ranking is on."""
    annotators: int
    note: str | None
    """Why the value or its interval is missing or weak, and what it rests on."""
    method: str = METHOD
    label: str = LABEL


@lru_cache(maxsize=256)
def human_ceiling(benchmark: str, level: str, aspect: str, statistic: str) -> Ceiling | None:
    """The human ceiling of the ranking of `benchmark` at `level` ("system": over the system
    means of the first stored level) on `aspect` by `statistic`, on the items the leaderboard
    correlates a reference-free row on; None when the benchmark publishes no individual ratings of it."""
    stat = get_statistic(statistic)
    items = scored_items(benchmark, source_level(benchmark, level), reference_free=True)
    path = _path(items, level, aspect, stat.name)
    kept = _read(path)
    if kept is not None:
        return kept
    found = _compute(items, level, aspect, stat.name)
    if found is not None:
        data.write_verified(path, json.dumps(asdict(found)).encode())
    return found


def _compute(items: LevelItems, level: str, aspect: str, statistic: str) -> Ceiling | None:
    bench = cached_benchmark(items.benchmark, items.level)
    try:
        scores = AnnotatorScores.of_benchmark(bench, aspect, items.positions)
    except NoRatings:
        return None
    except CeilingUnavailable as error:
        return _ceiling(items.benchmark, level, aspect, statistic, None, str(error))
    resampled = scored_at(get_statistic(statistic), level)
    result = annotator_ceiling(
        scores,
        statistic=statistic,
        level=level,
        systems=items.systems,
        resampling=Resampling(N_RESAMPLES if resampled else 0, SEED),
        confidence=CONFIDENCE,
        benchmark=items.tag,
    )
    notes = result.notes()
    if not resampled and result.reason is None:
        notes.append(f"no interval: the leaderboard does not resample {statistic} over items")
    return _ceiling(items.benchmark, level, aspect, statistic, result, "; ".join(notes) or None)


def _ceiling(
    benchmark: str,
    level: str,
    aspect: str,
    statistic: str,
    result: CeilingResult | None,
    note: str | None,
) -> Ceiling:
    if result is None:
        return Ceiling(benchmark, level, aspect, statistic, np.nan, np.nan, np.nan, 0, 0, note)
    low, high = (result.ci.low, result.ci.high) if result.ci else (np.nan, np.nan)
    return Ceiling(
        benchmark,
        level,
        aspect,
        statistic,
        result.value,
        low,
        high,
        result.n,
        result.annotators,
        note,
    )


def _path(items: LevelItems, level: str, aspect: str, statistic: str) -> Path:
    key = repr(
        (
            items.benchmark,
            items.fingerprint,
            level,
            aspect,
            statistic,
            items.excluded_systems,
            items.references_only,
            N_RESAMPLES,
            SEED,
            CONFIDENCE,
            stats_code(),
            CEILING_VERSION,
        )
    )
    folder = items_path(items.benchmark, items.level, items.fingerprint).parent / "ceilings"
    return folder / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"


def _read(path: Path) -> Ceiling | None:
    """The ceiling kept at `path`; None when it is absent, is not the file written (its sha256
    differs from the one beside it) or does not hold a ceiling."""
    payload = data.read_verified(path)
    if payload is None:
        return None
    try:
        return Ceiling(**json.loads(payload))
    except (ValueError, TypeError):
        return None


def ceiling_line(ceiling: Ceiling) -> str:
    """The ceiling in one line, as `leaderboard show` prints it beside the ranked rows."""
    shown = f"{ceiling.value:.3f}" if np.isfinite(ceiling.value) else "undefined"
    if np.isfinite(ceiling.ci_low) and np.isfinite(ceiling.ci_high):
        shown += f" [{ceiling.ci_low:.3f}, {ceiling.ci_high:.3f}]"
    text = f"{ceiling.label}: {shown}, n = {ceiling.n}, {ceiling.annotators} annotators"
    return text + (f" ({ceiling.note})" if ceiling.note else "")
