"""Scoring metrics in other processes: a local pool of spawned processes or a Dask cluster.

The n-gram libraries (sacrebleu, rouge-score, nltk) are pure Python, so one process uses one core.
The runner hands uncached items to an executor in chunks of whole batches, a few per worker, so
that a chunk's fixed cost (a task, its transfer, a progress update) is small beside its scoring.
A chunk travels as one pickled list of its items cut down to the fields its metrics read, each set
of references once; every chunk is scored by all the metrics that want its items, batch by batch
as in one process, so the memos the metrics share (BLEU-1..4 statistics, ROUGE-1/2/L) are reused
as they are there. Reference sets that share texts are neighbours in the order, and a cluster
sends each worker a run of neighbouring chunks, so the workers' word memos (tokens, stems) do not
repeat each other's work. A worker process builds each metric from its name once and keeps it, so
a model metric loads its model, and a library metric its imports, once per worker, not per run.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import replace

from comperbench.common.errors import ComperbenchError
from comperbench.metrics.base import Item, Metric, TurnItem
from comperbench.metrics.registry import get

WORKERS_ENV = "COMPERBENCH_WORKERS"
MIN_PARALLEL_SCORES = 2000
"""Fewer uncached scores than this are computed in-process (a worker takes ~1 s to start)."""
CHUNKS_PER_WORKER = 4
"""Chunks per worker: enough to even out workers of unequal speed (and to lose little of a worker
that dies), few enough that per-chunk costs vanish beside the scoring."""
_LIST_FIELDS = ("context", "references", "grounding")
"""The fields of a turn that hold a list, sent only to metrics that need them."""
LINK_SETS = 64
"""A text in more reference sets than this does not choose which set follows which (it still
makes them one family): choosing then looks at no more than this many sets per text."""
WATCH_EVERY_S = 5.0
"""Seconds between two checks that the executor can still finish the chunks in flight."""

_WORKER_METRICS: dict[str, Metric] = {}
_SCORING = threading.Lock()
"""One chunk at a time per process: a Dask worker may run tasks in threads, and the metrics'
memos are not thread-safe (pure-Python metrics gain nothing from threads; torch uses every core)."""


def default_workers() -> int:
    """$COMPERBENCH_WORKERS, else the number of CPUs."""
    configured = os.environ.get(WORKERS_ENV)
    if not configured:
        return os.cpu_count() or 1
    try:
        return max(1, int(configured))
    except ValueError:
        raise ComperbenchError(
            f"${WORKERS_ENV} is {configured!r}; set it to a whole number of processes"
        ) from None


def process_pool(workers: int) -> ProcessPoolExecutor:
    """`workers` spawned processes (fork would copy the parent's threads and model state)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def by_shared_references(indices: Iterable[int], items: Sequence[Item]) -> list[int]:
    """The item indices ordered so that items with the same references are adjacent: batched
    metrics then prepare or embed each reference set once per batch, not once per item. Sets that
    share a reference text (a family) are adjacent too, and within a family each set is followed
    by the one sharing most of its texts (`_chained`), so a text's uses come close together and
    a small memo (a worker's tokens and stems, an encoder's vectors) reuses it. Families come in
    the order of their first item, and so do ties, so the batches, and an encoder's last bits,
    are the same in every process (a hash would differ)."""
    ordered = sorted(indices)
    first: dict[tuple[str, ...], int] = {}
    for index in ordered:
        first.setdefault(_references(items[index]), index)
    sets = list(first)
    position = {sets[k]: place for place, k in enumerate(_chained(sets))}
    return sorted(ordered, key=lambda i: position[_references(items[i])])


def _chained(sets: Sequence[tuple[str, ...]]) -> list[int]:
    """The sets' positions family by family (`_families`), each set followed by the unplaced
    set sharing the most of its texts (the earliest on a tie) or, when none does, by its
    family's earliest unplaced set (the next family's first once it has none)."""
    holders: dict[str, list[int]] = {}
    for k, references in enumerate(sets):
        for text in set(references):
            holders.setdefault(text, []).append(k)
    family = _families(len(sets), holders)
    queue = iter(sorted(range(len(sets)), key=lambda k: (family[k], k)))
    placed = [False] * len(sets)
    order: list[int] = []
    current: int | None = None
    while len(order) < len(sets):
        if current is None:
            current = next(k for k in queue if not placed[k])
        placed[current] = True
        order.append(current)
        current = _follower(sets[current], holders, placed)
    return order


def _follower(
    references: tuple[str, ...], holders: dict[str, list[int]], placed: list[bool]
) -> int | None:
    """The unplaced set sharing the most of these texts (the earliest on a tie), counting only
    texts of at most LINK_SETS sets, or None."""
    shared = Counter(
        k
        for text in set(references)
        if len(holders[text]) <= LINK_SETS
        for k in holders[text]
        if not placed[k]
    )
    return min(shared, key=lambda k: (-shared[k], k), default=None)


def _families(n_sets: int, holders: dict[str, list[int]]) -> list[int]:
    """Per reference set, the position of the first set of its family: the sets linked to it
    through shared reference texts (`holders`: each text's sets; union-find, every root the
    family's first set)."""
    root = list(range(n_sets))

    def find(k: int) -> int:
        while root[k] != k:
            root[k] = root[root[k]]
            k = root[k]
        return k

    for first, *others in holders.values():
        for k in others:
            a, b = find(k), find(first)
            root[max(a, b)] = min(a, b)
    return [find(k) for k in range(n_sets)]


def _references(item: Item) -> tuple[str, ...]:
    return item.references if isinstance(item, TurnItem) else ()


def rebuild_name(metric: Metric) -> str | None:
    """A name from which `get` rebuilds `metric` in another process (its `name`, else the
    spelling it was built from), or None when neither does."""
    for name in dict.fromkeys((metric.name, metric.spelling)):
        if name is None:
            continue
        try:
            if get(name).name == metric.name:
                return name
        except ComperbenchError:
            continue
    return None


def chunk_size(n_items: int, workers: int, batch_size: int) -> int:
    """Items per chunk: the fewest whole batches that give each of `workers` at most
    `CHUNKS_PER_WORKER` chunks of the `n_items`."""
    per_chunk = -(-n_items // (max(1, workers) * CHUNKS_PER_WORKER))
    return max(1, -(-per_chunk // batch_size)) * batch_size


def pack(items: Sequence[Item], needs: Iterable[str]) -> bytes:
    """The items pickled as one list, each turn cut down to its id, system, response and the
    fields in `needs` (the score cache keys a score by these alone), equal field values pickled
    once (ten dstc7 responses share each set of references)."""
    needs = frozenset(needs)
    shared: dict[tuple, tuple] = {}

    def cut(item: Item) -> Item:
        if not isinstance(item, TurnItem):
            return item
        kept = {f: getattr(item, f) if f in needs else () for f in _LIST_FIELDS}
        return replace(item, **{f: shared.setdefault(v, v) for f, v in kept.items()})

    return pickle.dumps([cut(item) for item in items], protocol=pickle.HIGHEST_PROTOCOL)


def score_chunk(
    names: Sequence[str], packed: bytes, wanted: Sequence[Sequence[int]], batch_size: int
) -> list[list[float]]:
    """In a worker: for each metric, the scores of the chunk's items (`pack`ed) at its wanted
    positions, computed `batch_size` items at a time."""
    items: list[Item] = pickle.loads(packed)
    out = []
    with _SCORING:
        for name, positions in zip(names, wanted, strict=True):
            if not positions:
                out.append([])
                continue
            metric = _WORKER_METRICS.get(name)
            if metric is None:
                metric = _WORKER_METRICS.setdefault(name, get(name))
            scores: list[float] = []
            for start in range(0, len(positions), batch_size):
                batch = positions[start : start + batch_size]
                scores += [float(v) for v in metric.score([items[p] for p in batch])]
            out.append(scores)
    return out


def _chunks(
    todo: Sequence[Sequence[int]], items: Sequence[Item], workers: int, batch_size: int
) -> list[tuple[list[int], list[list[int]]]]:
    """(item indices, per metric the positions in the chunk it wants) of each chunk."""
    wanted_sets = [set(t) for t in todo]
    union = by_shared_references(set().union(*wanted_sets), items)
    size = chunk_size(len(union), workers, batch_size)
    chunks = []
    for start in range(0, len(union), size):
        chunk = union[start : start + size]
        chunks.append((chunk, [[p for p, i in enumerate(chunk) if i in s] for s in wanted_sets]))
    return chunks


def placements(chunks: int, places: int) -> list[tuple[int, int]]:
    """(place, chunk) pairs in the order to send them: each of `places` scores a run of
    neighbouring chunks (by position), the runs as even as can be, and the first chunk of every
    run goes first so that every place starts at once. Neighbours share most reference texts
    (`by_shared_references`), so a worker that scores a run tokenizes and stems them once, where
    one scoring every other chunk would repeat much of another worker's work."""
    starts = [p * chunks // places for p in range(places + 1)]
    pairs = [(p, k) for p in range(places) for k in range(starts[p], starts[p + 1])]
    return sorted(pairs, key=lambda pair: (pair[1] - starts[pair[0]], pair[0]))


def score_in_workers(
    metrics: Sequence[Metric],
    items: Sequence[Item],
    todo: Sequence[Sequence[int]],
    executors: Sequence[Executor],
    workers: int,
    batch_size: int,
    progress: Callable[[int], object],
    watch: Callable[[], None] = lambda: None,
) -> list[dict[int, float]]:
    """Scores of `items[i]` for every i in `todo[m]`, per metric m, computed on `workers`
    processes in batches of `batch_size`; `progress` is called with the number of scores each
    finished chunk adds, and `watch` every few seconds while chunks are in flight (it raises
    when they can no longer finish). The chunks go to the `executors` in runs of neighbours, one
    run each (`placements`): a pool is one executor, a cluster one per worker."""
    names = [rebuild_name(m) for m in metrics]
    if None in names:
        unnamed = [m.name for m, n in zip(metrics, names, strict=True) if n is None]
        raise ComperbenchError(f"no name rebuilds {', '.join(unnamed)} in another process")
    results: list[dict[int, float]] = [{} for _ in metrics]
    needs = frozenset().union(*(m.needs for m in metrics))
    futures: dict[Future, tuple[list[int], list[list[int]]]] = {}
    chunks = _chunks(todo, items, workers, batch_size)
    for place, k in placements(len(chunks), len(executors)):
        chunk, wanted = chunks[k]
        packed = pack([items[i] for i in chunk], needs)
        future = executors[place].submit(score_chunk, names, packed, wanted, batch_size)
        futures[future] = (chunk, wanted)
    try:
        while futures:
            done, _ = wait(futures, timeout=WATCH_EVERY_S, return_when=FIRST_COMPLETED)
            if not done:
                watch()
            for future in done:
                chunk, wanted = futures.pop(future)
                _merge(names, results, chunk, wanted, future.result())
                progress(sum(len(w) for w in wanted))
    finally:
        for future in futures:
            future.cancel()
    return results


def _merge(
    names: Sequence[str],
    results: list[dict[int, float]],
    chunk: Sequence[int],
    wanted: Sequence[Sequence[int]],
    scores: Sequence[Sequence[float]],
) -> None:
    for m, (positions, values) in enumerate(zip(wanted, scores, strict=True)):
        if len(values) != len(positions):
            raise ValueError(
                f"metric {names[m]} returned {len(values)} scores for {len(positions)} items"
            )
        results[m].update((chunk[p], v) for p, v in zip(positions, values, strict=True))
