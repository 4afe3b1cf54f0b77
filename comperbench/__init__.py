"""comperbench: human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from comperbench.common.version import __version__

if TYPE_CHECKING:
    from comperbench.benchmark import Benchmark, get_metadata, list_benchmarks, load_benchmark
    from comperbench.evaluation import Evaluation, RunOptions, evaluate
    from comperbench.stats.settings import Resampling

__all__ = [
    "Benchmark",
    "Evaluation",
    "Resampling",
    "RunOptions",
    "__version__",
    "evaluate",
    "get_metadata",
    "list_benchmarks",
    "load_benchmark",
]

_HOMES = {
    "Benchmark": "comperbench.benchmark",
    "get_metadata": "comperbench.benchmark",
    "list_benchmarks": "comperbench.benchmark",
    "load_benchmark": "comperbench.benchmark",
    "evaluate": "comperbench.evaluation.api",
    "Evaluation": "comperbench.evaluation.result",
    "RunOptions": "comperbench.evaluation.options",
    "Resampling": "comperbench.stats.settings",
}
"""Each public name -> its module, imported on first use: the benchmarks need numpy and pyarrow,
`evaluate` the metrics, and a command that needs neither (`comperbench --version`) loads none."""


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'comperbench' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)


def __dir__() -> list[str]:
    """The public names only (not the helpers of this module)."""
    return list(__all__)
