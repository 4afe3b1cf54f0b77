"""The one interval method of most human-evaluation statistics: bootstrap percentiles."""

from __future__ import annotations

from comperbench.common.errors import ComperbenchError
from comperbench.stats.settings import Resampling


def percentile_only(resampling: Resampling, what: str) -> Resampling:
    """`resampling`, unless it asks for another interval than the percentile bootstrap.

    Args:
        resampling: the settings a statistic was given.
        what: the statistic, named in the error.

    Returns:
        `resampling` itself.

    Raises:
        ComperbenchError: its `ci` is not "percentile".
    """
    if resampling.ci != "percentile":
        raise ComperbenchError(
            f"{what} has percentile bootstrap intervals only, not ci={resampling.ci!r}"
        )
    return resampling
