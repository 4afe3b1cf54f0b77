"""How an evaluation runs (`RunOptions`) and the scores a user brings (`GivenScores`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from comperbench.metrics.cache import ScoreCache
from comperbench.metrics.runner import DEFAULT_BATCH

if TYPE_CHECKING:
    import pandas as pd

    Scores = pd.DataFrame | Mapping[str, pd.Series]


@dataclass(frozen=True)
class RunOptions:
    """How the metrics are run; nothing here changes a value of the table.

    Args:
        cache: keep scores in the on-disk score cache (True), recompute every score (False),
            or use this `ScoreCache`.
        batch_size: items per metric call.
        workers: processes for the n-gram metrics (None: $COMPERBENCH_WORKERS or one per CPU).
        scheduler: score on the Dask cluster of this scheduler address ("local": a cluster
            started here); None scores in this process.
        data_dir: the data root a benchmark's hooks read files from besides its table (e.g.
            SODA-EVAL's GPT-4 comments); None: the default root. Give the one the benchmark was
            loaded from.
    """

    cache: bool | ScoreCache = True
    batch_size: int = DEFAULT_BATCH
    workers: int | None = None
    scheduler: str | None = None
    data_dir: str | Path | None = None

    def score_cache(self) -> ScoreCache | None:
        """The score cache to read and fill, None for none.

        Returns:
            The given `ScoreCache`, the default one when `cache` is True, else None.
        """
        if isinstance(self.cache, ScoreCache):
            return self.cache
        return ScoreCache() if self.cache else None


DEFAULT_RUN = RunOptions()
"""The score cache on, batches of `DEFAULT_BATCH`, workers by the environment, no cluster."""


@dataclass(frozen=True)
class GivenScores:
    """The user's own scores, with what their metric needs.

    Args:
        scores: a DataFrame with an `item_id` column and one column per metric, or a mapping
            from metric name to a Series indexed by item_id; every item needs one score (NaN
            allowed) and an unknown id is refused.
        reference_free: whether the scores were made without the references (the protocol
            then keeps what it keeps for reference-free metrics); else they are taken to need
            references.
    """

    scores: Scores
    reference_free: bool = False
