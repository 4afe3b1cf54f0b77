"""What a benchmark adds to the evaluation of the judges that explain their scores.

A benchmark's loader registers its `BenchmarkHooks` under the benchmark's name
(`register_hooks`); the evaluation asks `hooks_of(name)` and never names a benchmark itself. A
hook gives data and wording only (the evaluation computes with it), so a loader never imports
the metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from comperbench.common.registry import Registry


class ReferenceExplanation(Protocol):
    """An explanation a benchmark holds for one item: its overall comment and its issues as
    (issue type, comment)."""

    @property
    def overall_comment(self) -> str | None: ...
    @property
    def issues(self) -> tuple[tuple[str, str], ...]: ...


@dataclass(frozen=True)
class BenchmarkHooks:
    """A benchmark's additions to the issue report of each judge that lists issues.

    Args:
        label_source: who gave the benchmark's `issue_*` labels, from the annotators of those
            ratings; None keeps the generic wording.
        explained_by: who wrote the benchmark's reference explanations (e.g. "GPT-4").
        reference_explanations: the reference explanation of every item by item id, read from
            a data root (None: the default one); raises `DataMissingError` when the files are
            missing. None: the benchmark has none, and no explanation agreement is computed.
    """

    label_source: Callable[[Sequence[str]], str | None] | None = None
    explained_by: str = "the benchmark"
    reference_explanations: Callable[[Path | None], Mapping[str, ReferenceExplanation]] | None = (
        None
    )


HOOKS: Registry[BenchmarkHooks] = Registry("benchmark hooks")
"""The hooks of each benchmark that has some, by benchmark name."""

NO_HOOKS = BenchmarkHooks()


def register_hooks(benchmark: str, hooks: BenchmarkHooks) -> BenchmarkHooks:
    """Register `hooks` for the benchmark called `benchmark` (once per name).

    Args:
        benchmark: the benchmark's registered name.
        hooks: what it adds to an evaluation.

    Returns:
        The hooks, registered.
    """
    return HOOKS.add(benchmark, hooks)


def hooks_of(benchmark: str) -> BenchmarkHooks:
    """The hooks registered for `benchmark`, or hooks that add nothing.

    Args:
        benchmark: a benchmark's name.

    Returns:
        Its `BenchmarkHooks` (`NO_HOOKS` when its loader registered none).
    """
    return HOOKS.get(benchmark) if benchmark in HOOKS else NO_HOOKS
