"""Bradley-Terry ratings: minorisation-maximisation fits of many bootstrap count tables at once.

The maximum-likelihood estimate exists only where the wins are strongly connected: within each
group of systems compared with one another (directly or through others), every system must beat
every other one through some chain of wins (Zermelo 1929, Ford 1957; a tie is half a win each
way). Without it the likelihood keeps growing as ratings drift apart, and any value an iteration
stops at is arbitrary: the rating is undefined, with the reason. Groups never compared with each
other are rated separately (mean 0 in each) and ranked within themselves only.
"""

from __future__ import annotations

import numpy as np

from comperbench.stats.human.percentile import percentile_only
from comperbench.stats.human.votes.comparisons import Comparisons, canonical
from comperbench.stats.human.votes.system_ratings import (
    Ratings,
    compared_groups,
    grouped_ratings,
    rating_signature,
)
from comperbench.stats.resampling import (
    bootstrap_indices,
    counts_from_indices,
    require_resamples,
)
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling


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


def _reach(wins: np.ndarray) -> np.ndarray:
    """(k, S, S): whether a chain of wins leads from each system to each other (or itself)."""
    S = wins.shape[-1]
    reach = ((wins > 0) | np.eye(S, dtype=bool)).astype(float)
    for _ in range(max(1, int(np.ceil(np.log2(S))))):
        reach = np.minimum(reach @ reach, 1.0)
    return reach > 0


def _mle_exists(wins: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """(k,) whether every system beats every other of its group through some chain of wins."""
    same = groups[:, None] == groups[None, :]
    return np.all(_reach(wins) | ~same, axis=(1, 2))


def _bt_fit(
    wins: np.ndarray,
    games: np.ndarray,
    groups: np.ndarray,
    iterations: int = 2000,
    tol: float = 1e-10,
) -> np.ndarray:
    """Minorisation-maximisation (Hunter 2004) for many count tables at once; log-strengths with
    mean 0 in each of the `groups` (of `compared_groups`), NaN where the maximum-likelihood
    estimate does not exist (the wins within a group are not strongly connected)."""
    k, S, _ = wins.shape
    total_wins = wins.sum(axis=2)
    losses = wins.sum(axis=1)
    bad = (total_wins <= 0) | (losses <= 0)
    members = np.eye(int(groups.max()) + 1)[groups]  # (S, groups)
    size = members.sum(axis=0)
    p = np.ones((k, S))
    for _ in range(iterations):
        with np.errstate(invalid="ignore", divide="ignore"):
            denom = (games / (p[:, :, None] + p[:, None, :])).sum(axis=2)
            new = np.where(denom > 0, total_wins / denom, p)
        new = np.where(bad, 1.0, new)
        log_mean = np.log(np.maximum(new, 1e-300)) @ members / size
        new /= np.exp(log_mean @ members.T)
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    theta = np.log(p)
    theta[~_mle_exists(wins, groups)] = np.nan
    return theta


def _no_mle_reason(c: Comparisons, wins: np.ndarray, groups: np.ndarray) -> str:
    """Which system no chain of wins leads from to which other of its group."""
    reach = _reach(wins[None])[0]
    same = groups[:, None] == groups[None, :]
    i, j = np.argwhere(~reach & same)[0]
    one_sided = ((wins.sum(axis=0) <= 0) | (wins.sum(axis=1) <= 0)).any()
    never = "a system never wins or never loses: " if one_sided else ""
    return (
        f"Bradley-Terry: {never}no chain of wins leads from {c.systems[i]} to "
        f"{c.systems[j]}, so the MLE does not exist (every system must beat, directly or "
        "through others, every system it is compared with)"
    )


@takes_resampling()
def bradley_terry(
    c: Comparisons, resampling: Resampling = DEFAULT_RESAMPLING, benchmark: str | None = None
) -> Ratings:
    """Bradley-Terry log-strengths (mean 0 in each group of systems compared with one another);
    a tie counts as half a win for each side.

    Intervals from resampling units (contexts, with all their comparisons; single comparisons
    when no units are known) of the comparisons in canonical order; resamples where the MLE does
    not exist are left out.

    Args:
        c: the comparisons.
        resampling: bootstrap resamples (at least 1) and seed; percentile intervals only.
        benchmark: the benchmark's name, for the signature.

    Returns:
        The ratings with their intervals, rank ranges and signature.

    Raises:
        ValueError: the MLE does not exist (with the reason), or no resample is asked for.
    """
    percentile_only(resampling, "bradley_terry")
    n_resamples, seed = resampling.resamples, resampling.seed
    require_resamples(n_resamples, "the bradley-terry rating's interval")
    c = canonical(c)
    wins, games = _bt_counts(c, np.ones((1, c.a.size)))
    groups = compared_groups(games[0])
    point = _bt_fit(wins, games, groups)[0]
    if not np.all(np.isfinite(point)):
        raise ValueError(_no_mle_reason(c, wins[0], groups))
    inverse, n_units = c.unit_inverse()
    W = counts_from_indices(bootstrap_indices(n_units, n_resamples, seed), n_units)[:, inverse]
    boot = _bt_fit(*_bt_counts(c, W), groups)
    sig = rating_signature("bradley-terry", c, resampling, benchmark, (("ties", "half-win"),))
    return grouped_ratings(c, point, boot, sig, groups)
