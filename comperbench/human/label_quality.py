"""Dialogue quality for behaviour labels: the label file carries none, so a ratings file's
dialogue-level ratings of one aspect join the labelled dialogues by (dialogue, system), the
ratings' `item` naming the dialogue."""

from __future__ import annotations

import pandas as pd

from comperbench.errors import ComperbenchError


def dialogue_ratings(ratings: pd.DataFrame, file: str) -> pd.DataFrame:
    """The dialogue-level rows of a `ratings.read_ratings` table; an error when there are none."""
    rows = ratings[ratings["level"] == "dialogue"]
    if rows.empty:
        raise ComperbenchError(f"{file}: no dialogue-level ratings (level dialogue)")
    return rows


def quality_aspect(ratings: pd.DataFrame, aspect: str | None, file: str) -> str:
    """The aspect rating dialogue quality: `aspect` if rated, else the only dialogue-level one."""
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
    over annotators; an error naming the first labelled dialogue the ratings do not rate."""
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
