"""USR loaders against the counts measured in usr/SOURCE.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from comperbench import load_benchmark


@pytest.mark.parametrize(
    ("name", "responses", "contexts", "systems", "annotators"),
    [("usr-topical", 360, 60, 6, 5), ("usr-persona", 300, 60, 5, 4)],
)
def test_counts_match_source(
    data_root: Path, name: str, responses: int, contexts: int, systems: int, annotators: int
) -> None:
    bench = load_benchmark(name)
    frame = bench.to_pandas()
    assert len(frame) == responses
    assert frame.dialogue_id.nunique() == contexts
    assert frame.system.nunique() == systems
    assert frame.item_id.is_unique
    ratings = bench.ratings()
    assert len(ratings) == responses * 6 * 3
    assert ratings.annotator.nunique() == annotators
    assert set(ratings.aspect) == set(bench.metadata.aspect_names)
    for aspect in bench.metadata.aspects:
        values = ratings[ratings.aspect == aspect.name].value
        assert values.min() >= aspect.min and values.max() <= aspect.max
    assert bench.skipped == {}


def test_usr_topical_first_item(data_root: Path) -> None:
    frame = load_benchmark("usr-topical").to_pandas().set_index("item_id")
    row = frame.loc["usr-topical/0000/argmax-decoding"]
    assert row.response.startswith("i think it 's interesting that peter gabriel")
    assert row.scores["overall"] == pytest.approx((4 + 3 + 3) / 3)
    assert row.scores["maintains_context"] == 1.0
    assert list(row.references) == [frame.loc["usr-topical/0000/original-ground-truth"].response]
    assert row.context[-1]["speaker"] == "A" and len(row.context) == 5
    assert row.grounding[0].startswith("from left , emma baker")
