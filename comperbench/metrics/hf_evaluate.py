"""Deprecated: HF evaluate modules are built by `comperbench.metrics.hf_modules` now.

`comperbench.metrics.hf_evaluate.load` keeps working for one release, with a DeprecationWarning.
"""

from __future__ import annotations

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(__name__, {"load": "comperbench.metrics.hf_modules"})
