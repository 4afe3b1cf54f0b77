"""Behaviour labels per dialogue (ABC-Eval, Finch, Finch & Choi 2023): each dialogue's rate of a
behaviour, the rates of systems over their dialogues, and the sensitivity of each behaviour by
downsampling dialogues (the paper's Section 7.3 and Table 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.human.judgments.rating_analysis import system_means

PAPER_DIALOGUES = 32
"""Section 7.3: the paper downsamples to 32 conversations per bot before testing."""
POWER = 0.8
"""The share of seeded draws that must separate two systems (the paper's power of .80 in its
Limitations section)."""


def dialogue_rates(items: pd.DataFrame) -> pd.DataFrame:
    """Per (dialogue, system), from one behaviour's majority labels per turn (columns dialogue,
    system, value): turns, count (labelled 1) and rate, the share of its turns with the
    behaviour.

    Args:
        items: majority labels per turn: dialogue, system, value.

    Returns:
        One row per (dialogue, system): turns, count, rate.
    """
    grouped = items.groupby(["dialogue", "system"], sort=True)["value"]
    out = grouped.agg(turns="size", count="sum").reset_index()
    out["count"] = out["count"].astype(int)
    out["rate"] = out["count"] / out["turns"]
    return out


def system_dialogue_rates(per_dialogue: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per system: dialogues, mean of its dialogues' rates and a Student t interval over them
    (NaN below two dialogues), as `rating_analysis.system_means`.

    Args:
        per_dialogue: rows of `dialogue_rates`.
        confidence: the intervals' confidence level.

    Returns:
        One row per system: dialogues, mean, low, high.
    """
    frame = per_dialogue.assign(item_id=per_dialogue["dialogue"], value=per_dialogue["rate"])
    return system_means(frame, confidence).rename(columns={"items": "dialogues"})


def _z_p(ca: np.ndarray, ta: np.ndarray, cb: np.ndarray, tb: np.ndarray) -> np.ndarray:
    """Two-sided p of pooled two-proportion z-tests, elementwise over counts and turns of two
    systems; NaN where every turn carries the same label."""
    pooled = (ca + cb) / (ta + tb)
    se = np.sqrt(pooled * (1 - pooled) * (1 / ta + 1 / tb))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (ca / ta - cb / tb) / se
    return np.where(se > 0, 2 * sps.norm.sf(np.abs(z)), np.nan)


def _running_sums(
    rng: np.random.Generator, values: np.ndarray, draws: int, largest: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per draw (a seeded random order of the dialogues, rows (count, turns)) the sums of counts
    and turns over its first n dialogues, n = 1 .. largest: each size's sample drawn without
    replacement, the samples of one draw nested."""
    order = rng.random((draws, len(values))).argsort(axis=1)[:, :largest]
    return values[order, 0].cumsum(axis=1), values[order, 1].cumsum(axis=1)


def separation(
    a: np.ndarray, b: np.ndarray, *, alpha: float = 0.05, draws: int = 100, seed: int = 0
) -> dict:
    """How many dialogues per system a behaviour needs to separate two systems, from each
    system's dialogues as rows (count, turns). For every n from 2 to the smaller system's
    dialogues, `draws` seeded samples of n dialogues per system (without replacement) are
    pooled and compared with a two-proportion z-test, as the paper's Table 5 does at n = 32:
    `needed` is the smallest n from which at least `POWER` of the draws reject at `alpha`
    (None: no n up to the data's), `at_paper` the share rejecting at n = 32 (or the largest n
    available, `paper_n`).

    Args:
        a: the first system's dialogues, rows (count, turns).
        b: the second system's dialogues, rows (count, turns).
        alpha: the z-test's level.
        draws: seeded samples per n.
        seed: seed of the samples.

    Returns:
        needed (the smallest n separating them, or None), paper_n, at_paper and reason.
    """
    largest = min(len(a), len(b))
    if largest < 2:
        reason = "fewer than 2 dialogues of a system"
        return {"needed": None, "paper_n": largest, "at_paper": None, "reason": reason}
    rng = np.random.default_rng(seed)
    (ca, ta), (cb, tb) = (_running_sums(rng, v, draws, largest) for v in (a, b))
    shares = np.mean(_z_p(ca, ta, cb, tb) < alpha, axis=0)  # index n - 1
    failing = np.flatnonzero(shares[1:] < POWER)  # sizes 2 .. largest
    needed = 2 if failing.size == 0 else int(failing[-1]) + 3
    paper_n = min(PAPER_DIALOGUES, largest)
    return {
        "needed": needed if needed <= largest else None,
        "paper_n": paper_n,
        "at_paper": float(shares[paper_n - 1]),
        "reason": None,
    }


def sensitivity(
    per_dialogue: pd.DataFrame, *, alpha: float = 0.05, draws: int = 100, seed: int = 0
) -> pd.DataFrame:
    """`separation` of every pair of systems from one behaviour's `dialogue_rates`.

    Args:
        per_dialogue: rows of `dialogue_rates`.
        alpha: the z-test's level.
        draws: seeded samples per n.
        seed: seed of the samples.

    Returns:
        One row per pair of systems: system_a, system_b and the `separation` fields.
    """
    systems = sorted(per_dialogue["system"].unique())
    groups = {s: g[["count", "turns"]].to_numpy() for s, g in per_dialogue.groupby("system")}
    rows = []
    for i, a in enumerate(systems):
        for b in systems[i + 1 :]:
            found = separation(groups[a], groups[b], alpha=alpha, draws=draws, seed=seed)
            rows.append({"system_a": a, "system_b": b, **found})
    return pd.DataFrame(
        rows, columns=["system_a", "system_b", "needed", "paper_n", "at_paper", "reason"]
    )
