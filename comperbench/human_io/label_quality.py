"""Dialogue quality for behaviour labels: the label file carries none, so a ratings file's
dialogue-level ratings of one aspect join the labelled dialogues by (dialogue, system), the
ratings' `item` naming the dialogue; and votes between two dialogues (comparative quality) join
them by (item, system_a) and (item, system_b)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from comperbench.common.errors import ComperbenchError


def dialogue_ratings(ratings: pd.DataFrame, file: str) -> pd.DataFrame:
    """The dialogue-level rows of a `ratings.read_ratings` table; an error when there are none.

    Args:
        ratings: a `ratings.read_ratings` table.
        file: the file's name, for errors.

    Returns:
        Its dialogue-level rows.
    """
    rows = ratings[ratings["level"] == "dialogue"]
    if rows.empty:
        raise ComperbenchError(f"{file}: no dialogue-level ratings (level dialogue)")
    return rows


def quality_aspect(ratings: pd.DataFrame, aspect: str | None, file: str) -> str:
    """The aspect rating dialogue quality: `aspect` if rated, else the only dialogue-level one.

    Args:
        ratings: dialogue-level ratings.
        aspect: the aspect asked for, or None.
        file: the file's name, for errors.

    Returns:
        The aspect's name.
    """
    aspects = sorted(ratings["aspect"].unique())
    if aspect is None:
        if len(aspects) > 1:
            raise ComperbenchError(
                f"{file} rates {len(aspects)} dialogue-level aspects ({', '.join(aspects)}); "
                "name the quality rating with --quality"
            )
        return aspects[0]
    if aspect not in aspects:
        raise ComperbenchError(
            f"{file} has no dialogue-level ratings of {aspect!r}; it rates {', '.join(aspects)}"
        )
    return aspect


def join_quality(
    dialogues: pd.DataFrame, ratings: pd.DataFrame, aspect: str, file: str
) -> pd.Series:
    """Each labelled (dialogue, system) of `dialogues` (its index) with its mean `aspect` rating
    over annotators; an error naming the first labelled dialogue the ratings do not rate.

    Args:
        dialogues: rates indexed by (dialogue, system).
        ratings: dialogue-level ratings.
        aspect: the aspect rating quality.
        file: the file's name, for errors.

    Returns:
        The mean quality rating per labelled (dialogue, system), in `dialogues`' order.
    """
    rows = ratings[ratings["aspect"] == aspect].rename(columns={"item": "dialogue"})
    quality = rows.groupby(["dialogue", "system"], sort=True)["value"].mean()
    missing = dialogues.index.difference(quality.index)
    if len(missing):
        dialogue, system = missing[0]
        raise ComperbenchError(
            f"{file}: {len(missing)} of {len(dialogues)} labelled dialogues have no "
            f"dialogue-level {aspect!r} rating, the first dialogue {dialogue!r} of system "
            f"{system!r} (ratings join labels by item = dialogue and system)"
        )
    return quality.loc[dialogues.index]


def join_comparisons(
    dialogues: pd.DataFrame, votes: pd.DataFrame, file: str
) -> tuple[pd.DataFrame, np.ndarray]:
    """Per vote with a winner (ties left out: the paper's logistic model has two outcomes), the
    difference of its two dialogues' rates (columns of `dialogues`, indexed by dialogue and
    system) and the outcome (1: system_a's dialogue is better). A vote's two dialogues are the
    labelled (item, system_a) and (item, system_b); an error names the first vote without them.

    Args:
        dialogues: rates indexed by (dialogue, system).
        votes: rows of `vote_rows.read_vote_rows`.
        file: the file's name, for errors.

    Returns:
        (the rate differences, one row per vote with a winner; the outcomes).
    """
    decided = votes[votes["outcome"] != 0.5]
    a = pd.MultiIndex.from_arrays([decided["item"], decided["system_a"]])
    b = pd.MultiIndex.from_arrays([decided["item"], decided["system_b"]])
    missing = ~(a.isin(dialogues.index) & b.isin(dialogues.index))
    if missing.any():
        first = decided[missing].iloc[0]
        raise ComperbenchError(
            f"{file}: {int(missing.sum())} of {len(decided)} votes with a winner compare "
            f"dialogues that are not labelled, the first on item {first['item']!r} "
            f"({first['system_a']!r} / {first['system_b']!r}); a vote's item is the dialogue "
            "name both systems' dialogues share in the labels"
        )
    differences = dialogues.loc[a].to_numpy() - dialogues.loc[b].to_numpy()
    frame = pd.DataFrame(differences, columns=dialogues.columns)
    return frame, decided["outcome"].to_numpy(float)
