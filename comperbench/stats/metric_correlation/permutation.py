"""Exact permutation p-values of a correlation over all n! orderings, for small n.

Under the null hypothesis of no association every pairing of the metric scores with the human
scores is equally likely. The p-value is two-sided: for a correlation, centred at 0 under the
null, the share of the n! orderings of the metric scores whose correlation is at least as far
from 0 as the observed one ("absolute"); for a statistic whose null is not centred at 0 (a
pairwise accuracy lies in [0, 1], tie calibration pushes it up), twice the smaller of the shares
at or below and at or above the observed value, at most 1 ("tails", scipy's `permutation_test`
rule). Tied scores need no special care: orderings that swap tied values are counted as often as
the null makes them occur.
Above `EXACT_MAX_N` units (8! = 40,320 orderings) the analytic p-value is used instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

import numpy as np

EXACT_MAX_N = 8
"""Largest sample whose p-value is computed over all n! orderings."""
TOLERANCE = 1e-12
"""|r| of an ordering counts as extreme when it is at least |r_obs| - TOLERANCE (rounding)."""

TwoSided = Literal["absolute", "tails"]
"""How a two-sided p-value counts an ordering as extreme (see the module's docstring)."""
RowsFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(rows of metric scores, human scores) -> the correlation of each row with the human scores."""


@lru_cache(maxsize=EXACT_MAX_N)
def orderings(n: int) -> np.ndarray:
    """(n!, n) every ordering of range(n), the identity first."""
    out = np.array(list(itertools.permutations(range(n))), dtype=np.intp).reshape(-1, n)
    out.setflags(write=False)
    return out


def exact_p_value(
    x: np.ndarray, y: np.ndarray, rows: RowsFn, two_sided: TwoSided = "absolute"
) -> float:
    """Two-sided p-value over the n! orderings of x: the share with |r| >= |r(x, y)|
    ("absolute"), or twice the smaller tail at r(x, y), at most 1 ("tails")."""
    n = x.size
    if n > EXACT_MAX_N:
        raise ValueError(
            f"{n}! orderings are too many; the exact p-value is for n <= {EXACT_MAX_N}"
        )
    values = rows(np.asarray(x, dtype=float)[orderings(n)], np.asarray(y, dtype=float))
    observed = values[0]
    if not np.isfinite(observed):
        return math.nan
    if two_sided == "absolute":
        extreme = np.abs(values) >= abs(observed) - TOLERANCE
        return float(np.count_nonzero(extreme) / values.size)
    below = np.count_nonzero(values <= observed + TOLERANCE)
    above = np.count_nonzero(values >= observed - TOLERANCE)
    return float(min(1.0, 2 * min(below, above) / values.size))
