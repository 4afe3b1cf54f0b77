"""The backend of a judge's backend setting, built once per process: `local:<model>` (a local
transformers model, `llm_local`) or `http:<model>` (an OpenAI-compatible server, `llm_http`)."""

from __future__ import annotations

from comperbench.metrics import models
from comperbench.metrics.llm_http import HttpBackend
from comperbench.metrics.llm_local import LocalBackend
from comperbench.metrics.llm_requests import Backend, BackendError

_BACKENDS: dict[str, Backend] = {}


def make_backend(spec: str) -> Backend:
    """The backend of `local:<model>` or `http:<model>` (base URL and key from the environment),
    built once per process."""
    if spec not in _BACKENDS:
        kind, _, name = spec.partition(":")
        if kind == "http":
            _BACKENDS[spec] = HttpBackend(model=name or None)
        elif kind == "local":
            _BACKENDS[spec] = LocalBackend(name or models.DEFAULT_CAUSAL_LM)
        else:
            raise BackendError(f"unknown backend {spec!r}: use local:<model> or http:<model>")
    return _BACKENDS[spec]
