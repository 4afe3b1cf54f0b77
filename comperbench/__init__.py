"""comperbench: human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from comperbench.benchmark import Benchmark, get_metadata, list_benchmarks, load_benchmark
from comperbench.common.version import __version__

if TYPE_CHECKING:
    from comperbench.results import Evaluation, evaluate

__all__ = [
    "Benchmark",
    "Evaluation",
    "__version__",
    "evaluate",
    "get_metadata",
    "list_benchmarks",
    "load_benchmark",
]


def __getattr__(name: str) -> Any:
    """`evaluate` and `Evaluation`, imported on first use: they load the metrics."""
    if name in ("evaluate", "Evaluation"):
        from comperbench import results

        return getattr(results, name)
    raise AttributeError(f"module 'comperbench' has no attribute {name!r}")
