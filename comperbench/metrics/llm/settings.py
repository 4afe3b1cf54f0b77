"""Settings of an LLM judge, parsed from the text in brackets of its name, comma-separated.

`cpdscore-simple` (local SmolLM2-135M), `cpdscore-simple[path/to/model]`,
`cpdscore-simple[http:gpt-4o,n=5]`, `geval[coherence]`, `geval[coherence,http:qwen,seed=1]`.

What changes a score: the backend and model, `n=` calls averaged per item, `t=` (or
`temperature=`), `seed=`, `prompt=` (the version of the judge's prompt; only the version this
comperbench has is accepted), `retries=` of unparsable output and failed requests, and
`structured=` (constrain decoding to the answer's format; on by default). How the server is
reached: `url=`, `timeout=` seconds per try of a request, `total_timeout=` seconds for a request
and its retries, `concurrency=` requests in flight, `key_file=`
(a file holding the API key; else COMPERBENCH_LLM_API_KEY; the key itself is never in a name,
a signature or a message), `max_failures=` failed requests in a row that stop the run (0: never)
and `deadline=` seconds for all the requests of a run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from comperbench.common.errors import MetricOptionError
from comperbench.metrics import models

_BOOLEANS = {"true": True, "on": True, "yes": True, "1": True}
_BOOLEANS |= {"false": False, "off": False, "no": False, "0": False}


def _boolean(text: str) -> bool:
    value = _BOOLEANS.get(text.lower())
    if value is None:
        raise MetricOptionError(f"expected true or false, got {text!r}")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {text!r}")
    return value


_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "n": ("n", int),
    "t": ("temperature", _finite),
    "temperature": ("temperature", _finite),
    "seed": ("seed", int),
    "prompt": ("prompt", int),
    "retries": ("retries", int),
    "structured": ("structured", _boolean),
    "url": ("url", str),
    "timeout": ("timeout", _finite),
    "total_timeout": ("total_timeout", _finite),
    "concurrency": ("concurrency", int),
    "key_file": ("key_file", str),
    "max_failures": ("max_failures", int),
    "deadline": ("deadline", _finite),
}

CLI_OPTIONS = {
    "judge_model": "the judge's model: http:<model>, local:<model> or a local path",
    "judge_url": "base URL of the OpenAI-compatible server (else $COMPERBENCH_LLM_BASE_URL)",
    "judge_timeout": "seconds per request to the server (default 60)",
    "judge_concurrency": "requests in flight at once (default 4)",
    "judge_retries": "retries of a failed request or an unusable answer (default 2)",
    "judge_key_file": "file holding the API key (else $COMPERBENCH_LLM_API_KEY)",
}
"""`evaluate` options that set every judge's settings unless its brackets say otherwise."""


@dataclass(frozen=True)
class JudgeSettings:
    """Backend, sampling and connection settings of a judge."""

    backend: str = f"local:{models.DEFAULT_CAUSAL_LM}"
    n: int = 3
    temperature: float = 0.7
    seed: int = 0
    prompt: int | None = None
    """The prompt version asked for; None: the judge's current one."""
    retries: int = 2
    structured: bool = True
    url: str | None = None
    timeout: float = 60.0
    total_timeout: float = 180.0
    concurrency: int = 4
    key_file: str | None = None
    max_failures: int = 5
    deadline: float | None = None
    aspect: str | None = None

    @classmethod
    def parse(
        cls,
        arg: str | None,
        *,
        n: int = 3,
        temperature: float = 0.7,
        aspect: bool = False,
        defaults: Mapping[str, str] | None = None,
    ) -> JudgeSettings:
        """Settings from `arg`, over `defaults` (`CLI_OPTIONS` keys: the brackets win); with
        `aspect`, the first token in brackets is the aspect (G-Eval)."""
        settings = cls(n=n, temperature=temperature)
        for key, value in (defaults or {}).items():
            if value is not None:
                settings = settings._with(_cli_token(key, str(value)), f"--{key.replace('_', '-')}")
        tokens = [t.strip() for t in (arg or "").split(",") if t.strip()]
        if aspect:
            if not tokens or "=" in tokens[0] or ":" in tokens[0]:
                raise MetricOptionError(
                    "G-Eval needs the aspect first in brackets, e.g. geval[coherence]"
                )
            settings = replace(settings, aspect=tokens.pop(0).lower())
        for token in tokens:
            settings = settings._with(token, arg)
        settings._check(arg)
        return settings

    def _check(self, arg: str | None) -> None:
        where = f"in {arg!r}" if arg else "in the judge options"
        if self.n < 1:
            raise MetricOptionError(f"n must be at least 1 {where}")
        if self.temperature < 0:
            raise MetricOptionError(f"temperature cannot be negative {where}")
        if self.retries < 0 or self.max_failures < 0:
            raise MetricOptionError(f"retries and max_failures cannot be negative {where}")
        if self.deadline is not None and self.deadline <= 0:
            raise MetricOptionError(f"deadline must be a positive number of seconds {where}")
        if self.timeout <= 0 or self.total_timeout <= 0 or self.concurrency < 1:
            raise MetricOptionError(
                f"timeout and total_timeout must be positive and concurrency at least 1 {where}"
            )
        if not self.is_http and (self.url or self.key_file):
            raise MetricOptionError(
                f"url and key_file apply to a server (http:<model>), not to {self.backend} {where}"
            )

    def _with(self, token: str, arg: str | None) -> JudgeSettings:
        """These settings changed by one token: `key=value`, `http:<model>`, `local:<model>` or a
        bare local model."""
        key, sep, value = token.partition("=")
        if sep:
            if key not in _OPTIONS:
                raise MetricOptionError(
                    f"unknown judge option {key!r} in {arg!r}; known: {sorted(_OPTIONS)}"
                )
            field, convert = _OPTIONS[key]
            try:
                return replace(self, **{field: convert(value)})
            except ValueError as error:
                raise MetricOptionError(f"judge option {key!r} in {arg!r}: {error}") from None
        if token.startswith(("http:", "local:")):
            return replace(self, backend=token)
        return replace(self, backend=f"local:{token}")

    @property
    def is_http(self) -> bool:
        return self.backend.startswith("http:")

    def label(self) -> str:
        """The backend as a metric name shows it: `http:<model>` or the local model's label."""
        kind, _, spec = self.backend.partition(":")
        return f"http:{spec}" if kind == "http" else models.model_label(spec)

    def scoring_label(self, prompt_version: int) -> str:
        """Everything that changes a score, as the text in brackets of the judge's name."""
        parts = [
            self.label(),
            f"n={self.n}",
            f"t={self.temperature:g}",
            f"seed={self.seed}",
            f"prompt={prompt_version}",
        ]
        if not self.structured:
            parts.append("structured=false")
        return ",".join(parts)


def _cli_token(key: str, value: str) -> str:
    """The bracket token of an `evaluate --judge-*` option."""
    if key not in CLI_OPTIONS:
        raise MetricOptionError(f"unknown judge option {key!r}; known: {sorted(CLI_OPTIONS)}")
    return value if key == "judge_model" else f"{key.removeprefix('judge_')}={value}"
