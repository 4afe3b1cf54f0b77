"""The single-model single-response evaluation of the interactive per-turn paper (Liu et al.,
"Single-Model Evaluation (SM)" and Table 6): at each turn the user sees one response and
selects it if it is appropriate, and the conversation continues with it either way.

Per system: dialogues, turns, turns selected and the win rate (selected / turns, the paper's
equation 1) with the normal-approximation (Wald) 95% interval, which is the interval Table 6
prints (its bounds follow from the printed rates and turn counts; Wilson's do not), beside the
Wilson interval; and the exact two-sided binomial test against the paper's null rate of 0.8
("we expect these models to perform well for at least 80% of the time"), which its Table 1 sizes
the setting for. The paper compares SM systems only by these intervals, and so does comperbench:
no test between systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from comperbench.stats.human.judgments.selection_effects import (
    Anchoring,
    Cascading,
    anchoring,
    cascading,
)
from comperbench.stats.multiplicity import Correction
from comperbench.stats.rates import Alternative, rate_tests, wilson_interval

PAPER_NULL = 0.8
"""The SM null rate of Liu et al. ("an empirical win-rate of 0.8 rather than 0.5")."""


@dataclass(frozen=True)
class SingleResponseAnalysis:
    """Everything `analyse_single_response` computes."""

    turns: int
    table: pd.DataFrame
    """Per system (index): dialogues, turns, selected, rate, wald_low, wald_high, wilson_low,
    wilson_high, and the binomial test's p_value and p_adjusted against `null`."""
    null: float
    alternative: str
    cascading: Cascading
    anchoring: Anchoring
    """Undefined here: one response per turn has no positions."""


def wald_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The normal-approximation interval p +- z sqrt(p (1 - p) / n), clipped to [0, 1]; a count
    may be fractional (a printed rate times n).

    Args:
        successes: the count of successes (may be fractional).
        n: the trials.
        confidence: the intervals' confidence level.

    Returns:
        (low, high).
    """
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="normal")
    return float(low), float(high)


def single_response_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The SATA turns that showed one response.

    Args:
        rows: selections as `read_selections` gives them.

    Returns:
        The rows of SATA turns that showed one response.
    """
    return rows[(rows["setting"] == "sata") & (rows["shown"].map(len) == 1)]


def analyse_single_response(
    rows: pd.DataFrame,
    *,
    null: float = PAPER_NULL,
    alternative: Alternative = "two-sided",
    correction: Correction = "holm",
) -> SingleResponseAnalysis:
    """The SM analysis of the single-response turns of `rows` (as `read_selections` gives
    them); the binomial tests of the systems are one family, adjusted by `correction`.

    Args:
        rows: selections as `read_selections` gives them.
        null: the selection rate under the null hypothesis.
        alternative: the side of the binomial tests.
        correction: the multiplicity correction of the tests.

    Returns:
        The `SingleResponseAnalysis`.
    """
    rows = single_response_rows(rows)
    if rows.empty:
        raise ValueError("no single-response turns (SATA turns that show one response)")
    frame = pd.DataFrame(
        {
            "system": rows["shown"].map(lambda s: s[0]),
            "dialogue": rows["dialogue"],
            "selected": rows["selected"].map(len),
        }
    )
    table = frame.groupby("system", sort=True).agg(
        dialogues=("dialogue", "nunique"), turns=("selected", "size"), selected=("selected", "sum")
    )
    table["rate"] = table["selected"] / table["turns"]
    for kind, interval in (("wald", wald_interval), ("wilson", wilson_interval)):
        bounds = [interval(k, n) for k, n in zip(table["selected"], table["turns"], strict=True)]
        table[f"{kind}_low"] = [low for low, _ in bounds]
        table[f"{kind}_high"] = [high for _, high in bounds]
    tests = rate_tests(table["selected"], table["turns"], null, alternative, correction)
    table[["p_value", "p_adjusted"]] = tests[["p_value", "p_adjusted"]]
    return SingleResponseAnalysis(
        len(rows),
        table,
        null,
        alternative,
        cascading(rows, "sata", correction),
        anchoring(rows, "sata"),
    )
