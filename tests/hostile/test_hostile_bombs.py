"""Each hostile submission file of `bombs.py` is refused with a located message, parsed in a
fresh process whose peak memory may grow by at most 300 MB (its CPU time is measured by
`perf/submission_bombs.py`, not asserted)."""

from __future__ import annotations

import pytest
from bombs import BOMBS, jsonl_malformed, parquet_lists, zip_corrupt_lzma
from measure import parse_measured

from comperbench.leaderboard.items import ItemIndex
from comperbench.leaderboard.submission import SubmissionError, SubmissionMeta, parse

MEMORY = 300 * 1024 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("bomb", list(BOMBS))
def test_a_bomb_is_refused_in_bounded_memory(bomb: str) -> None:
    name, data = BOMBS[bomb]()
    found = parse_measured(name, data)
    assert found.refusal is not None, f"{name} was accepted"
    head = found.refusal.splitlines()[0]
    assert head.startswith(f"submission {name} was rejected ("), head
    assert len(found.refusal.splitlines()) <= 13, found.refusal
    assert found.grown_bytes < MEMORY, (name, found.grown_bytes)
    assert found.traced_bytes < MEMORY, (name, found.traced_bytes)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (jsonl_malformed, "reading stopped at line 1000): 1000 malformed lines;"),
        (parquet_lists, "column 'score': must be numbers, found list<element: double>"),
        (zip_corrupt_lzma, "not a readable zip file (Corrupt input data)"),
    ],
)
def test_small_bombs_are_refused_with_what_is_wrong(build, expected: str) -> None:
    name, data = build()
    with pytest.raises(SubmissionError) as info:
        parse(name, data, SubmissionMeta("m"), ItemIndex(["usr-topical"]))
    assert expected in str(info.value)
