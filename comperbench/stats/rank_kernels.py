"""Compiled (numba) kernels of the rank statistics over many resamples at once.

Every kernel takes the counts transposed, `WT` (items x resamples), and works on all resamples
of one item at a time ("lanes"), so that its inner loops are contiguous and vectorise. Sums are
exact integers in float64 (below 2**53), so Kendall's tau equals scipy's to the last bit. The
module imports numba; `comperbench.stats.vectorised` imports it only when a kernel is needed.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def kendall_sums(
    order: np.ndarray,
    starts: np.ndarray,
    ranks: np.ndarray,
    n_ranks: int,
    WT: np.ndarray,
    lanes: int,
) -> np.ndarray:
    """(6, k) per resample: concordant minus discordant weighted pairs, tied pairs of the first
    variable, of the second, of both, and the distinct values present of the first and second.

    `order` sorts the items by (first variable, second variable); `starts` delimits the first
    variable's tie groups in it (with a final n); `ranks` are the second variable's dense ranks
    (0..n_ranks-1). Counting weighted inversions with a Fenwick tree over the second variable's
    ranks is O(n log n_ranks) per resample; a tie group of the first variable is queried whole
    before it is added, so that its own pairs are not counted, and items with equal ranks
    within a group are counted as one (speed). `lanes` resamples share one tree.
    """
    k = WT.shape[1]
    out = np.zeros((6, k))
    longest = 1
    for g in range(starts.size - 1):
        longest = max(longest, starts[g + 1] - starts[g])
    tree = np.empty((n_ranks + 1, lanes))
    seen = np.empty((n_ranks, lanes))
    runs = np.empty((min(longest, n_ranks), lanes))
    run_rank = np.empty(min(longest, n_ranks), np.int64)
    below = np.empty(lanes)
    group = np.empty(lanes)
    total = np.empty(lanes)
    for l0 in range(0, k, lanes):
        b = min(lanes, k - l0)
        tree[:] = 0.0
        seen[:] = 0.0
        total[:] = 0.0
        for g in range(starts.size - 1):
            group[:] = 0.0
            n_runs = 0
            p = starts[g]
            while p < starts[g + 1]:
                rank = ranks[order[p]]
                run = runs[n_runs]
                run_rank[n_runs] = rank
                n_runs += 1
                run[:b] = 0.0
                while p < starts[g + 1] and ranks[order[p]] == rank:
                    counts = WT[order[p]]
                    for j in range(b):
                        run[j] += counts[l0 + j]
                    p += 1
                below[:b] = 0.0
                node = rank
                while node > 0:
                    for j in range(b):
                        below[j] += tree[node, j]
                    node -= node & -node
                for j in range(b):
                    # pairs with the items before: concordant below, discordant above the rank
                    w = run[j]
                    out[0, l0 + j] += w * (2.0 * below[j] + seen[rank, j] - total[j])
                    out[3, l0 + j] += w * (w - 1.0) * 0.5
                    group[j] += w
            for r in range(n_runs):
                rank = run_rank[r]
                node = rank + 1
                while node <= n_ranks:
                    for j in range(b):
                        tree[node, j] += runs[r, j]
                    node += node & -node
                for j in range(b):
                    seen[rank, j] += runs[r, j]
            for j in range(b):
                w = group[j]
                total[j] += w
                out[1, l0 + j] += w * (w - 1.0) * 0.5
                out[4, l0 + j] += 1.0 if w > 0 else 0.0
        for rank in range(n_ranks):
            for j in range(b):
                w = seen[rank, j]
                out[2, l0 + j] += w * (w - 1.0) * 0.5
                out[5, l0 + j] += 1.0 if w > 0 else 0.0
    return out


@njit(cache=True)
def tie_group_ranks(order: np.ndarray, starts: np.ndarray, WT: np.ndarray) -> tuple:
    """(groups, k) average rank of each tie group in each resample, and (k,) count-weighted sums
    of the ranks and of their squares; `order` sorts the items, `starts` delimits tie groups."""
    k = WT.shape[1]
    mid = np.empty((starts.size - 1, k))
    total = np.zeros(k)
    squares = np.zeros(k)
    before = np.zeros(k)
    size = np.empty(k)
    for g in range(starts.size - 1):
        size[:] = 0.0
        for p in range(starts[g], starts[g + 1]):
            counts = WT[order[p]]
            for j in range(k):
                size[j] += counts[j]
        for j in range(k):
            rank = before[j] + (size[j] + 1.0) * 0.5
            mid[g, j] = rank
            total[j] += size[j] * rank
            squares[j] += size[j] * rank * rank
            before[j] += size[j]
    return mid, total, squares


@njit(cache=True)
def rank_sums(
    order: np.ndarray, starts: np.ndarray, codes: np.ndarray, other: np.ndarray, WT: np.ndarray
) -> np.ndarray:
    """(3, k) count-weighted sums of one vector's average ranks, of their squares and of their
    products with another vector's, per resample. `order`/`starts`: this vector's sort order and
    tie groups; `codes`: the other's tie group of each item; `other`: its `tie_group_ranks`."""
    k = WT.shape[1]
    out = np.zeros((3, k))
    before = np.zeros(k)
    size = np.empty(k)
    cross = np.empty(k)
    for g in range(starts.size - 1):
        size[:] = 0.0
        cross[:] = 0.0
        for p in range(starts[g], starts[g + 1]):
            item = order[p]
            counts = WT[item]
            ranks = other[codes[item]]
            for j in range(k):
                size[j] += counts[j]
                cross[j] += counts[j] * ranks[j]
        for j in range(k):
            rank = before[j] + (size[j] + 1.0) * 0.5
            out[0, j] += size[j] * rank
            out[1, j] += size[j] * rank * rank
            out[2, j] += rank * cross[j]
            before[j] += size[j]
    return out


@njit(cache=True)
def perm_both_spearman(
    order: np.ndarray,
    starts: np.ndarray,
    human_ranks: np.ndarray,
    swaps_t: np.ndarray,
    lanes: int,
) -> np.ndarray:
    """(2, rows) Spearman of the permuted A' and B' with the human scores, per swap row.

    The 2n candidate scores (A's z-scores, then B's) are sorted once: `order` and the tie
    groups `starts` (with a final 2n). Candidate c of item i = c mod n belongs to A' when it is
    B's score and the item is swapped, or A's and it is not; B' takes the other. `swaps_t` holds
    the swap rows transposed (items x rows, 1 where swapped, uint8), so that `lanes` rows are counted
    at once. Every item is in A' and in B' exactly once, so the human side never changes; B's
    tie-group counts are the group's totals less A's."""
    n = human_ranks.size
    rows = swaps_t.shape[1]
    out = np.empty((2, rows))
    mean = (n + 1) * 0.5
    centred = human_ranks - mean
    hy = np.sum(centred * centred)
    size_a = np.empty(lanes)
    human_a = np.empty(lanes)
    before_a = np.empty(lanes)
    cross_a = np.empty(lanes)
    cross_b = np.empty(lanes)
    sq_a = np.empty(lanes)
    sq_b = np.empty(lanes)
    for l0 in range(0, rows, lanes):
        b = min(lanes, rows - l0)
        before_a[:] = 0.0
        cross_a[:] = 0.0
        cross_b[:] = 0.0
        sq_a[:] = 0.0
        sq_b[:] = 0.0
        before = 0.0
        for g in range(starts.size - 1):
            size_a[:] = 0.0
            human_a[:] = 0.0
            group_human = 0.0
            for p in range(starts[g], starts[g + 1]):
                c = order[p]
                item = c % n
                h = centred[item]
                group_human += h
                swapped = swaps_t[item]
                if c >= n:
                    for j in range(b):
                        w = float(swapped[l0 + j])
                        size_a[j] += w
                        human_a[j] += w * h
                else:
                    for j in range(b):
                        w = 1.0 - swapped[l0 + j]
                        size_a[j] += w
                        human_a[j] += w * h
            size = starts[g + 1] - starts[g]
            for j in range(b):
                size_b = size - size_a[j]
                before_b = before - before_a[j]
                rank_a = before_a[j] + (size_a[j] + 1.0) * 0.5 - mean
                rank_b = before_b + (size_b + 1.0) * 0.5 - mean
                cross_a[j] += rank_a * human_a[j]
                cross_b[j] += rank_b * (group_human - human_a[j])
                sq_a[j] += size_a[j] * rank_a * rank_a
                sq_b[j] += size_b * rank_b * rank_b
                before_a[j] += size_a[j]
            before += size
        for j in range(b):
            out[0, l0 + j] = cross_a[j] / np.sqrt(sq_a[j] * hy)
            out[1, l0 + j] = cross_b[j] / np.sqrt(sq_b[j] * hy)
    return out
