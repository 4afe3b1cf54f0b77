"""One module per source benchmark; importing this package registers every loader."""

from __future__ import annotations

import importlib
import pkgutil

from comperbench.loaders.base import BENCHMARKS, BenchmarkLoader

for _module in pkgutil.walk_packages(__path__, f"{__name__}."):
    _name = _module.name.rsplit(".", 1)[-1]
    if not _module.ispkg and not _name.startswith("_") and _name != "base":
        importlib.import_module(_module.name)

__all__ = ["BENCHMARKS", "BenchmarkLoader"]
