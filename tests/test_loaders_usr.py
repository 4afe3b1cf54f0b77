"""USR loaders against the counts measured in usr/SOURCE.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.base import Parsed, SourceFiles
from comperbench.loaders.usr import GROUND_TRUTH, UsrTopical, parse_usr


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


def _edited_root(tmp_path: Path, data_root: Path, edit: object) -> Path:
    """A data root holding a copy of usr-topical's file with `edit` applied to its contexts."""
    source = data_root / "usr" / "usr_topical_chat.json"
    contexts = json.loads(source.read_text())
    edit(contexts)  # type: ignore[operator]
    root = tmp_path / "data"
    (root / "usr").mkdir(parents=True)
    (root / "usr" / "usr_topical_chat.json").write_text(json.dumps(contexts))
    return root


def _parse_topical(root: Path) -> Parsed:
    key = UsrTopical.metadata.sources[0].path
    return parse_usr(SourceFiles({key: root / key}), key, "usr-topical")


def _ground_truth(contexts: list[dict[str, Any]], index: int) -> dict[str, Any]:
    return next(r for r in contexts[index]["responses"] if r["model"] == GROUND_TRUTH)


def test_ground_truth_without_response_is_a_located_error(data_root: Path, tmp_path: Path) -> None:
    root = _edited_root(tmp_path, data_root, lambda c: _ground_truth(c, 2).pop("response"))
    with pytest.raises(
        DataFormatError, match=r"usr_topical_chat\.json.*2\.responses\[\d\].*response"
    ):
        _parse_topical(root)


def test_rating_outside_the_scale_is_an_error(data_root: Path, tmp_path: Path) -> None:
    def edit(contexts: list[dict[str, Any]]) -> None:
        contexts[1]["responses"][0]["Overall"][0] = 9

    with pytest.raises(DataFormatError, match=r"rating 9 is outside the scale 1-5") as info:
        _parse_topical(_edited_root(tmp_path, data_root, edit))
    assert "1.responses[0]" in str(info.value) and "Overall" in str(info.value)


def test_rating_that_is_not_a_number_is_an_error(data_root: Path, tmp_path: Path) -> None:
    def edit(contexts: list[dict[str, Any]]) -> None:
        contexts[0]["responses"][1]["Natural"][2] = "3"

    with pytest.raises(DataFormatError, match=r"rating '3' is not a number"):
        _parse_topical(_edited_root(tmp_path, data_root, edit))
