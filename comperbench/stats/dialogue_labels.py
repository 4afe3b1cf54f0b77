"""Behaviour labels per dialogue (ABC-Eval, Finch, Finch & Choi 2023): each dialogue's rate of a
behaviour, the rates of systems over their dialogues, and the sensitivity of each behaviour by
downsampling dialogues (the paper's Section 7.3 and Table 5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.rating_analysis import system_means

PAPER_DIALOGUES = 32
"""Section 7.3: the paper downsamples to 32 conversations per bot before testing."""
POWER = 0.8
"""The share of seeded draws that must separate two systems (the paper's power of .80 in its
Limitations section)."""


def dialogue_rates(items: pd.DataFrame) -> pd.DataFrame:
    """Per (dialogue, system), from one behaviour's majority labels per turn (columns dialogue,
    system, value): turns, count (labelled 1) and rate, the share of its turns with the
    behaviour."""
    grouped = items.groupby(["dialogue", "system"], sort=True)["value"]
    out = grouped.agg(turns="size", count="sum").reset_index()
    out["count"] = out["count"].astype(int)
    out["rate"] = out["count"] / out["turns"]
    return out


def system_dialogue_rates(per_dialogue: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per system: dialogues, mean of its dialogues' rates and a Student t interval over them
    (NaN below two dialogues), as `rating_analysis.system_means`."""
    frame = per_dialogue.assign(item_id=per_dialogue["dialogue"], value=per_dialogue["rate"])
    return system_means(frame, confidence).rename(columns={"items": "dialogues"})


def _z_p(counts: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Two-sided p of pooled two-proportion z-tests, rows of (count_a, count_b) over (turns_a,
    turns_b); NaN where every turn carries the same label."""
    pooled = counts.sum(axis=1) / turns.sum(axis=1)
    se = np.sqrt(pooled * (1 - pooled) * (1 / turns[:, 0] + 1 / turns[:, 1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (counts[:, 0] / turns[:, 0] - counts[:, 1] / turns[:, 1]) / se
    return np.where(se > 0, 2 * sps.norm.sf(np.abs(z)), np.nan)


def _draw(
    rng: np.random.Generator, values: np.ndarray, n: int, draws: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sums of counts and turns over `n` dialogues drawn without replacement, `draws` times."""
    picks = rng.random((draws, len(values))).argsort(axis=1)[:, :n]
    return values[picks, 0].sum(axis=1), values[picks, 1].sum(axis=1)


def separation(
    a: np.ndarray, b: np.ndarray, *, alpha: float = 0.05, draws: int = 100, seed: int = 0
) -> dict:
    """How many dialogues per system a behaviour needs to separate two systems, from each
    system's dialogues as rows (count, turns). For every n from 2 to the smaller system's
    dialogues, `draws` seeded samples of n dialogues per system (without replacement) are
    pooled and compared with a two-proportion z-test, as the paper's Table 5 does at n = 32:
    `needed` is the smallest n from which at least `POWER` of the draws reject at `alpha`
    (None: no n up to the data's), `at_paper` the share rejecting at n = 32 (or the largest n
    available, `paper_n`)."""
    largest = min(len(a), len(b))
    if largest < 2:
        reason = "fewer than 2 dialogues of a system"
        return {"needed": None, "paper_n": largest, "at_paper": None, "reason": reason}
    rng = np.random.default_rng(seed)
    shares = {}
    for n in range(2, largest + 1):
        (ca, ta), (cb, tb) = _draw(rng, a, n, draws), _draw(rng, b, n, draws)
        p = _z_p(np.column_stack([ca, cb]), np.column_stack([ta, tb]))
        shares[n] = float(np.mean(p < alpha))
    powered = [n for n in shares if all(shares[m] >= POWER for m in range(n, largest + 1))]
    paper_n = min(PAPER_DIALOGUES, largest)
    return {
        "needed": min(powered) if powered else None,
        "paper_n": paper_n,
        "at_paper": shares[paper_n],
        "reason": None,
    }


def sensitivity(
    per_dialogue: pd.DataFrame, *, alpha: float = 0.05, draws: int = 100, seed: int = 0
) -> pd.DataFrame:
    """`separation` of every pair of systems from one behaviour's `dialogue_rates`."""
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
