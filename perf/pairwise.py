"""Speed of the order-free Elo and TrueSkill ratings against replaying one game at a time.

On the preferences implicit in a real benchmark (default usr-topical, aspect overall: each
annotator's ratings of the systems' responses to a shared context). Both sides replay the same
orders, `replay_orders` of the canonical comparisons: random permutations for the point rating
and bootstrap resamples of contexts for the interval. Ours advances every replay at once
(`comperbench.stats.human.votes.online_ratings`); the reference replays them one game at a time, Elo in
plain Python floats and TrueSkill with the `trueskill` package's `TrueSkill.rate_1vs1`.

First both sides rate a small configuration in full and must give equal ratings and intervals;
then ours runs the full configuration and the reference's time on the small one is scaled to it.

Run: COMPERBENCH_DATA=../shared/data python perf/pairwise.py [--benchmark usr-topical]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")

import numpy as np
import trueskill

from comperbench import load_benchmark
from comperbench.stats.human.votes.bradley_terry import bradley_terry
from comperbench.stats.human.votes.comparisons import Comparisons, canonical
from comperbench.stats.human.votes.online_ratings import elo, replay_orders, trueskill_ratings
from comperbench.stats.human.votes.rating_votes import as_comparisons, rating_votes
from comperbench.stats.human.votes.system_ratings import Ratings
from comperbench.stats.settings import Resampling

Replay = Callable[[Comparisons, np.ndarray], np.ndarray]


def timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = work()
    return time.perf_counter() - start, out


def _games(c: Comparisons) -> tuple[list[int], list[int], list[float]]:
    index = {s: i for i, s in enumerate(c.systems)}
    a, b = [index[s] for s in c.a], [index[s] for s in c.b]
    return a, b, [float(o) for o in c.outcome]


def elo_loop(c: Comparisons, orders: np.ndarray) -> np.ndarray:
    """Online Elo (k 32, base 1000, scale 400) along each row, plain floats, one game a step."""
    a, b, outcome = _games(c)
    out = np.empty((orders.shape[0], c.systems.size))
    for row, order in enumerate(orders.tolist()):
        r = [1000.0] * c.systems.size
        for k in order:
            if k < 0:
                break
            i, j = a[k], b[k]
            delta = 32.0 * (outcome[k] - 1.0 / (1.0 + 10.0 ** ((r[j] - r[i]) / 400.0)))
            r[i] += delta
            r[j] -= delta
        out[row] = r
    return out


def trueskill_loop(c: Comparisons, orders: np.ndarray) -> np.ndarray:
    """TrueSkill's default environment along each row, `rate_1vs1` per game; mu - 3 sigma."""
    a, b, outcome = _games(c)
    env = trueskill.TrueSkill()
    out = np.empty((orders.shape[0], c.systems.size))
    for row, order in enumerate(orders.tolist()):
        r = [env.create_rating() for _ in range(c.systems.size)]
        for k in order:
            if k < 0:
                break
            winner, loser = (b[k], a[k]) if outcome[k] == 0 else (a[k], b[k])
            r[winner], r[loser] = env.rate_1vs1(r[winner], r[loser], drawn=outcome[k] == 0.5)
        out[row] = [x.mu - 3 * x.sigma for x in r]
    return out


def assert_equal(ours: Ratings, c: Comparisons, replays: np.ndarray, n_permutations: int) -> None:
    """The replays' point (median over the permutations) and 95% interval equal ours."""
    boot = replays[n_permutations:]
    theirs = {
        "rating": np.median(replays[:n_permutations], axis=0),
        "low": np.quantile(boot, 0.025, axis=0),
        "high": np.quantile(boot, 0.975, axis=0),
    }
    order = [list(c.systems).index(s) for s in ours.table.index]
    for column, values in theirs.items():
        if not np.allclose(ours.table[column].to_numpy(), values[order], rtol=0, atol=1e-6):
            raise AssertionError(f"{column} differs from the one-game-at-a-time replay")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="usr-topical")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--check", type=int, default=20, help="permutations and resamples checked")
    args = parser.parse_args()

    bench = load_benchmark(args.benchmark)
    aspect = bench.metadata.default_aspect
    judgments = rating_votes(bench.unit_ratings(aspect))
    games = as_comparisons(judgments)
    canon = canonical(games)
    small = replay_orders(canon, args.check, args.check, seed=0)
    full_rows = args.permutations + args.resamples
    print(
        f"{bench.name}, aspect {aspect}: {len(judgments)} preferences, {games.systems.size} "
        f"systems, {np.unique(games.units).size} contexts; {args.permutations} permutations + "
        f"{args.resamples} resamples of contexts (reference: {small.shape[0]} replays, scaled)\n"
    )
    print(f"{'rating':<16}{'vectorised s':>14}{'reference s':>13}{'ratio':>9}  results")
    bt_s, _ = timed(lambda: bradley_terry(games, Resampling(args.resamples)))
    print(f"{'Bradley-Terry':<16}{bt_s:>14.2f}{'-':>13}{'-':>9}  (no one-game reference)")
    for label, ours_fn, loop in (
        ("Elo", elo, elo_loop),
        ("TrueSkill", trueskill_ratings, trueskill_loop),
    ):
        checked = ours_fn(games, resampling=Resampling(args.check), permutations=args.check)
        loop_s, replays = timed(lambda loop=loop: loop(canon, small))
        assert_equal(checked, canon, replays, args.check)
        ours_s, _ = timed(
            lambda f=ours_fn: f(
                games, resampling=Resampling(args.resamples), permutations=args.permutations
            )
        )
        theirs = loop_s * full_rows / small.shape[0]
        print(f"{label:<16}{ours_s:>14.2f}{theirs:>13.1f}{theirs / ours_s:>8.0f}x  equal")


if __name__ == "__main__":
    main()
