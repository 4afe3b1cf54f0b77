"""How much of dialogue quality behaviour labels explain (ABC-Eval, Finch, Finch & Choi 2023).

Section 7.2 (Figure 2): one univariate linear regression per behaviour, a dialogue's quality
rating (Likert, Qua_d) on its rate of the behaviour, scored by R-squared. Section 7.4 (Figure 3):
backwards stepwise regression, all behaviours as predictors at first, then one removed at a time,
choosing by a beam search (k = 100) the removal that lowers adjusted R-squared least. The paper's
McFadden pseudo-R-squared belongs to its logistic models of comparative quality (which of two
dialogues is better, Qua_c), which label and rating files do not carry."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm

BEAM = 100
"""Section 7.4: the beam width of the backward search."""


@dataclass(frozen=True)
class Fit:
    r_squared: float
    adjusted: float


def _fit(quality: np.ndarray, predictors: np.ndarray) -> Fit:
    model = sm.OLS(quality, sm.add_constant(predictors, has_constant="add")).fit()
    return Fit(float(model.rsquared), float(model.rsquared_adj))


def univariate(rates: pd.DataFrame, quality: np.ndarray) -> pd.DataFrame:
    """Per behaviour (a column of `rates`, one row per dialogue): R-squared and slope of the
    linear regression of quality on the rate, or the reason it is undefined."""
    rows = []
    for behaviour in rates.columns:
        x = rates[behaviour].to_numpy(float)
        reason = _undefined(quality, x[:, None])
        if reason:
            rows.append(
                {"behaviour": behaviour, "r_squared": None, "slope": None, "reason": reason}
            )
            continue
        model = sm.OLS(quality, sm.add_constant(x, has_constant="add")).fit()
        rows.append(
            {
                "behaviour": behaviour,
                "r_squared": float(model.rsquared),
                "slope": float(model.params[1]),
                "reason": None,
            }
        )
    return pd.DataFrame(rows, columns=["behaviour", "r_squared", "slope", "reason"])


def _undefined(quality: np.ndarray, predictors: np.ndarray) -> str | None:
    """Why a linear model of quality on these predictors cannot be fitted, or None."""
    n, k = predictors.shape
    if n < k + 2:
        return f"{k} predictor(s) need at least {k + 2} dialogues, there are {n}"
    if np.ptp(quality) == 0:
        return "every dialogue has the same quality rating"
    if np.any(np.ptp(predictors, axis=0) == 0):
        return "a behaviour has the same rate in every dialogue"
    return None


def stepwise(rates: pd.DataFrame, quality: np.ndarray, beam: int = BEAM) -> pd.DataFrame:
    """Backwards stepwise regression by beam search: per number of predictors, the best model
    found (highest adjusted R-squared), its R-squared, the behaviours it leaves out of the best
    larger model, and whether each of its predictors adds to adjusted R-squared
    (Figure 3's filled markers). Behaviours with one rate in every dialogue are left out."""
    usable = [b for b in rates.columns if np.ptp(rates[b].to_numpy(float)) > 0]
    x = rates[usable].to_numpy(float)
    reason = _undefined(quality, x) if usable else "no behaviour varies between dialogues"
    if reason:
        raise ValueError(reason)
    columns = {name: i for i, name in enumerate(usable)}

    def score(chosen: frozenset[str]) -> Fit:
        return _fit(quality, x[:, sorted(columns[c] for c in chosen)])

    fits = {frozenset(usable): score(frozenset(usable))}
    beam_sets = [frozenset(usable)]
    best = [frozenset(usable)]
    while len(beam_sets[0]) > 1:
        children = {c - {drop} for c in beam_sets for drop in c}
        for child in children - fits.keys():
            fits[child] = score(child)
        beam_sets = sorted(children, key=lambda c: (-fits[c].adjusted, sorted(c)))[:beam]
        best.append(beam_sets[0])
    rows, previous = [], None
    for chosen in best:
        fit = fits[chosen]
        if len(chosen) == 1:  # against the model with the intercept only, adjusted R-squared 0
            contributes = fit.adjusted > 0
        else:
            smaller = (fits.get(chosen - {c}) or score(chosen - {c}) for c in chosen)
            contributes = all(f.adjusted < fit.adjusted for f in smaller)
        rows.append(
            {
                "predictors": len(chosen),
                "behaviours": sorted(chosen),
                "dropped": sorted(previous - chosen) if previous else [],
                "r_squared": fit.r_squared,
                "adjusted": fit.adjusted,
                "all_contribute": contributes,
            }
        )
        previous = chosen
    return pd.DataFrame(rows)
