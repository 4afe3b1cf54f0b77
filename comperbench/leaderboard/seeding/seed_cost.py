"""What seeding the leaderboard costs: CPU time per item of each baseline, measured, and the
estimate of a seed from its item counts.

The costs are CPU seconds per item from an empty score cache, measured on two shared cores
(`python perf/seed.py` prints each benchmark's CPU time beside its estimate). Metrics of one
family share their work (BLEU-1..4 count their n-grams once), so a family's cost is counted once
per benchmark level, whichever of its metrics are seeded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from comperbench.metrics.embeddings.embedding import SHIPPED_NAME

FAMILY_COSTS: dict[tuple[str, ...], tuple[float, float]] = {
    ("bleu-1", "bleu-2", "bleu-3", "bleu-4"): (0.096e-3, 0.026e-3),
    ("chrf", "chrf++"): (0.131e-3, 0.024e-3),
    ("rouge-1", "rouge-2", "rouge-l"): (0.040e-3, 0.022e-3),
    ("meteor",): (0.205e-3, 0.075e-3),
    ("f1",): (0.021e-3, 0.0065e-3),
    ("length",): (0.03e-3, 0.0),
    ("dialogue-distinct-1", "dialogue-distinct-2", "dialogue-length"): (1.0e-3, 0.0),
    ("embedding-average",): (2.0e-3, 0.0),
    ("greedy-matching",): (5.9e-3, 0.0),
    ("vector-extrema",): (1.7e-3, 0.0),
    ("context-cosine",): (8.0e-3, 0.0),
}
"""CPU seconds per item and per reference of each family of metrics. An n-gram metric's time
grows with the references it compares a response with: per item from DailyDialog-Zhao (one
reference per item), per reference from the seed of DSTC7's whole level (35 references per
item: 90 s of CPU in all). The dialogue metrics on 1,000 of DSTC9's dialogues. The encoder
metrics (all-MiniLM-L6-v2) in the ratios measured on 300 of DSTC7's turns, scaled to what
they took between them in a whole `--full` seed: 4.6 minutes of CPU on 15,535 turns."""

ENCODER_METRICS = ("embedding-average", "greedy-matching", "vector-extrema", "context-cosine")
"""The baselines that run the encoder: 18 ms per item between them, about 4.6 minutes of CPU
on the benchmarks' 15,535 turns, where the model-free baselines take about 1 minute (most of it
on DSTC7's 350,000 references) and share the worker processes. They are left out of the
default seed (see `is_cheap`) so that it takes under 5 minutes on two cores."""

ENCODER_LOAD = 15.0
"""CPU seconds to import the encoder's libraries and load its weights, once per seed."""

WORKER_START = 4.0
"""CPU seconds a worker process takes to start (imports, WordNet, the n-gram metrics), once
per worker and seed."""

CORRELATION_PER_LEVEL = 0.3
CORRELATION_PER_ITEM_ASPECT = 0.07e-3
"""CPU seconds to correlate one metric's scores with the human scores of a benchmark level
(intervals, system level, statistics over contexts), fixed and per item and aspect."""


def family_cost(name: str) -> tuple[float, float] | None:
    """The CPU seconds per item and per reference of a metric's family, None when not
    measured."""
    for family, cost in FAMILY_COSTS.items():
        if name in family:
            return cost
    return None


def is_cheap(name: str) -> bool:
    """Whether a baseline is seeded by default: a model-free one with a measured cost."""
    return family_cost(name) is not None and name not in ENCODER_METRICS


def cost_name(metric_name: str) -> str:
    """The name a metric's cost is kept under: its registry name, without the shipped
    encoder's label (another encoder has no measured cost)."""
    return metric_name.removesuffix(f"[{SHIPPED_NAME}]")


@dataclass(frozen=True)
class LevelCost:
    """The estimated CPU seconds of seeding metrics on one benchmark level."""

    names: tuple[str, ...]
    serial: float
    """Scoring the metrics computed in this process (their families counted once)."""
    parallel: float
    """Scoring the metrics computed in worker processes when there are several."""
    correlations: float
    unknown: tuple[str, ...]
    """Metrics without a measured cost (left out of the estimate)."""

    @property
    def total(self) -> float:
        return self.serial + self.parallel + self.correlations

    def seconds(self, workers: int) -> float:
        """The estimated run time with `workers` worker processes."""
        return self.serial + self.parallel / max(1, workers) + self.correlations


def level_cost(
    names: Sequence[str],
    items: int,
    aspects: int,
    references: int = 0,
    parallel: Collection[str] = (),
) -> LevelCost:
    """The estimated CPU seconds of seeding the metrics `names` (`cost_name`s) on a level of
    `items` items with `references` references between them, rated on `aspects` aspects;
    those in `parallel` are scored in workers."""
    in_workers = {f for f in FAMILY_COSTS if any(n in f for n in names if n in parallel)}
    here = {f for f in FAMILY_COSTS if any(n in f for n in names)} - in_workers

    def scoring(families: set[tuple[str, ...]]) -> float:
        costs = [FAMILY_COSTS[f] for f in families]
        return sum(item * items + reference * references for item, reference in costs)

    per_metric = CORRELATION_PER_LEVEL + CORRELATION_PER_ITEM_ASPECT * items * aspects
    return LevelCost(
        tuple(names),
        scoring(here),
        scoring(in_workers),
        per_metric * len(names),
        tuple(n for n in names if family_cost(n) is None),
    )


def uses_encoder(names: Collection[str]) -> bool:
    """Whether any of the metrics loads the encoder."""
    return any(n in ENCODER_METRICS for n in names)
