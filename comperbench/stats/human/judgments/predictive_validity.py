"""How much of dialogue quality behaviour labels explain (ABC-Eval, Finch, Finch & Choi 2023).

Section 7.2 (Figure 2): one univariate regression per behaviour. Dialogue-level Likert quality
(Qua_d) is regressed linearly on a dialogue's rate of the behaviour, scored by R-squared;
comparative quality (Qua_c, which of two dialogues is better) by logistic regression, scored by
McFadden's pseudo-R-squared; here its predictor is the difference of the two dialogues' rates.
Section 7.4 (Figure 3): backwards stepwise regression, all behaviours as predictors at first, then
one removed at a time, choosing by a beam search (k = 100) the removal that lowers adjusted
R-squared (or adjusted pseudo-R-squared) least."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import (
    ConvergenceWarning,
    PerfectSeparationError,
    PerfectSeparationWarning,
)

BEAM = 100
"""Section 7.4: the beam width of the backward search."""
Kind = Literal["linear", "logistic"]


@dataclass(frozen=True)
class Fit:
    r_squared: float
    """R-squared (linear) or McFadden's pseudo-R-squared (logistic)."""
    adjusted: float
    slope: float
    """The first predictor's coefficient."""


def _fit(outcome: np.ndarray, predictors: np.ndarray, kind: Kind) -> Fit:
    design = sm.add_constant(predictors, has_constant="add")
    if kind == "linear":
        model = sm.OLS(outcome, design).fit()
        return Fit(float(model.rsquared), float(model.rsquared_adj), float(model.params[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("error", ConvergenceWarning)
        try:
            model = sm.Logit(outcome, design).fit(disp=0)
        except (PerfectSeparationWarning, PerfectSeparationError) as exc:
            raise ValueError("the predictors separate the outcomes perfectly") from exc
        except ConvergenceWarning as exc:
            raise ValueError("the logistic regression does not converge") from exc
    # McFadden's adjusted pseudo-R-squared: 1 - (log-likelihood - k) / null log-likelihood
    adjusted = 1 - (model.llf - predictors.shape[1]) / model.llnull
    return Fit(float(model.prsquared), float(adjusted), float(model.params[1]))


def univariate(rates: pd.DataFrame, outcome: np.ndarray, kind: Kind = "linear") -> pd.DataFrame:
    """Per behaviour (a column of `rates`, one row per dialogue, or per comparison the rate
    difference): R-squared (or McFadden's pseudo-R-squared) and slope of the regression of the
    outcome on it, or the reason it is undefined.

    Args:
        rates: behaviour rates, one column per behaviour.
        outcome: the quality (linear) or the 0/1 outcome (logistic) per row.
        kind: linear or logistic regression.

    Returns:
        One row per behaviour: its fit or the reason it is undefined.
    """
    rows = []
    for behaviour in rates.columns:
        x = rates[behaviour].to_numpy(float)[:, None]
        reason = _undefined(outcome, x, kind)
        fit = None
        if not reason:
            try:
                fit = _fit(outcome, x, kind)
            except ValueError as exc:
                reason = str(exc)
        rows.append(
            {
                "behaviour": behaviour,
                "r_squared": fit.r_squared if fit else None,
                "slope": fit.slope if fit else None,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows, columns=["behaviour", "r_squared", "slope", "reason"])


def _undefined(outcome: np.ndarray, predictors: np.ndarray, kind: Kind) -> str | None:
    """Why a model of the outcome on these predictors cannot be fitted, or None."""
    n, k = predictors.shape
    unit = "dialogues" if kind == "linear" else "comparisons"
    if n < k + 2:
        return f"{k} predictor(s) need at least {k + 2} {unit}, there are {n}"
    if np.ptp(outcome) == 0:
        return f"every one of the {unit} has the same quality"
    if np.any(np.ptp(predictors, axis=0) == 0):
        return f"a behaviour has the same value in every one of the {unit}"
    return None


def stepwise(
    rates: pd.DataFrame, quality: np.ndarray, kind: Kind = "linear", beam: int = BEAM
) -> pd.DataFrame:
    """Backwards stepwise regression by beam search: per number of predictors, the best model
    found (highest adjusted R-squared, or adjusted pseudo-R-squared), its (pseudo-)R-squared,
    the behaviours it leaves out of the best larger model, and whether each of its predictors
    adds to the adjusted value (Figure 3's filled markers). Behaviours with one rate in every dialogue are left out.

    Args:
        rates: behaviour rates, one column per behaviour.
        quality: the quality (linear) or the 0/1 outcome (logistic) per row.
        kind: linear or logistic regression.
        beam: models kept per number of predictors.

    Returns:
        One row per number of predictors.
    """
    usable = [b for b in rates.columns if np.ptp(rates[b].to_numpy(float)) > 0]
    x = rates[usable].to_numpy(float)
    reason = _undefined(quality, x, kind) if usable else "no behaviour varies between dialogues"
    if reason:
        raise ValueError(reason)
    columns = {name: i for i, name in enumerate(usable)}

    def score(chosen: frozenset[str]) -> Fit:
        return _fit(quality, x[:, sorted(columns[c] for c in chosen)], kind)

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
