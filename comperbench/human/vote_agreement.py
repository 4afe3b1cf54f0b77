"""Agreement of A/B votes one per row, as the ChatEval protocol paper measures it (Lee et al.,
"An Evaluation Protocol for Generative Conversational Systems", section 5.1):

- Fleiss' kappa (Fleiss 1971) over the (item, pair) cases, each vote a nominal category (the
  first system of the pair, the second, or a tie); the paper finds it between 0.1 and 0.5. Cases
  with different numbers of votes are allowed (the generalisation in `stats.agreement`), cases
  with one vote left out.
- Each annotator against the others ("Annotator Correlation", Figure 1): the Spearman
  correlation, over the cases an annotator voted on that others voted on too, between the
  annotator's vote (1 first system, 0.5 tie, 0 second) and the mean vote of the others; the
  paper plots these as a histogram and reads the negative ones as likely random guessing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.agreement import AgreementResult, agreement

MIN_SHARED = 3
"""Cases an annotator must share with others for a correlation."""
ASPECT = "vote"


def vote_kappa(votes: pd.DataFrame, n_resamples: int = 1000, seed: int = 0) -> AgreementResult:
    """Fleiss' kappa of `votes.read_vote_rows` rows, with a bootstrap interval over cases."""
    ratings = pd.DataFrame(
        {
            "item_id": votes["item"] + "\x1f" + votes["system_a"] + "\x1f" + votes["system_b"],
            "aspect": ASPECT,
            "annotator": votes["annotator"],
            "value": votes["outcome"].astype(float),
        }
    )
    return agreement(ratings, ASPECT, ("fleiss",), n_resamples=n_resamples, seed=seed)[0]


def _others_mean(votes: pd.DataFrame) -> pd.Series:
    """Per vote, the mean vote of the other annotators on its case (NaN when none)."""
    case = votes.groupby(["item", "system_a", "system_b"])["outcome"]
    total, count = case.transform("sum"), case.transform("size")
    others = (count - 1).where(count > 1)
    return (total - votes["outcome"]) / others


def annotator_correlations(votes: pd.DataFrame) -> pd.DataFrame:
    """Per annotator: the cases shared with others and the Spearman correlation (with its
    p-value) of their votes against the others' mean; `reason` says why it is undefined (fewer
    than `MIN_SHARED` shared cases, or one side constant). Sorted by correlation, lowest first."""
    frame = votes.assign(others=_others_mean(votes)).dropna(subset=["others"])
    rows = []
    for annotator in sorted(votes["annotator"].unique()):
        own = frame[frame["annotator"] == annotator]
        rho, p, reason = np.nan, np.nan, None
        if len(own) < MIN_SHARED:
            reason = f"{len(own)} case(s) shared with others (at least {MIN_SHARED} needed)"
        elif own["outcome"].nunique() < 2 or own["others"].nunique() < 2:
            side = "their votes" if own["outcome"].nunique() < 2 else "the others' mean"
            reason = f"{side} never vary"
        else:
            result = sps.spearmanr(own["outcome"], own["others"])
            rho, p = float(result.statistic), float(result.pvalue)
        rows.append(
            {"annotator": annotator, "shared": len(own), "spearman": rho, "p": p, "reason": reason}
        )
    table = pd.DataFrame(rows).set_index("annotator")
    return table.sort_values("spearman", na_position="last", kind="stable")
