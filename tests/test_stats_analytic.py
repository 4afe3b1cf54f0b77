"""The correlations' values and p-values computed without scipy.stats equal scipy.stats' to
the last bit, on many inputs and on the edge cases (3 items, r = +-1, ties, constants, NaN)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps

from comperbench.stats.metric_correlation import analytic


def _scipy(name: str, x: np.ndarray, y: np.ndarray, **options: str) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(sps, name)(x, y, **options)
    return float(result.statistic), float(result.pvalue)


def _same(ours: tuple[float, float], theirs: tuple[float, float]) -> bool:
    """Equal to the bit (NaN where scipy gives NaN)."""
    return all(
        (np.isnan(a) and np.isnan(b)) or np.float64(a).tobytes() == np.float64(b).tobytes()
        for a, b in zip(ours, theirs, strict=True)
    )


def _pairs(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random pairs of every size from 3 up, continuous and heavily tied, (anti)correlated."""
    rng = np.random.default_rng(seed)
    pairs = []
    for n in [3, 4, 5, 8, 9, 20, 33, 34, 35, 100, 257, 1000, 4000]:
        x = rng.normal(size=n)
        for y in (
            x + rng.normal(scale=0.5, size=n),
            -x + rng.normal(scale=2.0, size=n),
            rng.normal(size=n),
        ):
            pairs.append((x, y))
            pairs.append((np.round(x * 2), np.round(y)))  # ties on both sides
            pairs.append((rng.integers(0, 5, n).astype(float), y))  # few distinct values
    return pairs


EDGES = [
    (np.array([1.0, 2, 3]), np.array([2.0, 4, 6])),  # r = 1, n = 3
    (np.array([1.0, 2, 3]), np.array([6.0, 4, 2])),  # r = -1
    (np.array([1.0, 2, 3]), np.array([1.0, 3, 2])),
    (np.array([1.0, 1, 2]), np.array([3.0, 1, 2])),  # a tie at n = 3
    (np.arange(50.0), np.arange(50.0) ** 3),  # a perfect rank correlation over 33 items
    (np.arange(50.0), np.r_[1.0, 0, np.arange(2.0, 50)]),  # one discordant pair
    (np.arange(40.0), -np.arange(40.0)),
    (np.arange(200.0), np.r_[1.0, 0, np.arange(2.0, 200)]),  # exact p past 171 items
    (np.arange(180.0), -np.arange(180.0)),
    (np.arange(12.0), np.array([0.0, 2, 1, 3, 5, 4, 6, 7, 9, 8, 11, 10])),  # exact, c > 1
    (np.ones(10), np.arange(10.0)),  # constant
    (np.arange(10.0), np.full(10, 2.5)),
    (np.r_[np.arange(9.0), np.nan], np.arange(10.0)),  # NaN
    (np.arange(10.0), np.r_[np.inf, np.arange(9.0)]),
    (np.array([1e-300, 2e-300, 4e-300, 3e-300]), np.array([1.0, 2, 3, 5])),  # tiny scores
    (np.array([1e300, 2e300, 4e300, 3e300]), np.array([1.0, 2, 3, 5])),  # huge scores
    (np.array([1.0, 1 + 1e-15, 1, 1 + 2e-15, 1]), np.arange(5.0)),  # nearly constant
]


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("pearsonr", {}),
        ("spearmanr", {}),
        ("kendalltau", {"variant": "b"}),
        ("kendalltau", {"variant": "c"}),
    ],
)
def test_values_and_p_values_are_scipys(name: str, options: dict[str, str]) -> None:
    ours = getattr(analytic, name)
    cases = _pairs(0) + _pairs(1) + EDGES
    different = [
        (x.size, ours(x, y, **options), _scipy(name, x, y, **options))
        for x, y in cases
        if not _same(ours(x, y, **options), _scipy(name, x, y, **options))
    ]
    assert not different, different[:3]
    assert len(cases) > 200


def test_inversions_count_every_strictly_decreasing_pair() -> None:
    rng = np.random.default_rng(5)
    for n in [0, 1, 2, 3, 7, 64, 65, 300]:
        v = rng.integers(0, max(n // 3, 1), n)
        expected = sum(int(v[i] > v[j]) for i in range(n) for j in range(i + 1, n))
        assert analytic._inversions(v) == expected


def test_points_do_not_import_scipy_stats() -> None:
    """A warm run's points and p-values cost scipy.special, not scipy.stats."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from comperbench.stats.metric_correlation.statistics import get_statistic\n"
        "x, y = np.arange(40.0), np.arange(40.0) % 7\n"
        "for name in ('pearson', 'spearman', 'kendall-b'):\n"
        "    get_statistic(name).point(x, y)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
