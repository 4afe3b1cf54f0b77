"""The ChatEval A/B protocol paper's NCME vote table (Lee et al., Table 4) and the findings of its
section 5.3 that follow from it.

The paper prints each pair's votes as percentages (A votes, B votes, tie), not as counts, so the
rows below are vote shares; who won a pair, and therefore each system's pairwise wins, does not
depend on the scale. Major and Distinct scores appear only in its figures and Fleiss' kappa only
as a range over all experiments: those need the per-annotator votes, which are not published.
"""

from __future__ import annotations

from functools import cache

import pandas as pd

from comperbench.common.errors import DataMissingError
from comperbench.human_io.vote_counts import comparisons_from_vote_counts
from comperbench.reproduction.published import PublishedFact
from comperbench.stats.human.votes.comparisons import pair_counts

BENCHMARK = "chateval-ncme"
_PAPER = "Lee et al., 'An Evaluation Protocol for Generative Conversational Systems'"
_TABLE4 = f"{_PAPER}, Table 4 (Chateval A/B paired test on NCME)"

# (system A, system B, A votes %, B votes %, tie %), in the table's order; "ParlAI (Controllable)",
# "OpenNMT (OS)" and "OpenNMT (Twitter)" as row heads are the same systems as in the B column.
NCME_VOTES: tuple[tuple[str, str, int, int, int], ...] = (
    ("NCME human 1", "Blender(2.7B)", 30, 40, 30),
    ("NCME human 1", "DialoGPT", 46, 41, 13),
    ("NCME human 1", "Transformer", 63, 21, 16),
    ("NCME human 1", "ParlAI(Controllable)", 70, 10, 20),
    ("NCME human 1", "CakeChat", 61, 19, 20),
    ("NCME human 1", "OpenNMT(OS)", 53, 21, 26),
    ("NCME human 1", "OpenNMT(Twitter)", 74, 14, 12),
    ("NCME human 1", "ConvAI2(seq2seq)", 70, 23, 7),
    ("NCME human 2", "Blender(2.7B)", 34, 36, 30),
    ("NCME human 2", "DialoGPT", 33, 31, 36),
    ("NCME human 2", "Transformer", 35, 29, 36),
    ("NCME human 2", "ParlAI(Controllable)", 39, 32, 29),
    ("NCME human 2", "CakeChat", 41, 33, 26),
    ("NCME human 2", "OpenNMT(OS)", 46, 29, 25),
    ("NCME human 2", "OpenNMT(Twitter)", 45, 31, 24),
    ("NCME human 2", "ConvAI2(seq2seq)", 44, 33, 23),
    ("Blender(2.7B)", "DialoGPT", 40, 36, 24),
    ("Blender(2.7B)", "Transformer", 39, 35, 26),
    ("Blender(2.7B)", "ParlAI(Controllable)", 39, 36, 25),
    ("Blender(2.7B)", "CakeChat", 32, 28, 40),
    ("Blender(2.7B)", "OpenNMT(OS)", 33, 30, 37),
    ("Blender(2.7B)", "OpenNMT(Twitter)", 39, 32, 29),
    ("Blender(2.7B)", "ConvAI2(seq2seq)", 35, 37, 28),
    ("DialoGPT", "Transformer", 55, 29, 16),
    ("DialoGPT", "ParlAI(Controllable)", 58, 18, 24),
    ("DialoGPT", "CakeChat", 49, 33, 18),
    ("DialoGPT", "OpenNMT(OS)", 47, 28, 25),
    ("DialoGPT", "OpenNMT(Twitter)", 70, 14, 16),
    ("DialoGPT", "ConvAI2(seq2seq)", 72, 19, 9),
    ("Transformer", "ParlAI(Controllable)", 40, 35, 25),
    ("Transformer", "CakeChat", 37, 36, 27),
    ("Transformer", "OpenNMT(OS)", 38, 41, 21),
    ("Transformer", "OpenNMT(Twitter)", 41, 31, 28),
    ("Transformer", "ConvAI2(seq2seq)", 45, 27, 28),
    ("ParlAI(Controllable)", "CakeChat", 35, 40, 25),
    ("ParlAI(Controllable)", "OpenNMT(OS)", 31, 50, 19),
    ("ParlAI(Controllable)", "OpenNMT(Twitter)", 42, 38, 20),
    ("ParlAI(Controllable)", "ConvAI2(seq2seq)", 39, 30, 31),
    ("CakeChat", "OpenNMT(OS)", 43, 46, 11),
    ("CakeChat", "OpenNMT(Twitter)", 46, 40, 14),
    ("CakeChat", "ConvAI2(seq2seq)", 46, 41, 13),
    ("OpenNMT(OS)", "OpenNMT(Twitter)", 43, 42, 15),
    ("OpenNMT(OS)", "ConvAI2(seq2seq)", 52, 35, 13),
    ("OpenNMT(Twitter)", "ConvAI2(seq2seq)", 48, 37, 15),
    ("Blender(2.7B)", "Blender(90M)", 35, 30, 35),
    ("Blender(2.7B)", "Blender(with persona)", 44, 40, 16),
)
RANKED = (
    "Blender(2.7B)",
    "NCME human 1",
    "NCME human 2",
    "DialoGPT",
    "OpenNMT(OS)",
    "Transformer",
    "CakeChat",
    "ParlAI(Controllable)",
    "ConvAI2(seq2seq)",
    "OpenNMT(Twitter)",
)
"""The NCME ranking by win count printed in section 5.3 ('Frequency'); Blender(90M) and
Blender(with persona) are only compared with Blender(2.7B) and are not ranked."""


@cache
def ncme_pair_wins() -> pd.DataFrame:
    """Per ranked system: pairs won and lost (more votes than the other system) in Table 4."""
    ranked = set(RANKED)
    votes = pd.DataFrame(
        [row for row in NCME_VOTES if {row[0], row[1]} <= ranked],
        columns=["system_a", "system_b", "wins_a", "wins_b", "ties"],
    )
    pairs = pair_counts(comparisons_from_vote_counts(votes, "Table 4"))
    won = pairs["wins_a"] > pairs["wins_b"]
    lost = pairs["wins_a"] < pairs["wins_b"]
    wins = pd.concat([pairs["system_a"][won], pairs["system_b"][lost]]).value_counts()
    losses = pd.concat([pairs["system_a"][lost], pairs["system_b"][won]]).value_counts()
    table = pd.DataFrame({"wins": wins, "losses": losses}).reindex(list(RANKED)).fillna(0)
    return table.astype(int)


def pair_wins(system: str) -> float:
    """Pairs of Table 4 that `system` won."""
    return float(ncme_pair_wins().at[system, "wins"])


def pair_losses(system: str) -> float:
    """Pairs of Table 4 that `system` lost."""
    return float(ncme_pair_wins().at[system, "losses"])


def rank_by_wins(system: str) -> float:
    """1 + the number of systems with more pairwise wins (tied systems share a rank)."""
    wins = ncme_pair_wins()["wins"]
    return float(1 + (wins > wins[system]).sum())


def vote_share_lead(winner: str, loser: str) -> float:
    """The winner's vote share minus the loser's, in points, in the pair's Table 4 row."""
    for a, b, share_a, share_b, _ in NCME_VOTES:
        if (a, b) == (winner, loser):
            return float(share_a - share_b)
        if (a, b) == (loser, winner):
            return float(share_b - share_a)
    raise KeyError(f"no Table 4 row for {winner} and {loser}")


def needs_raw_votes(what: str) -> float:
    """A finding that only the unpublished per-annotator votes can give."""
    raise DataMissingError(
        f"{what} needs the per-annotator ChatEval votes, which the paper does not publish"
    )


_RANK_SOURCE = f"{_PAPER}, section 5.3 'Frequency' (NCME ranking by win count)"
_ANNOTATORS = f"{_PAPER}, section 5.1 ('Fleiss' Kappa ... between 0.1 and 0.5')"

CHATEVAL_FACTS: tuple[PublishedFact, ...] = (
    *(
        PublishedFact(
            BENCHMARK,
            f"rank by pairwise wins, {system}",
            float(rank),
            _RANK_SOURCE,
            "Ours from Table 4's vote shares; tied systems share a rank.",
        )
        for rank, system in enumerate(RANKED, start=1)
    ),
    *(
        PublishedFact(
            BENCHMARK,
            f"pairwise wins, {system}",
            1.0,
            f"{_PAPER}, footnote 15 ('ConvAI2 and OpenNMT(Twitter) each only win once')",
        )
        for system in ("ConvAI2(seq2seq)", "OpenNMT(Twitter)")
    ),
    PublishedFact(
        BENCHMARK,
        "pairwise losses, Blender(2.7B)",
        1.0,
        f"{_PAPER}, section 5.3 ('Blender was preferred over every models except ConvAI2')",
    ),
    PublishedFact(
        BENCHMARK,
        "vote share lead, ConvAI2(seq2seq) over Blender(2.7B)",
        2.0,
        f"{_PAPER}, section 5.1 ('ConvAI2 is preferred over Blender by 2 %'); {_TABLE4}",
        "Percentage points.",
    ),
    PublishedFact(BENCHMARK, "Fleiss' kappa, lowest", 0.1, _ANNOTATORS),
    PublishedFact(BENCHMARK, "Fleiss' kappa, highest", 0.5, _ANNOTATORS),
)
