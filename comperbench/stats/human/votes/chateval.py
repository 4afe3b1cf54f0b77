"""The ChatEval A/B protocol's scores and ranking (Lee et al., "An Evaluation Protocol for
Generative Conversational Systems", section 2.2 and Figure 2).

Section 2.2, after WMT's ranking scores (Bojar 2018, ch. 7.1), counts a system's wins, losses
and ties against another and defines

- the Major score, Major(win) = win / (win + loss) and Major(loss) = loss / (win + loss): ties
  are left out, and the score builds the pairwise ranking;
- the Distinct score, Distinct(win) = win / (win + loss + tie) and Distinct(loss) likewise, ties
  in the denominator, "how frequently the systems were judged to be better than or equal to the
  others"; Figure 3 also plots Distinct(tie) = tie / (win + loss + tie);
- the system win count ("frequency"): the number of other systems a system wins over, e.g. two
  when it beats DialoGPT and ConvAI2. Figure 2 orders the systems by it, colours each pair's cell
  by its Major score and prints the Distinct score in it.

Every vote counts once (the scores are not taken over a majority vote per item). A system "wins
over" another when its Major(win) against it is above 0.5; at exactly 0.5 the pair is even, and
when every vote of a pair is a tie its Major score is undefined (no decided vote), which the
paper does not discuss; such a pair counts as neither won nor lost. Systems with the same win
count share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from comperbench.stats.human.votes.comparisons import Comparisons, pair_counts, win_tie_loss


def _scores(wins: pd.Series, losses: pd.Series, ties: pd.Series) -> dict[str, pd.Series]:
    decided, total = wins + losses, wins + losses + ties
    return {
        "major": (wins / decided.where(decided > 0)).astype(float),
        "distinct": (wins / total.where(total > 0)).astype(float),
        "distinct_tie": (ties / total.where(total > 0)).astype(float),
    }


def pair_scores(c: Comparisons) -> pd.DataFrame:
    """One row per ordered pair that met (system, opponent): wins, losses and ties of `system`
    against `opponent`, its Major(win), Distinct(win) and Distinct(tie); Major is NaN when every
    vote of the pair is a tie.

    Args:
        c: the comparisons.

    Returns:
        One row per ordered pair of systems that met.
    """
    counts = pair_counts(c)
    forward = counts.rename(
        columns={"system_a": "system", "system_b": "opponent", "wins_a": "wins", "wins_b": "losses"}
    )
    backward = counts.rename(
        columns={"system_b": "system", "system_a": "opponent", "wins_b": "wins", "wins_a": "losses"}
    )
    table = pd.concat([forward, backward], ignore_index=True)
    table = table[["system", "opponent", "wins", "losses", "ties"]]
    scores = _scores(table["wins"], table["losses"], table["ties"])
    return table.assign(**scores).sort_values(["system", "opponent"], ignore_index=True)


def win_count_ranking(c: Comparisons) -> pd.DataFrame:
    """Per system, ordered by its win count (most first, then by name): the opponents it wins
    over, loses to, is even with (Major 0.5) or only tied (Major undefined), its shared rank, and
    its Major(win), Distinct(win) and Distinct(tie) over all its votes.

    Args:
        c: the comparisons.

    Returns:
        One row per system, in ranking order.
    """
    pairs = pair_scores(c)
    major = pairs.groupby("system")["major"]
    table = pd.DataFrame(
        {
            "won": major.apply(lambda m: int((m > 0.5).sum())),
            "lost": major.apply(lambda m: int((m < 0.5).sum())),
            "even": major.apply(lambda m: int((m == 0.5).sum())),
            "all_ties": major.apply(lambda m: int(m.isna().sum())),
        }
    )
    wtl = win_tie_loss(c).loc[table.index]
    table = table.assign(**_scores(wtl["wins"], wtl["losses"], wtl["ties"]))
    table["rank"] = table["won"].rank(method="min", ascending=False).astype(int)
    order = np.lexsort((table.index.astype(str), -table["won"].to_numpy()))
    return table.iloc[order]


@dataclass(frozen=True)
class ChatEvalScores:
    """The per-pair scores and the win-count ranking of one set of comparisons."""

    pairs: pd.DataFrame
    ranking: pd.DataFrame

    @classmethod
    def of(cls, c: Comparisons) -> ChatEvalScores:
        """The ChatEval protocol's scores of the comparisons `c`.

        Args:
            c: the comparisons.

        Returns:
            The pair scores and the win-count ranking of `c`.
        """
        return cls(pair_scores(c), win_count_ranking(c))

    def matrix(self, column: str) -> pd.DataFrame:
        """`column` of every pair as a matrix, rows the winners and columns the losers, both in
        the ranking's order (Figure 2's layout); NaN where two systems never met.

        Args:
            column: a column of the pair scores, e.g. Major(win).

        Returns:
            Systems x systems, NaN where two systems never met.
        """
        order = list(self.ranking.index)
        square = self.pairs.pivot(index="system", columns="opponent", values=column)
        return square.reindex(index=order, columns=order).astype(float)
