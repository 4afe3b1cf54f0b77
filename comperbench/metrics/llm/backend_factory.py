"""The backend of a judge's backend setting, built once per process: `local:<model>` (a local
transformers model, `backends.local_model`) or `http:<model>` (an OpenAI-compatible server,
`backends.http_endpoint`)."""

from __future__ import annotations

from typing import Any

from comperbench.metrics import models
from comperbench.metrics.llm.backends.chat_requests import BackendError
from comperbench.metrics.llm.backends.http_endpoint import HttpBackend
from comperbench.metrics.llm.backends.local_model import LocalBackend
from comperbench.metrics.llm.backends.protocol import Backend
from comperbench.metrics.llm.settings import JudgeSettings

_BACKENDS: dict[tuple[Any, ...], Backend] = {}


def make_backend(settings: JudgeSettings) -> Backend:
    """The backend of a judge's settings, built once per process: `local:<model>` or
    `http:<model>` (URL, key, timeout and concurrency from the settings, else the environment)."""
    kind, _, name = settings.backend.partition(":")
    key = (settings.backend, settings.url, settings.key_file, settings.timeout)
    key += (settings.total_timeout, settings.concurrency, settings.retries)
    if key not in _BACKENDS:
        if kind == "http":
            _BACKENDS[key] = HttpBackend(
                base_url=settings.url,
                model=name or None,
                key_file=settings.key_file,
                timeout_s=settings.timeout,
                total_timeout_s=settings.total_timeout,
                retries=settings.retries,
                concurrency=settings.concurrency,
            )
        elif kind == "local":
            _BACKENDS[key] = LocalBackend(name or models.DEFAULT_CAUSAL_LM)
        else:
            raise BackendError(
                f"unknown backend {settings.backend!r}: use local:<model> or http:<model>"
            )
    return _BACKENDS[key]


def backend_identity(settings: JudgeSettings) -> dict[str, Any]:
    """What a backend of these settings records as having produced its outputs, without building
    it (no model is loaded): the key of its outputs in the raw store."""
    kind, _, name = settings.backend.partition(":")
    if kind == "local":
        return {"backend": "local", "model": name or models.DEFAULT_CAUSAL_LM}
    return make_backend(settings).identity()
