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
- Prompt validity (section 5.2, Appendix D Figure 11): whether a prompt helps tell the systems
  apart, "quantified using item-total correlations" with Henrysson's (1963) correction (the item
  left out of the total). The paper gives no formula for A/B votes; here the pairs of systems are
  the respondents: a prompt's score for a pair is its mean vote (1 first system, 0.5 tie, 0
  second), the total is the pair's mean vote over every other prompt, and the prompt's validity
  is the Pearson correlation of the two over the pairs voted on it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.stats.annotator_agreement.agreement import AgreementResult, agreement
from comperbench.stats.settings import DEFAULT_RESAMPLING, Resampling, takes_resampling

MIN_SHARED = 3
"""Cases an annotator must share with others, or pairs a prompt must have, for a correlation."""
ASPECT = "vote"
AGREEMENT = ("all agree", "one disagrees", "all disagree", "other split")
"""The kinds of (item, pair) case `agreement_breakdown` counts."""


@takes_resampling()
def vote_kappa(votes: pd.DataFrame, resampling: Resampling = DEFAULT_RESAMPLING) -> AgreementResult:
    """Fleiss' kappa of votes one per row, with a bootstrap interval over (item, pair) cases.

    Args:
        votes: rows of `human_io.vote_rows.read_vote_rows`.
        resampling: resamples, seed and interval method of the interval.

    Returns:
        Fleiss' kappa with its interval.
    """
    ratings = pd.DataFrame(
        {
            "item_id": votes["item"] + "\x1f" + votes["system_a"] + "\x1f" + votes["system_b"],
            "aspect": ASPECT,
            "annotator": votes["annotator"],
            "value": votes["outcome"].astype(float),
        }
    )
    return agreement(
        ratings,
        ASPECT,
        ("fleiss",),
        resampling=resampling,
    )[0]


def _others_mean(votes: pd.DataFrame) -> pd.Series:
    """Per vote, the mean vote of the other annotators on its case (NaN when none)."""
    case = votes.groupby(["item", "system_a", "system_b"])["outcome"]
    total, count = case.transform("sum"), case.transform("size")
    others = (count - 1).where(count > 1)
    return (total - votes["outcome"]) / others


def annotator_correlations(votes: pd.DataFrame) -> pd.DataFrame:
    """Per annotator: the cases shared with others and the Spearman correlation (with its
    p-value) of their votes against the others' mean; `reason` says why it is undefined (fewer
    than `MIN_SHARED` shared cases, or one side constant). Sorted by correlation, lowest first.

    Args:
        votes: rows of `human_io.vote_rows.read_vote_rows`.

    Returns:
        Indexed by annotator: shared, spearman, p, reason.
    """
    frame = votes.assign(others=_others_mean(votes)).dropna(subset=["others"])
    rows = []
    for annotator in sorted(votes["annotator"].unique()):
        own = frame[frame["annotator"] == annotator]
        what, sides = "case(s) shared with others", ("their votes", "the others' mean")
        rho, p, reason = _correlation(own["outcome"], own["others"], what, sides, sps.spearmanr)
        rows.append(
            {"annotator": annotator, "shared": len(own), "spearman": rho, "p": p, "reason": reason}
        )
    table = pd.DataFrame(rows).set_index("annotator")
    return table.sort_values("spearman", na_position="last", kind="stable")


def _correlation(
    x: pd.Series, y: pd.Series, what: str, sides: tuple[str, str], test: Callable
) -> tuple[float, float, str | None]:
    """(r, p, None) of `test`, or NaNs with why it is undefined: fewer than `MIN_SHARED` `what`,
    or one of the `sides` (x, y) constant."""
    if len(x) < MIN_SHARED:
        return np.nan, np.nan, f"{len(x)} {what} (at least {MIN_SHARED} needed)"
    if x.nunique() < 2 or y.nunique() < 2:
        return np.nan, np.nan, f"{sides[0] if x.nunique() < 2 else sides[1]} never vary"
    result = test(x, y)
    return float(result.statistic), float(result.pvalue), None


def prompt_validity(votes: pd.DataFrame) -> pd.DataFrame:
    """Per prompt (item): the pairs voted on it with a total from other prompts, and the Pearson
    correlation (with its p-value) of its mean vote per pair against the pair's mean vote over
    the other prompts; `reason` says why it is undefined. Sorted by correlation, lowest first.

    Args:
        votes: rows of `human_io.vote_rows.read_vote_rows`.

    Returns:
        Indexed by item: pairs, r, p, reason.
    """
    score = votes.groupby(["item", "system_a", "system_b"])["outcome"].mean().reset_index()
    pair = score.groupby(["system_a", "system_b"])["outcome"]
    total, count = pair.transform("sum"), pair.transform("size")
    score["rest"] = (total - score["outcome"]) / (count - 1).where(count > 1)
    score = score.dropna(subset=["rest"])
    rows = []
    for item in sorted(votes["item"].unique()):
        own = score[score["item"] == item]
        sides = ("its votes", "the other prompts' votes")
        r, p, reason = _correlation(own["outcome"], own["rest"], "pair(s)", sides, sps.pearsonr)
        rows.append({"item": item, "pairs": len(own), "r": r, "p": p, "reason": reason})
    table = pd.DataFrame(rows).set_index("item")
    return table.sort_values("r", na_position="last", kind="stable")


def agreement_breakdown(votes: pd.DataFrame) -> pd.DataFrame:
    """Per number of votes an item's pair received (rows), how many such (item, pair) cases
    have every vote alike, all but one alike, every vote different (three votes: a, b and tie
    once each), or another split.

    Args:
        votes: rows of `human_io.vote_rows.read_vote_rows`.

    Returns:
        Votes per case x `AGREEMENT` counts.
    """
    cases = votes.groupby(["item", "system_a", "system_b"])["outcome"]
    sizes = cases.size()
    distinct = cases.nunique()
    largest = cases.agg(lambda o: int(o.value_counts().iloc[0]))
    kind = np.select(
        [distinct == 1, (largest == sizes - 1) & (sizes >= 3), (distinct == sizes) & (sizes >= 2)],
        list(AGREEMENT[:3]),
        default=AGREEMENT[3],
    )
    table = pd.crosstab(sizes.rename("votes"), pd.Series(kind, index=sizes.index, name="agreement"))
    return table.reindex(columns=list(AGREEMENT), fill_value=0)
