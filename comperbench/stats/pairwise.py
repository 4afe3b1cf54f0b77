"""Pairwise human evaluation: win/tie/loss, Bradley-Terry, TrueSkill, Elo, and the tests for
paired selections (sign/binomial, McNemar) and for more than two systems (chi-square, Cochran's Q).

A comparison is (system a, system b, outcome) with outcome 1 (a wins), 0 (b wins) or 0.5 (tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.resampling import bootstrap_indices, counts_from_indices
from comperbench.stats.signature import Signature


@dataclass(frozen=True)
class Comparisons:
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    systems: np.ndarray
    units: np.ndarray | None = None
    """The unit (context, prompt) that produced each comparison; the bootstrap resamples units
    when known, since comparisons from one context are not independent."""

    @classmethod
    def of(
        cls,
        a: Sequence[str],
        b: Sequence[str],
        outcome: Sequence[float],
        units: Sequence[object] | np.ndarray | None = None,
    ) -> Comparisons:
        a_arr, b_arr = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        out = np.asarray(outcome, dtype=float)
        if not (a_arr.shape == b_arr.shape == out.shape):
            raise ValueError("a, b and outcome must have the same length")
        unit_arr = None
        if units is not None:
            unit_arr = np.asarray(units, dtype=object)
            if unit_arr.shape != out.shape:
                raise ValueError("units must have one entry per comparison")
        bad = ~np.isin(out, [0.0, 0.5, 1.0])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"comparison {i}: outcome {float(out[i])} is not 1 (a wins), 0 or 0.5 (tie)"
            )
        same = a_arr == b_arr
        if same.any():
            raise ValueError(f"comparison {int(np.flatnonzero(same)[0])}: a system against itself")
        return cls(a_arr, b_arr, out, np.unique(np.r_[a_arr, b_arr]), unit_arr)

    @property
    def unit_name(self) -> str:
        """What the bootstrap resamples: `context` when units are known, else `comparison`."""
        return "comparison" if self.units is None else "context"

    def unit_inverse(self) -> tuple[np.ndarray, int]:
        """(unit index of each comparison, number of units); each comparison its own unit when
        no units are known."""
        if self.units is None:
            return np.arange(self.a.size), self.a.size
        _, inverse = np.unique(self.units.astype(str), return_inverse=True)
        return inverse, int(inverse.max()) + 1 if inverse.size else 0

    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        return np.searchsorted(self.systems, self.a), np.searchsorted(self.systems, self.b)


def win_tie_loss(c: Comparisons) -> pd.DataFrame:
    """Per system: wins, ties, losses, comparisons, win rate without ties and with ties as halves."""
    rows = []
    for s in c.systems:
        as_a, as_b = c.a == s, c.b == s
        wins = int(np.sum(c.outcome[as_a] == 1) + np.sum(c.outcome[as_b] == 0))
        losses = int(np.sum(c.outcome[as_a] == 0) + np.sum(c.outcome[as_b] == 1))
        ties = int(np.sum(c.outcome[as_a | as_b] == 0.5))
        n = wins + ties + losses
        decided = wins + losses
        rows.append(
            {
                "system": s,
                "wins": wins,
                "ties": ties,
                "losses": losses,
                "comparisons": n,
                "win_rate": wins / decided if decided else np.nan,
                "score": (wins + ties / 2) / n if n else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("system")


def majority(
    item_ids: Sequence[str], a: Sequence[str], b: Sequence[str], outcome: Sequence[float]
) -> Comparisons:
    """One comparison per (item, pair) by majority of its judgments (a tie when no majority)."""
    frame = pd.DataFrame({"item": item_ids, "a": a, "b": b, "o": np.asarray(outcome, float)})
    flip = frame["a"] > frame["b"]
    frame.loc[flip, ["a", "b"]] = frame.loc[flip, ["b", "a"]].to_numpy()
    frame.loc[flip, "o"] = 1 - frame.loc[flip, "o"]
    mean = frame.groupby(["item", "a", "b"], sort=True)["o"].mean().reset_index()
    decided = np.where(mean["o"] > 0.5, 1.0, np.where(mean["o"] < 0.5, 0.0, 0.5))
    return Comparisons.of(mean["a"].tolist(), mean["b"].tolist(), decided)


def wmt_scores(
    item_ids: Sequence[str], a: Sequence[str], b: Sequence[str], outcome: Sequence[float]
) -> pd.DataFrame:
    """Per system, the WMT "> others" score (wins / (wins + losses); ties left out, as WMT has done
    since 2012) on two aggregations: `major`, one comparison per (item, pair) by majority vote of its
    judgments, and `distinct`, every judgment counted on its own; `*_n` is the number of decided
    comparisons behind each score."""
    distinct = win_tie_loss(Comparisons.of(a, b, outcome))
    major = win_tie_loss(majority(item_ids, a, b, outcome))
    return pd.DataFrame(
        {
            "major": major["win_rate"],
            "major_n": major["wins"] + major["losses"],
            "distinct": distinct["win_rate"],
            "distinct_n": distinct["wins"] + distinct["losses"],
        }
    )


def _bt_counts(c: Comparisons, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, S, S) wins (ties as half a win each) and games between each ordered pair."""
    S = c.systems.size
    ia, ib = c.indices()
    onehot_ab = np.zeros((c.a.size, S * S))
    onehot_ab[np.arange(c.a.size), ia * S + ib] = 1
    wins_ab = (weights * c.outcome) @ onehot_ab
    wins_ba = (weights * (1 - c.outcome)) @ onehot_ab
    games = weights @ onehot_ab
    wins = wins_ab.reshape(-1, S, S) + wins_ba.reshape(-1, S, S).transpose(0, 2, 1)
    games = games.reshape(-1, S, S)
    return wins, games + games.transpose(0, 2, 1)


def _bt_fit(
    wins: np.ndarray, games: np.ndarray, iterations: int = 2000, tol: float = 1e-10
) -> np.ndarray:
    """Minorisation-maximisation (Hunter 2004) for many count tables at once; log-strengths with
    mean 0, NaN where the maximum-likelihood estimate does not exist (a system never wins or
    never loses)."""
    k, S, _ = wins.shape
    total_wins = wins.sum(axis=2)
    losses = wins.sum(axis=1)
    bad = (total_wins <= 0) | (losses <= 0)
    p = np.ones((k, S))
    for _ in range(iterations):
        with np.errstate(invalid="ignore", divide="ignore"):
            denom = (games / (p[:, :, None] + p[:, None, :])).sum(axis=2)
            new = np.where(denom > 0, total_wins / denom, p)
        new = np.where(bad, 1.0, new)
        new /= np.exp(np.log(np.maximum(new, 1e-300)).mean(axis=1, keepdims=True))
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    theta = np.log(p)
    theta[bad.any(axis=1)] = np.nan
    return theta


@dataclass(frozen=True)
class Ratings:
    """Ratings of systems with percentile intervals and 95% rank ranges from the bootstrap."""

    table: pd.DataFrame
    """Index system; columns rating, median (of the resamples), low, high, rank, rank_low,
    rank_high. For the order-dependent Elo and TrueSkill the bootstrap median is the steadier
    summary (the rating of one replay order can fall outside its own interval)."""
    signature: str


def _with_intervals(
    systems: np.ndarray, point: np.ndarray, boot: np.ndarray, signature: Signature
) -> Ratings:
    valid = boot[np.all(np.isfinite(boot), axis=1)]
    ranks = (-valid).argsort(axis=1).argsort(axis=1) + 1
    point_rank = (-point).argsort().argsort() + 1
    table = pd.DataFrame(
        {
            "rating": point,
            "median": np.median(valid, axis=0) if len(valid) else np.nan,
            "low": np.quantile(valid, 0.025, axis=0) if len(valid) else np.nan,
            "high": np.quantile(valid, 0.975, axis=0) if len(valid) else np.nan,
            "rank": point_rank,
            "rank_low": np.quantile(ranks, 0.025, axis=0, method="lower") if len(valid) else np.nan,
            "rank_high": np.quantile(ranks, 0.975, axis=0, method="higher")
            if len(valid)
            else np.nan,
        },
        index=pd.Index(systems, name="system"),
    )
    return Ratings(table.sort_values("rating", ascending=False), str(signature))


def bradley_terry(
    c: Comparisons, n_resamples: int = 1000, seed: int = 0, benchmark: str | None = None
) -> Ratings:
    """Bradley-Terry log-strengths (mean 0); a tie counts as half a win for each side. Intervals
    from resampling units (contexts, with all their comparisons; single comparisons when no units
    are known); resamples where the MLE does not exist are left out."""
    ones = np.ones((1, c.a.size))
    point = _bt_fit(*_bt_counts(c, ones))[0]
    if not np.all(np.isfinite(point)):
        raise ValueError(
            "Bradley-Terry: a system never wins or never loses; the MLE does not exist"
        )
    inverse, n_units = c.unit_inverse()
    W = counts_from_indices(bootstrap_indices(n_units, n_resamples, seed), n_units)[:, inverse]
    boot = _bt_fit(*_bt_counts(c, W))
    sig = Signature(
        "bradley-terry",
        "system",
        "bootstrap-percentile",
        n_resamples,
        seed,
        benchmark=benchmark,
        extra=(("unit", c.unit_name), ("ties", "half-win")),
    )
    return _with_intervals(c.systems, point, boot, sig)


def _replay_orders(c: Comparisons, n_resamples: int, seed: int) -> np.ndarray:
    """Row 0: the comparisons in the given order; then one row per bootstrap resample: the
    comparisons of the drawn units (in their given order) in the drawn order of the units, padded
    with -1 where resamples of contexts of different sizes are shorter than the longest."""
    n = c.a.size
    inverse, n_units = c.unit_inverse()
    drawn = bootstrap_indices(n_units, n_resamples, seed)
    members = np.argsort(inverse, kind="stable")
    sizes = np.bincount(inverse, minlength=n_units)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    flat = drawn.ravel()
    per_draw = sizes[flat]
    length = per_draw.reshape(drawn.shape).sum(axis=1)
    width = max(n, int(length.max()) if length.size else 0)
    first = np.repeat(starts[flat], per_draw)
    within = np.arange(per_draw.sum()) - np.repeat(np.cumsum(per_draw) - per_draw, per_draw)
    row = np.repeat(np.arange(drawn.shape[0]), length)
    col = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    orders = np.full((n_resamples + 1, width), -1, dtype=np.int64)
    orders[0, :n] = np.arange(n)
    orders[row + 1, col] = members[first + within]
    return orders


def elo(
    c: Comparisons,
    k_factor: float = 32.0,
    base: float = 1000.0,
    scale: float = 400.0,
    n_resamples: int = 1000,
    seed: int = 0,
    benchmark: str | None = None,
) -> Ratings:
    """Online Elo in the given order (a tie scores 0.5); intervals from resampled units (contexts
    with all their comparisons, or single comparisons when no units are known) replayed in
    resampled order. The updates are sequential within a replay, so every replay advances
    together, one comparison per step (vectorised over the resamples)."""
    orders = _replay_orders(c, n_resamples, seed)
    ia, ib = c.indices()
    all_rows = np.arange(orders.shape[0])
    r = np.full((orders.shape[0], c.systems.size), base)
    for step in orders.T:
        rows = all_rows[step >= 0]
        step = step[rows]
        i, j, o = ia[step], ib[step], c.outcome[step]
        expected = 1 / (1 + 10 ** ((r[rows, j] - r[rows, i]) / scale))
        delta = k_factor * (o - expected)
        r[rows, i] += delta
        r[rows, j] -= delta
    sig = Signature(
        "elo",
        "system",
        "bootstrap-percentile",
        n_resamples,
        seed,
        benchmark=benchmark,
        extra=(("unit", c.unit_name), ("k", f"{k_factor:g}")),
    )
    return _with_intervals(c.systems, r[0], r[1:], sig)


def _truncated_gaussian_vw(t: np.ndarray, eps: np.ndarray, drawn: np.ndarray) -> tuple:
    """TrueSkill's v and w functions of a win (t > eps) or a draw (|t| < eps), in log space where
    a ratio of tiny tail probabilities would underflow."""
    x = t - eps
    v_win = np.exp(sps.norm.logpdf(x) - sps.norm.logcdf(x))
    w_win = v_win * (v_win + x)
    a, b = eps - np.abs(t), -eps - np.abs(t)
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = sps.norm.cdf(a) - sps.norm.cdf(b)
        v_draw = (sps.norm.pdf(b) - sps.norm.pdf(a)) / denom
        w_draw = v_draw**2 + (a * sps.norm.pdf(a) - b * sps.norm.pdf(b)) / denom
    v_draw = v_draw * np.where(t < 0, -1.0, 1.0)
    return np.where(drawn, v_draw, v_win), np.where(drawn, w_draw, w_win)


def trueskill_ratings(
    c: Comparisons, n_resamples: int = 1000, seed: int = 0, benchmark: str | None = None
) -> Ratings:
    """TrueSkill with the `trueskill` package's default environment (mu 25, sigma 25/3, beta
    sigma/2, tau sigma/100, draw probability 0.10) in the given order; rating = mu - 3 sigma (the
    conservative estimate); ties are draws. The package rates one game per call, far too slowly
    for a bootstrap, so its exact two-player update is applied here to every replay at once
    (tested against the package)."""
    import trueskill

    env = trueskill.TrueSkill()
    beta2, tau2 = env.beta**2, env.tau**2
    margin = sps.norm.ppf((env.draw_probability + 1) / 2) * np.sqrt(2) * env.beta
    orders = _replay_orders(c, n_resamples, seed)
    ia, ib = c.indices()
    all_rows = np.arange(orders.shape[0])
    mu = np.full((orders.shape[0], c.systems.size), env.mu)
    var = np.full_like(mu, env.sigma**2)
    for step in orders.T:
        rows = all_rows[step >= 0]
        step = step[rows]
        o = c.outcome[step]
        winner = np.where(o == 0, ib[step], ia[step])
        loser = np.where(o == 0, ia[step], ib[step])
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
    rating = mu - 3 * np.sqrt(var)
    sig = Signature(
        "trueskill",
        "system",
        "bootstrap-percentile",
        n_resamples,
        seed,
        benchmark=benchmark,
        extra=(
            ("unit", c.unit_name),
            ("rating", "mu-3sigma"),
            ("draw", f"{env.draw_probability:g}"),
        ),
    )
    return _with_intervals(c.systems, rating[0], rating[1:], sig)


def sign_test(wins_a: int, wins_b: int) -> float:
    """Exact two-sided sign (binomial) test of equal preference; ties are left out beforehand."""
    n = wins_a + wins_b
    return float(sps.binomtest(wins_a, n, 0.5).pvalue) if n else np.nan


def mcnemar(
    selected_a: Sequence[bool], selected_b: Sequence[bool], exact: bool = True
) -> tuple[float, float]:
    """(statistic, p) for paired binary selections: exact binomial on the discordant pairs, or the
    chi-square with continuity correction (statistic = count of the smaller discordant cell when exact)."""
    a, b = np.asarray(selected_a, bool), np.asarray(selected_b, bool)
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    if exact:
        n = only_a + only_b
        p = float(sps.binomtest(min(only_a, only_b), n, 0.5).pvalue) if n else 1.0
        return float(min(only_a, only_b)), p
    if only_a + only_b == 0:
        return 0.0, 1.0
    stat = (abs(only_a - only_b) - 1) ** 2 / (only_a + only_b)
    return float(stat), float(sps.chi2.sf(stat, 1))


def chi_square(table: np.ndarray) -> tuple[float, float, int]:
    """(statistic, p, dof) of independence for a systems x outcomes count table (scipy). All-zero
    rows and columns (e.g. an outcome, such as a tie, that never occurs) carry no information and
    are dropped first (see `empty_lines`); the dof counts only the lines kept."""
    counts = np.asarray(table, dtype=float)
    counts = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    if counts.ndim != 2 or min(counts.shape) < 2:
        raise ValueError(
            "chi-square needs at least two systems and two outcomes with non-zero counts; "
            f"the table has {counts.shape[0]} non-empty row(s) and "
            f"{counts.shape[1] if counts.ndim == 2 else 0} non-empty column(s)"
        )
    res = sps.chi2_contingency(counts, correction=False)
    return float(res.statistic), float(res.pvalue), int(res.dof)


def empty_lines(table: np.ndarray) -> tuple[list[int], list[int]]:
    """(rows, columns) of a count table that are all zero, which `chi_square` drops."""
    counts = np.asarray(table, dtype=float)
    return (
        np.flatnonzero(counts.sum(axis=1) == 0).tolist(),
        np.flatnonzero(counts.sum(axis=0) == 0).tolist(),
    )


def cochrans_q(binary: np.ndarray) -> tuple[float, float, int]:
    """(Q, p, dof) for an items x systems 0/1 matrix: do the systems have equal success rates?"""
    x = np.asarray(binary, dtype=float)
    k = x.shape[1]
    col, row = x.sum(axis=0), x.sum(axis=1)
    total = x.sum()
    denom = k * total - np.sum(row * row)
    if denom == 0:
        return np.nan, np.nan, k - 1
    q = (k - 1) * (k * np.sum(col * col) - total * total) / denom
    return float(q), float(sps.chi2.sf(q, k - 1)), k - 1
