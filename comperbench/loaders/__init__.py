"""One module per source benchmark; importing this package registers every loader."""

from __future__ import annotations

import importlib
import pkgutil

from comperbench.loaders.base import BENCHMARKS, BenchmarkLoader

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_") and _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["BENCHMARKS", "BenchmarkLoader"]
