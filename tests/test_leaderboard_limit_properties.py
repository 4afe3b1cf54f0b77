"""The daily limit on any history of attempts (hypothesis): an attempt is admitted exactly when
the account has made fewer than the limit in the 24 hours before it, so no 24-hour window ever
holds more admitted submissions than the limit."""

from __future__ import annotations

import hashlib
import itertools
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comperbench.leaderboard.service import DAY, PER_DAY_ENV, Refused, admit
from comperbench.leaderboard.store import QuotaReached, Store
from comperbench.leaderboard.submission import Submission, SubmissionMeta

ACCOUNT = "alice"
gaps = st.lists(
    st.sampled_from([0.0, 60.0, DAY - 1, DAY, DAY + 1]) | st.floats(0, 2 * DAY),
    max_size=12,
)


def _submission(k: int) -> Submission:
    sha = hashlib.sha256(f"attempt {k}".encode()).hexdigest()
    return Submission(SubmissionMeta(f"m{k}"), f"m{k}.csv", sha, "csv", 1, {f"m{k}": []})


def _early(store: Store, k: int, now: float, limit: int) -> None:
    admit(store, ACCOUNT, sign_in=True, now=now)
    store.add(_submission(k), {}, now, ACCOUNT)


def _stored(store: Store, k: int, now: float, limit: int) -> None:
    store.add(_submission(k), {}, now, ACCOUNT, (now - DAY, limit))


@pytest.mark.parametrize("check", [_early, _stored], ids=["early", "stored"])
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 4), gaps)
def test_no_day_holds_more_admitted_submissions_than_the_limit(
    check: Callable[[Store, int, float, int], None], limit: int, steps: list[float]
) -> None:
    """Each check alone: `admit` before a store without quota, and the store's own quota."""
    times = list(itertools.accumulate(steps, initial=1_800_000_000.0))
    admitted: list[float] = []
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setenv(PER_DAY_ENV, str(limit))
        store = Store(Path(folder) / "lb.sqlite")
        for k, now in enumerate(times):
            recent = sum(now - DAY <= t <= now for t in admitted)
            try:
                check(store, k, now, limit)
            except (Refused, QuotaReached):
                assert recent >= limit
            else:
                assert recent < limit
                admitted.append(now)
    for start in admitted:
        assert sum(start <= t <= start + DAY for t in admitted) <= limit
