"""Greedy matching over a whole benchmark, against the per-pair formula it replaces and against
its floor, in one process on one BLAS thread (as the CLI runs it):

1. ours: `greedy-matching` on every item, the texts' token ids already known (the tokenizer is
   shared by the three word-vector metrics and timed apart);
2. the per-pair formula: each text's unit vectors (`_unit`), then per response and reference
   `x @ y.T`, `max` both ways, `mean`, averaged, best reference, with ndarray's own methods;
3. the floor: the per-pair products alone, the one cost that keeps each pair's bits.

Both give equal scores, asserted before anything is printed.
Run: COMPERBENCH_DATA=/work/shared/data python perf/word_vectors.py [--benchmark dstc7]
"""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from comperbench import load_benchmark
from comperbench.metrics import get
from comperbench.metrics.base import check_turn_items, nonblank_references
from comperbench.metrics.embeddings import embedding
from comperbench.metrics.runner import benchmark_items

Pairs = list[tuple[np.ndarray, list[np.ndarray]]]


def _per_pair(x: np.ndarray, y: np.ndarray) -> float:
    similarity = x @ (y.copy() if y is x else y).T
    return float((similarity.max(axis=1).mean() + similarity.max(axis=0).mean()) / 2)


def _formula(
    turns: list, table: np.ndarray, ids: dict[str, np.ndarray]
) -> tuple[list[float], Pairs]:
    """The per-pair formula's scores from the raw token table and each text's token ids, and
    the unit vectors of each scored response and its references (for the floor)."""
    units = {t: embedding._unit(table[i]) for t, i in ids.items() if len(i)}
    scores, pairs = [], []
    for turn in turns:
        references = nonblank_references(turn)
        refs = [units[r] for r in references if r in units]
        if not references:
            scores.append(math.nan)
        elif turn.response not in units or not refs:
            scores.append(0.0)
        else:
            x = units[turn.response]
            scores.append(max(_per_pair(x, r) for r in refs))
            pairs.append((x, refs))
    return scores, pairs


def _products(pairs: Pairs) -> None:
    for x, refs in pairs:
        similarity = np.empty((len(x), sum(len(r) for r in refs)), dtype=x.dtype)
        start = 0
        for r in refs:
            np.matmul(x, (r.copy() if r is x else r).T, out=similarity[:, start : start + len(r)])
            start += len(r)


def _timed(work):
    start = time.process_time()
    result = work()
    return result, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="dstc7")
    args = parser.parse_args()
    metric = get("greedy-matching")
    turns = check_turn_items(benchmark_items(load_benchmark(args.benchmark)), metric.needs)
    texts = sorted({t.response for t in turns} | {r for t in turns for r in t.references})
    encoder = (str(metric.encoder.path), metric.encoder.provenance)
    embedding._load_encoder(*encoder)
    ids, tokenize_s = _timed(lambda: metric._token_ids(texts))
    table = embedding._token_table(*encoder, None)
    ours, ours_s = _timed(lambda: metric.score(turns))
    (expected, pairs), formula_s = _timed(lambda: _formula(turns, table, ids))
    if not np.array_equal(ours, expected, equal_nan=True):
        raise AssertionError("greedy-matching differs from the per-pair formula")
    _, floor_s = _timed(lambda: _products(pairs))
    count = sum(len(refs) for _, refs in pairs)
    print(
        f"greedy-matching, {args.benchmark}: {len(turns)} items, {count} response-reference "
        f"pairs, equal scores\n"
        f"  ours {ours_s:.2f} s; per-pair formula {formula_s:.2f} s ({formula_s / ours_s:.2f}x); "
        f"floor, the per-pair products alone, {floor_s:.2f} s (ours {ours_s / floor_s:.2f}x it)\n"
        f"  tokenizing the {len(texts)} texts (shared by the word-vector metrics): "
        f"{tokenize_s:.2f} s"
    )


if __name__ == "__main__":
    main()
