"""Sample size or power per human-evaluation setting, from the smallest difference to detect.

Each `Setting` turns a difference (and the setting's own parameters) into the proportions or the
effect size of its test in `comperbench.stats.human.planning.power`, then gives the units needed for a target
power, or the power of a given number of units.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from comperbench.stats.human.planning import power as pw

T = TypeVar("T")


@dataclass(frozen=True)
class Goal:
    """Significance level and target power, or the number of units whose power is wanted."""

    alpha: float = 0.05
    power: float = 0.8
    n: int | None = None

    def __post_init__(self) -> None:
        for name, value in (("alpha", self.alpha), ("power", self.power)):
            if not 0 < value < 1:
                raise ValueError(f"{name}={value:g} must lie strictly between 0 and 1")
        if self.n is not None and self.n < 1:
            raise ValueError(f"n={self.n} must be at least 1")

    def reach(self, sample_size: Callable[[], int], power_at: Callable[[int], T]) -> tuple[int, T]:
        """The given n and its power, or the sample size and its power.

        Args:
            sample_size: computes the sample size reaching the power.
            power_at: computes the power at a given n.

        Returns:
            (n, its power).
        """
        n = self.n if self.n is not None else sample_size()
        return n, power_at(n)


@dataclass(frozen=True)
class Plan:
    setting: str
    test: str
    parameters: str
    unit: str
    alpha: float
    target_power: float | None
    """None when the power of a given n was asked for."""
    n: int
    power: float
    power_se: float | None = None
    """Monte Carlo standard error of `power` (simulated power only)."""


@dataclass(frozen=True)
class Solution:
    parameters: str
    n: int
    power: float
    power_se: float | None = None


@dataclass(frozen=True)
class Setting:
    name: str
    unit: str
    test: str
    summary: str
    description: str
    """The parameterisation, the formula and its reference."""
    solve: Callable[..., Solution]
    """(goal, **parameters) -> Solution."""
    methods: dict[str, str] = field(default_factory=dict)
    """The ways to compute its power and what each is; the first is the default."""

    def plan(
        self, alpha: float = 0.05, power: float = 0.8, n: int | None = None, **parameters
    ) -> Plan:
        """The plan of this setting: the units needed for `power`, or the power of `n` units.

        Args:
            alpha: the significance level.
            power: the target power (when `n` is None).
            n: the units to compute the power of, or None.
            parameters: the setting's own parameters (difference, rate, ...).

        Returns:
            The `Plan`.
        """
        goal = Goal(alpha, power, n)
        s = self.solve(goal, **parameters)
        target = None if n is not None else power
        return Plan(
            self.name, self.test, s.parameters, self.unit, alpha, target, s.n, s.power, s.power_se
        )


def _difference(difference: float | None) -> float:
    if difference is None:
        raise ValueError("give the difference to detect")
    if difference == 0 or not np.isfinite(difference):
        raise ValueError(f"difference {difference:g}: there is no effect to detect")
    return difference


def _rate(what: str, value: float) -> float:
    if not 0 < value < 1:
        raise ValueError(f"{what} = {value:g} must lie strictly between 0 and 1")
    return value


def _systems(k: int | None) -> int:
    """k, 4 by default."""
    if k is None:
        return 4
    if k < 2:
        raise ValueError(f"k = {k}: comparing systems needs at least two (k >= 2)")
    return k


def _binomial(goal: Goal, p0: float, p1: float, method: str, alternative: str) -> tuple[int, float]:
    options = dict(method=method, alternative=alternative)
    return goal.reach(
        lambda: pw.binomial_sample_size(p0, p1, goal.alpha, goal.power, **options),
        lambda n: pw.binomial_power(n, p0, p1, goal.alpha, **options),
    )


READINGS = {
    "pair": "d = p1 - p2, the gap between the two systems' win rates: p1 = (1 + d) / 2",
    "paper": "d = p1 - 0.5, the winner's rate above the null, as the interactive per-turn paper "
    "reads 'a win-rate difference of 0.1' (its Table 1: 196 turns): p1 = 0.5 + d",
}
"""What a win-rate difference d means; `pair` is the default."""


def _win_rate(
    goal: Goal, difference: float | None = None, method: str = "exact", reading: str = "pair"
) -> Solution:
    d = _difference(difference)
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; choose from {', '.join(READINGS)}")
    formula = "(1 + d) / 2" if reading == "pair" else "0.5 + d"
    p1 = (1 + d) / 2 if reading == "pair" else 0.5 + d
    p1 = _rate(f"the first system's win probability {formula}", p1)
    n, value = _binomial(goal, 0.5, p1, method, "two-sided")
    return Solution(f"difference {d:g}, p1 = {formula} = {p1:g} against 0.5, {method}", n, value)


def _sata_pair(
    goal: Goal,
    difference: float | None = None,
    rate: float | None = None,
    p10: float | None = None,
    p01: float | None = None,
) -> Solution:
    if p10 is not None or p01 is not None:
        if p10 is None or p01 is None or difference is not None or rate is not None:
            raise ValueError("give both p10 and p01, and then no difference or rate")
        about = f"p10 = {p10:g}, p01 = {p01:g}"
    elif difference is None:
        raise ValueError("give a difference (and a rate), or p10 and p01")
    else:
        d, r = _difference(difference), 0.5 if rate is None else rate
        _rate("the rate", r)
        pa = _rate("system A's selection rate r + d/2", r + d / 2)
        pb = _rate("system B's selection rate r - d/2", r - d / 2)
        p10, p01 = pa * (1 - pb), (1 - pa) * pb
        about = (
            f"difference {d:g}, rate {r:g}: A selected with {pa:g}, B with {pb:g}, "
            f"p10 = {p10:g}, p01 = {p01:g}"
        )
    n, value = goal.reach(
        lambda: pw.mcnemar_sample_size(p10, p01, goal.alpha, goal.power),
        lambda n: pw.mcnemar_power(n, p10, p01, goal.alpha),
    )
    return Solution(about, n, value)


def _soba_k(goal: Goal, difference: float | None = None, k: int | None = None) -> Solution:
    d, k = _difference(difference), _systems(k)
    top = _rate("the first system's share 1/k + d", 1 / k + d)
    rest = _rate("the other systems' share (1 - 1/k - d) / (k - 1)", (1 - top) / (k - 1))
    w = pw.effect_w([top] + [rest] * (k - 1))
    n, value = goal.reach(
        lambda: pw.chisquare_sample_size(w, k, goal.alpha, goal.power),
        lambda n: pw.chisquare_power(n, w, k, goal.alpha),
    )
    about = f"difference {d:g}, k = {k}: shares {top:g} and {k - 1} x {rest:g}, Cohen's w = {w:.4f}"
    return Solution(about, n, value)


COCHRAN_METHODS = {
    "analytic": "noncentral chi-square with k - 1 degrees of freedom, its noncentrality the Q "
    "statistic of the expected table, lambda = n k (k - 1) sum (p_j - pbar)^2 / (k sum p_j - "
    "sum p_j q_j - (sum p_j)^2) (after Cohen 1988, ch. 7); McNemar's for two systems",
    "monte-carlo": "the rejection rate of seeded simulations, with its standard error",
}


def _sata_k(
    goal: Goal,
    difference: float | None = None,
    rate: float | None = None,
    k: int | None = None,
    p: Sequence[float] | None = None,
    method: str = "analytic",
    simulations: int = 10_000,
    seed: int = 0,
) -> Solution:
    if p is not None:
        if difference is not None or rate is not None:
            raise ValueError("give the proportions p, or a difference (and a rate), not both")
        if k is not None and k != len(p):
            raise ValueError(f"k = {k} but {len(p)} proportions are given")
        p = [float(x) for x in p]
        about = f"proportions {', '.join(f'{x:g}' for x in p)}"
    elif difference is None:
        raise ValueError("give a difference (and a rate), or the proportions p")
    else:
        d, r, k = _difference(difference), 0.5 if rate is None else rate, _systems(k)
        _rate("the rate", r)
        p = [_rate("the first system's selection rate r + d", r + d)] + [r] * (k - 1)
        about = f"difference {d:g}, rate {r:g}, k = {k}: proportions {p[0]:g} and {k - 1} x {r:g}"
    if method not in COCHRAN_METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(COCHRAN_METHODS)}")
    if method == "analytic":
        n, value = goal.reach(
            lambda: pw.cochrans_q_sample_size(p, goal.alpha, goal.power),
            lambda n: pw.cochrans_q_power(n, p, goal.alpha),
        )
        return Solution(f"{about} (noncentral chi-square approximation)", n, value)
    simulation = dict(simulations=simulations, seed=seed)
    n, mc = goal.reach(
        lambda: pw.cochrans_q_sample_size(p, goal.alpha, goal.power, method, **simulation),
        lambda n: pw.cochrans_q_power_mc(n, p, goal.alpha, **simulation),
    )
    about += f" (Monte Carlo, {simulations} simulations, seed {seed})"
    return Solution(about, n, mc.power, mc.se)


def _sata_rate(
    goal: Goal,
    difference: float | None = None,
    expected: float | None = None,
    method: str = "exact",
    alternative: str = "two-sided",
) -> Solution:
    if expected is None:
        raise ValueError("give the expected rate")
    d, p0 = _difference(difference), _rate("the expected rate", expected)
    p1 = _rate("the true rate expected + d", p0 + d)
    n, value = _binomial(goal, p0, p1, method, alternative)
    about = f"difference {d:g}, p1 = {p1:g} against expected {p0:g}, {method}, {alternative}"
    return Solution(about, n, value)


def _labels(goal: Goal, difference: float | None = None, rate: float = 0.5) -> Solution:
    d, r = _difference(difference), _rate("the rate", rate)
    other = _rate("the second system's rate r + d", r + d)
    n, value = goal.reach(
        lambda: pw.two_proportion_sample_size(r, other, goal.alpha, goal.power),
        lambda n: pw.two_proportion_power(n, r, other, goal.alpha),
    )
    return Solution(f"difference {d:g}: rates {r:g} and {other:g}", n, value)


def _ratings(goal: Goal, difference: float | None = None, sd: float | None = None) -> Solution:
    d = _difference(difference)
    if sd is None or not sd > 0 or not np.isfinite(sd):
        raise ValueError(f"the standard deviation of a rating ({sd}) must be a positive number")
    if goal.n is not None and goal.n < 2:
        raise ValueError(f"n={goal.n}: the t-test needs at least 2 items per system")
    effect = d / sd
    n, value = goal.reach(
        lambda: pw.ttest_sample_size(effect, goal.alpha, goal.power),
        lambda n: pw.ttest_power(n, effect, goal.alpha),
    )
    return Solution(f"difference {d:g}, sd {sd:g}: Cohen's d = {effect:.4f}", n, value)


SIGN_TEST = "sign test (binomial test of p = 0.5)"
WIN_RATE = (
    "A win-rate difference d is read as --reading says: 'pair' (default), d = p1 - p2 between "
    "the two systems, so the first wins with probability p1 = (1 + d) / 2 (d = 0.1: 55:45); "
    "'paper', d = p1 - 0.5, the first system's win rate above the null, as the interactive "
    "per-turn paper's Table 1 reads 'a win-rate difference of 0.1' (60:40, 196 turns with "
    "--method tabled-z). The test is of H0: p = 0.5."
)

SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting(
            "ab",
            "decided votes",
            SIGN_TEST,
            "A/B votes between two systems, ties left out: the sign test",
            f"{WIN_RATE} Ties are left out: n counts the decided votes.",
            _win_rate,
            pw.BINOMIAL_METHODS,
        ),
        Setting(
            "soba-pair",
            "turns",
            SIGN_TEST,
            "select-one-best between two systems per turn: the sign test",
            f"{WIN_RATE} n counts the turns, each with one system selected.",
            _win_rate,
            pw.BINOMIAL_METHODS,
        ),
        Setting(
            "sata-pair",
            "turns",
            "McNemar's test (Connor 1987)",
            "select-all-that-apply, two systems: McNemar's test on the matched turns",
            "With baseline selection rate r and difference d, system A is selected with "
            "probability r + d/2 and B with r - d/2, independently, so the discordant "
            "proportions are p10 = pA (1 - pB) (only A selected) and p01 = (1 - pA) pB (only B); "
            "or give p10 and p01. n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 / delta^2 "
            "with psi = p10 + p01, delta = p10 - p01 (Connor 1987, Biometrics 43).",
            _sata_pair,
        ),
        Setting(
            "soba-k",
            "turns",
            "Pearson's chi-square goodness of fit to equal shares",
            "select-one-best among k systems: chi-square test of the selection counts",
            "One system is chosen with probability 1/k + d, the other k - 1 share the rest "
            "equally. Cohen's w = sqrt(sum (p_j - 1/k)^2 / (1/k)) = |d| k / sqrt(k - 1); the power is that of the "
            "noncentral chi-square with k - 1 degrees of freedom and noncentrality n w^2 beyond "
            "the central critical value (Cohen 1988, ch. 7).",
            _soba_k,
        ),
        Setting(
            "sata-k",
            "turns",
            "Cochran's Q",
            "select-all-that-apply among k systems: Cochran's Q",
            "One system is selected with probability r + d, the other k - 1 with r, each "
            "independently; or give every system's proportion p.",
            _sata_k,
            COCHRAN_METHODS,
        ),
        Setting(
            "sata-rate",
            "turns",
            "one-sample binomial test",
            "one system's select-all-that-apply rate against an expected rate",
            "The true rate is p1 = expected + d (d may be negative); the test is of "
            "H0: p = expected, exact by default.",
            _sata_rate,
            pw.BINOMIAL_METHODS,
        ),
        Setting(
            "labels",
            "labelled turns per system",
            "two-proportion z-test (pooled variance)",
            "a behaviour label's rate in two systems (independent samples, e.g. ABC-Eval)",
            "The systems' label rates are r and r + d. n per system = (z_a sqrt(2 pbar qbar) + "
            "z_b sqrt(p1 q1 + p2 q2))^2 / (p1 - p2)^2 with pbar = (p1 + p2) / 2 (Fleiss, Levin & "
            "Paik 2003, ch. 4, without continuity correction).",
            _labels,
        ),
        Setting(
            "ratings",
            "items per system",
            "two-sample t-test",
            "Likert ratings: the mean rating of two systems",
            "Cohen's d = difference / sd, sd the standard deviation of one rating. Power from "
            "the noncentral t with 2n - 2 degrees of freedom and noncentrality d sqrt(n / 2) "
            "(Cohen 1988, ch. 2).",
            _ratings,
        ),
    )
}
