"""A short string that states how a number was computed, in the way sacrebleu signs its scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Signature:
    """Statistic, level, resampling, number of resamples, seed, p-value method, benchmark, and
    the package version (the running one unless given)."""

    statistic: str
    level: str | None = None
    resampling: str | None = None
    n_resamples: int | None = None
    seed: int | None = None
    benchmark: str | None = None
    """`name@fingerprint` of the benchmark the number was computed on."""
    extra: tuple[tuple[str, str], ...] = ()
    p_method: str | None = field(default=None, kw_only=True)
    """How the p-value was computed, when the number has one."""
    version: str | None = field(default=None, kw_only=True)

    def __str__(self) -> str:
        from comperbench.common.version import __version__

        parts = [("stat", self.statistic)]
        if self.level is not None:
            parts.append(("level", self.level))
        if self.resampling is not None:
            parts.append(("resample", self.resampling))
        if self.n_resamples is not None:
            parts.append(("n", str(self.n_resamples)))
        if self.seed is not None:
            parts.append(("seed", str(self.seed)))
        if self.p_method is not None:
            parts.append(("p", self.p_method))
        parts.extend(self.extra)
        if self.benchmark is not None:
            parts.append(("bench", self.benchmark))
        parts.append(("version", self.version or __version__))
        return "|".join(f"{key}:{value}" for key, value in parts)


def benchmark_tag(name: str | None, fingerprint: str | None) -> str | None:
    """A benchmark's tag in signatures.

    Args:
        name: the benchmark's name, or None.
        fingerprint: its data's fingerprint, or None.

    Returns:
        `name@fingerprint`, or whichever of the two is known (None if neither).
    """
    if name and fingerprint:
        return f"{name}@{fingerprint}"
    return name or fingerprint


class Tagged(Protocol):
    """A benchmark as a signature names it (`comperbench.Benchmark`)."""

    @property
    def tag(self) -> str: ...


def signed_benchmark(benchmark: str | Tagged | None) -> str | None:
    """The benchmark part of a signature: a Benchmark's `tag` (`name@fingerprint`, plus the
    systems and items it leaves out), or the text given."""
    if benchmark is None or isinstance(benchmark, str):
        return benchmark
    return benchmark.tag
