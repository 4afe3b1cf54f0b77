"""comperbench: human-judgment benchmarks, metrics and meta-evaluation for open-domain dialogue."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("comperbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"

from comperbench.benchmark import Benchmark, get_metadata, list_benchmarks, load_benchmark

__all__ = ["Benchmark", "__version__", "get_metadata", "list_benchmarks", "load_benchmark"]
