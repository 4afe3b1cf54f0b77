"""The analysis of ratings per aspect: inter-annotator agreement and system means.

A system's mean is the mean over its rated items of each item's mean rating, with a Student t
interval over those items (the item, not the single rating, is the independent unit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.annotator_agreement.agreement import AgreementResult, agreement
from comperbench.stats.multiplicity import Correction, adjust
from comperbench.stats.resampling import MIN_BOOTSTRAP_UNITS
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

RATING_AGREEMENT = ("alpha-interval", "alpha-ordinal", "fleiss", "cohen")


@dataclass(frozen=True)
class RatingAnalysis:
    aspect: str
    agreement: list[AgreementResult]
    means: pd.DataFrame
    """Per system: items, ratings, mean, low, high (t interval over item means), note."""


def interval_note(n_items: int) -> str | None:
    """Why a t interval over `n_items` item means is missing or not informative, or None.

    Args:
        n_items: the items rated.

    Returns:
        The note, or None.
    """
    if n_items >= MIN_BOOTSTRAP_UNITS:
        return None
    if n_items < 2:
        return f"only {n_items} item: no interval"
    return (
        f"only {n_items} items: an interval over fewer than {MIN_BOOTSTRAP_UNITS} is not "
        "informative"
    )


def system_means(ratings: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per system (rows item_id, system, value of one aspect): the mean of its item means and a
    Student t interval over them (NaN below two items), with a note below 10 items.

    Args:
        ratings: one aspect's rows: item_id, system, value.
        confidence: the intervals' confidence level.

    Returns:
        One row per system: items, ratings, mean, low, high, note; highest mean first.
    """
    items = ratings.groupby(["system", "item_id"], sort=True)["value"].agg(["mean", "size"])
    out = []
    for system, group in items.groupby(level="system", sort=True):
        values = group["mean"].to_numpy()
        mean, n = float(values.mean()), values.size
        low = high = np.nan
        if n >= 2:
            sem = float(sps.sem(values))
            low, high = (
                sps.t.interval(confidence, n - 1, loc=mean, scale=sem) if sem else (mean,) * 2
            )
        out.append(
            {
                "system": system,
                "items": n,
                "ratings": int(group["size"].sum()),
                "mean": mean,
                "low": float(low),
                "high": float(high),
                "note": interval_note(n),
            }
        )
    return pd.DataFrame(out).set_index("system").sort_values("mean", ascending=False)


@takes_resampling()
def analyse_ratings(
    ratings: pd.DataFrame,
    aspect: str,
    *,
    resampling: Resampling = DEFAULT_RESAMPLING,
    confidence: float = 0.95,
) -> RatingAnalysis:
    """Agreement (`RATING_AGREEMENT`) and system means of one aspect's ratings.

    Args:
        ratings: columns item_id, system, aspect, annotator, value.
        aspect: the aspect analysed.
        resampling: resamples, seed and interval method of the agreement's intervals.
        confidence: the intervals' confidence level.

    Returns:
        The `RatingAnalysis`.
    """
    rows = ratings[ratings["aspect"] == aspect]
    if rows.empty:
        raise ValueError(f"no ratings of aspect {aspect!r}")
    found = agreement(
        rows,
        aspect,
        RATING_AGREEMENT,
        resampling=resampling,
        confidence=confidence,
    )
    return RatingAnalysis(aspect, found, system_means(rows, confidence))


def likert_t_tests(ratings: pd.DataFrame, correction: Correction = "holm") -> pd.DataFrame:
    """Student's two-sample t-test (pooled variance, n_a + n_b - 2 degrees of freedom) between
    the mean ratings of every pair of systems, one aspect's rows (item_id, system, value), each
    item's mean rating the unit: the t-tests of the ABC-Eval paper's Table 5 for Dialogue Likert
    (Finch, Finch & Choi 2023, Section 7.3). `p_adjusted` corrects the family of pairs; a pair
    without two items each or without variance is NaN with its reason.

    Args:
        ratings: one aspect's rows: item_id, system, value.
        correction: the multiplicity correction of the family of pairs.

    Returns:
        One row per pair of systems: means, t, dof, p_value, reason, p_adjusted.
    """
    items = ratings.groupby(["system", "item_id"], sort=True)["value"].mean()
    groups = {s: g.to_numpy() for s, g in items.groupby(level="system", sort=True)}
    rows = []
    names = list(groups)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            rows.append({"system_a": a, "system_b": b, **_student_t(groups[a], groups[b])})
    columns = ["system_a", "system_b", "mean_a", "mean_b", "t", "dof", "p_value", "reason"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["p_adjusted"] = adjust(frame["p_value"].to_numpy(float), correction)
    return frame


def _student_t(a: np.ndarray, b: np.ndarray) -> dict:
    n_a, n_b = a.size, b.size
    out = {"mean_a": float(a.mean()), "mean_b": float(b.mean()), "t": np.nan, "dof": n_a + n_b - 2}
    if n_a < 2 or n_b < 2:
        return {**out, "p_value": np.nan, "reason": "a system has fewer than 2 rated dialogues"}
    pooled = ((n_a - 1) * a.var(ddof=1) + (n_b - 1) * b.var(ddof=1)) / (n_a + n_b - 2)
    if pooled == 0:
        return {**out, "p_value": np.nan, "reason": "every rating of both systems is the same"}
    t = (a.mean() - b.mean()) / np.sqrt(pooled * (1 / n_a + 1 / n_b))
    p = 2 * sps.t.sf(abs(t), n_a + n_b - 2)
    return {**out, "t": float(t), "p_value": float(p), "reason": None}
