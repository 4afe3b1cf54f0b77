"""PredictiveEngagement loader against the counts measured in predictive_engagement/SOURCE.md."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.predictive_engagement import (
    RATINGS_FILE,
    TRUTH_FILE,
    PredictiveEngagement,
)

LONDON = "how long will it take us to drive to London ?"
SOUP_LINE = "What about soup ?,I think I'm very interested in my mother . But I'll have to see my face I don't need to earth .,1,"


def test_counts_match_source(data_root: Path) -> None:
    bench = load_benchmark("predictive-engagement")
    frame = bench.to_pandas()
    assert len(frame) == 600
    assert frame.item_id.is_unique
    assert frame.system.value_counts().to_dict() == {"generated": 300, "ground-truth": 300}
    assert frame.dialogue_id.nunique() == 299
    assert bench.metadata.aspect_names == ("engagement",)
    ratings = bench.ratings()
    assert len(ratings) == 1800
    assert ratings.groupby("item_id").size().eq(3).all()
    assert ratings.value.min() == 1 and ratings.value.max() == 5
    truth = ratings[ratings.system == "ground-truth"]
    assert truth.annotator.notna().all() and truth.annotator.nunique() == 24
    assert ratings[ratings.system == "generated"].annotator.isna().all()
    assert frame.context.map(len).eq(1).all()
    assert frame.references.map(len).eq(0).all()
    assert bench.skipped == {}


def test_items_by_hand(data_root: Path) -> None:
    frame = load_benchmark("predictive-engagement").to_pandas().set_index("item_id")
    first = frame.loc["predictive-engagement/0000"]
    assert first.context[0]["text"] == LONDON and first.response == "Not really ."
    assert first.system == "generated"
    assert first.scores["engagement"] == pytest.approx((2 + 1 + 2) / 3)
    truth = frame[(frame.dialogue_id == first.dialogue_id) & (frame.index != first.name)].iloc[0]
    assert truth.system == "ground-truth"
    assert truth.response.startswith("I think it ' s a distance of 180 kilometers")
    assert truth.scores["engagement"] == 5.0
    assert sorted(r["annotator"] for r in truth.ratings) == ["WR_5BIC", "WR_AC8T", "WR_YTX7"]


def test_metric_columns_are_not_human_scores(data_root: Path) -> None:
    scores = load_benchmark("predictive-engagement").human_scores()
    assert ((scores >= 1) & (scores <= 5)).all()
    assert set(load_benchmark("predictive-engagement").ratings().aspect) == {"engagement"}


def _patched_root(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    target_file: str,
    edit: Callable[[str], str],
) -> Path:
    """A data root with both files, `target_file` edited, the declared sha256 matched."""
    meta = PredictiveEngagement.metadata
    sources = []
    for source in meta.sources:
        target = tmp_path / source.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_root / source.path, target)
        if source.path == target_file:
            original = target.read_text(encoding="utf-8")
            text = edit(original)
            assert text != original
            target.write_text(text, encoding="utf-8")
            digest = hashlib.sha256(target.read_bytes()).hexdigest()
            source = dataclasses.replace(source, sha256=digest)
        sources.append(source)
    monkeypatch.setattr(
        PredictiveEngagement, "metadata", dataclasses.replace(meta, sources=tuple(sources))
    )
    return tmp_path


@pytest.mark.parametrize("value", ["", "9", "2.5"])
def test_bad_rating_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    root = _patched_root(
        data_root,
        tmp_path,
        monkeypatch,
        RATINGS_FILE,
        lambda text: text.replace(SOUP_LINE, SOUP_LINE[:-2] + f",{value},", 1),
    )
    with pytest.raises(DataFormatError) as info:
        load_benchmark("predictive-engagement", data_dir=root, cache=False)
    assert "Eng_Scores_queries_gen_gtruth_replies.csv, line 7" in str(info.value)
    assert info.value.field == "human_score"


def test_bad_worker_rating_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def blank_answer_of_second_hit(text: str) -> str:
        rows = list(csv.reader(io.StringIO(text, newline="")))
        rows[2][rows[0].index("Answer.pair1")] = ""
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator="\n").writerows(rows)
        return out.getvalue()

    root = _patched_root(data_root, tmp_path, monkeypatch, TRUTH_FILE, blank_answer_of_second_hit)
    with (root / TRUTH_FILE).open(newline="") as handle:
        reader = csv.reader(handle)
        next(reader), next(reader)
        second_hit_line = reader.line_num + 1
    with pytest.raises(DataFormatError) as info:
        load_benchmark("predictive-engagement", data_dir=root, cache=False)
    assert info.value.line == second_hit_line and info.value.record == "HIT 1"
    assert info.value.field == "Answer.pair1"


def test_disagreeing_ground_truth_batch_is_an_error(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _patched_root(
        data_root,
        tmp_path,
        monkeypatch,
        RATINGS_FILE,
        lambda text: text.replace(
            'two-hour drive on the motorway .",5,', 'two-hour drive on the motorway .",4,', 1
        ),
    )
    with pytest.raises(DataFormatError, match=r"differ from those in the ratings file \(lines"):
        load_benchmark("predictive-engagement", data_dir=root, cache=False)
