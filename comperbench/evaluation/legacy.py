"""The keywords `evaluate`, `plan_evaluation` and `run_plan` took before `Resampling`,
`RunOptions` and the selection on `Benchmark`: each keeps working for one release with a
DeprecationWarning naming its new spelling, and a misspelled keyword is one line that names
the closest parameter."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from comperbench.benchmark import Benchmark, load_benchmark
from comperbench.common.deprecation import unknown_keyword
from comperbench.common.errors import ComperbenchError
from comperbench.evaluation.options import GivenScores
from comperbench.metrics.base import Metric
from comperbench.metrics.runner import resolve_metrics

F = TypeVar("F", bound=Callable[..., Any])

RESAMPLING_KEYS = ("resamples", "seed", "ci", "conventions")
RUN_KEYS = ("cache", "batch_size", "workers", "scheduler")
SELECTION_KEYS = ("split", "data_dir", "exclude_systems", "sample", "sample_seed", "limit")
PLAN_KEYS = (*RESAMPLING_KEYS, *SELECTION_KEYS, "all_systems", "reference_free", "judge_options")
TABLE_KEYS = ("n_resamples", "ci", "seed", "averaging", "apply_protocol")

NEW_SPELLING = {
    **{key: f"resampling=Resampling({key}=...)" for key in RESAMPLING_KEYS},
    **{key: f"run=RunOptions({key}=...)" for key in RUN_KEYS},
    "split": "load_benchmark(name, split=...)",
    "data_dir": "load_benchmark(name, data_dir=...) and run=RunOptions(data_dir=...)",
    "exclude_systems": "benchmark.without_systems([...])",
    "sample": "benchmark.sample(n, seed)",
    "sample_seed": "benchmark.sample(n, seed)",
    "limit": "benchmark.head(n)",
    "all_systems": "protocol=False",
    "reference_free": "scores=GivenScores(scores, reference_free=True)",
    "n_resamples": "resampling=Resampling(resamples=...)",
    "averaging": "resampling=Resampling(conventions=...), conventions with that averaging",
    "apply_protocol": "protocol=...",
    "judge_options": "metrics built with them (comperbench.metrics.runner.resolve_metrics("
    "names, level, judge_options)) or the options in each judge's brackets",
}
"""Each old keyword -> how it is spelled now."""


def old_keywords(
    name: str, kwargs: dict[str, Any], known: list[str], takes: tuple[str, ...]
) -> dict[str, Any]:
    """Take the old keywords out of `kwargs`, each with its warning; refuse a keyword that is
    neither a parameter nor an old one `name` takes."""
    for key in kwargs:
        if key not in known and key not in takes:
            raise unknown_keyword(name, key, known)
    old = {key: kwargs.pop(key) for key in list(kwargs) if key not in known}
    for key in old:  # the warning points at the caller of `name`, as `deprecated`'s do
        warnings.warn(
            f"{name}({key}=...) is deprecated; use {NEW_SPELLING[key]} (it will be removed in "
            "the next release)",
            DeprecationWarning,
            stacklevel=3,
        )
    return old


def plan_keywords(values: dict[str, Any], old: Mapping[str, Any]) -> dict[str, str]:
    """Apply the old keywords of the plan to the new ones in `values` (the bound arguments, an
    old keyword winning over its new spelling); return the judge options to record."""
    changes = {key: old[key] for key in RESAMPLING_KEYS if key in old}
    if changes:
        values["resampling"] = replace(values["resampling"], **changes)
    if "all_systems" in old:
        values["protocol"] = not old["all_systems"]
    if old.get("reference_free") and values["scores"] is not None:
        values["scores"] = GivenScores(values["scores"], reference_free=True)
    values["benchmark"] = _selected(values["benchmark"], values["level"], old)
    options = dict(old.get("judge_options") or {})
    if options and values["scores"] is None:
        level = values["level"] or values["benchmark"].level
        values["metrics"] = _with_options(values["metrics"], level, options)
    return options


def run_keywords(values: dict[str, Any], old: Mapping[str, Any]) -> None:
    """Apply the old run keywords (and `data_dir`) to `values["run"]`."""
    changes = {key: old[key] for key in (*RUN_KEYS, "data_dir") if key in old}
    if changes:
        values["run"] = replace(values["run"], **changes)


def table_keywords(values: dict[str, Any], old: Mapping[str, Any]) -> None:
    """Apply `evaluate_run`'s old keywords to `values` (`ci=None`: no resamples)."""
    resampling = values["resampling"]
    changes: dict[str, Any] = {}
    if "n_resamples" in old:
        changes["resamples"] = old["n_resamples"]
    if "seed" in old:
        changes["seed"] = old["seed"]
    if "ci" in old:
        changes |= {"resamples": 0} if old["ci"] is None else {"ci": old["ci"]}
    if old.get("averaging") is not None:
        changes["conventions"] = replace(resampling.conventions, averaging=old["averaging"])
    values["resampling"] = replace(resampling, **changes)
    if "apply_protocol" in old:
        values["protocol"] = old["apply_protocol"]


def _selected(benchmark: str | Benchmark, level: str | None, old: Mapping[str, Any]) -> Benchmark:
    """The benchmark with the old selection keywords applied."""
    exclude = old.get("exclude_systems") or ()
    if isinstance(benchmark, Benchmark):
        if old.get("split") is not None or old.get("data_dir") is not None:
            raise ComperbenchError("split and data_dir apply to a benchmark given by name")
        bench = benchmark.without_systems(exclude)
    else:
        stored = None if level == "system" else level
        bench = load_benchmark(
            benchmark,
            stored,
            old.get("split"),
            data_dir=old.get("data_dir"),
            exclude_systems=exclude,
        )
    sample, limit = old.get("sample"), old.get("limit")
    if sample is not None and limit is not None:
        raise ComperbenchError("give at most one of sample and limit")
    if sample is not None:
        return bench.sample(sample, old.get("sample_seed", 0))
    return bench.head(limit) if limit is not None else bench


def _with_options(metrics: Any, level: str, options: dict[str, str]) -> list[Metric]:
    """The metrics named in `metrics` built with the judge options."""
    if metrics is None or isinstance(metrics, str):
        return resolve_metrics(metrics or "default", level, options)
    return [
        m if isinstance(m, Metric) else resolve_metrics([m], level, options)[0] for m in metrics
    ]


def accepting_old_keywords(takes: tuple[str, ...], finish: Callable[..., Any]) -> Callable[[F], F]:
    """Decorate a function so that it takes the old keywords `takes` too: without them it is
    called as is; with them `finish(values, old)` is called with its bound arguments."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        known = list(signature.parameters)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            old = old_keywords(function.__name__, kwargs, known, takes)
            if not old:
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return finish(dict(bound.arguments), old)

        return wrapper  # type: ignore[return-value]

    return decorate
