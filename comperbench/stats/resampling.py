"""Seeded resampling with one index matrix for all resamples, and bootstrap intervals.

A resample is stored as a row of an index matrix (which units were drawn) and, for the
vectorised statistics, as a row of a count matrix (how often each unit was drawn): a statistic
weighted by the counts equals the statistic of the gathered resample. Over many units the
matrices are drawn and scored in chunks of rows (`*_chunks`, `over_chunks`), one generator
drawing chunk after chunk, so that memory grows with the units, not units x resamples, and the
resamples are those of the whole matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Literal

import numpy as np

from comperbench.stats.vectorised import below_resolution, centred

CIMethod = Literal["percentile", "bca"]
CHUNK_BYTES = 128 * 2**20
"""Memory of one chunk of a resample matrix held as floats (8 bytes per unit and resample)."""
COUNT_BLOCK = 2**16
"""Indices counted by one `np.bincount` call in `counts_from_indices`: its counts stay in cache."""
JACKKNIFE_BLOCKS = 1000
"""Above this many units the BCa acceleration uses a delete-one-block jackknife of this many blocks."""
MIN_BOOTSTRAP_UNITS = 10
"""Fewer resampled units than this make a bootstrap interval of a correlation uninformative.

A resample of n units holds at most 3 distinct units with probability 0.91 (n = 4), 0.58 (5),
0.25 (6), 0.08 (7), 0.02 (8), 0.004 (9) and below 0.001 from n = 10 on. On 3 or fewer distinct
points a correlation is +-1, undefined or one of a few coarse values, so below 10 units such
resamples set the 2.5% tails: intervals of 4-6 systems come out as [-1, 1] whatever the data.
"""


def bootstrap_note(n_units: int, unit: str) -> str | None:
    """Why a bootstrap interval over `n_units` resampled units is not informative.

    Args:
        n_units: the number of resampled units.
        unit: what they are, e.g. "systems".

    Returns:
        The note, or None when they are enough.
    """
    if n_units >= MIN_BOOTSTRAP_UNITS:
        return None
    return (
        f"only {n_units} {unit} resampled: a bootstrap interval over fewer than "
        f"{MIN_BOOTSTRAP_UNITS} is not informative"
    )


def require_resamples(n_resamples: int, what: str) -> None:
    """Raise ValueError, naming `what` needs them, unless `n_resamples` is at least 1."""
    if n_resamples < 1:
        raise ValueError(
            f"{what} needs at least one bootstrap resample (n_resamples={n_resamples})"
        )


def chunk_rows(n_units: int, chunk_bytes: int | None = None) -> int:
    """Rows of a resample matrix over n_units per chunk of `chunk_bytes` (default
    `CHUNK_BYTES`), at least one."""
    return max(1, (chunk_bytes or CHUNK_BYTES) // (8 * max(n_units, 1)))


def _draw_indices(rng: np.random.Generator, n_units: int, rows: int) -> np.ndarray:
    if n_units < 1:
        raise ValueError("cannot resample an empty sample")
    return rng.integers(0, n_units, size=(rows, n_units), dtype=np.int32)


def bootstrap_indices(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_units) matrix of unit indices drawn with replacement."""
    return _draw_indices(np.random.default_rng(seed), n_units, n_resamples)


def counts_from_indices(indices: np.ndarray, n_units: int) -> np.ndarray:
    """(n_resamples, n_units) float matrix: how often each unit occurs in each row of `indices`."""
    k = indices.shape[0]
    counts = np.empty((k, n_units))
    step = max(1, COUNT_BLOCK // max(n_units, 1))
    for start in range(0, k, step):  # one bincount per block of rows that fits in cache (speed)
        rows = indices[start : start + step]
        flat = (rows + n_units * np.arange(rows.shape[0], dtype=np.int64)[:, None]).ravel()
        block = np.bincount(flat, minlength=rows.shape[0] * n_units)
        counts[start : start + rows.shape[0]] = block.reshape(rows.shape[0], n_units)
    return counts


def bootstrap_count_chunks(
    n_units: int, n_resamples: int, seed: int, chunk_bytes: int | None = None
) -> Iterator[np.ndarray]:
    """The rows of `counts_from_indices(bootstrap_indices(n_units, n_resamples, seed))` in
    consecutive chunks: one generator draws them chunk after chunk, the same numbers."""
    rng = np.random.default_rng(seed)
    step = chunk_rows(n_units, chunk_bytes)
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        yield counts_from_indices(_draw_indices(rng, n_units, rows), n_units)


def compact_counts(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """Every row of `bootstrap_count_chunks(n_units, n_resamples, seed)` in one matrix of
    the smallest unsigned integer type that holds every count (uint8 but for a unit drawn over
    255 times), to be kept and read again by `count_chunks_of`: an eighth of the float matrix."""
    wide = np.min_scalar_type(n_units)  # no count exceeds n_units
    chunks = [c.astype(wide) for c in bootstrap_count_chunks(n_units, n_resamples, seed)]
    counts = np.vstack([np.empty((0, n_units), dtype=wide), *chunks])
    return counts.astype(np.min_scalar_type(counts.max(initial=0)))


def count_chunks_of(counts: np.ndarray, chunk_bytes: int | None = None) -> Iterator[np.ndarray]:
    """The float rows of a `compact_counts` matrix in the chunks `bootstrap_count_chunks` gives
    for the same `chunk_bytes` (the same numbers, cut at the same rows)."""
    step = chunk_rows(counts.shape[1], chunk_bytes)
    for start in range(0, len(counts), step):
        yield counts[start : start + step].astype(float)


def exact_swaps(n_items: int, n_resamples: int) -> bool:
    """Whether all 2^n_items swap patterns are no more than the permutations asked for: a
    paired permutation test then enumerates them instead of drawing (its p-value is b / k,
    the observed pattern counted among them)."""
    return n_items < 63 and 2**n_items <= n_resamples


def all_swaps(n_items: int) -> np.ndarray:
    """(2^n_items, n_items) every swap pattern, the first swapping nothing."""
    codes = np.arange(2**n_items, dtype=np.int64)[:, None]
    return (codes >> np.arange(n_items, dtype=np.int64)) & 1 == 1


def swap_masks(n_items: int, n_resamples: int, seed: int) -> np.ndarray:
    """(n_resamples, n_items) boolean matrix, True where a paired permutation swaps the item;
    all 2^n_items patterns instead when they are no more (`exact_swaps`)."""
    if exact_swaps(n_items, n_resamples):
        return all_swaps(n_items)
    rng = np.random.default_rng(seed)
    return rng.random((n_resamples, n_items)) < 0.5


KEPT_SWAPS = 32 * 2**20
"""Most items x permutations whose swap masks (a byte each) `kept_swap_masks` keeps."""


@lru_cache(maxsize=2)
def kept_swap_masks(n_items: int, n_resamples: int, seed: int) -> np.ndarray:
    """`swap_masks`, drawn once per process and shared (read-only): a leaderboard server tests
    every new row's pairs with the same swaps."""
    masks = swap_masks(n_items, n_resamples, seed)
    masks.setflags(write=False)
    return masks


def swap_mask_chunks(
    n_items: int, seed: int, start: int, stop: int, chunk_bytes: int | None = None
) -> Iterator[np.ndarray]:
    """Rows start..stop-1 of `swap_masks(n_items, stop, seed)` in consecutive chunks; the
    generator skips the rows before `start` (each uniform double is one 64-bit draw)."""
    rng = np.random.default_rng(seed)
    rng.bit_generator.advance(start * n_items)
    step = chunk_rows(n_items, chunk_bytes)
    for first in range(start, stop, step):
        yield rng.random((min(step, stop - first), n_items)) < 0.5


def swap_row_source(
    n_items: int, n_resamples: int, seed: int, chunk_bytes: int | None = None
) -> Callable[[int, int], Iterator[np.ndarray]]:
    """(start, stop) -> rows start..stop-1 of `swap_masks(n_items, n_resamples, seed)` in
    chunks, as often as asked: cut from the whole matrix when its booleans fit in `chunk_bytes`
    (kept for the process up to KEPT_SWAPS: `kept_swap_masks`), else drawn again each time; all
    2^n_items patterns when they are no more (`exact_swaps`)."""
    if n_items * n_resamples > (chunk_bytes or CHUNK_BYTES) and not exact_swaps(
        n_items, n_resamples
    ):
        return partial(swap_mask_chunks, n_items, seed, chunk_bytes=chunk_bytes)
    kept = n_items * n_resamples <= KEPT_SWAPS
    whole = (kept_swap_masks if kept else swap_masks)(n_items, n_resamples, seed)
    step = chunk_rows(n_items, chunk_bytes)

    def chunks(start: int, stop: int) -> Iterator[np.ndarray]:
        for first in range(start, stop, step):
            yield whole[first : min(first + step, stop)]

    return chunks


def transposed_swaps(
    swaps: Callable[[int, int], Iterator[np.ndarray]], kept_bytes: int | None = None
) -> Callable[[int, int], list[np.ndarray]]:
    """(start, stop) -> the chunks of `swaps(start, stop)` transposed (units x rows, 1 where
    swapped, uint8), as the compiled kernels read them; each asked range is transposed once and
    kept for the next pair of metrics while the kept blocks fit in `kept_bytes` (default
    `CHUNK_BYTES`)."""
    kept: dict[tuple[int, int], list[np.ndarray]] = {}
    budget = kept_bytes or CHUNK_BYTES

    def blocks(start: int, stop: int) -> list[np.ndarray]:
        found = kept.get((start, stop))
        if found is None:
            found = [np.ascontiguousarray(s.T).view(np.uint8) for s in swaps(start, stop)]
            held = sum(block.nbytes for done in kept.values() for block in done)
            if held + sum(block.nbytes for block in found) <= budget:
                kept[start, stop] = found
        return found

    return blocks


def over_chunks(
    chunks: Iterable[np.ndarray], scores: list[Callable[[np.ndarray], np.ndarray]]
) -> list[np.ndarray]:
    """Each score function's values on every chunk of resample rows, joined along the last
    (resample) axis: what it gives on the whole matrix, without the whole matrix."""
    parts: list[list[np.ndarray]] = [[] for _ in scores]
    for chunk in chunks:
        for part, score in zip(parts, scores, strict=True):
            part.append(score(chunk))
    return [np.concatenate(part, axis=-1) for part in parts]


def zscore(values: np.ndarray) -> np.ndarray:
    """Scores standardised over all their entries, as PERM-BOTH does before it swaps two
    metrics' scores; `centred` twice, so that a large common offset leaves no share of itself
    in the z-scores. Zeros where the scores are constant or differ by rounding only
    (`below_resolution`): rounding error blown up to unit spread would pass for a metric."""
    if below_resolution(values.ravel()):
        return np.zeros(values.shape)
    deviations = centred(values.ravel()).reshape(values.shape)
    return deviations / np.sqrt(np.mean(deviations**2))


def jackknife_chunks(
    n_units: int, seed: int, max_blocks: int = JACKKNIFE_BLOCKS, chunk_bytes: int | None = None
) -> Iterator[np.ndarray]:
    """Rows of unit weights leaving out one unit (or one block of units above `max_blocks`),
    in consecutive chunks."""
    if n_units <= max_blocks:
        block, n_rows = np.arange(n_units), n_units
    else:
        block, n_rows = np.random.default_rng(seed).permutation(n_units) % max_blocks, max_blocks
    step = chunk_rows(n_units, chunk_bytes)
    for start in range(0, n_rows, step):
        left_out = np.arange(start, min(start + step, n_rows))
        yield (block[None, :] != left_out[:, None]).astype(float)


def jackknife_weights(n_units: int, seed: int, max_blocks: int = JACKKNIFE_BLOCKS) -> np.ndarray:
    """All rows of `jackknife_chunks` in one matrix."""
    return np.vstack([np.empty((0, n_units)), *jackknife_chunks(n_units, seed, max_blocks)])


def resamples_note(n_valid: int, n_resamples: int) -> str | None:
    """That an interval rests on only `n_valid` of `n_resamples` resamples, or None."""
    if n_valid >= n_resamples:
        return None
    return (
        f"interval over {n_valid:,} of {n_resamples:,} resamples (the statistic is undefined "
        "on the others)"
    )


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    method: str
    confidence: float
    n_valid: int
    """Resamples whose statistic was defined (not NaN): those the interval is made of."""
    n_resamples: int
    """Resamples drawn."""

    @property
    def note(self) -> str | None:
        """Says how many resamples the interval rests on when some were undefined."""
        return resamples_note(self.n_valid, self.n_resamples)


def percentile_interval(boot: np.ndarray, confidence: float = 0.95) -> Interval:
    """The (1-c)/2 and (1+c)/2 quantiles of the defined bootstrap values."""
    valid = boot[np.isfinite(boot)]
    if valid.size == 0:
        return Interval(np.nan, np.nan, "percentile", confidence, 0, boot.size)
    tail = (1 - confidence) / 2
    low, high = np.quantile(valid, [tail, 1 - tail])
    return Interval(float(low), float(high), "percentile", confidence, valid.size, boot.size)


def bca_interval(
    estimate: float, boot: np.ndarray, jackknife: np.ndarray, confidence: float = 0.95
) -> Interval:
    """Bias-corrected and accelerated interval (Efron 1987) from bootstrap and jackknife values."""
    from scipy import stats as sps  # on first use: a percentile interval need not import it

    valid = boot[np.isfinite(boot)]
    jack = jackknife[np.isfinite(jackknife)]
    if valid.size == 0 or not np.isfinite(estimate) or jack.size < 2:
        return Interval(np.nan, np.nan, "bca", confidence, valid.size, boot.size)
    below = (
        np.count_nonzero(valid < estimate) + 0.5 * np.count_nonzero(valid == estimate)
    ) / valid.size
    z0 = sps.norm.ppf(below)
    dev = jack.mean() - jack
    denom = 6.0 * np.sum(dev**2) ** 1.5
    accel = float(np.sum(dev**3) / denom) if denom > 0 else 0.0
    tail = (1 - confidence) / 2
    z = sps.norm.ppf([tail, 1 - tail])
    levels = sps.norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
    if not np.all(np.isfinite(levels)):
        return Interval(np.nan, np.nan, "bca", confidence, valid.size, boot.size)
    low, high = np.quantile(valid, levels)
    return Interval(float(low), float(high), "bca", confidence, valid.size, boot.size)
