"""Order-dependent ratings (Elo, TrueSkill): the median over random orders of the comparisons,
with intervals from bootstrap resamples replayed in random order, every replay advancing at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy import special
from scipy import stats as sps

from comperbench.common.deprecation import renamed_keywords
from comperbench.stats.human.percentile import percentile_only
from comperbench.stats.human.votes.comparisons import Comparisons, canonical
from comperbench.stats.human.votes.system_ratings import (
    Ratings,
    comparison_groups,
    grouped_ratings,
    rating_signature,
)
from comperbench.stats.resampling import bootstrap_indices, require_resamples
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

_SQRT_2PI = float(np.sqrt(2 * np.pi))
_LOG_SQRT_2PI = float(np.log(_SQRT_2PI))

DEFAULT_PERMUTATIONS = 1000
"""Random orders whose median is the point rating of the order-dependent Elo and TrueSkill."""


def _resampled_members(c: Comparisons, n_resamples: int, seed: int) -> np.ndarray:
    """One row per bootstrap resample of units: the comparisons of the drawn units, padded with
    -1 where a resample of contexts of different sizes is shorter than the longest."""
    inverse, n_units = c.unit_inverse()
    drawn = bootstrap_indices(n_units, n_resamples, seed)
    members = np.argsort(inverse, kind="stable")
    sizes = np.bincount(inverse, minlength=n_units)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    flat = drawn.ravel()
    per_draw = sizes[flat]
    length = per_draw.reshape(drawn.shape).sum(axis=1)
    first = np.repeat(starts[flat], per_draw)
    within = np.arange(per_draw.sum()) - np.repeat(np.cumsum(per_draw) - per_draw, per_draw)
    row = np.repeat(np.arange(n_resamples), length)
    col = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    rows = np.full((n_resamples, int(length.max()) if length.size else 0), -1, dtype=np.int64)
    rows[row, col] = members[first + within]
    return rows


@renamed_keywords(n_permutations="permutations", n_resamples="resamples")
def replay_orders(c: Comparisons, permutations: int, resamples: int, seed: int) -> np.ndarray:
    """The orders in which to replay `c`: random permutations of all comparisons, then
    bootstrap resamples of units (contexts with all their comparisons, or single comparisons
    when no units are known), each replayed in a random order.

    Args:
        c: the comparisons.
        permutations: random orders of all comparisons (at least 1).
        resamples: bootstrap resamples of units.
        seed: seed of the orders and the resamples.

    Returns:
        Rows of indices into `c`, one order per row (the permutations first), padded with -1 at
        the end to the longest.
    """
    if permutations < 1:
        raise ValueError("the point rating needs at least one permutation")
    rng = np.random.default_rng((seed, 1))
    shuffled = rng.permuted(np.tile(np.arange(c.a.size), (permutations, 1)), axis=1)
    drawn = _resampled_members(c, resamples, seed)
    keys = rng.random(drawn.shape)
    keys[drawn < 0] = 2.0  # padding stays at the end
    drawn = np.take_along_axis(drawn, np.argsort(keys, axis=1), axis=1)
    width = max(c.a.size, drawn.shape[1])
    orders = np.full((permutations + resamples, width), -1, dtype=np.int64)
    orders[:permutations, : c.a.size] = shuffled
    orders[permutations:, : drawn.shape[1]] = drawn
    return orders


def replay_sequence(c: Comparisons) -> Comparisons:
    """The comparisons in canonical order, sorted by systems and outcome first (the unit only
    breaks ties): the sequence the permutations reorder is then the same whether the votes come
    one per row (with items) or as counts per pair (without), so both give the same point
    ratings; only the bootstrap's resampling unit, and so the interval, differs.

    Args:
        c: the comparisons.

    Returns:
        The comparisons in replay order.
    """
    canon = canonical(c)
    order = np.lexsort((canon.outcome, canon.b.astype(str), canon.a.astype(str)))
    units = None if canon.units is None else canon.units[order]
    return Comparisons(
        canon.a[order], canon.b[order], canon.outcome[order], canon.systems, units, canon.unit_kind
    )


def _order_free(
    c: Comparisons,
    replay: Callable[[Comparisons, np.ndarray], np.ndarray],
    statistic: str,
    settings: tuple[tuple[str, str], ...],
    permutations: int,
    resampling: Resampling,
    benchmark: str | None,
) -> Ratings:
    """Point rating: the median of `replay` over random permutations of the comparisons (in
    `replay_sequence` order, so neither the input order nor the units matter); interval: the
    same replay over bootstrap resamples in random order. Systems never compared with each
    other, directly or through others, are ranked within their group only, as Bradley-Terry
    ranks them (`grouped_ratings`). `settings` go into the signature."""
    percentile_only(resampling, statistic)
    require_resamples(resampling.resamples, f"the {statistic} rating's interval")
    point_setting = ("point", f"median-of-{permutations}-permutations")
    signature = rating_signature(statistic, c, resampling, benchmark, (*settings, point_setting))
    canon = replay_sequence(c)
    orders = replay_orders(canon, permutations, resampling.resamples, resampling.seed)
    ratings = replay(canon, orders)
    point = np.median(ratings[:permutations], axis=0)
    groups = comparison_groups(canon)
    return grouped_ratings(canon, point, ratings[permutations:], signature, groups)


def _steps(
    c: Comparisons, orders: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Every step of the replays in `orders` (one a row, padded with -1): the rows still
    replaying, and each one's comparison at this step as system indices a, b and the outcome."""
    ia, ib = c.indices()
    all_rows = np.arange(orders.shape[0])
    for step in orders.T:
        rows = all_rows[step >= 0]
        step = step[rows]
        yield rows, ia[step], ib[step], c.outcome[step]


def _elo_replay(
    k_factor: float, base: float, scale: float
) -> Callable[[Comparisons, np.ndarray], np.ndarray]:
    def replay(c: Comparisons, orders: np.ndarray) -> np.ndarray:
        """Online Elo along every row of `orders` at once, one comparison per step."""
        r = np.full((orders.shape[0], c.systems.size), base)
        for rows, i, j, o in _steps(c, orders):
            expected = 1 / (1 + 10 ** ((r[rows, j] - r[rows, i]) / scale))
            delta = k_factor * (o - expected)
            r[rows, i] += delta
            r[rows, j] -= delta
        return r

    return replay


@takes_resampling()
@renamed_keywords(n_permutations="permutations")
def elo(
    c: Comparisons,
    k_factor: float = 32.0,
    base: float = 1000.0,
    scale: float = 400.0,
    resampling: Resampling = DEFAULT_RESAMPLING,
    benchmark: str | None = None,
    permutations: int = DEFAULT_PERMUTATIONS,
) -> Ratings:
    """Online Elo (a tie scores 0.5).

    Elo depends on the order of the comparisons, so the rating is the median over
    `permutations` seeded random orders, and the interval comes from bootstrap resamples of
    units (contexts with all their comparisons, or single comparisons) each replayed in a random
    order (as Chatbot Arena's bootstrap). Neither depends on the order given. Every replay
    advances together, one comparison per step.

    Args:
        c: the comparisons.
        k_factor: Elo's K, the largest change of one game.
        base: every system's rating before its first game.
        scale: the rating difference at which the expected score is 10:1.
        resampling: bootstrap resamples (at least 1) and seed; percentile intervals only.
        benchmark: the benchmark's name, for the signature.
        permutations: random orders whose median is the rating.

    Returns:
        The ratings with their intervals, rank ranges and signature.
    """
    replay = _elo_replay(k_factor, base, scale)
    settings = (("k", f"{k_factor:g}"),)
    return _order_free(c, replay, "elo", settings, permutations, resampling, benchmark)


def _truncated_gaussian_vw(t: np.ndarray, eps: np.ndarray, drawn: np.ndarray) -> tuple:
    """TrueSkill's v and w functions of a win (t > eps) or a draw (|t| < eps), in log space where
    a ratio of tiny tail probabilities would underflow."""
    x = t - eps
    v_win = np.exp(-0.5 * x * x - _LOG_SQRT_2PI - special.log_ndtr(x))
    w_win = v_win * (v_win + x)
    a, b = eps - np.abs(t), -eps - np.abs(t)
    pdf_a, pdf_b = np.exp(-0.5 * a * a) / _SQRT_2PI, np.exp(-0.5 * b * b) / _SQRT_2PI
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = special.ndtr(a) - special.ndtr(b)
        v_draw = (pdf_b - pdf_a) / denom
        w_draw = v_draw**2 + (a * pdf_a - b * pdf_b) / denom
    v_draw = v_draw * np.where(t < 0, -1.0, 1.0)
    return np.where(drawn, v_draw, v_win), np.where(drawn, w_draw, w_win)


def _trueskill_replay(c: Comparisons, orders: np.ndarray) -> np.ndarray:
    """The `trueskill` package's exact two-player update along every row of `orders` at once;
    returns mu - 3 sigma."""
    import trueskill

    env = trueskill.TrueSkill()
    beta2, tau2 = env.beta**2, env.tau**2
    margin = sps.norm.ppf((env.draw_probability + 1) / 2) * np.sqrt(2) * env.beta
    mu = np.full((orders.shape[0], c.systems.size), env.mu)
    var = np.full_like(mu, env.sigma**2)
    for rows, i, j, o in _steps(c, orders):
        winner = np.where(o == 0, j, i)
        loser = np.where(o == 0, i, j)
        var_w, var_l = var[rows, winner] + tau2, var[rows, loser] + tau2
        c2 = 2 * beta2 + var_w + var_l
        scale = np.sqrt(c2)
        v, w = _truncated_gaussian_vw(
            (mu[rows, winner] - mu[rows, loser]) / scale, margin / scale, o == 0.5
        )
        mu[rows, winner] += var_w / scale * v
        mu[rows, loser] -= var_l / scale * v
        var[rows, winner] = var_w * (1 - var_w / c2 * w)
        var[rows, loser] = var_l * (1 - var_l / c2 * w)
    return mu - 3 * np.sqrt(var)


@takes_resampling()
@renamed_keywords(n_permutations="permutations")
def trueskill_ratings(
    c: Comparisons,
    resampling: Resampling = DEFAULT_RESAMPLING,
    benchmark: str | None = None,
    permutations: int = DEFAULT_PERMUTATIONS,
) -> Ratings:
    """TrueSkill with the `trueskill` package's default environment (mu 25, sigma 25/3, beta
    sigma/2, tau sigma/100, draw probability 0.10); rating = mu - 3 sigma (the conservative
    estimate); ties are draws.

    Order-dependent like Elo, so rated the same way: the median over `permutations` random
    orders, intervals from resamples replayed in random order. The package rates one game per
    call, far too slowly for this, so its exact two-player update is applied here to every
    replay at once (tested against the package).

    Args:
        c: the comparisons.
        resampling: bootstrap resamples (at least 1) and seed; percentile intervals only.
        benchmark: the benchmark's name, for the signature.
        permutations: random orders whose median is the rating.

    Returns:
        The ratings with their intervals, rank ranges and signature.
    """
    import trueskill

    settings = (
        ("rating", "mu-3sigma"),
        ("draw", f"{trueskill.TrueSkill().draw_probability:g}"),
    )
    return _order_free(
        c, _trueskill_replay, "trueskill", settings, permutations, resampling, benchmark
    )
