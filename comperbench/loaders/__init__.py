"""One module per source benchmark, registered in `BENCHMARKS` on its first lookup.

The built-in modules are declared in `comperbench.loaders.base.BENCHMARK_MODULES`; plugins add
theirs under the entry-point group `comperbench.benchmarks`.
"""

from __future__ import annotations

from comperbench.loaders.base import BENCHMARKS, BenchmarkLoader

__all__ = ["BENCHMARKS", "BenchmarkLoader"]
